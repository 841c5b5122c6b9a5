"""The palette stays readable for colour-blind players, and each colour has its own mark."""

from __future__ import annotations

import dataclasses
from itertools import combinations

import pytest
from PIL import Image

from engine import Color
from render import palette
from render.sprites import rug_piece
from render.vision import (
    DEFICIENCIES,
    closest_pair,
    delta_e,
    delta_e_lab,
    simulate,
    simulate_image,
)

# Rug colours (and the empty square) must differ by at least this CIEDE2000 for every vision.
MIN_DIFFERENCE = 15.0

WHITE, BLACK = (255, 255, 255), (0, 0, 0)
"""The paper and the ink the marks are drawn with when their shapes alone are compared."""


@pytest.mark.parametrize("deficiency", [None, *DEFICIENCIES])
def test_rug_colors_stay_apart(deficiency: str | None) -> None:
    colors = list(palette.DISTINGUISHED.values())
    assert closest_pair(colors, deficiency) >= MIN_DIFFERENCE


def test_the_check_catches_a_palette_that_fails_protanopes() -> None:
    # A textbook red and brown: fine for normal vision, nearly the same to a protanope.
    red, brown = (198, 40, 40), (109, 76, 47)
    assert closest_pair([red, brown]) > MIN_DIFFERENCE
    assert closest_pair([red, brown], "protanopia") < 5


def test_distinguished_covers_every_rug_color_the_neutral_and_the_empty_square() -> None:
    expected = {c.value for c in Color} | {"neutral", "empty"}
    assert set(palette.DISTINGUISHED) == expected


def test_every_color_has_its_own_mark() -> None:
    styles = [*palette.RUG_STYLES.values(), palette.NEUTRAL_STYLE]
    assert len({style.mark for style in styles}) == len(styles) == 5
    assert set(palette.RUG_STYLES) == set(Color)


def _mark_drawn(style: palette.RugStyle) -> frozenset[tuple[int, int]]:
    """The pixels a rug square of `style` inks when drawn in black on white: its mark, and the
    inner border every style shares, so that only the shapes differ."""
    plain = dataclasses.replace(style, fill=WHITE, outline=WHITE, motif=BLACK)
    piece = rug_piece(64, plain, (1, 1)).convert("L")
    width = piece.width
    return frozenset(
        (index % width, index // width)
        for index, value in enumerate(piece.tobytes())
        if value < 128
    )


def test_each_colour_s_mark_is_drawn_in_a_shape_of_its_own() -> None:
    """The marks drawn on the board, not only the palette's table, tell the colours apart (red
    diamonds, yellow dots, blue bars, brown crosses, neutral hatching): two of them drawing the
    same shape would leave a colour-blind player the colour alone."""
    styles = {color.value: style for color, style in palette.RUG_STYLES.items()}
    styles["neutral"] = palette.NEUTRAL_STYLE
    drawn = {name: _mark_drawn(style) for name, style in styles.items()}
    for (one, a), (other, b) in combinations(drawn.items(), 2):
        apart = len(a ^ b) / len(a | b)
        assert apart > 0.2, f"{one} and {other} carry nearly the same mark ({apart:.0%} apart)"


@pytest.mark.parametrize("deficiency", list(DEFICIENCIES))
def test_simulation_keeps_greys_and_changes_hues(deficiency: str) -> None:
    for grey in ((0, 0, 0), (128, 128, 128), (255, 255, 255)):
        assert max(abs(a - b) for a, b in zip(simulate(grey, deficiency), grey, strict=True)) <= 1
    assert simulate((224, 64, 42), deficiency) != (224, 64, 42)


def test_protanopia_simulation_matches_machado_for_pure_red() -> None:
    # Linear red (1, 0, 0) times the first column of Machado's protanopia matrix, re-encoded.
    assert simulate((255, 0, 0), "protanopia") == (109, 95, 0)


@pytest.mark.parametrize(
    ("deficiency", "red", "green", "blue"),
    [
        ("protanopia", (109, 95, 0), (255, 229, 0), (0, 89, 255)),
        ("deuteranopia", (163, 144, 0), (239, 214, 58), (0, 61, 251)),
        ("tritanopia", (255, 0, 15), (0, 247, 217), (0, 107, 150)),
    ],
)
def test_each_simulation_matches_machado_for_the_pure_primaries(
    deficiency: str,
    red: tuple[int, int, int],
    green: tuple[int, int, int],
    blue: tuple[int, int, int],
) -> None:
    """Pure red, green and blue each pick one column of the deficiency's matrix (Machado,
    Oliveira and Fernandes 2009, severity 1.0), so the three check the whole matrix: the
    palette's guarantee for each deficiency rests on its own simulation being right."""
    primaries = ((255, 0, 0), (0, 255, 0), (0, 0, 255))
    assert [simulate(colour, deficiency) for colour in primaries] == [red, green, blue]


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [  # Sharma, Wu and Dalal (2005), test data pairs 1, 7 and 17.
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ],
)
def test_ciede2000_matches_reference_data(
    first: tuple[float, float, float], second: tuple[float, float, float], expected: float
) -> None:
    assert delta_e_lab(first, second) == pytest.approx(expected, abs=1e-4)


def test_delta_e_of_identical_colors_is_zero() -> None:
    assert delta_e((12, 34, 56), (12, 34, 56)) == 0


def test_a_whole_picture_can_be_seen_as_a_dichromat_sees_it() -> None:
    picture = Image.new("RGB", (4, 2), palette.SQUARE)
    picture.putpixel((0, 0), palette.RUG_STYLES[Color.RED].fill)
    seen = simulate_image(picture, "deuteranopia")
    assert seen.size == picture.size
    assert seen.getpixel((0, 0)) == simulate(palette.RUG_STYLES[Color.RED].fill, "deuteranopia")
    assert seen.getpixel((3, 1)) == simulate(palette.SQUARE, "deuteranopia")
