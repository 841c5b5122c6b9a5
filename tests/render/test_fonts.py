"""The bundled font draws Latin, Cyrillic and Greek, ships with its licence, is what the panel
uses for another language's words, and tells from its own character map what it can draw."""

from __future__ import annotations

import pytest
from PIL import ImageFont

from render.board import board_image
from render.fonts import BOLD, FONT_DIR, REGULAR, cmap_coverage, coverage, covers, font
from render.panel import ENGLISH, Labels
from render.samples import Moment

MISSING = "\U000e0100"  # a code point DejaVu has no glyph for: drawn as the .notdef box


def _glyph(text: str, bold: bool = False) -> bytes:
    mask = font(40, bold=bold).getmask(text)
    return bytes(mask) + repr(mask.size).encode()


def test_fonts_and_licence_are_bundled() -> None:
    assert REGULAR.is_file()
    assert BOLD.is_file()
    licence = (FONT_DIR / "LICENSE.txt").read_text(encoding="utf-8")
    assert "Bitstream Vera" in licence
    assert "public domain" in licence


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


def test_greek_letters_have_real_glyphs() -> None:
    for bold in (False, True):
        for letter in "ΑαΓγΔδΩωάέήίόύώϊΐ":
            assert covers(letter, bold=bold), letter
            assert _glyph(letter, bold) != _glyph(MISSING, bold), letter


@pytest.mark.parametrize("bold", [False, True])
def test_the_character_map_agrees_with_what_the_face_draws(bold: bool) -> None:
    notdef = _glyph(MISSING, bold)
    covered = coverage(bold=bold)
    assert len(covered) > 5000
    assert {ord(c) for c in "AzÉЖЯΩ€…"} <= covered
    # Every 50th covered letter or digit draws a real glyph ...
    letters = sorted(c for c in covered if chr(c).isalnum())
    for code in letters[::50]:
        assert _glyph(chr(code), bold) != notdef, hex(code)
    # ... and what the map leaves out (CJK, emoji, Thai, a private-use point) is the box.
    for char in "李龙🌸🎲ไ\ue000":
        assert not covers(char, bold=bold)
        assert _glyph(char, bold) == notdef, char


def test_a_file_without_a_character_map_is_refused() -> None:
    table_directory = b"\x00\x01\x00\x00" + b"\x00\x00" + b"\x00" * 6  # no tables
    with pytest.raises(ValueError, match="cmap"):
        cmap_coverage(table_directory)


def test_faces_use_the_basic_layout_engine_whatever_the_host_has() -> None:
    # Raqm is used only where libraqm happens to be installed; the basic engine everywhere
    # keeps the same state drawing the same pixels on every host.
    assert font(20).layout_engine == ImageFont.Layout.BASIC
    assert font(20, bold=True).layout_engine == ImageFont.Layout.BASIC
