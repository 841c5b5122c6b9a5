"""The rating chart: a PNG of the size asked for (the full width and a phone's 390 pixels), the
same bytes for the same history, gains and losses told apart by shape and by colours that stay
apart for every kind of colour vision, markers left out when the games are too many to mark,
and any language's words and separators."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from bot.presentation.images import chart_labels
from bot.presentation.messages import GROUP_SEPARATORS
from engine import Color
from render import palette, rating_chart
from render.fonts import covers
from render.rating_chart import (
    CHART_HEIGHT,
    CHART_WIDTH,
    GAIN,
    GRID,
    LINE,
    LOSS,
    MARKED_GAMES,
    SAMPLE,
    ChartLabels,
    grouped,
    main,
    render_rating_chart,
)
from render.text import draw_text
from render.vision import DEFICIENCIES, closest_pair
from tests.render.conftest import decode

PHONE_WIDTH = 390
SMALLEST_ON_A_PHONE = 12
"""The smallest text, in pixels, once a phone shows the chart 390 px wide."""
MIN_DIFFERENCE = 15.0
"""CIEDE2000 the chart's marks keep from each other and from what lies behind them."""


def pixels(image: Image.Image, color: tuple[int, int, int]) -> list[tuple[int, int]]:
    width, height = image.size
    data = image.load()
    assert data is not None
    return [(x, y) for y in range(height) for x in range(width) if data[x, y] == color]


def profile(marker: list[tuple[int, int]]) -> tuple[dict[int, int], int, int, int]:
    """A marker's pixels counted per row, its top and bottom rows, and its widest row."""
    rows: dict[int, int] = {}
    for _, y in marker:
        rows[y] = rows.get(y, 0) + 1
    top, bottom = min(rows), max(rows)
    widest = max(rows, key=lambda y: rows[y])
    return rows, top, bottom, widest


def test_the_chart_is_drawn_at_full_width_and_at_a_phone_s() -> None:
    full = decode(render_rating_chart(SAMPLE))
    assert full.size == (CHART_WIDTH, CHART_HEIGHT)
    phone = decode(render_rating_chart(SAMPLE, width_px=390))
    assert phone.size == (390, round(CHART_HEIGHT * 390 / CHART_WIDTH))
    assert pixels(phone, LOSS), "the markers are still drawn on a phone"


def test_the_same_history_gives_the_same_bytes() -> None:
    assert render_rating_chart(SAMPLE) == render_rating_chart(SAMPLE)
    assert render_rating_chart(SAMPLE) != render_rating_chart(SAMPLE[:-1])


@pytest.mark.parametrize("deficiency", [None, *DEFICIENCIES])
def test_gains_losses_and_the_line_stand_out_for_every_colour_vision(
    deficiency: str | None,
) -> None:
    for behind in (palette.PANEL, palette.BACKGROUND, GRID):
        assert closest_pair([GAIN, LOSS, behind], deficiency) >= MIN_DIFFERENCE
    assert closest_pair([LINE, palette.PANEL], deficiency) >= MIN_DIFFERENCE


def test_a_loss_is_a_triangle_pointing_down() -> None:
    """The only white pixels are the loss's marker: widest at its top (its base), a point at
    its bottom."""
    image = decode(render_rating_chart((1500, 1454, 1470)))
    white = pixels(image, LOSS)
    assert white
    rows, top, bottom, widest = profile(white)
    assert widest - top < (bottom - top) / 3, "the base is on top"
    assert rows[bottom] <= 3, "the point is at the bottom"


def test_a_gain_is_a_triangle_pointing_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mirror of a loss: a point at its top, widest at its bottom (its base), so that the
    shape alone tells a gain from a loss. A gain is filled in the line's colour; here it is
    painted in a palette colour the chart does not use, so its pixels can be told apart."""
    marked = palette.RUG_STYLES[Color.BLUE].fill
    history = (1500, 1546, 1530)
    assert not pixels(decode(render_rating_chart(history)), marked)
    monkeypatch.setattr(rating_chart, "GAIN", marked)
    gain = pixels(decode(render_rating_chart(history)), marked)
    assert gain
    rows, top, bottom, widest = profile(gain)
    assert bottom - widest < (bottom - top) / 3, "the base is at the bottom"
    assert rows[top] <= 3, "the point is on top"


def test_a_history_without_losses_draws_no_loss_marker() -> None:
    assert not pixels(decode(render_rating_chart((1500, 1550, 1590, 1610))), LOSS)


def test_too_many_games_to_mark_are_drawn_as_a_line() -> None:
    many = tuple(1500 + (game % 7) * 9 - 30 for game in range(MARKED_GAMES + 5))
    image = decode(render_rating_chart(many))
    assert not pixels(image, LOSS)
    assert pixels(image, LINE)


def test_every_game_is_marked_up_to_marked_games_and_none_beyond(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chart has a point more than games (the value before the first): `MARKED_GAMES`
    games still have their steps marked, each game's at its point from left to right with its
    own change, a loss among them; one game more is a bare line."""

    def history(games: int) -> tuple[int, ...]:
        return tuple(1500 + (game % 7) * 9 - 30 for game in range(games + 1))

    marked: list[tuple[float, int]] = []
    marker = rating_chart._marker

    def recording(draw: Any, at: tuple[float, float], change: int, *how: float) -> None:
        marked.append((at[0], change))
        marker(draw, at, change, *how)

    monkeypatch.setattr(rating_chart, "_marker", recording)
    full = history(MARKED_GAMES)
    assert pixels(decode(render_rating_chart(full)), LOSS)
    assert [change for _, change in marked] == [b - a for a, b in itertools.pairwise(full)]
    xs = [x for x, _ in marked]
    assert xs == sorted(set(xs)), "one marker per point, left to right"
    marked.clear()
    assert not pixels(decode(render_rating_chart(history(MARKED_GAMES + 1))), LOSS)
    assert marked == []


def test_a_newcomer_s_chart_has_the_start_alone() -> None:
    assert decode(render_rating_chart((1500,))).size == (CHART_WIDTH, CHART_HEIGHT)
    with pytest.raises(ValueError, match="starting value"):
        render_rating_chart(())


def test_other_words_and_separators() -> None:
    labels = ChartLabels(title="Рейтинг", games="ігри", provisional="попередній")
    png = render_rating_chart(SAMPLE, labels=labels, separator="\u00a0")
    assert decode(png).size == (CHART_WIDTH, CHART_HEIGHT)
    assert png != render_rating_chart(SAMPLE)
    assert grouped(1532, "\u202f") == "1\u202f532"
    assert grouped(987) == "987"


def test_the_sample_command_writes_a_picture(tmp_path: Path) -> None:
    assert main([str(tmp_path / "chart.png")]) == 0
    assert main([str(tmp_path / "phone.png"), "390"]) == 0
    assert Image.open(tmp_path / "phone.png").width == 390
    docs = Path(__file__).parents[2] / "docs"
    for drawn, shown in (
        ("chart.png", "rating-chart.png"),
        ("phone.png", "rating-chart-phone.png"),
    ):
        redraw = (
            "python -m render.rating_chart docs/rating-chart.png (phone: docs/...-phone.png 390)"
        )
        assert (tmp_path / drawn).read_bytes() == (docs / shown).read_bytes(), (
            f"docs/{shown} is out of date: {redraw}"
        )
    with pytest.raises(SystemExit) as stopped:
        main([])
    assert stopped.value.code == 2


def test_a_game_that_changed_nothing_is_not_marked_as_a_loss() -> None:
    """A game that left the rating as it was is marked by a dot, not a loss's triangle."""
    assert not pixels(decode(render_rating_chart((1500, 1500, 1500))), LOSS)


def test_the_last_value_is_ringed_at_the_line_s_end() -> None:
    """The ring in Assam's colour is drawn round the line's last point, at its right end."""
    image = decode(render_rating_chart((1500, 1520, 1490, 1510)))
    ring = pixels(image, palette.ASSAM_RING)
    assert ring
    centre = sum(x for x, _ in ring) / len(ring)
    line_end = max(x for x, _ in pixels(image, LINE))
    assert abs(centre - line_end) <= 12


def test_the_large_number_is_the_rating_now_not_the_best(monkeypatch: pytest.MonkeyPatch) -> None:
    """The large number in the corner is what a member reads first: after a loss it is the
    rating they have now, below their best."""
    bold: list[tuple[int, str]] = []

    def recording(image: Image.Image, xy: tuple[float, float], words: str, **how: Any) -> None:
        if how.get("bold"):
            bold.append((how["size"], words))
        draw_text(image, xy, words, **how)

    monkeypatch.setattr(rating_chart, "draw_text", recording)
    render_rating_chart((1500, 1600, 1550))
    largest = max(size for size, _ in bold)
    assert [words for size, words in bold if size == largest] == ["1,550"]


def test_the_provisional_band_covers_just_the_provisional_ratings() -> None:
    """Against a chart with no provisional game, the hatched band reaches the last point where
    the rating was still provisional: after 4 games when it is provisional for 5, after 9 when
    for 10. After exactly 10 games the rating is settled, and so is the chart's last stretch."""
    history = tuple(1500 + (game % 3) * 8 for game in range(11))
    plain = decode(render_rating_chart(history, provisional=0))
    early = ImageChops.difference(plain, decode(render_rating_chart(history, provisional=5)))
    late = ImageChops.difference(plain, decode(render_rating_chart(history, provisional=10)))
    longer = decode(render_rating_chart((*history, 1520), provisional=0))
    still = ImageChops.difference(longer, decode(render_rating_chart((*history, 1520))))
    early_box, late_box, still_box = early.getbbox(), late.getbbox(), still.getbbox()
    assert early_box is not None
    assert late_box is not None
    assert still_box is not None
    left = late_box[0]
    assert early_box[0] == left
    assert abs((early_box[2] - left) - (late_box[2] - left) * 4 / 9) <= 3
    assert late_box[2] < plain.width - 60, "the band stops short of the settled tenth game"


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_the_title_and_every_number_are_12_px_once_a_phone_shows_the_chart(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Drawn 800 px wide and shown 390 px wide on a phone, the title, the rating now and each
    value and game number on the axes, in the bot's words and separators for each language,
    are each still 12 px there."""
    labels = chart_labels(language)
    drawn: list[tuple[str, int]] = []

    def recording(image: Image.Image, xy: tuple[float, float], words: str, **how: Any) -> None:
        drawn.append((words, how["size"]))
        draw_text(image, xy, words, **how)

    monkeypatch.setattr(rating_chart, "draw_text", recording)
    separator = GROUP_SEPARATORS.get(language, ",")
    render_rating_chart(SAMPLE, labels=labels, separator=separator)
    read = [
        (words, size) for words, size in drawn if words not in (labels.games, labels.provisional)
    ]
    assert {labels.title, grouped(SAMPLE[-1], separator), "25"} <= {words for words, _ in read}
    for words, size in read:
        assert size * PHONE_WIDTH / CHART_WIDTH >= SMALLEST_ON_A_PHONE, (words, size)


def test_a_rating_below_zero_is_written_with_a_minus_sign_the_font_draws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rating under zero (no floor holds it up) is written with the minus sign (U+2212),
    not a hyphen, on the grid and in the large number alike, and the bundled font has a
    glyph for it."""
    drawn: list[str] = []

    def recording(image: Image.Image, xy: tuple[float, float], words: str, **how: Any) -> None:
        drawn.append(words)
        draw_text(image, xy, words, **how)

    monkeypatch.setattr(rating_chart, "draw_text", recording)
    render_rating_chart((100, 20, -60, -120))
    assert "\u2212120" in drawn, drawn
    numbers = [words for words in drawn if any(c.isdigit() for c in words)]
    assert not [words for words in numbers if "-" in words], numbers
    assert any(words.startswith("\u2212") for words in numbers[:-1]), "a grid value below 0"
    assert grouped(-1532, "\u202f") == "\u22121\u202f532"
    assert covers("\u2212")
    assert covers("\u2212", bold=True)
