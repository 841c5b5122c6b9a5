"""How much an AI player may think: a work budget (playouts), a time budget, or both.

Work budgets make decisions reproducible: the same state, seed and playout count always give
the same action. A time budget is a safety cap for slow machines; when it binds, the action can
depend on the machine's speed. The clock is injectable so tests can drive deadlines without
waiting on the wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on one decision. `None` means no limit of that kind.

    `playouts`: how many simulated games (hard) a decision may run; the search stops after
    that many. `seconds`: wall-clock time a decision may take, checked between playouts.
    """

    playouts: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.playouts is not None and self.playouts < 1:
            raise ValueError("a playout budget must allow at least one playout")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError("a time budget must be positive")


class Meter:
    """Counts work against a Budget and tells when it is spent."""

    __slots__ = ("_clock", "_deadline", "_limit", "_start", "used")

    def __init__(self, budget: Budget, clock: Clock = time.perf_counter) -> None:
        self._clock = clock
        self._limit = budget.playouts
        self._start = clock()
        self._deadline = None if budget.seconds is None else self._start + budget.seconds
        self.used = 0

    def spend(self, work: int = 1) -> None:
        self.used += work

    def exhausted(self) -> bool:
        """True once the playout count is reached or the deadline has passed."""
        if self._limit is not None and self.used >= self._limit:
            return True
        return self._deadline is not None and self._clock() >= self._deadline

    def remaining(self) -> int | None:
        """Playouts left under the work budget, or None without one."""
        return None if self._limit is None else max(0, self._limit - self.used)

    def capacity(self) -> int | None:
        """How many units of work the whole budget allows: the work budget if there is one,
        otherwise an estimate from the time spent so far per unit (None before any work)."""
        if self._limit is not None:
            return self._limit
        if self._deadline is None or self.used == 0:
            return None
        spent = self._clock() - self._start
        if spent <= 0:
            return None
        return self.used + int((self._deadline - self._clock()) * self.used / spent)
