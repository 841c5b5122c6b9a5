"""The analysis picture: drawn at full width and at a phone's, every text fitting its place and
every seat told apart by more than its colour."""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from typing import cast

import pytest
from PIL import Image, ImageChops, ImageDraw

from engine import seat_colors
from render import analysis, palette
from render.analysis import (
    ANALYSIS_WIDTH,
    BLUNDER_RING,
    SWING_BAND,
    AnalysisPicture,
    AnalysisTexts,
    _draw_order,
    _layout,
    _Painter,
    _point_xy,
    analysis_image,
    analysis_lines,
    line_color,
    render_analysis,
    seat_mark,
)
from render.palette import RGB, Mark, rug_style
from render.vision import DEFICIENCIES, closest_pair

from .conftest import decode

PHONE = 390
SMALLEST_ON_A_PHONE = 12
"""The smallest text, in pixels, once the picture is shown 390 px wide."""
NAMES = ("Amina", "Дмитро Іваненко", "李小龙", "Zoë 🌸")


ACCURACY = ("96%", "71%", "88%", "54%")
COUNTS = (
    "0 inaccuracies · 0 mistakes · 0 blunders",
    "2 inaccuracies · 1 mistake · 1 blunder",
    "1 inaccuracy · 0 mistakes · 0 blunders",
    "3 inaccuracies · 2 mistakes · 2 blunders",
)
BLUNDERS = ((12, 1), (20, 3), (41, 3))


def sample(
    players: int = 4, *, swing: int | None = 30, names: bool = True, judged: bool = True
) -> AnalysisPicture:
    """A made-up game of 48 turns: seat 0 pulls ahead, the others fade."""
    points = 49
    chances = []
    for index in range(points):
        lead = index / (points - 1)
        raw = [
            1.0 + 2.0 * lead if seat == 0 else 1.0 - 0.8 * lead * seat / players
            for seat in range(players)
        ]
        raw = [max(0.0, value + 0.2 * math.sin(index + seat)) for seat, value in enumerate(raw)]
        total = sum(raw)
        chances.append(tuple(value / total for value in raw))
    texts = AnalysisTexts(
        title="Game #7: how it went",
        swing_lines=("{seat1} paid {seat0} 14 dirhams.", "{seat0}: 40% → 71%"),
        payment_lines=(
            "Turn 30: {seat1} paid {seat0} 14 dirhams",
            "Turn 12: {seat2} paid {seat1} 9 dirhams",
        ),
        luck_values=tuple(f"{value:+.1f}" for value in (8.5, -3.0, 0.0, -12.25)[:players]),
        accuracy_values=ACCURACY[:players] if judged else (),
        accuracy_counts=COUNTS[:players] if judged else (),
    )
    return AnalysisPicture(
        players=players,
        turns=tuple(range(points)),
        chances=tuple(chances),
        swing=swing,
        luck=(8.5, -3.0, 0.0, -12.25)[:players],
        places=(1, 3, 2, 4)[:players] if players == 4 else tuple(range(1, players + 1)),
        out=(False, False, False, True)[:players],
        texts=texts,
        names=NAMES[:players] if names else None,
        blunders=tuple((p, seat) for p, seat in BLUNDERS if seat < players) if judged else (),
    )


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("width", [ANALYSIS_WIDTH, PHONE])
def test_the_picture_is_drawn_at_full_and_phone_width(players: int, width: int) -> None:
    picture = sample(players)
    image = decode(render_analysis(picture, width=width))
    assert image.width == width
    assert width < image.height < 2.25 * width
    for text in analysis_lines(picture, width=width):
        x0, y0, x1, y1 = text.box
        assert 0 <= x0 < x1 <= width, text
        assert 0 <= y0 < y1 <= image.height, text


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_text_is_large_enough_on_a_phone(players: int) -> None:
    """Drawn 720 px wide and shown 390 px wide, the smallest text is still 12 px: the size
    each text is drawn at, and the height of its letters as the picture draws them (capitals
    and digits stand at least 0.6 of the size)."""
    picture = sample(players)
    lines = analysis_lines(picture)
    assert min(text.size for text in lines) * PHONE / ANALYSIS_WIDTH >= SMALLEST_ON_A_PHONE
    image = analysis_image(picture)
    plain = Image.new("RGB", image.size, palette.BACKGROUND)
    ink = ImageChops.difference(image, plain).convert("L").point([0] * 41 + [255] * 215)
    for text in lines:
        inked = ink.crop(text.box).getbbox()
        height = 0 if inked is None else inked[3] - inked[1]
        assert height >= 0.6 * text.size, (text.role, text.text, text.size, height)


def test_names_fill_the_sentences_as_the_panel_draws_them() -> None:
    texts = [text.text for text in analysis_lines(sample())]
    assert "Дмитро Іваненко paid Amina 14 dirhams." in texts
    assert "Turn 12: Seat 3 paid Дмитро Іваненко 9 dirhams" in texts, "CJK: the seat label"
    legend = [t.text for t in analysis_lines(sample()) if t.role == "legend"]
    assert legend == ["Amina", "Дмитро Іваненко", "Seat 3", "Zoë"], "the emoji is dropped"
    unnamed = [t.text for t in analysis_lines(sample(names=False)) if t.role == "legend"]
    assert unnamed == ["Seat 1", "Seat 2", "Seat 3", "Seat 4"]
    assert not any("{seat" in text for text in texts)


def test_a_name_that_reads_like_a_placeholder_is_written_as_it_is() -> None:
    """A nickname may hold any characters, braces too: a player named "{seat1}" is written as
    that name, and the sentence still names the other player where it says so, rather than the
    name being filled in again with another seat's."""
    picture = dataclasses.replace(sample(), names=("{seat1}", *NAMES[1:]))
    texts = [text.text for text in analysis_lines(picture)]
    assert "Turn 30: Дмитро Іваненко paid {seat1} 14 dirhams" in texts
    assert "{seat1}: 40% → 71%" in texts
    legend = [t.text for t in analysis_lines(picture) if t.role == "legend"]
    assert legend[:2] == ["{seat1}", "Дмитро Іваненко"]


def test_a_long_name_is_cut_with_an_ellipsis_and_its_sentence_keeps_the_rest() -> None:
    """A name is shortened as the panel shortens it, before it fills its sentence: the
    sentence's own words stay on the line, rather than the name taking lines of its own."""
    long = "Amina" * 20
    picture = dataclasses.replace(sample(), names=(long, *NAMES[1:]))
    swing = [text.text for text in analysis_lines(picture) if text.role == "swing"]
    cut, _, after = swing[-1].partition(": ")
    assert after == "40% → 71%"
    assert cut.endswith("…")
    assert long.startswith(cut[:-1])
    assert len(cut) < 20
    assert " ".join(swing[:-1]) == f"Дмитро Іваненко paid {cut} 14 dirhams."


def test_the_texts_say_the_turning_point_the_payments_and_the_luck() -> None:
    lines = analysis_lines(sample())
    headings = [t.text for t in lines if t.role == "heading"]
    assert headings == [
        "Chance of winning after each turn",
        "Turning point · turn 30",
        "Biggest payments",
        "Accuracy: 100% is the best choice each time,",  # wrapped where the sentence breaks
        "about 50% choosing at random",
        "Dice luck: points above an average roll",
    ]
    assert [t.text for t in lines if t.role == "luck"] == ["+8.5", "-3.0", "+0.0", "-12.2"]
    assert [t.text for t in lines if t.role == "rank"] == ["#1", "#3", "#2", "#4"]
    axis = [t.text for t in lines if t.role == "axis"]
    assert axis == ["0%", "25%", "50%", "75%", "100%", "10", "20", "30", "40"]
    without = [t.text for t in analysis_lines(sample(swing=None)) if t.role == "heading"]
    assert "Turning point · turn 30" not in without


@dataclass
class Drawing:
    """What the picture's lines are drawn with, caught on their way to `_caps` and `_marker`:
    each piece of a line (its canvas, colour, width and points) and each marker (its canvas,
    mark and colour). The chart's canvas comes first, then each legend sample's."""

    canvases: list[ImageDraw.ImageDraw] = field(default_factory=list)
    pieces: list[tuple[ImageDraw.ImageDraw, RGB, int, list[tuple[float, float]]]] = field(
        default_factory=list
    )
    markers: list[tuple[ImageDraw.ImageDraw, Mark, RGB]] = field(default_factory=list)

    def canvas(self, draw: ImageDraw.ImageDraw) -> None:
        if not any(draw is seen for seen in self.canvases):
            self.canvases.append(draw)

    def dashes(self, draw: ImageDraw.ImageDraw, colour: RGB) -> tuple[float, ...]:
        """The lengths of a line's dashes on `draw`, in line widths (its last dash, maybe cut
        short, left out): () for a line drawn in one piece."""
        pieces = [(w, piece) for on, c, w, piece in self.pieces if on is draw and c == colour]
        assert pieces, colour
        return tuple(
            sorted({round(_length(piece) / w, 1) for w, piece in pieces[:-1]}, reverse=True)
        )


def _length(points: list[tuple[float, float]]) -> float:
    return sum(math.dist(a, b) for a, b in itertools.pairwise(points))


def drawing(picture: AnalysisPicture, monkeypatch: pytest.MonkeyPatch) -> Drawing:
    """How `analysis_image(picture)` draws its lines and markers."""
    caught = Drawing()
    caps, marker = analysis._caps, analysis._marker

    def caps_spy(
        draw: ImageDraw.ImageDraw, piece: list[tuple[float, float]], line_w: int, color: RGB
    ) -> None:
        caught.canvas(draw)
        caught.pieces.append((draw, color, line_w, piece))
        caps(draw, piece, line_w, color)

    def marker_spy(
        draw: ImageDraw.ImageDraw, center: tuple[float, float], r: float, mark: Mark, color: RGB
    ) -> None:
        caught.canvas(draw)
        caught.markers.append((draw, mark, color))
        marker(draw, center, r, mark, color)

    with monkeypatch.context() as patched:
        patched.setattr(analysis, "_caps", caps_spy)
        patched.setattr(analysis, "_marker", marker_spy)
        analysis_image(picture)
    return caught


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_seat_s_line_is_drawn_with_its_colour_its_mark_and_its_dashes(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Colour-blind players tell the lines apart by their markers and dashes alone: in the
    chart and in each legend sample, every seat's line is drawn in its colour with markers of
    its own mark, the first seat's solid and every other seat's in dashes of lengths of its own."""
    seats = range(players)
    colours = [line_color(players, seat) for seat in seats]
    assert colours == [rug_style(seat_colors(players, seat)[0]).fill for seat in seats]
    assert len(set(colours)) == players
    assert len({seat_mark(players, seat) for seat in seats}) == players
    caught = drawing(sample(players), monkeypatch)
    chart, *legend = caught.canvases
    assert len(legend) == players, "a line sample per seat in the legend"
    for canvas, shown in [(chart, list(seats)), *((legend[seat], [seat]) for seat in seats)]:
        for seat in shown:
            marks = {m for on, m, c in caught.markers if on is canvas and c == colours[seat]}
            assert marks == {seat_mark(players, seat)}, (seat, marks)
            dashes = caught.dashes(canvas, colours[seat])
            assert (dashes == ()) is (seat == 0), ("solid only for the first seat", seat, dashes)
    lines = {caught.dashes(chart, colours[seat]) for seat in seats}
    assert len(lines) == players, lines
    samples = {caught.dashes(legend[seat], colours[seat]) for seat in seats}
    assert len(samples) == players, samples


@pytest.mark.parametrize("players", [2, 4])
def test_every_piece_of_every_line_lies_on_a_wider_dark_casing(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The light yellow line would fade into the chart's pale ground: in the chart and in each
    legend sample, every piece of every seat's line is drawn over the same piece in dark ink,
    wider than the line, so a rim shows on both sides of it."""
    caught = drawing(sample(players), monkeypatch)
    colours = {line_color(players, seat) for seat in range(players)}
    for canvas in caught.canvases:
        casings = {
            (tuple(piece), width)
            for on, colour, width, piece in caught.pieces
            if on is canvas and colour == palette.INK
        }
        lines = [
            (tuple(piece), width)
            for on, colour, width, piece in caught.pieces
            if on is canvas and colour in colours
        ]
        assert lines
        for piece, width in lines:
            assert any(under == piece and wide > width for under, wide in casings), width
    assert closest_pair([palette.INK, analysis.CHART_BACKGROUND]) >= 50


@pytest.mark.parametrize("deficiency", [None, *DEFICIENCIES])
def test_the_lines_stay_apart_from_each_other_and_the_chart(deficiency: str | None) -> None:
    """The lines are the rugs' colours on the ground the chart is drawn on (its commonest
    colour, the empty market square's): the palette's own guarantee
    (tests/render/test_palette.py) holds for the chart."""
    colours = [line_color(4, seat) for seat in range(4)]
    assert all(colour in palette.DISTINGUISHED.values() for colour in colours)
    picture = sample()
    chart = analysis_image(picture).crop(_chart_box(picture))
    _, ground = max(chart.getcolors(1 << 20) or (), key=lambda counted: counted[0])
    assert ground == palette.SQUARE
    assert closest_pair([*colours, ground], deficiency) >= 15.0


def colour_counts(picture: AnalysisPicture) -> dict[tuple[int, int, int], int]:
    image = analysis_image(picture)
    return {
        cast(tuple[int, int, int], colour): count
        for count, colour in image.getcolors(1 << 20) or ()
    }


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_chart_shows_every_line_and_the_turning_point(players: int) -> None:
    """Each seat's line passes through its own points in the chart: at a third of them at
    least its colour is within a pixel (elsewhere a gap between its dashes or a line drawn
    over it); the turning point's band is there only when the game has one."""
    picture = sample(players)
    image = analysis_image(picture)
    chart = _chart_box(picture)
    for seat in range(players):
        colour = line_color(players, seat)
        shown = 0
        for index in range(len(picture.turns)):
            x, y = _point_xy(chart, picture, index, seat)
            around = [(round(x) + dx, round(y) + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
            shown += any(_near(image.getpixel(spot), colour) for spot in around)
        assert shown >= len(picture.turns) / 3, (seat, shown)
    assert colour_counts(picture).get(SWING_BAND, 0) > 200
    assert SWING_BAND not in colour_counts(sample(players, swing=None))


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("swing", [1, 30, 48])
def test_the_turning_point_s_band_lies_over_its_turn_and_no_other(players: int, swing: int) -> None:
    """The gold band lies over the turning point's turn on the chart: over its middle, and
    between the point before it and the point it ends on (within 2 px), for the first turn,
    one in the middle and the last."""
    picture = sample(players, swing=swing)
    image = analysis_image(picture)
    chart = _chart_box(picture)
    before = _point_xy(chart, picture, swing - 1, 0)[0]
    after = _point_xy(chart, picture, swing, 0)[0]
    data = image.load()
    assert data is not None
    columns = {
        x
        for x in range(chart[0] - 12, chart[2] + 12)
        for y in range(chart[1], chart[3])
        if data[x, y] == SWING_BAND
    }
    assert round((before + after) / 2) in columns, "over the middle of its turn"
    assert min(columns) >= before - 2, (min(columns), before)
    assert max(columns) <= after + 2, (max(columns), after)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("width", [ANALYSIS_WIDTH, PHONE])
def test_each_player_s_accuracy_and_counts_are_written_whole(players: int, width: int) -> None:
    """Every seat's accuracy and its counts fit their place uncut, at full and phone width."""
    lines = analysis_lines(sample(players), width=width)
    assert [t.text for t in lines if t.role == "accuracy"] == list(ACCURACY[:players])
    assert [t.text for t in lines if t.role == "accuracy_counts"] == list(COUNTS[:players])
    names = [t.text for t in lines if t.role == "accuracy_name"]
    assert names == [t.text for t in lines if t.role == "legend"]
    assert [t.text for t in lines if t.role == "key"] == ["Ringed mark: a blunder"]
    judged = {"accuracy", "accuracy_counts", "accuracy_name", "key"}
    for text in lines:
        if text.role in judged:
            assert text.size * PHONE / width >= SMALLEST_ON_A_PHONE, text


@pytest.mark.parametrize("width", [ANALYSIS_WIDTH, PHONE])
@pytest.mark.parametrize(
    ("template", "written"),
    [
        ("{n}%", ["0%", "25%", "50%", "75%", "100%"]),
        ("{n}\u202f%", ["0 %", "25 %", "50 %", "75 %", "100 %"]),
    ],
    ids=["en", "fr"],
)
def test_the_axis_writes_percentages_as_the_reader_s_language_does(
    template: str, written: list[str], width: int
) -> None:
    """The chart's axis writes a percentage as the rest of the picture does (French and
    Ukrainian put a narrow space before the sign), whole, at full and phone width."""
    texts = dataclasses.replace(sample().texts, percent=template)
    picture = dataclasses.replace(sample(), texts=texts)
    axis = [t for t in analysis_lines(picture, width=width) if t.role == "axis"]
    assert [t.text for t in axis[:5]] == written
    assert all(t.size * PHONE / width >= SMALLEST_ON_A_PHONE for t in axis)


def test_an_unjudged_game_has_no_accuracy_and_no_key() -> None:
    lines = analysis_lines(sample(judged=False))
    assert not any(t.role in {"accuracy", "accuracy_counts", "key"} for t in lines)
    assert BLUNDER_RING not in colour_counts(sample(judged=False))


def test_a_judged_game_without_a_blunder_has_accuracy_but_no_key() -> None:
    """The line saying what a ring means comes only with a ring on the chart: a key with no
    ring would send readers looking for a blunder that is not there."""
    picture = dataclasses.replace(sample(), blunders=())
    lines = analysis_lines(picture)
    assert [t.text for t in lines if t.role == "accuracy"] == list(ACCURACY)
    assert [t.text for t in lines if t.role == "key"] == []
    assert BLUNDER_RING not in colour_counts(picture)


def test_a_blunder_is_ringed_on_its_seat_s_line() -> None:
    """The ring is a shape of its own (white between ink circles), drawn where the seat's line
    passes, so it reads without telling colours apart."""
    picture = sample()
    plain = sample(judged=False)
    image, without = analysis_image(picture), analysis_image(plain)
    painter_chart = _chart_box(picture)
    for point, seat in BLUNDERS:
        x, y = _point_xy(painter_chart, picture, point, seat)
        ring = 7.5 * 1.8  # the light band's middle, in pixels at the default width
        spots = [(round(x + dx * ring), round(y + dy * ring)) for dx, dy in _COMPASS]
        assert sum(_near(image.getpixel(spot), BLUNDER_RING) for spot in spots) >= 3, point
        assert not any(_near(without.getpixel(spot), BLUNDER_RING) for spot in spots)
        inside = image.getpixel((round(x), round(y)))
        assert _near(inside, line_color(4, seat)), "the seat's own mark inside"


def _near(pixel: object, colour: tuple[int, int, int]) -> bool:
    assert isinstance(pixel, tuple)
    distance: int = sum(abs(a - b) for a, b in zip(pixel, colour, strict=True))
    return distance <= 24


_COMPASS = ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))


def _chart_box(picture: AnalysisPicture) -> tuple[int, int, int, int]:
    painter = _Painter(picture, ANALYSIS_WIDTH)
    return _layout(painter)[1]


def test_the_same_analysis_gives_the_same_bytes() -> None:
    assert render_analysis(sample()) == render_analysis(sample())


def test_a_bad_picture_is_refused() -> None:
    good = sample()
    with pytest.raises(ValueError, match="per-seat"):
        AnalysisPicture(4, good.turns, good.chances, None, (0.0,) * 3, good.places, good.out)
    with pytest.raises(ValueError, match="turning point"):
        AnalysisPicture(4, good.turns, good.chances, 0, good.luck, good.places, good.out)
    with pytest.raises(ValueError, match="two points"):
        AnalysisPicture(4, (0,), good.chances[:1], None, good.luck, good.places, good.out)
    with pytest.raises(ValueError, match="2 to 4"):
        AnalysisPicture(5, good.turns, good.chances, None, good.luck, good.places, good.out)
    with pytest.raises(ValueError, match="width"):
        render_analysis(good, width=100)
    with pytest.raises(ValueError, match="blunder"):
        AnalysisPicture(
            4, good.turns, good.chances, None, good.luck, good.places, good.out, blunders=((0, 1),)
        )
    with pytest.raises(ValueError, match="per-seat"):
        AnalysisPicture(
            4,
            good.turns,
            good.chances,
            None,
            good.luck,
            good.places,
            good.out,
            AnalysisTexts(accuracy_values=("90%",)),
        )


def test_luck_bars_go_right_for_good_luck_and_left_for_bad_from_one_middle() -> None:
    """Seat 0's luck is +8.5, seat 1's -3.0, seat 3's -12.25 (the biggest: the longest bar)."""
    _, _, bars = _layout(_Painter(sample(), ANALYSIS_WIDTH))
    by_seat = {bar.seat: bar for bar in bars}
    middle = by_seat[0].x0
    assert by_seat[0].x1 > middle, "good luck goes right"
    assert by_seat[1].x1 == by_seat[3].x1 == middle, "bad luck ends at the middle"
    assert by_seat[3].x0 < by_seat[1].x0 < middle, "and goes left, the further the worse"
    assert by_seat[3].x1 - by_seat[3].x0 > by_seat[0].x1 - by_seat[0].x0


@pytest.mark.parametrize(
    ("places", "order"), [((1, 3, 2, 4), [3, 1, 2, 0]), ((2, 1, 4, 3), [2, 3, 0, 1])]
)
def test_the_winner_s_line_is_drawn_last_so_it_lies_on_top(
    places: tuple[int, ...], order: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines go from the last place's to the winner's: the chart draws every piece of one
    seat's line before the next seat's, in that order."""
    picture = dataclasses.replace(sample(), places=places)
    assert _draw_order(picture) == order
    caught = drawing(picture, monkeypatch)
    chart = caught.canvases[0]
    seat_of = {line_color(4, seat): seat for seat in range(4)}
    drawn = [seat_of[c] for on, c, _, _ in caught.pieces if on is chart and c in seat_of]
    assert [seat for seat, _ in itertools.groupby(drawn)] == order


@pytest.mark.parametrize("rank", ["#{n}", "n° {n}", "№{n}", "Place {n}"])
@pytest.mark.parametrize("width", [390, ANALYSIS_WIDTH])
def test_each_seat_s_place_is_written_whole_in_every_language(rank: str, width: int) -> None:
    """French writes a place "n° 1": the legend's place is never cut, nor the names pushed
    off the picture."""
    picture = sample()
    picture = dataclasses.replace(picture, texts=dataclasses.replace(picture.texts, rank=rank))
    lines = analysis_lines(picture, width=width)
    places = [t.text for t in lines if t.role == "rank"]
    assert places == [rank.format(n=n) for n in (1, 3, 2, 4)]
    names = [t.text for t in lines if t.role == "legend"]
    assert names == [t.text for t in analysis_lines(sample(), width=width) if t.role == "legend"]
