"""What moving a tournament on costs the database, in round trips (tests/round_trips.py), on
each back end.

A Swiss tournament of five players over three rounds is played through the service
(tests/bot/services/test_tournaments.py's helpers: games ended by resignations), and each step
the bot takes is counted on its own: every advance (pairing the next round, finding the round
still being played, ending the tournament) and every table's game set up (`start_table`).
`tests/bot/services/test_tournaments.py` holds the bounds; this prints the counts:

    python -m tests.bot.services.tournament_cost
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bot.storage import Database, open_database
from bot.storage.database import Backend
from tests.bot.services.test_tournaments import MOD, end_by_resignations, opened, services
from tests.postgres import scratch_database
from tests.round_trips import counting

ROUNDS = 3
THREAD = 90_000


@dataclass(slots=True)
class StepCosts:
    """The round trips of each step of one tournament, by kind of step."""

    pairing: list[int] = field(default_factory=list)
    """Advances that paired the next round."""
    waiting: list[int] = field(default_factory=list)
    """Advances that found the round still being played."""
    ending: list[int] = field(default_factory=list)
    """The advance that ended the tournament."""
    start_table: list[int] = field(default_factory=list)


async def count_steps(database: Database) -> StepCosts:
    """Play a tournament to its end, counting each step's round trips."""
    games, tournaments = services(database)
    view = await opened(tournaments, rounds=ROUNDS)
    await tournaments.start(view.id, MOD, moderator=False)
    costs = StepCosts()
    for _ in range(ROUNDS):
        started = []
        for number, table in enumerate(await tournaments.claim_tables(view.id)):
            await tournaments.set_thread(view.id, table, THREAD + 10 * table.round + number)
            (table,) = [
                t
                for t in (await tournaments.look(view.id)).round_tables(table.round)
                if t.number == table.number
            ]
            with counting(database) as trips:
                started.append(await tournaments.start_table(view.id, table))
            costs.start_table.append(trips.count)
        for game in started:
            await end_by_resignations(games, game)
            with counting(database) as trips:
                progress = await tournaments.advance(view.id)
            if progress.paired is not None:
                costs.pairing.append(trips.count)
            elif progress.finished:
                costs.ending.append(trips.count)
            else:
                costs.waiting.append(trips.count)
    return costs


@asynccontextmanager
async def database_on(backend: Backend, folder: Path) -> AsyncIterator[Database]:
    """A fresh database of the back end, open."""
    if backend == "sqlite":
        database = await open_database(str(folder / "tournament.sqlite3"))
        try:
            yield database
        finally:
            await database.close()
        return
    async with scratch_database() as url:
        database = await open_database(url)
        try:
            yield database
        finally:
            await database.close()


async def measure() -> None:
    for backend in ("sqlite", "postgres"):
        with tempfile.TemporaryDirectory(prefix="marrakech-tournament-") as folder:
            async with database_on(backend, Path(folder)) as database:
                costs = await count_steps(database)
        print(f"{backend}:")
        for name, counts in (
            ("an advance that pairs the next round", costs.pairing),
            ("an advance while the round is being played", costs.waiting),
            ("the advance that ends the tournament", costs.ending),
            ("setting a table's game up (start_table)", costs.start_table),
        ):
            print(f"  {name}: {', '.join(str(count) for count in counts)}")
        sys.stdout.flush()


def main(argv: Sequence[str] = ()) -> int:
    """The command: `--help` says what it measures; no other option."""
    argparse.ArgumentParser(
        prog="python -m tests.bot.services.tournament_cost",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    ).parse_args(argv)
    asyncio.run(measure())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
