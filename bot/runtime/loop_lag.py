"""How late the bot's event loop runs its callbacks: a small periodic probe and its figures.

`LoopLagProbe` sleeps `interval` seconds at a time and measures how much later than asked it
woke: that lag is what any callback ready at that moment waited for the loop (a blocking
call, a long synchronous stretch, a flood of ready callbacks). It keeps

- figures over the whole run (count, p50, p99, worst) in a fixed-size histogram
  (`LagHistogram`), logged as one INFO line on demand and when the probe stops;
- a WARNING for each stall, a run of wake-ups later than `warn_lag`: one line per stall with
  its length, written once the loop has been on time again for `STALL_SETTLE` seconds (or at
  stop, or every `MAX_STALL_SPAN` seconds while a stall goes on), never one per late wake-up.
  A stall that begins in the first `startup` seconds is told at INFO, "at start-up": a start
  imports, migrates, starts the worker processes and catches every game up at once, and on a
  small host that holds the loop up a few hundred ms at most starts. A WARNING there would
  come with nearly every start and teach the operator to pass over the warnings that matter;
- the loop's liveness for the health check, which runs in another process: every
  `liveness_every` seconds the probe calls `liveness` (in the bot, `Heartbeat.tick`, which
  writes the time into the heartbeat file), so a file whose loop time has gone stale means the
  loop has stopped running.

The liveness write happens directly on the loop rather than through `asyncio.to_thread`: it is
one tiny file replaced every few seconds (well under a millisecond, a little more when it waits
for a gateway beat's write of the same file), while the default thread pool may be busy with
long work, which would delay the write and make a running loop look blocked. If the disk itself
hangs, the loop stalls with it and the bot is rightly reported unhealthy.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

PROBE_INTERVAL = 0.1
"""Seconds between wake-ups. Ten a second cost nothing measurable (one timer and a few
additions each), give a p99 a few hundred samples within a minute, and miss little of a block:
one that starts while the probe sleeps shows as a lag at most one interval shorter than it."""
WARN_LAG = 0.25
"""Seconds: a wake-up later than this is part of a stall worth a WARNING."""
STALL_SETTLE = 2.0
"""Seconds on time after which a stall counts as over and is logged."""
MAX_STALL_SPAN = 60.0
"""Seconds: a stall that goes on this long is logged and then counted afresh."""
STARTUP_SECONDS = 30.0
"""Seconds from the probe's start during which a stall is the start's own (told at INFO)."""
LIVENESS_EVERY = 5.0
"""Seconds between liveness records: the health check allows 30 s, so this is precise enough
and costs one small file write every few seconds."""


def _tiers(*tiers: tuple[int, int]) -> tuple[tuple[int, int, int, int], ...]:
    """(lower, upper, width, first bucket) in ms for each (width, upper) tier, in order."""
    layout = []
    lower = first = 0
    for width, upper in tiers:
        layout.append((lower, upper, width, first))
        first += (upper - lower) // width
        lower = upper
    return tuple(layout)


_TIERS = _tiers((1, 1_000), (10, 10_000), (1_000, 600_000))
"""The histogram's buckets: 1 ms wide up to 1 s, 10 ms up to 10 s, 1 s up to 10 minutes, and
one last bucket for anything longer."""
_OVERFLOW = sum((upper - lower) // width for lower, upper, width, _ in _TIERS)
"""The index of that last bucket."""


class LagHistogram:
    """Lags in fixed buckets (about 2,500 counters, whatever the number of samples).

    A percentile is the lower bound of the bucket its nearest-rank sample falls in: exact to
    the millisecond below one second, to 10 ms below ten seconds, to the second beyond.
    """

    def __init__(self) -> None:
        self._counts = [0] * (_OVERFLOW + 1)
        self.count = 0
        self.worst = 0.0

    def add(self, lag: float) -> None:
        """Count one lag (seconds; negative counts as 0)."""
        lag = max(0.0, lag)
        self._counts[_bucket(_milliseconds(lag))] += 1
        self.count += 1
        self.worst = max(self.worst, lag)

    def percentile(self, percent: float) -> float:
        """The nearest-rank `percent` percentile in seconds (0 when nothing was counted)."""
        if self.count == 0:
            return 0.0
        rank = max(1, math.ceil(round(percent * self.count / 100, 9)))
        seen = 0
        for index, count in enumerate(self._counts):
            seen += count
            if seen >= rank:
                return _lower_bound(index) / 1000
        return self.worst  # not reached: the counts add up to self.count


@dataclass(frozen=True, slots=True)
class LagFigures:
    """The lag figures of a run, in seconds."""

    count: int
    p50: float
    p99: float
    worst: float

    def line(self) -> str:
        """One line for the log, e.g. 'event loop lag over 812 probes: p50 1 ms, ...'."""
        if self.count == 0:
            return "event loop lag: no probes yet"
        probes = "probe" if self.count == 1 else "probes"
        return (
            f"event loop lag over {self.count} {probes}: p50 {_ms(self.p50)} ms, "
            f"p99 {_ms(self.p99)} ms, worst {_ms(self.worst)} ms"
        )


@dataclass(slots=True)
class _Stall:
    """A run of late wake-ups: from the first one's due time to the last one's wake-up."""

    start: float
    end: float
    late: int
    worst: float


class LoopLagProbe:
    """Measures the running loop's lag until stopped; see the module docstring."""

    def __init__(
        self,
        *,
        interval: float = PROBE_INTERVAL,
        warn_lag: float = WARN_LAG,
        liveness: Callable[[], None] | None = None,
        liveness_every: float = LIVENESS_EVERY,
        startup: float = STARTUP_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._interval = interval
        self._warn_lag = warn_lag
        self._liveness = liveness
        self._liveness_every = liveness_every
        self.startup = startup
        """Seconds from the start whose stalls are the start's own."""
        self._started_at: float | None = None
        self._clock = clock
        self._sleep = sleep
        self._histogram = LagHistogram()
        self._stall: _Stall | None = None
        self._task: asyncio.Task[None] | None = None
        self._liveness_at = -math.inf
        self._liveness_failing = False
        self.last_tick: float | None = None
        """When the probe last woke (on `clock`); None before its first wake-up."""

    def start(self) -> None:
        """Start probing the running loop (again a no-op while it runs)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="loop-lag")

    async def stop(self) -> None:
        """Stop probing, log a stall still open, then the summary at INFO (none if the probe
        never woke: a run that failed at once has no figures)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
        if self._stall is not None:
            self._report_stall()
        if self._histogram.count:
            self.log_summary()

    @property
    def figures(self) -> LagFigures:
        """The figures so far."""
        histogram = self._histogram
        return LagFigures(
            histogram.count, histogram.percentile(50), histogram.percentile(99), histogram.worst
        )

    def summary(self) -> str:
        """The figures so far as one line."""
        return self.figures.line()

    def log_summary(self) -> None:
        """Log the figures so far at INFO."""
        log.info("%s", self.summary())

    async def _run(self) -> None:
        self._started_at = self._clock()
        self._record_liveness(self._started_at)
        while True:
            due = self._clock() + self._interval
            await self._sleep(self._interval)
            self._observe(due, self._clock())

    def _observe(self, due: float, now: float) -> None:
        lag = max(0.0, now - due)
        self._histogram.add(lag)
        self.last_tick = now
        stall = self._stall
        if lag > self._warn_lag:
            if stall is None:
                stall = self._stall = _Stall(start=due, end=now, late=1, worst=lag)
            else:
                stall.end = now
                stall.late += 1
                stall.worst = max(stall.worst, lag)
        if stall is not None and (
            now - stall.end >= STALL_SETTLE or now - stall.start >= MAX_STALL_SPAN
        ):
            self._report_stall()
        if now - self._liveness_at >= self._liveness_every:
            self._record_liveness(now)

    def _report_stall(self) -> None:
        stall, self._stall = self._stall, None
        if stall is None:
            return
        at_start = self._started_at is not None and stall.start < self._started_at + self.startup
        level = logging.INFO if at_start else logging.WARNING
        when = " at start-up" if at_start else ""
        if stall.late == 1:
            log.log(
                level,
                "event loop lag %s%s (over %d ms)",
                _duration(stall.worst),
                when,
                _ms(self._warn_lag),
            )
        else:
            log.log(
                level,
                "event loop lag over %d ms for %s%s: %d late probes, worst %s",
                _ms(self._warn_lag),
                _duration(stall.end - stall.start),
                when,
                stall.late,
                _duration(stall.worst),
            )

    def _record_liveness(self, now: float) -> None:
        self._liveness_at = now
        if self._liveness is None:
            return
        try:
            self._liveness()
        except Exception as error:  # a failed write must not stop the measuring
            if not self._liveness_failing:
                log.warning("cannot record that the event loop runs: %s", error)
            self._liveness_failing = True
        else:
            self._liveness_failing = False


def _bucket(milliseconds: float) -> int:
    for lower, upper, width, first in _TIERS:
        if milliseconds < upper:
            return first + int((milliseconds - lower) // width)
    return _OVERFLOW


def _lower_bound(index: int) -> int:
    """The smallest lag (ms) that bucket `index` holds."""
    for lower, upper, width, first in _TIERS:
        if index < first + (upper - lower) // width:
            return lower + (index - first) * width
    return _TIERS[-1][1]


def _milliseconds(seconds: float) -> float:
    """Milliseconds to the microsecond: clock arithmetic leaves 3 ms as 2.9999999... ms."""
    return round(seconds * 1000, 3)


def _ms(seconds: float) -> int:
    """Whole milliseconds, rounded down (so a figure is never shown above what was seen)."""
    return math.floor(_milliseconds(seconds))


def _duration(seconds: float) -> str:
    if seconds < 1:
        return f"{_ms(seconds)} ms"
    if seconds < 10:
        return f"{seconds:.1f} s"
    return f"{seconds:.0f} s"
