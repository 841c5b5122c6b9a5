"""The jobs the worker processes run: an AI decision, a board picture, a replay GIF, a picture
of the rules guide, a player's rating chart, the judgement of every decision of a finished game
(kept once, for the analysis, the drill and the stats), a finished game's analysis and its
picture, a tournament's standings, a coached game's options (Hint) and verdicts, and the picture
of a drill step.

Each is a module-level function of plain data, so it pickles into a worker: a game `Record`
(its config and every action, as in FORMATS.md) stands for the game, never a live object of
the bot's. The worker replays the record itself (a couple of milliseconds for a whole game), so
what it decides or draws is exactly what the bot's own state would give.

This module imports the engine, the AI and render only (no Discord, no database): the worker
pool's fork server imports it once, and every worker starts from that warm copy.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import ai
import engine
from ai.analysis import GameAnalysis, analyse
from ai.judge import (
    Band,
    GameJudgement,
    Judgement,
    Option,
    SeatSummary,
    judge_game,
    judge_options,
    judgement_from,
    state_before,
)
from ai.judge_json import judgement_to_json
from engine import Record
from engine.events import Event
from render import ENGLISH, Labels, render_board, render_game_over, render_guide, render_replay
from render.accuracy_strip import AccuracyStrip
from render.analysis import AnalysisPicture, AnalysisTexts, render_analysis
from render.drill import render_drill
from render.rating_chart import CHART_ENGLISH, ChartLabels, render_rating_chart
from render.standings import StandingsTable, render_standings


@dataclass(frozen=True, slots=True)
class BoardPicture:
    """What a board picture shows: the game so far, the events to mark, and its panel words."""

    record: Record
    events: tuple[Event, ...] = ()
    numbered: bool = False
    """Number the places the rug may go (the PLACE decision)."""
    final: bool = False
    """The final ranking instead of the turn's panel."""
    labels: Labels = ENGLISH
    names: tuple[str, ...] | None = None
    """One display string per seat, in seat order (None: the seat labels)."""
    show_choices: bool = False
    """Arrows from Assam into the squares he may face (the ORIENT or ROTATE decision)."""
    panel_turn: tuple[int, int | None] | None = None
    """The turn and the player to move the panel shows (None: the state's own): a hint draws
    the board as its option leaves it, on the turn it was asked on."""


@dataclass(frozen=True, slots=True)
class ChartPicture:
    """What a rating chart shows: the points before the first rated game and after each one,
    how many games the rating is provisional for, its words and its thousands separator."""

    points: tuple[int, ...]
    provisional: int
    labels: ChartLabels = CHART_ENGLISH
    separator: str = ","
    accuracy: AccuracyStrip | None = None
    """The member's accuracy game by game, drawn under the rating (render.accuracy_strip)."""


def choose_action(record: Record, level: str, seed: int, budget: ai.Budget | None = None) -> str:
    """The action a `level` AI picks at the end of `record` (see `ai.choose_action`)."""
    return ai.choose_action(engine.replay_record(record), level, seed, budget)


def board_png(picture: BoardPicture) -> bytes:
    """The PNG of `picture`."""
    state = engine.replay_record(picture.record)
    reveal = True
    if picture.panel_turn is not None:
        turn, to_move = picture.panel_turn
        reveal = state.turn == turn  # a turn that laid its rug reveals the next one to no one
        state = state._replace(turn=turn, to_move=to_move)
    if picture.final:
        return render_game_over(
            state, events=picture.events, labels=picture.labels, names=picture.names
        )
    return render_board(
        state,
        events=picture.events,
        show_candidates=picture.numbered,
        show_choices=picture.show_choices,
        labels=picture.labels,
        names=picture.names,
        reveal=reveal,
    )


def replay_gif(
    record: Record, labels: Labels = ENGLISH, names: tuple[str, ...] | None = None
) -> bytes:
    """The animated GIF of the whole game in `record`, its seats shown by `names` (one per
    seat, in seat order; None: the seat labels)."""
    return render_replay(record, labels=labels, names=names)


def standings_png(table: StandingsTable) -> bytes:
    """The PNG of a tournament's standings (render.standings)."""
    return render_standings(table)


def guide_png(scene: str) -> bytes:
    """The PNG of one of the rules guide's scenes (render.guide)."""
    return render_guide(scene)


def rating_chart_png(chart: ChartPicture) -> bytes:
    """The PNG of a player's rating chart (render.rating_chart)."""
    return render_rating_chart(
        chart.points,
        provisional=chart.provisional,
        labels=chart.labels,
        separator=chart.separator,
        accuracy=chart.accuracy,
    )


def game_analysis(record: Record) -> GameAnalysis:
    """The analysis of the finished game in `record` (`ai.analysis.analyse`)."""
    return analyse(record)


@dataclass(frozen=True, slots=True)
class GameReview:
    """A finished game's analysis with the judgement of every seat's decisions, as the bot
    keeps it: each seat's summary (accuracy and counts) and where each blunder lies on the
    chart, not every option judged (a few hundred bytes instead of a few hundred kilobytes)."""

    analysis: GameAnalysis
    seats: tuple[SeatSummary, ...]
    """One per seat, in seat order (`ai.judge.SeatSummary`)."""
    blunders: tuple[tuple[int, int], ...]
    """Per blunder, in the order played: the index of the point after its turn, its seat."""


def judged_game(record: Record) -> str:
    """Every seat's decisions in the finished game of `record` judged (`ai.judge.judge_game`,
    the slow part: a few seconds of CPU for a whole game), as the compact JSON the bot keeps
    (`ai.judge_json`): a text pickles back to the bot in a fraction of the objects' time."""
    return judgement_to_json(judge_game(record))


def game_review(record: Record, judged: GameJudgement) -> GameReview:
    """The analysis of the finished game in `record` with `judged`, its judgement
    (`judged_game`): each seat's summary and where its blunders lie on the chart."""
    analysis = analyse(record)
    turns = {point.turn: index for index, point in enumerate(analysis.points) if index}
    blunders = tuple(
        (turns[judgement.turn], judgement.seat)
        for judgement in judged.decisions
        if judgement.band is Band.BLUNDER and judgement.turn in turns
    )
    return GameReview(analysis, judged.seats, blunders)


def analysis_picture(
    analysis: GameAnalysis,
    texts: AnalysisTexts,
    names: tuple[str, ...] | None = None,
    blunders: tuple[tuple[int, int], ...] = (),
) -> AnalysisPicture:
    """What render draws of `analysis`, in the words of `texts` (in the reader's language),
    the seats shown by `names` (one per seat, in seat order; None: the seat labels), the
    `blunders` (`GameReview.blunders`) ringed on the chart."""
    swing = analysis.swing
    return AnalysisPicture(
        players=analysis.players,
        turns=tuple(point.turn for point in analysis.points),
        chances=tuple(point.chances for point in analysis.points),
        swing=None if swing is None else analysis.point_of(swing.turn),
        luck=tuple(luck.total for luck in analysis.luck),
        places=analysis.places(),
        out=analysis.out,
        texts=texts,
        names=names,
        blunders=blunders,
    )


def analysis_png(
    analysis: GameAnalysis,
    texts: AnalysisTexts,
    names: tuple[str, ...] | None = None,
    blunders: tuple[tuple[int, int], ...] = (),
) -> bytes:
    """The PNG of `analysis` (see `analysis_picture`)."""
    return render_analysis(analysis_picture(analysis, texts, names, blunders))


def coach_options(record: Record) -> tuple[Option, ...]:
    """Every option of the person to move at the end of `record`, best first, with its win
    chance (a coached game's Hint: `ai.judge.judge_options`)."""
    return judge_options(engine.replay_record(record))


def coach_verdict_at(
    record: Record, index: int, options: tuple[Option, ...] | None = None
) -> tuple[Judgement, tuple[tuple[str, engine.Facing], ...]]:
    """The judgement of the decision `record.actions[index]` (a coached game's verdict), on
    the `options` a Hint computed on its board, else after a search of its own; and where
    each way of turning Assam faced on that board (to name it)."""
    state = state_before(record, index)
    action = record.actions[index]
    if options is None:
        options = judge_options(state)
    return judgement_from(state, action, options, index), tuple(engine.orientations(state))


@dataclass(frozen=True, slots=True)
class DrillPicture:
    """One drill step: the board before action `index` of `record`, marking the option
    `taken` and, when given, the `better` one, or every option of a second try (`picking`)
    (render.drill), with its panel words."""

    record: Record
    index: int
    taken: str
    better: str | None = None
    labels: Labels = ENGLISH
    names: tuple[str, ...] | None = None
    picking: tuple[str, ...] = ()
    """A second try's options, numbered in this order (render.drill)."""
    badges: tuple[str, ...] = ("1", "2", "3")
    """The badges of `taken`, `better` and `also` (a rug keeps its number on the second try's
    buttons on every screen of its step)."""
    also: str | None = None
    """A third option drawn: the best, beside a pick that is not it."""


def drill_png(picture: DrillPicture) -> bytes:
    """The PNG of a drill step (see `DrillPicture`)."""
    state = state_before(picture.record, picture.index)
    return render_drill(
        state,
        picture.taken,
        picture.better,
        picking=picture.picking,
        also=picture.also,
        badges=picture.badges,
        labels=picture.labels,
        names=picture.names,
    )


@functools.cache
def ready() -> bool:
    """Draw one board, once per process, so fonts and cached layers are loaded before the
    first real picture: a game's first turn, with the arrows of the ways Assam may face; True
    when done."""
    config = engine.deal(3, engine.Variant.STANDARD, first_player=0)
    record = engine.Record(3, config.variant, 0, config.piles, ())
    board_png(BoardPicture(record, show_choices=True))
    return True
