"""Embeds that point at a file of their own message (`attachment://NAME`) and the files the
message has: Discord accepts a link to a file the message lacks and shows the embed without
that picture, so the fake records each such link for the tests to fail on instead.

A file keeps the name Discord gives it on upload (`uploaded_name`), which a link must name.

A message's files are the ones it has after the write: on a create, those sent; on an edit,
those kept (all of them when the edit says nothing of attachments) plus those sent.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from .model import FakeMessage

Json = dict[str, Any]

SCHEME = "attachment://"
LINKED = (("image", "url"), ("thumbnail", "url"), ("author", "icon_url"), ("footer", "icon_url"))
"""The places of an embed that may show a picture: (field, key of its URL)."""
NOT_KEPT = re.compile(r"[^A-Za-z0-9_.-]")
"""The characters Discord takes out of an uploaded file's name."""


def uploaded_name(name: str) -> str:
    """A file's name as Discord keeps it on upload, as werkzeug's `secure_filename` writes it
    (discord-api-docs #7754): accents dropped, anything else not ASCII gone, spaces (and
    slashes) one `_`, every other character but `_`, `.` and `-` gone, then `_` and `.` taken
    off both ends ("hello (world).png" is kept as "hello_world.png"). Discord's docs ask an
    `attachment://` link for a name of those characters alone, so the fake does not rewrite
    links: a link to a name sent otherwise names no file of its message."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return NOT_KEPT.sub("", "_".join(plain.replace("/", " ").split())).strip("._")


@dataclass(frozen=True, slots=True)
class MissingAttachment:
    """An embed's `url` names a file its message did not have after the write `write`
    ("create" or "edit"); `files` are the names the message had."""

    message_id: int
    channel_id: int
    write: str
    where: str
    url: str
    files: tuple[str, ...]

    def describe(self) -> str:
        had = ", ".join(self.files) or "none"
        return (
            f"message {self.message_id} in channel {self.channel_id} ({self.write}): "
            f"{self.where} {self.url} names no attachment of it (it has: {had})"
        )


def missing_attachments(message: FakeMessage, write: str) -> list[MissingAttachment]:
    """Every `attachment://` link of the message's embeds to a file it does not have."""
    files = tuple(attachment.filename for attachment in message.attachments)
    found = []
    for index, embed in enumerate(message.embeds):
        for field, key in LINKED:
            part = embed.get(field)
            url = part.get(key) if isinstance(part, dict) else None
            if isinstance(url, str) and url.startswith(SCHEME) and url[len(SCHEME) :] not in files:
                where = f"embeds.{index}.{field}.{key}"
                found.append(
                    MissingAttachment(message.id, message.channel_id, write, where, url, files)
                )
    return found
