"""Checks shared by the readers of JSON documents (records, positions, vector cases).

Each returns the checked value or raises FormatError saying in plain words what is wrong, so
that hostile input never ends in a KeyError or TypeError.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from engine.board import SIZE
from engine.errors import FormatError
from engine.model import PLAYER_COUNTS, Variant


def fields(raw: object, what: str, keys: Iterable[str]) -> dict[str, Any]:
    """`raw` as a JSON object holding every one of `keys`; `what` names it in the message."""
    if not isinstance(raw, dict):
        raise FormatError(f"{what} must be a JSON object")
    missing = [key for key in keys if key not in raw]
    if missing:
        raise FormatError(f"{what} lacks {', '.join(repr(k) for k in missing)}")
    return raw


def whole_number(value: object, what: str, low: int, high: int) -> int:
    """`value` if it is an int (not a bool) from `low` to `high`."""
    if type(value) is not int or not low <= value <= high:
        raise FormatError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def grid(raw: object, what: str) -> Iterator[tuple[int, object]]:
    """(square, cell) for every cell of `raw`, 7 rows of 7 cells, that is not null."""
    if not isinstance(raw, list) or len(raw) != SIZE:
        raise FormatError(f"{what} must be 7 rows of 7 cells")
    for row, line in enumerate(raw):
        if not isinstance(line, list) or len(line) != SIZE:
            raise FormatError(f"{what} must be 7 rows of 7 cells")
        for col, cell in enumerate(line):
            if cell is not None:
                yield row * SIZE + col, cell


def header(
    raw: object, noun: str, format_name: str, keys: Iterable[str]
) -> tuple[dict[str, Any], int, Variant]:
    """A `format_name` document (a "record" or a "position") holding every one of `keys`:
    the object, its players and its variant (FORMATS.md 2 and 3 share these fields)."""
    body = fields(raw, f"the {noun}", keys)
    if body["format"] != format_name:
        raise FormatError(f"not a {format_name} {noun} (format is {body['format']!r})")
    players = body["players"]
    if type(players) is not int or players not in PLAYER_COUNTS:
        raise FormatError(f'"players" must be 2, 3 or 4, not {players!r}')
    try:
        variant = Variant(body["variant"])
    except (ValueError, TypeError):
        raise FormatError('"variant" must be "standard" or "rotate-after"') from None
    return body, players, variant
