"""How much an AI player may think: a work budget, a time budget, or both.

Work is counted in search nodes (for `hard`: one simulated turn of the next mover, over the
whole die). Work budgets make decisions reproducible: the same state, seed and work budget
always give the same action. A time budget is a safety cap for slow machines; when it binds,
the action can depend on the machine's speed. Time is measured by default as the CPU time of
the deciding thread (`time.thread_time`): "one second of one core", whatever else the machine
runs. The clock is injectable so tests can drive deadlines without waiting on any clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on one decision. `None` means no limit of that kind.

    `work`: how many search nodes a decision may expand; the search stops after that many.
    `seconds`: CPU time of the deciding thread a decision may take, checked between nodes.
    """

    work: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.work is not None and self.work < 1:
            raise ValueError("a work budget must allow at least one node")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError("a time budget must be positive")


class Meter:
    """Counts work against a Budget and tells when it is spent."""

    __slots__ = ("_clock", "_deadline", "_limit", "_start", "used")

    def __init__(self, budget: Budget, clock: Clock = time.thread_time) -> None:
        self._clock = clock
        self._limit = budget.work
        self._start = clock()
        self._deadline = None if budget.seconds is None else self._start + budget.seconds
        self.used = 0

    def spend(self, work: int = 1) -> None:
        self.used += work

    def affords(self, work: int = 1) -> bool:
        """True if `work` more units fit in the work budget and the deadline has not passed."""
        if self._limit is not None and self.used + work > self._limit:
            return False
        return self._deadline is None or self._clock() < self._deadline

    def fits(self, work: int) -> bool:
        """True if the work budget (ignoring time) allows `work` units in all."""
        return self._limit is None or work <= self._limit
