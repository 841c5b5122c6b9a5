"""The coach's private words in a coached game (docs/coach.md): a hint's line (the option the
coach prefers and the win chance it gives) and the one-line verdict after a decision ("Good",
"Inaccuracy: laying on c3-c4 kept 6 % more winning chance"), in the reader's language.

Both are read from what `ai.judge` computed in the workers: an `Option` for a hint, a
`Judgement` for a verdict, with the board the decision was made on (to name the way a turn of
Assam faces). Numbers only, never invented prose.
"""

from __future__ import annotations

from ai.judge import Band, Judgement, Option
from bot.presentation.messages import number, text
from bot.presentation.names import facing_name, squares_label
from bot.workers import jobs as worker_jobs
from bot.workers.pool import Lane, WorkerPool
from engine import GameState, Record, orientations, parse_square

HINTS_PER_GAME = 3
"""How many hints each person may ask for in one coached game (docs/coach.md)."""
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


def option_label(state: GameState, action: str, language: str) -> str:
    """What choosing `action` at `state` is, in words: "laying on c3-c4", "turning Assam
    north"."""
    facings = dict(orientations(state))
    if action in facings:
        return text("coach.turning", language, facing=facing_name(facings[action], language))
    squares = (parse_square(action[:2]), parse_square(action[2:]))
    return text("coach.laying", language, squares=squares_label(sorted(squares)))


def percent(chance: float, language: str) -> int | str:
    """A chance (0-1) as whole percentage points in the language's numbers."""
    return number(round(chance * 100), language)


def hint_line(state: GameState, option: Option, left: int, language: str) -> str:
    """The hint: the coach's option at `state`, the chance of winning it gives, and how many
    hints are `left` after this one."""
    return text(
        "coach.hint",
        language,
        option=option_label(state, option.action, language),
        chance=percent(option.chance, language),
        left=left,
    )


def verdict_line(state: GameState, judgement: Judgement, language: str) -> str:
    """The verdict on the decision `judgement` judged at `state`: "Good" within the
    inaccuracy band, else the band and what the best option kept."""
    if judgement.band is Band.GOOD:
        return text("coach.verdict.good", language)
    return text(
        "coach.verdict.costly",
        language,
        band=text(f"coach.band.{judgement.band.value}", language),
        option=option_label(state, judgement.best, language),
        points=number(max(1, round(judgement.loss)), language),
    )
