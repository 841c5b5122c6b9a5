"""Display names made drawable by the bundled font, and shortened to fit.

Player names come from Discord and may hold anything: accented Latin, Cyrillic, Greek, CJK,
emoji, "fancy" letters from the mathematical alphabets, joiners and variation selectors. The
picture must never show a box (tofu) for a character the face lacks, so each character is
checked against the face's own character map (render.fonts) and kept, replaced or dropped:

- kept when the face has a glyph for it and it draws on its own from left to right;
- replaced by its compatibility form (NFKC) when that one is drawable: the fullwidth letters,
  the circled ones and the mathematical bold, italic or script alphabets that "fancy" names
  use become plain letters; else by its base letter when only an accent is missing;
- dropped otherwise: CJK and other scripts the face does not cover, emoji (a keycap keeps its
  digit), control and format characters (joiners, variation selectors, direction marks),
  combining marks that do not compose with the letter before them (NFC composes the rest),
  and right-to-left letters (Hebrew, Arabic), which the basic layout engine would draw in the
  wrong order and unjoined.

Dropping rather than transliterating keeps the rule simple and predictable: the standard
library has no transliteration, and a name of Han characters has no spelling in Latin letters
that its owner would recognise for sure.

Spaces are collapsed. A name left empty, or left with no letter, digit or symbol after
something was dropped, is not shown: the caller's fallback (the seat label) is drawn instead,
so a name is never invented and never drawn as something unreadable.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from render.fonts import FREETYPE_LOCK, covers, font

ELLIPSIS = "\u2026"
RIGHT_TO_LEFT = frozenset({"R", "AL", "AN"})


def _draws_alone(char: str, bold: bool) -> bool:
    """Whether `char` is drawn exactly by the basic layout: a covered, visible, left-to-right
    character that does not need to combine with another."""
    category = unicodedata.category(char)
    if category[0] in "CZ" or category in ("Mn", "Me"):
        return False
    if unicodedata.bidirectional(char) in RIGHT_TO_LEFT:
        return False
    return covers(char, bold=bold)


@lru_cache(maxsize=8192)
def _replacement(char: str, bold: bool) -> str:
    """What `char` is drawn as: itself, a space, a drawable stand-in, or nothing."""
    if unicodedata.category(char)[0] == "Z" or char in "\t\n\r":
        return " "
    if _draws_alone(char, bold):
        return char
    compatible = unicodedata.normalize("NFKC", char)
    if compatible != char and all(c == " " or _draws_alone(c, bold) for c in compatible):
        return compatible
    bases = "".join(
        c for c in unicodedata.normalize("NFKD", char) if unicodedata.category(c) != "Mn"
    )
    if bases and bases != char and all(_draws_alone(c, bold) for c in bases):
        return bases
    return ""


def _meaningful(text: str) -> bool:
    """Whether `text` holds a letter, a digit or a symbol (not only punctuation)."""
    return any(unicodedata.category(c)[0] in "LNS" for c in text)


@lru_cache(maxsize=1024)
def drawable(text: str, *, bold: bool = False) -> str:
    """`text` as the bundled face (regular or bold) draws it exactly: normalised to NFC, each
    character kept, replaced or dropped as the module says, spaces collapsed. Empty when
    nothing drawable and meaningful is left."""
    composed = unicodedata.normalize("NFC", text)
    kept = "".join(_replacement(char, bold) for char in composed)
    result = " ".join(kept.split())
    lost = result != " ".join(composed.split())
    if not result or (lost and not _meaningful(result)):
        return ""
    return result


def display_name(name: str | None, fallback: str, *, bold: bool = False) -> str:
    """The drawable form of `name`, or of `fallback` (the seat label) when the name is None
    or nothing of it can be drawn."""
    shown = drawable(name, bold=bold) if name is not None else ""
    return shown or drawable(fallback, bold=bold)


@lru_cache(maxsize=1024)
def shorten(text: str, size: int, max_width: int, *, bold: bool = False) -> str:
    """`text` cut at the end with an ellipsis so that it is at most `max_width` pixels wide at
    `size` pixels; unchanged when it already fits."""
    face = font(size, bold=bold)
    with FREETYPE_LOCK:
        if face.getlength(text) <= max_width:
            return text
        low, high = 0, len(text)  # the longest prefix that fits lies in [low, high)
        while low < high - 1:
            mid = (low + high) // 2
            if face.getlength(text[:mid].rstrip() + ELLIPSIS) <= max_width:
                low = mid
            else:
                high = mid
    return text[:low].rstrip() + ELLIPSIS


@lru_cache(maxsize=1024)
def fit_name(
    text: str, size: int, max_width: int, *, bold: bool = False, least: float = 0.8
) -> tuple[str, int]:
    """How to draw `text` in `max_width` pixels: at the largest size from `size` down to
    `least` of it (four fifths unless said) at which the whole text fits, else at that least
    size and shortened with an ellipsis. Returns (text to draw, size)."""
    smallest = max(8, round(size * least))
    with FREETYPE_LOCK:
        for candidate in range(size, smallest - 1, -1):
            if font(candidate, bold=bold).getlength(text) <= max_width:
                return text, candidate
    return shorten(text, smallest, max_width, bold=bold), smallest
