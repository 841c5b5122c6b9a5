"""How late the event loop runs while a tournament's round is paired: 64 players, Swiss at 2,
3 and 4 seats per table over ROUNDS rounds, and a round-robin's schedule.

Each Swiss round is paired three times, with the loop probed every millisecond
(bot.runtime.loop_lag):

- on the loop, the pairing called in the handler, as a blocking call would run it;
- through `TournamentService.advance` pairing in a thread of the bot's process (a worker pool
  without processes);
- through `TournamentService.advance` pairing in the worker pool's processes, as the bot
  pairs: the snapshot, the pairing in a worker, the round stored, the view built.

The store is a stand-in that hands back the history and takes the round (no database: only
the pairing's own cost is measured).

The history is seeded: each round's tables come from the pairing itself, and each table's
places are drawn at random. A round-robin's schedule is worked out on the loop and off it the
same way (the bot works it out once, at the start). The first line is the loop's lag over as
long a time with nothing to do: the usual.

    python -m tests.bot.services.pairing_lag
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from bot.runtime.loop_lag import LagFigures, LoopLagProbe
from bot.services import GameService, pairing
from bot.services.tournament_views import TournamentFormat
from bot.services.tournaments import TournamentService, swiss_round
from bot.storage.kinds import GameStatus
from bot.storage.tournaments import (
    EntrantRow,
    TableResultRow,
    TableRow,
    TournamentRow,
    TournamentSnapshot,
    TournamentStore,
)
from bot.workers.pool import Lane, WorkerPool

PLAYERS = 64
SEATS = (2, 3, 4)
PROBE_INTERVAL = 0.001
"""Seconds between the probe's wake-ups: fine enough to see a few milliseconds' stall."""
ROUNDS = 8
"""Swiss rounds paired per table size (more than the default, as the command allows up to 20:
the later rounds, with more pairs already met, are the slow ones)."""
REPEATS = 3
"""Each measurement is run this many times and the least worst lag kept: a stall the pairing
causes shows in every run, one another program on the machine causes in some only."""
SEED = 33
NOW = datetime(2026, 11, 28, tzinfo=UTC)


class _History(TournamentStore):
    """A stand-in for the store: the snapshot it was given, and each round written into it."""

    def __init__(self, snapshot: TournamentSnapshot) -> None:
        self.current = snapshot

    async def snapshot(
        self, tournament_id: int, *, schedule: bool = False
    ) -> TournamentSnapshot | None:
        return self.current

    async def pair_round(
        self,
        tournament_id: int,
        round_no: int,
        tables: Sequence[Sequence[int | None]],
        now: datetime,
        withdrawn: Collection[int] = (),
    ) -> bool:
        added = tuple(
            TableRow(round_no, number, tuple(seats), None, None, None)
            for number, seats in enumerate(tables, start=1)
        )
        self.current = TournamentSnapshot(
            self.current.row, self.current.entrants, self.current.tables + added
        )
        return True


class _Loader:
    owner = "bench"

    def now(self) -> datetime:
        return NOW


class _Games:
    loader = _Loader()


def history(seats: int) -> TournamentSnapshot:
    """A running 64-player Swiss tournament with no round paired yet."""
    players = list(range(1, PLAYERS + 1))
    row = TournamentRow(
        id=1,
        guild_id=1,
        channel_id=1,
        name="bench",
        format=TournamentFormat.SWISS.value,
        seats=seats,
        rounds=ROUNDS,
        variant="standard",
        turn_limit_seconds=None,
        locale="en",
        status="running",
        created_by=1,
        ended_by=None,
        seed="00" * 16,
        message_id=None,
        created_at=NOW,
        updated_at=NOW,
    )
    entrants = tuple(EntrantRow(user, None, NOW, seed) for seed, user in enumerate(players, 1))
    return TournamentSnapshot(row, entrants, ())


def played(snapshot: TournamentSnapshot, round_no: int, rng: random.Random) -> TournamentSnapshot:
    """The snapshot with every table of round `round_no` over, places drawn at random."""
    tables = []
    for table in snapshot.tables:
        if table.round != round_no:
            tables.append(table)
            continue
        places = list(range(1, len(table.seats) + 1))
        rng.shuffle(places)
        results = tuple(
            TableResultRow(seat, place, rng.randrange(20, 60), rng.randrange(0, 30))
            for seat, place in zip(table.seats, places, strict=True)
        )
        game_id = round_no * 1000 + table.table_no
        tables.append(
            TableRow(
                table.round,
                table.table_no,
                table.seats,
                None,
                game_id,
                GameStatus.OVER.value,
                results,
            )
        )
    return TournamentSnapshot(snapshot.row, snapshot.entrants, tuple(tables))


async def probed(work: Callable[[], Awaitable[Any]]) -> tuple[float, LagFigures]:
    """Run `work` with the loop probed: its wall time and the lag figures meanwhile."""
    probe = LoopLagProbe(interval=PROBE_INTERVAL, warn_lag=3600.0)
    probe.start()
    await asyncio.sleep(PROBE_INTERVAL * 5)  # the probe is running
    started = time.perf_counter()
    await work()
    elapsed = time.perf_counter() - started
    await asyncio.sleep(PROBE_INTERVAL * 5)  # a last wake-up after the work
    figures = probe.figures
    await probe.stop()
    return elapsed, figures


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


async def least_lag(work: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """Run `work` REPEATS times probed: the least wall time and the least worst lag."""
    runs = [await probed(work) for _ in range(REPEATS)]
    return min(elapsed for elapsed, _ in runs), min(figures.worst for _, figures in runs)


async def advanced(
    snapshot: TournamentSnapshot, workers: WorkerPool
) -> tuple[float, TournamentSnapshot]:
    """Advance the tournament as the bot does, pairing in `workers`: the (least worst) lag
    meanwhile and the tournament with its new round."""
    stores: list[_History] = []

    async def advance() -> None:
        stores.append(_History(snapshot))
        service = TournamentService(stores[-1], cast(GameService, _Games()), workers=workers)
        await service.advance(1)

    _, lag = await least_lag(advance)
    assert all(store.current == stores[0].current for store in stores), "deterministic"
    return lag, stores[0].current


async def swiss(seats: int, threads: WorkerPool, processes: WorkerPool) -> str:
    """One line for the rounds: the slowest one's pairing time, and the worst lag on the loop,
    in a thread and in a worker process."""
    rng = random.Random(SEED + seats)
    snapshot = history(seats)
    assert snapshot.row.rounds is not None
    slowest = worst_on_loop = worst_thread = worst_worker = 0.0
    for round_no in range(1, snapshot.row.rounds + 1):
        current = snapshot

        async def on_loop(current: TournamentSnapshot = current, round_no: int = round_no) -> None:
            swiss_round(current, round_no)

        thread, in_thread = await advanced(snapshot, threads)
        worker, paired = await advanced(snapshot, processes)
        blocking, on_loop_lag = await least_lag(on_loop)
        assert in_thread == paired, "the same tables either way"
        slowest = max(slowest, blocking)
        worst_on_loop = max(worst_on_loop, on_loop_lag)
        worst_thread = max(worst_thread, thread)
        worst_worker = max(worst_worker, worker)
        snapshot = played(paired, round_no, rng)
    return (
        f"| Swiss, {seats} seats, {ROUNDS} rounds | {_ms(slowest)} | {_ms(worst_on_loop)} "
        f"| {_ms(worst_thread)} | {_ms(worst_worker)} |"
    )


async def round_robin(seats: int, processes: WorkerPool) -> str:
    players = list(range(1, PLAYERS + 1))

    async def on_loop() -> None:
        pairing.round_robin_schedule(players, seats)

    async def in_thread() -> None:
        await asyncio.to_thread(pairing.round_robin_schedule, players, seats)

    async def in_worker() -> None:
        await processes.run(Lane.SLOW, pairing.round_robin_schedule, players, seats)

    blocking, on_loop_lag = await least_lag(on_loop)
    _, thread = await least_lag(in_thread)
    _, worker = await least_lag(in_worker)
    return (
        f"| round-robin schedule, {seats} seats (at the start) | {_ms(blocking)} "
        f"| {_ms(on_loop_lag)} | {_ms(thread)} | {_ms(worker)} |"
    )


async def measure() -> None:
    logging.disable(logging.INFO)  # the probe's summary line at each stop
    threads, processes = WorkerPool(workers=0), WorkerPool(workers=2)
    try:
        await processes.start()
        _, idle = await least_lag(lambda: asyncio.sleep(1.0))
        print(f"the usual (1 s with nothing to do): worst {_ms(idle)} ms")
        print(
            "| pairing at 64 players | CPU time (slowest round), ms | worst loop lag: on the "
            "loop, ms | in a thread, ms | in a worker process (the bot), ms |"
        )
        print("|---|---|---|---|---|")
        for seats in SEATS:
            print(await swiss(seats, threads, processes))
        for seats in SEATS:
            print(await round_robin(seats, processes))
    finally:
        await threads.close()
        await processes.close()
    sys.stdout.flush()


def main(argv: Sequence[str] = ()) -> int:
    """The command: `--help` says what it measures; no other option."""
    argparse.ArgumentParser(
        prog="python -m tests.bot.services.pairing_lag",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    ).parse_args(argv)
    asyncio.run(measure())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
