"""A finished game's analysis and its picture, computed in a worker process: the same as in this
one, and kept by the bot so a second look costs only the drawing; the picture names each seat
as the board's panel does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
from PIL import Image

import engine
from ai.analysis import analyse
from ai.judge import Band, GameJudgement, judge_game
from ai.judge_json import judgement_from_json
from bot.presentation import analysis as presentation
from bot.presentation import analysis_bench
from bot.presentation.analysis import AnalysisPictures, analysis_texts
from bot.presentation.names import ai_name
from bot.services.analysis import FinishedGame
from bot.services.judgements import GameJudgements
from bot.services.views import Player
from bot.workers import jobs as worker_jobs
from bot.workers.pool import Lane, WorkerPool
from render.analysis import analysis_lines, render_analysis
from render.names import drawable
from tests.bot.workers.lanes import lanes_noted
from tests.judged import golden_data, golden_record, judged_golden
from tests.tracing import untraced


@pytest.fixture
async def pool() -> AsyncIterator[WorkerPool]:
    workers = WorkerPool(workers=1)
    yield workers
    await workers.close()


async def test_the_analysis_in_a_worker_is_this_process_s_own(pool: WorkerPool) -> None:
    record = golden_record("4p-rotate-after-elimination")
    there = await pool.run(Lane.SLOW, worker_jobs.game_analysis, record)
    assert there == analyse(record)
    texts = analysis_texts(there, 4, "fr")
    names = ("Amina", "Дмитро", "", "Zoë")
    png = await pool.run(Lane.QUICK, worker_jobs.analysis_png, there, texts, names)
    assert png == render_analysis(worker_jobs.analysis_picture(there, texts, names))
    assert png.startswith(b"\x89PNG")


def test_the_picture_shows_the_analysis() -> None:
    found = analyse(golden_record("3p-elimination"))
    picture = worker_jobs.analysis_picture(found, analysis_texts(found, 9, "en"), None)
    assert picture.chances == tuple(point.chances for point in found.points)
    assert picture.turns[0] == 0
    assert found.swing is not None
    assert picture.turns[picture.swing or 0] == found.swing.turn
    assert picture.places == (1, 3, 2)
    assert picture.out == (False, True, False)
    assert picture.luck == tuple(luck.total for luck in found.luck)
    headings = [t.text for t in analysis_lines(picture) if t.role == "heading"]
    assert f"Turning point · turn {found.swing.turn}" in headings


async def test_the_review_judges_every_seat_in_the_same_job(pool: WorkerPool) -> None:
    """One worker job gives the analysis and each seat's judgement; every blunder lies at the
    point after its turn, on its seat's line. A game of four (judged in a third of a duel's
    time), two of whose seats blundered."""
    record = golden_record("4p-rotate-after-elimination")
    judged = judged_golden("4p-rotate-after-elimination")
    text = await pool.run(Lane.SLOW, worker_jobs.judged_game, record)
    assert judgement_from_json(text) == judged, "the worker's judgement, kept as text"
    review = await pool.run(Lane.SLOW, worker_jobs.game_review, record, judged)
    assert review.analysis == analyse(record)
    assert review.seats == judged.seats
    blunders = [j for j in judged.decisions if j.band is Band.BLUNDER]
    assert len({j.seat for j in blunders}) == 2, "blunders on two seats' lines"
    assert review.blunders == tuple((review.analysis.point_of(j.turn), j.seat) for j in blunders)
    texts = analysis_texts(review.analysis, 4, "uk", review.seats)
    picture = worker_jobs.analysis_picture(review.analysis, texts, None, review.blunders)
    lines = analysis_lines(picture)
    values = [t.text for t in lines if t.role == "accuracy"]
    shown = [drawable(presentation.accuracy_percent(s.accuracy, "uk")) for s in judged.seats]
    assert values == shown
    assert len(values) == 4, "every seat's accuracy"
    assert len([t for t in lines if t.role == "accuracy_counts"]) == 4


class _Unjudged:
    async def of(self, game_id: int, record: engine.Record) -> GameJudgement:
        return GameJudgement(record.players, (), ())


async def test_a_second_look_reuses_the_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def counted(record: engine.Record, judged: GameJudgement) -> Any:
        calls.append(len(record.actions))
        return worker_jobs.GameReview(analyse(record), (), ())  # no judging: counted only

    monkeypatch.setattr(worker_jobs, "game_review", counted)
    monkeypatch.setattr(presentation, "CACHED_ANALYSES", 1)
    pictures = AnalysisPictures(WorkerPool(workers=0), cast(GameJudgements, _Unjudged()))
    players = (Player(1, 0, name="Amina"), Player(None, 1, ai_level="hard"))
    duel = FinishedGame(5, golden_data("2p-standard"), players)
    other = FinishedGame(6, golden_data("2p-last-player-standing"), players)
    english = await pictures.png(duel, "en")
    ukrainian = await pictures.png(duel, "uk")
    assert english != ukrainian
    assert len(calls) == 1, "computed once, drawn in each language"
    await pictures.png(other, "en")
    await pictures.png(duel, "en")
    assert len(calls) == 3, "only the last game is kept"


class _JudgementsAsked:
    """Counts the games whose judgement is read; each judged with nothing to tell."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    async def of(self, game_id: int, record: engine.Record) -> GameJudgement:
        self.asked.append(game_id)
        return GameJudgement(record.players, (), ())


async def test_a_second_look_reads_no_judgement_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """An analysis kept costs only its drawing: not a read of the game's judgement, which may
    mean judging the game again (one a newer version wrote is judged anew at each read)."""

    def reviewed(record: engine.Record, judged: GameJudgement) -> Any:
        return worker_jobs.GameReview(analyse(record), (), ())  # no judging

    monkeypatch.setattr(worker_jobs, "game_review", reviewed)
    monkeypatch.setattr(presentation, "CACHED_ANALYSES", 1)
    judgements = _JudgementsAsked()
    pictures = AnalysisPictures(WorkerPool(workers=0), cast(GameJudgements, judgements))
    duel = FinishedGame(5, golden_data("2p-standard"), ())
    other = FinishedGame(6, golden_data("2p-last-player-standing"), ())
    for game in (duel, duel, other, other, duel):
        await pictures.analysis(game)
    assert judgements.asked == [5, 6, 5], "read once per analysis computed, never per look"


async def test_the_analysis_picture_names_each_seat_as_the_board_s_panel_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A person by their name, an AI seat by its level in the reader's language: never
    "Seat 1", "Seat 2"."""
    named: list[Any] = []
    draw = worker_jobs.analysis_png

    def unjudged(record: engine.Record, judged: GameJudgement) -> Any:
        return worker_jobs.GameReview(analyse(record), (), ())

    def recording(analysis: Any, texts: Any, names: Any, *rest: Any) -> bytes:
        named.append(names)
        return draw(analysis, texts, names, *rest)

    monkeypatch.setattr(worker_jobs, "game_review", unjudged)
    monkeypatch.setattr(worker_jobs, "analysis_png", recording)
    pictures = AnalysisPictures(WorkerPool(workers=0), cast(GameJudgements, _Unjudged()))
    players = (Player(1, 0, name="Amina"), Player(None, 1, ai_level="hard"))
    await pictures.png(FinishedGame(5, golden_data("2p-standard"), players), "fr")
    assert named == [("Amina", ai_name("hard", "fr"))]


class _Judged:
    """The judgement of the 2-player golden game, whatever game is asked for."""

    async def of(self, game_id: int, record: engine.Record) -> GameJudgement:
        return judged_golden("2p-standard")


async def test_the_bot_s_picture_rings_each_blunder_and_writes_each_seat_s_accuracy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The picture the button and the replay show is drawn with the game's judgement: a ring
    on the line of the seat that made each blunder, the key saying what a ring means, and each
    seat's accuracy with its counts."""
    drawn: list[tuple[Any, ...]] = []
    draw = worker_jobs.analysis_png

    def recording(*args: Any) -> bytes:
        drawn.append(args)
        return draw(*args)

    monkeypatch.setattr(worker_jobs, "analysis_png", recording)
    pictures = AnalysisPictures(WorkerPool(workers=0), cast(GameJudgements, _Judged()))
    players = (Player(1, 0, name="Amina"), Player(None, 1, ai_level="hard"))
    png = await pictures.png(FinishedGame(5, golden_data("2p-standard"), players), "en")
    (args,) = drawn
    picture = worker_jobs.analysis_picture(*args)
    assert png == render_analysis(picture)
    judged = judged_golden("2p-standard")
    blunders = [j for j in judged.decisions if j.band is Band.BLUNDER]
    assert blunders, "the golden game has blunders to ring"
    assert [seat for _, seat in picture.blunders] == [j.seat for j in blunders], "rings drawn"
    lines = analysis_lines(picture)
    assert [t.text for t in lines if t.role == "key"] == [drawable(picture.texts.blunder_key)]
    values = [t.text for t in lines if t.role == "accuracy"]
    assert values == [
        drawable(presentation.accuracy_percent(s.accuracy, "en")) for s in judged.seats
    ]
    assert len([t for t in lines if t.role == "accuracy_counts"]) == 2, "each seat's counts"


async def test_the_bot_s_analysis_is_computed_in_the_slow_lane_and_drawn_in_the_quick_lane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both go through the workers, off the event loop: the analysis beside AI decisions, its
    picture beside board pictures, so a busy analysis never holds up a running game's board."""
    workers = WorkerPool(workers=0)
    lanes = lanes_noted(workers, monkeypatch)
    pictures = AnalysisPictures(workers, cast(GameJudgements, _Judged()))
    players = (Player(1, 0, name="Amina"), Player(None, 1, ai_level="hard"))
    await pictures.png(FinishedGame(5, golden_data("2p-standard"), players), "en")
    assert lanes == [("game_review", Lane.SLOW), ("analysis_png", Lane.QUICK)]


def test_the_benchmark_times_and_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    judged: dict[tuple[str, ...], GameJudgement] = {}

    def judged_once(record: engine.Record) -> GameJudgement:
        """The game's judgement, judged the first time only (both runs play the same game),
        the tracer paused while the judge searches (tests/tracing.py)."""
        key = tuple(record.actions)
        if key not in judged:
            with untraced():
                judged[key] = judge_game(record)
        return judged[key]

    monkeypatch.setattr(analysis_bench, "judge_game", judged_once)
    assert analysis_bench.main(["--games", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("analysis of a 4-player game: median ")
    assert "1 games; CPU time median" in out
    assert analysis_bench.main(["--pictures", str(tmp_path), "--seed", "2"]) == 0
    full = Image.open(tmp_path / "analysis.png")
    phone = Image.open(tmp_path / "analysis-phone.png")
    assert (full.width, phone.width) == (720, 390)
    assert len(judged) == 1, "the pictures show the timed game"
    assert abs(phone.height / phone.width - full.height / full.width) < 0.01
    docs = Path(__file__).parents[3] / "docs"
    redraw = "python -m bot.presentation.analysis_bench --pictures docs/ --seed 2"
    for name in ("analysis.png", "analysis-phone.png"):
        drawn = (tmp_path / name).read_bytes()
        assert drawn == (docs / name).read_bytes(), f"docs/{name} is out of date: {redraw}"
