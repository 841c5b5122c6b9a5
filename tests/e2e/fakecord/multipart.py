"""A small multipart/form-data parser for the bodies discord.py sends (payload_json + files)."""

from __future__ import annotations

from dataclasses import dataclass
from email.message import Message
from email.parser import HeaderParser


@dataclass(frozen=True, slots=True)
class FormPart:
    """One part of a form: its field name, file name and content type if given, and bytes."""

    name: str
    filename: str | None
    content_type: str | None
    data: bytes


class MultipartError(ValueError):
    """The body is not the multipart/form-data its Content-Type announced."""


def parse_form(body: bytes, content_type: str) -> list[FormPart]:
    """Split ``body`` on the boundary named in ``content_type`` (binary data kept exact)."""
    header = Message()
    header["Content-Type"] = content_type
    boundary = header.get_param("boundary")
    if not isinstance(boundary, str) or not boundary:
        raise MultipartError("multipart body without a boundary")
    sections = body.split(b"--" + boundary.encode("latin-1"))
    if len(sections) < 3 or not sections[-1].startswith(b"--"):
        raise MultipartError("multipart body without its closing boundary")
    return [_part(section) for section in sections[1:-1]]


def _part(section: bytes) -> FormPart:
    section = section.removeprefix(b"\r\n").removesuffix(b"\r\n")
    head, separator, data = section.partition(b"\r\n\r\n")
    if not separator:
        raise MultipartError("multipart part without a blank line after its headers")
    headers = HeaderParser().parsestr(head.decode("utf-8", errors="replace"))
    name = headers.get_param("name", header="content-disposition")
    if not isinstance(name, str):
        raise MultipartError("multipart part without a field name")
    content_type = headers.get_content_type() if "content-type" in headers else None
    return FormPart(name, headers.get_filename(), content_type, data)
