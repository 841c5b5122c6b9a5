"""The standings picture (render.standings): readable on a phone, by everyone.

Every text stands on its background with a contrast ratio of at least 4.5 (WCAG AA), in normal
vision and under each simulated colour-vision deficiency; shown 390 px wide its smallest text
is still 12 px high; nothing is told by colour alone; the same table always gives the same
bytes, and names the font cannot draw or cannot fit are handled."""

from __future__ import annotations

import itertools

import pytest

from render import standings
from render.fonts import covers
from render.standings import StandingsRow, StandingsTable, render_standings, standings_size
from render.vision import DEFICIENCIES, _to_linear, simulate
from tests.render.conftest import decode

PHONE_WIDTH = 390
SMALLEST_ON_A_PHONE = 12
TEXTS = {"text": standings.TEXT, "dim text": standings.TEXT_DIM}
BACKGROUNDS = {
    "row": standings.ROW,
    "other row": standings.ROW_ALT,
    "leader's row": standings.LEADER,
    "title band": standings.TITLE_BAND,
    "background": standings.BACKGROUND,
}


def luminance(color: tuple[int, int, int]) -> float:
    red, green, blue = (_to_linear(channel) for channel in color)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: tuple[int, int, int], second: tuple[int, int, int]) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def table(rows: int = 5, name: str = "Amina") -> StandingsTable:
    return StandingsTable(
        "Spring cup",
        "Round 2 of 3 · Swiss",
        ("#", "Player", "Pts", "Buch.", "Score", "Dh", "Left"),
        tuple(
            StandingsRow(str(rank), f"{name} {rank}", ("2½", "6", "140", "60", "1"), rank == 1)
            for rank in range(1, rows + 1)
        ),
    )


@pytest.mark.parametrize("vision", [None, *DEFICIENCIES])
def test_every_text_has_a_contrast_of_at_least_4_5(vision: str | None) -> None:
    for (text, ink), (ground, fill) in itertools.product(TEXTS.items(), BACKGROUNDS.items()):
        if vision is not None:
            ink, fill = simulate(ink, vision), simulate(fill, vision)
        assert contrast(ink, fill) >= 4.5, (text, ground, vision)


def test_the_smallest_text_is_readable_at_a_phone_s_width() -> None:
    scale = PHONE_WIDTH / standings.WIDTH
    smallest_name = round(standings.CELL_SIZE * 0.8)  # a long name shrinks to four fifths
    for size in (standings.HEADER_SIZE, standings.SUBTITLE_SIZE, smallest_name):
        assert size * scale >= SMALLEST_ON_A_PHONE


def test_the_leaders_carry_a_star_as_well_as_a_lighter_row() -> None:
    assert covers(standings.STAR)
    assert contrast(standings.LEADER, standings.ROW) > 1.2
    assert contrast(standings.LEADER, standings.ROW_ALT) > 1.2


def test_the_picture_is_as_tall_as_its_rows_and_always_the_same() -> None:
    png = render_standings(table(5))
    image = decode(png)
    assert image.size == standings_size(5)
    assert decode(render_standings(table(12))).size == standings_size(12)
    assert standings_size(12)[1] - standings_size(5)[1] == 7 * standings.ROW_HEIGHT
    assert render_standings(table(5)) == png


def test_names_the_font_cannot_draw_or_fit_still_give_a_picture() -> None:
    for name in ("🎲🎲", "李雷", "A" * 120, "Олександра-Катерина Шевченко-Коваленко"):
        image = decode(render_standings(table(2, name)))
        assert image.size == standings_size(2)
