"""The bundled font draws Latin and Cyrillic, ships with its licence, and is what the panel
uses for another language's words."""

from __future__ import annotations

from render.board import board_image
from render.fonts import BOLD, FONT_DIR, REGULAR, font
from render.panel import ENGLISH, Labels
from render.samples import Moment

MISSING = "\U000e0100"  # a code point DejaVu has no glyph for: drawn as the .notdef box


def _glyph(text: str, bold: bool = False) -> bytes:
    mask = font(40, bold=bold).getmask(text)
    return bytes(mask) + repr(mask.size).encode()


def test_fonts_and_licence_are_bundled() -> None:
    assert REGULAR.is_file() and BOLD.is_file()
    licence = (FONT_DIR / "LICENSE.txt").read_text(encoding="utf-8")
    assert "Bitstream Vera" in licence and "public domain" in licence


def test_latin_and_cyrillic_letters_have_real_glyphs() -> None:
    notdef = _glyph(MISSING)
    for bold in (False, True):
        for letter in "AaZzÉéŁłÇçЖжЇїЄєҐґЩщЮюЯяЫы":
            assert _glyph(letter, bold) != _glyph(MISSING, bold), letter
    assert _glyph("Ж") != _glyph("Я") != notdef


def test_panel_words_can_be_another_language(midgame: Moment) -> None:
    english = board_image(midgame.state)
    ukrainian = board_image(midgame.state, labels=Labels(seat="Гравець {n}", turn="Хід {n}"))
    assert english.size == ukrainian.size
    assert english.tobytes() != ukrainian.tobytes()
    assert ENGLISH.seat.format(n=1) == "Seat 1"
