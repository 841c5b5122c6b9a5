"""The seat panel with the words of each language of the bot's catalogue (its `image.*` keys,
read from the locale files): a seat that is out shows its dirhams and the whole word for
"out", with no rugs left, visible squares or score, in both layouts, live and at the end;
the column names stand far enough apart never to read as one label ("tapis visibles"); and
the result and the replay's last frame say why the game ended whole, readable on a phone."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import pytest
from PIL import Image

import engine
from render import palette
from render.board import board_image
from render.fonts import FREETYPE_LOCK, font
from render.layout import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE, layout
from render.names import ELLIPSIS
from render.panel import Labels, PanelText, panel_model
from render.replay import REPLAY_SIZE
from render.samples import Moment
from render.text import width

LANGUAGES = ("en", "fr", "uk")
LAYOUTS = [pytest.param(False, id="landscape"), pytest.param(True, id="portrait")]
PHONE_WIDTH = 390
READABLE_ON_A_PHONE = 12
"""The size docs/analysis.md and docs/tournaments.md keep every text at, in pixels, once a
picture is shown 390 px wide on a phone."""


@pytest.fixture(scope="module")
def catalogue(repo_root: Path) -> dict[str, Labels]:
    """The panel's words in each language, as the bot builds them from its catalogue."""
    found = {}
    for language in LANGUAGES:
        path = repo_root / "bot" / "presentation" / "locales" / f"{language}.json"
        words = json.loads(path.read_text(encoding="utf-8"))
        fields = dataclasses.fields(Labels)
        found[language] = Labels(**{f.name: words[f"image.{f.name}"] for f in fields})
    return found


def out_row(texts: tuple[PanelText, ...], seat: int) -> list[PanelText]:
    """What the panel draws in the seat's columns (all but its rank and name)."""
    return [t for t in texts if t.seat == seat and t.role not in ("rank", "name")]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("portrait", LAYOUTS)
@pytest.mark.parametrize("final", [False, True], ids=["live", "final"])
def test_a_seat_that_is_out_shows_its_dirhams_and_the_whole_word_for_out(
    catalogue: dict[str, Labels],
    eliminated: Moment,
    out_at_the_end: Moment,
    language: str,
    portrait: bool,
    final: bool,
) -> None:
    labels = catalogue[language]
    state = out_at_the_end.state if final else eliminated.state
    (seat,) = state.eliminated
    dirhams = engine.scores(state)[seat].dirhams
    for size in (DEFAULT_SIZE, MIN_SIZE, 560, MAX_SIZE):
        model = panel_model(state, size=size, portrait=portrait, labels=labels, final=final)
        row = out_row(model.texts, seat)
        assert [t.text for t in row] == [str(dirhams), labels.out], (size, "no score when out")
        number, word = row
        assert [t.role for t in row] == ["number", "out"]
        assert word.size == number.size, "the word is as large as the seat's numbers"
        playing = [t for t in model.texts if t.role == "number" and t.seat != seat]
        assert len(playing) == 4 * (state.players - 1)
        assert labels.out not in [t.text for t in playing]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("portrait", LAYOUTS)
def test_the_word_for_out_is_drawn_whole_and_centred_where_the_model_puts_it(
    catalogue: dict[str, Labels], out_at_the_end: Moment, language: str, portrait: bool
) -> None:
    labels = catalogue[language]
    state = out_at_the_end.state
    model = panel_model(state, portrait=portrait, labels=labels, final=True)
    (word,) = [t for t in model.texts if t.role == "out"]
    image = board_image(state, labels=labels, final=True, portrait=portrait)
    x0, _, x1, _ = word.box
    ink = _ink_columns(image.crop(word.box), palette.TEXT_DIM)
    assert ink, "the word is drawn in its box"
    with FREETYPE_LOCK:  # where the glyphs' ink lies, the word centred on the box's middle
        left, _, right, _ = font(word.size, bold=True).getbbox(word.text, anchor="mm")
    middle = (x1 - x0) / 2
    # Only pixels of the text's own colour count, not its anti-aliased edges: a few px short.
    assert abs(min(ink) - (middle + left)) <= 4
    assert abs(max(ink) + 1 - (middle + right)) <= 4


def _ink_columns(area: Image.Image, fill: tuple[int, int, int]) -> list[int]:
    """The x of every column of `area` holding a pixel of `fill` (the text's own colour)."""
    pixels = area.load()
    assert pixels is not None
    return [x for x in range(area.width) if any(pixels[x, y] == fill for y in range(area.height))]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("portrait", LAYOUTS)
def test_column_names_stand_a_letter_apart_and_whole(
    catalogue: dict[str, Labels], out_at_the_end: Moment, language: str, portrait: bool
) -> None:
    labels = catalogue[language]
    model = panel_model(out_at_the_end.state, portrait=portrait, labels=labels, final=True)
    names = [t for t in model.texts if t.role == "column"]
    assert [t.text for t in names] == [labels.dirhams, labels.rugs, labels.visible, labels.score]
    assert all(t.right and not t.text.endswith(ELLIPSIS) for t in names)
    for before, after in itertools.pairwise(names):
        start = after.box[2] - width(after.text, after.size)  # right-aligned in its box
        gap = start - before.box[2]
        assert gap >= after.size, (before.text, after.text, round(gap), after.size)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    ("portrait", "size"),
    [pytest.param(False, DEFAULT_SIZE, id="result"), pytest.param(True, REPLAY_SIZE, id="replay")],
)
@pytest.mark.parametrize(
    ("reason", "tie_break"),
    [
        (engine.REASON_RUGS_EXHAUSTED, "score"),
        (engine.REASON_RUGS_EXHAUSTED, "dirhams"),
        (engine.REASON_RUGS_EXHAUSTED, "shared"),
        (engine.REASON_LAST_PLAYER, "score"),
    ],
)
def test_why_the_game_ended_is_written_whole_and_readable_on_a_phone(
    catalogue: dict[str, Labels],
    game_over: Moment,
    language: str,
    portrait: bool,
    size: int,
    reason: str,
    tie_break: str,
) -> None:
    """Under the title of the result (the panel beside the board, as the bot draws it) and of
    the replay's last frame (the panel below it): why the game ended and how first place was
    settled, every word in its order and none cut, on as many lines of the panel as it needs,
    drawn where the model says, each line at least 12 px once the picture is shown on a
    phone, all above the column names."""
    labels = catalogue[language]
    ranking = ((0, 1), (2,), (3,)) if tie_break == "shared" else ((0,), (1,), (2,), (3,))
    state = game_over.state._replace(outcome=engine.Outcome(ranking, reason, tie_break))
    model = panel_model(state, size=size, portrait=portrait, labels=labels, final=True)
    lines = [t for t in model.texts if t.role == "reason"]
    ended = {
        engine.REASON_RUGS_EXHAUSTED: labels.rugs_exhausted,
        engine.REASON_LAST_PLAYER: labels.last_player_standing,
    }[reason]
    settled = {"score": [], "dirhams": [labels.dirhams_tie_break], "shared": [labels.shared]}
    assert " ".join(t.text for t in lines) == " · ".join([ended, *settled[tie_break]])
    x0, y0, x1, y1 = layout(size, state.players, portrait).panel_box
    image = board_image(state, size=size, labels=labels, final=True, portrait=portrait)
    for line in lines:
        assert line.size * PHONE_WIDTH / size >= READABLE_ON_A_PHONE, (line.text, line.size)
        assert width(line.text, line.size) <= line.box[2] - line.box[0], line.text
        assert x0 <= line.box[0] < line.box[2] <= x1
        assert _ink_columns(image.crop(line.box), line.fill), line.text
    columns = [t for t in model.texts if t.role == "column"]
    assert y0 < lines[0].box[1]
    assert lines[-1].box[3] <= min(t.box[1] for t in columns)
    assert all(y0 <= seat.box[1] < seat.box[3] <= y1 for seat in model.seats)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("portrait", LAYOUTS)
def test_a_place_s_words_end_before_its_seat_s_swatches(
    catalogue: dict[str, Labels], game_over: Moment, language: str, portrait: bool
) -> None:
    """The final ranking's "n° 4" or "№4" stands apart from the swatches after it, by at
    least a tenth of a square, at the bot's sizes."""
    labels = catalogue[language]
    for size in (REPLAY_SIZE, DEFAULT_SIZE):
        model = panel_model(
            game_over.state, size=size, portrait=portrait, labels=labels, final=True
        )
        cell = layout(size, game_over.state.players, portrait).cell
        for entry in model.seats:
            (rank,) = [t for t in model.texts if t.role == "rank" and t.seat == entry.seat]
            end = rank.box[0] + width(rank.text, rank.size, bold=True)
            assert entry.swatches[0] - end >= cell * 0.1, (size, rank.text, end, entry.swatches)
