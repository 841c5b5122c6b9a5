"""The accuracy under the rating chart: one bar per judged game, oldest on the left, and the
older and newer half's means as light bars whose step is the trend (with an odd count, the
oldest game in neither half); drawn alone before any rated game; readable at a phone's 390
pixels and for every kind of colour vision."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image, ImageChops

from bot.presentation.community import accuracy_strip as stats_strip
from bot.services.views import Accuracy
from render import accuracy_strip, palette
from render.accuracy_strip import BAR, MEAN, RIM, STRIP_HEIGHT, AccuracyStrip
from render.rating_chart import CHART_HEIGHT, CHART_WIDTH, SAMPLE, render_rating_chart
from render.text import draw_text
from render.vision import DEFICIENCIES, closest_pair
from tests.render.conftest import decode

MIN_DIFFERENCE = 15.0
RISING = tuple(60.0 + game * 1.5 for game in range(20))
STRIP = AccuracyStrip(RISING, "Accuracy, last 20 games", "74%", "+15.0", 1)
PHONE_WIDTH = 390
SMALLEST_ON_A_PHONE = 12
"""The smallest text, in pixels, once a phone shows the picture 390 px wide."""


def runs(image: Image.Image, y: int, color: tuple[int, int, int]) -> list[tuple[int, int]]:
    """The runs (first x, last x) of `color` along row `y`."""
    data = image.load()
    assert data is not None
    found: list[tuple[int, int]] = []
    for x in range(image.width):
        if data[x, y] == color:
            if found and found[-1][1] == x - 1:
                found[-1] = (found[-1][0], x)
            else:
                found.append((x, x))
    return found


def mean_rows(image: Image.Image, x: int, top: int) -> list[int]:
    """The rows below `top` where column `x` shows a half's mean."""
    data = image.load()
    assert data is not None
    return [y for y in range(top, image.height) if data[x, y] == MEAN]


@pytest.mark.parametrize("width", [CHART_WIDTH, 390])
def test_one_bar_per_game_under_the_rating_at_full_width_and_on_a_phone(width: int) -> None:
    scale = width / CHART_WIDTH
    image = decode(render_rating_chart(SAMPLE, width_px=width, accuracy=STRIP))
    assert image.size == (width, round(CHART_HEIGHT * scale) + round(STRIP_HEIGHT * scale))
    near_bottom = image.height - round(30 * scale)
    bars = runs(image, near_bottom, BAR)
    assert len(bars) == len(RISING), "every game its own bar, apart from the next"
    assert min(last - first + 1 for first, last in bars) >= 4, "wide enough to see"


def test_the_newer_half_s_mean_stands_above_the_older_half_s_when_rising() -> None:
    image = decode(render_rating_chart((), accuracy=STRIP))
    assert image.size == (CHART_WIDTH, STRIP_HEIGHT), "alone before any rated game"
    bars = runs(image, image.height - 30, BAR)
    older, newer = bars[4], bars[15]
    top = 80  # below the header's words
    older_rows = mean_rows(image, (older[0] + older[1]) // 2, top)
    newer_rows = mean_rows(image, (newer[0] + newer[1]) // 2, top)
    assert older_rows
    assert newer_rows
    assert max(newer_rows) < min(older_rows), "higher on the picture: a better mean"


def test_with_an_odd_count_the_oldest_game_is_left_out_of_the_halves() -> None:
    """Each half has as many games as the other, as in the trend the words give (+30 here):
    the 2nd and 3rd games against the 4th and 5th. With the oldest in the older half, the
    newer half's mean would be three games over two, drawn above the top of the scale."""
    odd = AccuracyStrip((40.0, 60.0, 60.0, 90.0, 90.0), "Accuracy, last 5 games", "68%", "+30.0", 1)
    image = decode(render_rating_chart((), accuracy=odd))
    bars = runs(image, image.height - 30, BAR)
    assert len(bars) == 5
    means = [mean_rows(image, (first + last) // 2, 80) for first, last in bars]
    assert not means[0], "the oldest game is left out of the halves"
    assert all(means[1:]), "every other game is under its half's mean"
    assert means[1] == means[2], "one mean across the older half"
    assert means[3] == means[4], "one mean across the newer half"
    assert max(means[3]) < min(means[1]), "the newer half's mean above the older's"


def bar_heights(image: Image.Image, bars: list[tuple[int, int]]) -> list[int]:
    """Each bar's height as it shows: its BAR pixels down its middle column."""
    data = image.load()
    assert data is not None
    return [
        sum(1 for y in range(image.height) if data[(first + last) // 2, y] == BAR)
        for first, last in bars
    ]


@pytest.mark.parametrize("width", [CHART_WIDTH, PHONE_WIDTH])
def test_a_game_just_above_its_half_s_mean_stands_taller_than_one_just_below(width: int) -> None:
    """The means run behind the bars, so no bar's top is hidden where it meets its half's
    mean: of two games 4 points apart around their half's mean, the better one's bar shows
    taller, and the mean shows in the gap between them."""
    straddling = AccuracyStrip(
        (58.0, 62.0, 88.0, 92.0), "Accuracy, last 4 games", "75%", "+30.0", 1
    )
    image = decode(render_rating_chart((), width_px=width, accuracy=straddling))
    scale = width / CHART_WIDTH
    bars = runs(image, image.height - round(30 * scale), BAR)
    assert len(bars) == 4
    heights = bar_heights(image, bars)
    assert heights[1] > heights[0], heights
    assert heights[3] > heights[2], heights
    top = round(80 * scale)
    older = mean_rows(image, (bars[0][1] + bars[1][0]) // 2, top)
    newer = mean_rows(image, (bars[2][1] + bars[3][0]) // 2, top)
    assert older, "the older half's mean shows between its bars"
    assert newer, "the newer half's mean shows between its bars"
    assert max(newer) < min(older), "the newer half's mean above the older's"


def test_too_few_games_for_a_trend_have_bars_and_no_means() -> None:
    few = AccuracyStrip((80.0, 90.0, 70.0), "Accuracy, last 3 games", "80%")
    image = decode(render_rating_chart((), accuracy=few))
    bars = runs(image, image.height - 30, BAR)
    assert len(bars) == 3
    assert not any(mean_rows(image, (first + last) // 2, 80) for first, last in bars)


def triangle_widths(direction: int) -> list[int]:
    """The width of the trend's triangle, row by row from its top: the pixels where the strip
    with `direction` differs from the same strip steady (the same words, no triangle)."""
    values = (60.0, 62.0, 70.0, 75.0)
    marked = AccuracyStrip(values, "Accuracy, last 4 games", "67%", "+11.5", direction)
    steady = AccuracyStrip(values, "Accuracy, last 4 games", "67%", "+11.5", 0)
    difference = ImageChops.difference(
        decode(render_rating_chart((), accuracy=marked)),
        decode(render_rating_chart((), accuracy=steady)),
    )
    mask = difference.convert("L").point(lambda value: 255 if value else 0)
    box = mask.getbbox()
    assert box is not None, "a triangle is drawn"
    assert box[3] - box[1] < 60, "the triangle alone differs"
    data = mask.load()
    assert data is not None
    return [sum(1 for x in range(box[0], box[2]) if data[x, y]) for y in range(box[1], box[3])]


@pytest.mark.parametrize(("direction", "up"), [(1, True), (-1, False)])
def test_the_trend_s_triangle_points_up_for_a_rise_and_down_for_a_fall(
    direction: int, up: bool
) -> None:
    """Pointing up, the triangle is wider at its bottom than at its top; pointing down, the
    other way round."""
    widths = triangle_widths(direction)
    third = len(widths) // 3
    top, bottom = sum(widths[:third]), sum(widths[-third:])
    assert (bottom > top) is up, (direction, widths)


def drawn_texts(
    strip: AccuracyStrip, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[tuple[str, int]], Image.Image]:
    """The texts the strip drawn alone draws, each with its size (caught on their way to
    `draw_text`), and the picture."""
    drawn: list[tuple[str, int]] = []

    def recording(image: Image.Image, xy: tuple[float, float], text: str, **how: Any) -> None:
        drawn.append((text, how["size"]))
        draw_text(image, xy, text, **how)

    with monkeypatch.context() as patched:
        patched.setattr(accuracy_strip, "draw_text", recording)
        image = decode(render_rating_chart((), accuracy=strip))
    return drawn, image


def ticks_and_heights(
    strip: AccuracyStrip, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], list[int]]:
    """The texts the strip draws and each bar's height: its BAR pixels down its middle column,
    left to right."""
    texts, image = drawn_texts(strip, monkeypatch)
    return [text for text, _ in texts], bar_heights(image, runs(image, image.height - 30, BAR))


def test_the_scale_runs_from_zero_whatever_the_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scale runs from 0% (its ticks 0%, 50%, 100%: about half is what choosing at random
    keeps): a game at 20% stands about 20/90 as tall as a 90% game, and a newcomer's 53%
    more than half as tall as a 94%, not a hairline."""
    low = AccuracyStrip((20.0, 90.0), "Accuracy, last 2 games", "55%")
    texts, heights = ticks_and_heights(low, monkeypatch)
    assert {"0%", "50%", "100%"} <= set(texts), texts
    assert "75%" not in texts
    assert len(heights) == 2, "the 20% game's bar rises from the bottom too"
    assert 0.15 < heights[0] / heights[1] < 0.25, heights
    newcomer = AccuracyStrip((53.0, 94.0), "Accuracy, last 2 games", "74%")
    texts, heights = ticks_and_heights(newcomer, monkeypatch)
    assert {"0%", "50%", "100%"} <= set(texts), texts
    assert 0.5 < heights[0] / heights[1] < 0.62, heights


@pytest.mark.parametrize("deficiency", [None, *DEFICIENCIES])
def test_bars_and_means_stand_out_for_every_colour_vision(deficiency: str | None) -> None:
    assert closest_pair([BAR, MEAN, palette.PANEL], deficiency) >= MIN_DIFFERENCE


@pytest.mark.parametrize("language", ["en", "fr", "uk"])
def test_every_text_is_12_px_once_a_phone_shows_the_picture_390_px_wide(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picture is drawn 800 px wide and shown 390 px wide on a phone: the title, the
    average, the trend and the scale's ticks, as the bot words them in each language, are each
    still 12 px there."""
    shown = Accuracy(games=20, average=66.6, trend=-12.34, values=tuple(reversed(RISING)))
    strip = stats_strip(shown, language)
    assert strip is not None
    texts, _ = drawn_texts(strip, monkeypatch)
    ticks = {strip.percent.format(n=tick) for tick in (0, 50, 100)}
    assert {strip.title, strip.average, strip.trend, *ticks} <= {text for text, _ in texts}
    for text, size in texts:
        assert size * PHONE_WIDTH / CHART_WIDTH >= SMALLEST_ON_A_PHONE, (text, size)


@pytest.mark.parametrize("width", [CHART_WIDTH, PHONE_WIDTH])
def test_every_bar_and_each_half_s_mean_has_a_dark_rim(width: int) -> None:
    """Bars and means are told apart by lightness and a dark rim, not by hue: across a row
    near the bottom every bar is bordered by the rim on both sides, and down a gap between
    two of each half's games its mean is bordered by the rim above and below."""
    image = decode(render_rating_chart((), width_px=width, accuracy=STRIP))
    data = image.load()
    assert data is not None
    scale = width / CHART_WIDTH
    y = image.height - round(30 * scale)
    bars = runs(image, y, BAR)
    assert len(bars) == len(RISING)
    for first, last in bars:
        assert data[first - 1, y] == data[last + 1, y] == RIM, (first, last)
    for game in (len(bars) // 4, 3 * len(bars) // 4):
        x = (bars[game][1] + bars[game + 1][0]) // 2
        rows = mean_rows(image, x, round(80 * scale))
        assert rows, x
        assert data[x, min(rows) - 1] == data[x, max(rows) + 1] == RIM, (x, rows)
