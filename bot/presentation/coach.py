"""The coach's private words and picture in a coached game (docs/coach.md): a hint's line (the
option the coach prefers and the win chance it gives), its board with that option played, and
the one-line verdict after a decision ("✅ Good: laying on c3-c4.", "Inaccuracy: laying on
c3-c4 kept 6.2 points more winning chance than laying on d5-d6."), in the reader's language.

Both are read from what `ai.judge` computed in the workers: an `Option` for a hint, a
`Judgement` for a verdict, with the board the decision was made on (to name the way a turn of
Assam faces). Numbers only, never invented prose. `Coach` runs the searches and draws the
hint's board in the worker pool.
"""

from __future__ import annotations

import engine
from ai.judge import Band, Judgement, Option, thresholds
from bot.presentation.analysis import percent
from bot.presentation.images import BOARD_TIMEOUT_SECONDS, picture_of
from bot.presentation.messages import number, text
from bot.presentation.names import facing_name, squares_label
from bot.presentation.presenter import BoardImage
from bot.services.views import Player
from bot.workers import jobs as worker_jobs
from bot.workers.pool import Lane, WorkerPool
from engine import Facing, GameState, Record, orientations, parse_square

Facings = tuple[tuple[str, Facing], ...]
"""Each way of turning Assam (L, S, R) and where it makes him face."""
Options = tuple[Option, ...]
"""Every option of a decision, best first, as the judge gave them."""

COACH_TIMEOUT_SECONDS = 10.0
"""The longest a hint's search may take in a worker (about 0.1 s of CPU at most)."""


class Coach:
    """Runs the coach's searches in the worker pool, never on the event loop."""

    def __init__(self, workers: WorkerPool) -> None:
        self._workers = workers

    async def options(self, record: Record) -> tuple[Option, ...]:
        """Every option of the person to move at the end of `record`, best first."""
        return await self._workers.run(
            Lane.QUICK, worker_jobs.coach_options, record, limit=COACH_TIMEOUT_SECONDS
        )

    async def hint_png(
        self, state: GameState, action: str, language: str, players: tuple[Player, ...]
    ) -> bytes:
        """The board as the coach's `action` at `state` leaves it, the action marked as a
        turn's picture marks the last move (the rug laid, or Assam facing his new way), the
        panel still on the turn the hint was asked on (a rug laid ends the turn)."""
        after, events = engine.apply(state, action)
        panel = (state.turn, state.to_move)
        image = BoardImage(after, events, language=language, players=players, panel_turn=panel)
        return await self._workers.run(
            Lane.QUICK, worker_jobs.board_png, picture_of(image), limit=BOARD_TIMEOUT_SECONDS
        )

    async def verdict(
        self, record: Record, index: int, options: tuple[Option, ...] | None
    ) -> tuple[Judgement, Facings]:
        """The judgement of the decision `record.actions[index]`, on a hint's `options` when
        the person asked for one there (no second search), and the facings of its board."""
        return await self._workers.run(
            Lane.QUICK,
            worker_jobs.coach_verdict_at,
            record,
            index,
            options,
            limit=COACH_TIMEOUT_SECONDS,
        )


DECIDED = 0.005
"""A chance of winning at or below which (or at or above one less which) a game is decided:
it reads "<1%" (or ">99%"), and 0% (or 100%) only once it is certain (`percent`)."""
CLOSE_POINTS = 1.0
"""Win-chance points below the best within which a verdict says only "Good"."""
BAND_SIGNS = {Band.INACCURACY: "⚠️", Band.MISTAKE: "❗", Band.BLUNDER: "❌"}
"""The sign a costly verdict starts with, as a good one starts with ✅: a phone user sees the
band at a glance, and the three differ in shape, not only in colour."""


def option_label(state: GameState, action: str, language: str) -> str:
    """What choosing `action` at `state` is, in words: "laying on c3-c4", "turning Assam
    north", "keeping Assam facing west"."""
    return label_of(action, facings_of(state), language)


def facings_of(state: GameState) -> Facings:
    """Where each way of turning Assam at `state` makes him face (none off such a decision)."""
    return tuple(orientations(state))


def label_of(action: str, facings: Facings, language: str) -> str:
    """`action` in words, `facings` naming where each way of turning Assam leads."""
    faced = dict(facings)
    if action in faced:
        key = "coach.keeping" if action == "S" else "coach.turning"  # straight on: no turn
        return text(key, language, facing=facing_name(faced[action], language))
    squares = (parse_square(action[:2]), parse_square(action[2:]))
    return text("coach.laying", language, squares=squares_label(sorted(squares)))


def last_decision(record: Record) -> int:
    """The index in `record.actions` of its last decision: the last action that is not a
    roll of the die ("D1" to "D4"; the roll that follows an orientation comes after it)."""
    return max(i for i, action in enumerate(record.actions) if not action.startswith("D"))


def board_of(state: GameState, index: int | None = None) -> tuple[int, int]:
    """Which board the decision at action `index` of `state`'s game (default: the decision it
    waits for) is made on: the actions played before it and the resignations before it. A
    rival who resigns changes the board without an action (their rugs turn neutral), so a
    Hint's options serve the verdict only on the board they were searched on."""
    at = len(state.history) if index is None else index
    return at, sum(1 for before, _ in state.resignations if before <= at)


def hint_line(state: GameState, option: Option, left: int, language: str) -> str:
    """The hint: the coach's option at `state`, the chance of winning it gives (0% or 100%
    only when certain, as every chance the coach shows: `percent`), and how many hints are
    `left` after this one."""
    return text(
        "coach.hint",
        language,
        option=option_label(state, option.action, language),
        chance=percent(option.chance, language),
        left=left,
    )


def verdict_line(judgement: Judgement, facings: Facings, language: str, players: int) -> str:
    """The verdict on the decision `judgement` judged (`facings`: `facings_of` the board it
    was made on) in a game of `players`, naming the option taken, so that a turn's two
    verdicts tell apart:

    - decided: every option leaves a chance next to nothing, or every one next to certain (so
      they are within a point of each other): no choice mattered, and "good" would teach
      nothing (the chance reads "<1%" or ">99%", 0% or 100% only when the game is lost or won
      for certain);
    - best: the option taken is the coach's (to within a twentieth of a point);
    - good: within CLOSE_POINTS of the best;
    - good, though the best kept more: under the inaccuracy band, with those points, since a
      game is often lost a few points at a time;
    - else the band and the win-chance points the best option kept over the one taken, to a
      tenth, as the drill gives them.

    The points never read as the threshold of the band above (`shown_points`)."""
    taken = label_of(judgement.taken, facings, language)
    chances = [option.chance for option in judgement.options]
    if max(chances) <= DECIDED or min(chances) >= 1 - DECIDED:
        return text(
            "coach.verdict.decided", language, chance=percent(judgement.best_chance, language)
        )
    if judgement.band is Band.GOOD:
        if judgement.loss < 0.05:
            return text("coach.verdict.best", language, taken=taken)
        if judgement.loss < CLOSE_POINTS:
            return text("coach.verdict.good", language, taken=taken)
        return text(
            "coach.verdict.close",
            language,
            taken=taken,
            option=label_of(judgement.best, facings, language),
            points=number(shown_points(judgement, players), language, 1),
        )
    return text(
        "coach.verdict.costly",
        language,
        sign=BAND_SIGNS[judgement.band],
        band=text(f"coach.band.{judgement.band.value}", language),
        option=label_of(judgement.best, facings, language),
        points=number(shown_points(judgement, players), language, 1),
        taken=taken,
    )


def shown_points(judgement: Judgement, players: int) -> float:
    """The win-chance points a verdict says the choice gave away: to a tenth, as the drill
    gives them, but under the threshold of the band above its own as the bands are given (to
    a tenth): in 2 players a choice that gave away 4.96 points is good and reads 4.9, one
    that gave away 14.96 a mistake and reads 14.9, never "5.0" or "15.0"."""
    points = round(judgement.loss, 1)
    above = [threshold for threshold in thresholds(players) if threshold > judgement.loss]
    if above:
        points = min(points, round(round(above[0], 1) - 0.1, 1))
    return points
