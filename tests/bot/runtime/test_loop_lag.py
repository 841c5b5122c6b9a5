"""Tests of bot.runtime.loop_lag: the event loop lag probe, its warnings, figures and liveness.

Most tests drive the probe with a scripted clock and sleep, so nothing depends on how fast
the machine running them is.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable

import pytest

from bot.runtime.loop_lag import (
    LIVENESS_EVERY,
    MAX_STALL_SPAN,
    STALL_SETTLE,
    STARTUP_SECONDS,
    LagFigures,
    LagHistogram,
    LoopLagProbe,
)

INTERVAL = 0.1
LOGGER = "bot.runtime.loop_lag"


class ScriptedTime:
    """A clock and a sleep for the probe: each sleep lasts its interval plus the next scripted
    lag; once the script is done, sleeps never end and `done` is set."""

    def __init__(self, lags: Iterable[float]) -> None:
        self.now = 1_000.0
        self._lags = iter(lags)
        self.done = asyncio.Event()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)
        lag = next(self._lags, None)
        if lag is None:
            self.done.set()
            await asyncio.Event().wait()
            return
        self.now += seconds + lag


async def run_probe(
    lags: Iterable[float],
    *,
    liveness: Callable[[], None] | None = None,
    liveness_every: float = LIVENESS_EVERY,
    startup: float = 0.0,
) -> LoopLagProbe:
    """Run a probe through `lags` (one per wake-up) and stop it; by default without a
    start-up, so that every stall is warned about."""
    scripted = ScriptedTime(lags)
    probe = LoopLagProbe(
        interval=INTERVAL,
        liveness=liveness,
        liveness_every=liveness_every,
        startup=startup,
        clock=scripted.clock,
        sleep=scripted.sleep,
    )
    probe.start()
    await scripted.done.wait()
    await probe.stop()
    return probe


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == LOGGER and record.levelno == logging.WARNING
    ]


def on_time(seconds: float) -> list[float]:
    """Lags for `seconds` worth of wake-ups on time."""
    return [0.0] * round(seconds / INTERVAL)


# The histogram and its figures.


def test_percentiles_of_known_lags_are_exact_to_the_millisecond() -> None:
    histogram = LagHistogram()
    for millisecond in range(1, 101):  # 1.5 ms, 2.5 ms, ... 100.5 ms
        histogram.add((millisecond + 0.5) / 1000)

    assert histogram.count == 100
    assert histogram.percentile(50) == pytest.approx(0.050)
    assert histogram.percentile(99) == pytest.approx(0.099)
    assert histogram.percentile(100) == pytest.approx(0.100)
    assert histogram.percentile(0) == pytest.approx(0.001)
    assert histogram.worst == pytest.approx(0.1005)


def test_p99_picks_out_the_rare_slow_lags() -> None:
    histogram = LagHistogram()
    for _ in range(985):
        histogram.add(0.0004)
    for _ in range(15):
        histogram.add(0.0123)

    assert histogram.percentile(50) == 0.0
    assert histogram.percentile(98) == 0.0
    assert histogram.percentile(99) == pytest.approx(0.012)


def test_long_lags_land_in_coarser_buckets_and_the_worst_stays_exact() -> None:
    histogram = LagHistogram()
    for lag in (2.345, 42.5, 3_600.0):
        histogram.add(lag)

    assert histogram.percentile(1) == pytest.approx(2.34)
    assert histogram.percentile(50) == pytest.approx(42.0)
    assert histogram.percentile(100) == pytest.approx(600.0)
    assert histogram.worst == 3_600.0


def test_negative_lag_counts_as_none() -> None:
    histogram = LagHistogram()
    histogram.add(-0.5)

    assert histogram.percentile(50) == 0.0
    assert histogram.worst == 0.0


def test_memory_does_not_grow_with_the_samples() -> None:
    histogram = LagHistogram()
    before = len(histogram._counts)
    for index in range(50_000):
        histogram.add(index / 1000)

    assert len(histogram._counts) == before
    assert histogram.count == 50_000


def test_empty_histogram_has_zero_figures() -> None:
    assert LagHistogram().percentile(99) == 0.0


def test_figures_line_reads_in_milliseconds() -> None:
    line = LagFigures(count=812, p50=0.0012, p99=0.012, worst=0.0409).line()

    assert line == "event loop lag over 812 probes: p50 1 ms, p99 12 ms, worst 40 ms"
    assert LagFigures(0, 0.0, 0.0, 0.0).line() == "event loop lag: no probes yet"
    assert LagFigures(1, 0.0, 0.0, 0.0).line().startswith("event loop lag over 1 probe:")


# The probe, on scripted time.


async def test_probe_records_each_wake_up_lag() -> None:
    probe = await run_probe([0.001, 0.002, 0.0, 0.040])

    figures = probe.figures
    assert figures.count == 4
    assert figures.p50 == pytest.approx(0.001)
    assert figures.p99 == pytest.approx(0.040)
    assert figures.worst == pytest.approx(0.040)
    assert probe.last_tick == pytest.approx(1_000.0 + 4 * INTERVAL + 0.043)


async def test_one_block_gives_one_warning_with_its_length(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)

    await run_probe([0.001, 0.4, *on_time(STALL_SETTLE + 1)])

    assert warnings(caplog) == ["event loop lag 400 ms (over 250 ms)"]


async def test_lag_at_the_threshold_is_no_stall(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, LOGGER)

    await run_probe([0.25, 0.2, *on_time(STALL_SETTLE + 1)])

    assert warnings(caplog) == []


async def test_a_long_stall_gives_one_line_not_one_per_probe(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)

    # Five late wake-ups, then on time for a while, with one more late in the middle of
    # the quiet: all one stall, since the loop was never on time for STALL_SETTLE.
    await run_probe([0.3, 0.6, 0.3, 0.3, 0.3, 0.0, 0.0, 0.5, *on_time(STALL_SETTLE + 1)])

    (line,) = warnings(caplog)
    # From the first late wake-up's due time to the last one's wake-up: 0.3 s late, then
    # 7 sleeps of 0.1 s and 2.0 s more late.
    assert line == "event loop lag over 250 ms for 3.0 s: 6 late probes, worst 600 ms"


async def test_stalls_apart_are_reported_apart(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, LOGGER)

    await run_probe([0.3, *on_time(STALL_SETTLE + 1), 1.5, *on_time(STALL_SETTLE + 1)])

    assert warnings(caplog) == [
        "event loop lag 300 ms (over 250 ms)",
        "event loop lag 1.5 s (over 250 ms)",
    ]


async def test_an_endless_stall_is_reported_once_per_span(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    per_wake_up = INTERVAL + 0.4

    await run_probe([0.4] * round(2.5 * MAX_STALL_SPAN / per_wake_up))

    lines = warnings(caplog)
    assert len(lines) == 3  # two full spans, and the rest when the probe stops
    assert all("late probes, worst 400 ms" in line for line in lines)


async def test_stop_reports_a_stall_still_open_then_the_summary(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)

    await run_probe([0.0, 0.0, 0.0, 0.7])

    messages = [(record.levelno, record.getMessage()) for record in caplog.records]
    assert messages == [
        (logging.WARNING, "event loop lag 700 ms (over 250 ms)"),
        (logging.INFO, "event loop lag over 4 probes: p50 0 ms, p99 700 ms, worst 700 ms"),
    ]


async def test_summary_on_demand_keeps_the_probe_running(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    scripted = ScriptedTime([0.002, 0.003])
    probe = LoopLagProbe(interval=INTERVAL, clock=scripted.clock, sleep=scripted.sleep)
    probe.start()
    probe.start()  # a second start changes nothing
    await scripted.done.wait()

    probe.log_summary()

    assert caplog.messages == ["event loop lag over 2 probes: p50 2 ms, p99 3 ms, worst 3 ms"]
    assert probe.summary() == caplog.messages[0]
    await probe.stop()
    assert len(caplog.messages) == 2


async def test_stop_without_a_probe_logs_no_figures(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, LOGGER)

    probe = LoopLagProbe()
    await probe.stop()

    assert caplog.messages == [], "a run that failed at once has no figures to tell"
    probe.log_summary()
    assert caplog.messages == ["event loop lag: no probes yet"], "asked for, it says so"


async def test_stalls_of_the_start_up_are_told_at_info_and_later_ones_warned(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    quiet_start = on_time(STARTUP_SECONDS)

    await run_probe([0.4, *quiet_start, 0.5, *on_time(STALL_SETTLE + 1)], startup=STARTUP_SECONDS)

    stalls = [
        (record.levelno, record.getMessage())
        for record in caplog.records
        if "(over 250 ms)" in record.getMessage()
    ]
    assert stalls == [
        (logging.INFO, "event loop lag 400 ms at start-up (over 250 ms)"),
        (logging.WARNING, "event loop lag 500 ms (over 250 ms)"),
    ]


async def test_a_probe_s_start_up_is_the_first_30_s_as_the_operator_is_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """docs/deployment.md: the lag line in the first 30 s after a start says `at start-up` and
    is INFO; later, it is a WARNING. A probe at its defaults: a stall 20 s in is the start's, one
    35 s in is warned about."""
    caplog.set_level(logging.INFO, LOGGER)
    scripted = ScriptedTime([*on_time(20), 0.6, *on_time(15), 0.6, *on_time(STALL_SETTLE + 1)])
    probe = LoopLagProbe(clock=scripted.clock, sleep=scripted.sleep)
    probe.start()
    await scripted.done.wait()
    await probe.stop()

    stalls = [
        (record.levelno, record.getMessage())
        for record in caplog.records
        if "(over 250 ms)" in record.getMessage()
    ]
    assert stalls == [
        (logging.INFO, "event loop lag 600 ms at start-up (over 250 ms)"),
        (logging.WARNING, "event loop lag 600 ms (over 250 ms)"),
    ]


async def test_a_stall_that_begins_in_the_start_up_is_told_at_info_even_if_it_ends_after_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A start that catches many games up on a small host holds the loop up past the first
    seconds: judged by its end, that stall would be warned about at nearly every start."""
    caplog.set_level(logging.INFO, LOGGER)

    # A start-up of 1 s: on time until 0.8 s, then two wake-ups 0.3 s late, so the stall
    # begins at 0.9 s (the first late wake-up's due time) and ends at 1.6 s.
    await run_probe([*on_time(0.8), 0.3, 0.3, *on_time(STALL_SETTLE + 1)], startup=1.0)

    assert warnings(caplog) == []
    stalls = [
        (record.levelno, record.getMessage())
        for record in caplog.records
        if "late probes" in record.getMessage()
    ]
    assert stalls == [
        (
            logging.INFO,
            "event loop lag over 250 ms for 700 ms at start-up: 2 late probes, worst 300 ms",
        )
    ]


def test_a_probe_has_a_start_up_by_default() -> None:
    assert LoopLagProbe().startup == STARTUP_SECONDS > 0


async def test_liveness_is_recorded_at_start_and_every_few_seconds() -> None:
    """Every `liveness_every` seconds to the wake-up: an eighth of a second, exact in binary,
    puts a wake-up at each whole second with no rounding to move it either side."""
    scripted = ScriptedTime([0.0] * 20)
    recorded: list[float] = []
    probe = LoopLagProbe(
        interval=0.125,
        liveness=lambda: recorded.append(scripted.now),
        liveness_every=1.0,
        clock=scripted.clock,
        sleep=scripted.sleep,
    )
    probe.start()
    await scripted.done.wait()
    await probe.stop()

    assert recorded == [1_000.0, 1_001.0, 1_002.0]


async def test_a_failing_liveness_write_is_logged_once_and_probing_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)

    def fail() -> None:
        raise OSError("No space left on device")

    probe = await run_probe([0.0] * 30, liveness=fail, liveness_every=1.0)

    assert warnings(caplog) == ["cannot record that the event loop runs: No space left on device"]
    assert probe.figures.count == 30


async def test_a_liveness_write_that_fails_again_after_it_recovered_is_warned_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A disk full on Monday, freed, then full again on Friday: each time the health check
    starts to fail, the log says why."""
    caplog.set_level(logging.INFO, LOGGER)
    outcomes = iter(["fails", "fails", "writes", "fails", "fails"])

    def write() -> None:
        if next(outcomes, "writes") == "fails":
            raise OSError("No space left on device")

    await run_probe([0.0] * 50, liveness=write, liveness_every=1.0)

    assert (
        warnings(caplog) == ["cannot record that the event loop runs: No space left on device"] * 2
    )


# The probe, on the real loop and clock (bounds only, never an upper limit on time).


async def test_a_blocked_loop_is_seen_and_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    probe = LoopLagProbe(interval=0.01, startup=0.0)
    probe.start()
    while probe.last_tick is None:  # noqa: ASYNC110 (the probe's own clock is under test)
        await asyncio.sleep(0.005)

    tick = probe.last_tick
    time.sleep(0.4)  # noqa: ASYNC251 (blocks the loop on purpose: the probe wakes 0.39 s late)
    while probe.last_tick == tick:  # noqa: ASYNC110
        await asyncio.sleep(0.005)
    await probe.stop()

    assert probe.figures.worst >= 0.39
    assert any(line.startswith("event loop lag") for line in warnings(caplog))
    assert caplog.messages[-1].startswith("event loop lag over")
