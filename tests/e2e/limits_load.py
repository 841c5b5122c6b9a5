"""Discord's rate limits under load (not part of the test suite): tables of people playing at
click speed against the real bot process, through the fake Discord with its limits on.

    python -m tests.e2e.limits_load                        # 40 tables, a person and an easy AI
    python -m tests.e2e.limits_load --tables 10,20,40,60   # which of these one token sustains
    python -m tests.e2e.limits_load --tables 1 --ai-seats 3 --games 2 --seconds 120
                                        # a person and three AIs: the wait, the game's length
    python -m tests.e2e.limits_load --processes 3   # three processes on PostgreSQL, one shard each

Each table is a channel with one person (two with `--people 2`) and `--ai-seats` AI players of
`--ai-level`; a person clicks as soon as a decision of theirs is shown (click speed), and a
finished game is opened again. Each count of tables is a fresh bot and a fresh fake Discord,
played for `--seconds` (or until `--games` games have finished). It reports the turns played,
the requests the bot made with its token (those that count toward Discord's global 50 a second:
not a click's answer, its follow-ups and their edits), per turn and per second (the busiest
second too), the answers of 429 (global ones apart) and the other invalid requests, late
answers to clicks (Discord's 10062), how long a person waited from the click that ended their
turn to their next turn shown (median, 90th percentile), and how long whole games took.

With `--processes N` the bot runs as N processes holding one shard each, on a PostgreSQL
database (pgserver, or the server MARRAKECH_TEST_POSTGRES names), the tables spread over the
shards: any process may play an AI turn, and one that did not see the click sends it with the
bot token.

A count of tables is sustained when the bot made no request refused for the global limit, was
never late to answer a click and met no error. The waits say how fast the tables went: on a
small machine, the bot, its AI workers and the fake Discord share the cores, and many tables
wait for those before Discord's limits.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e import multiprocess
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.errors import UNKNOWN_INTERACTION
from tests.e2e.load import database_for
from tests.e2e.players import Decision, decision, is_final, pick
from tests.e2e.quiet import read_turn_line

UPDATED = (6, 7)


@dataclass
class Figures:
    """What the tables of one run saw."""

    waits: list[float] = field(default_factory=list)
    games: list[tuple[float, int]] = field(default_factory=list)
    """Finished games: (seconds from the start click to the result, turns)."""
    clicks: int = 0
    errors: list[str] = field(default_factory=list)


class Table:
    """A channel, its people and the game they play there (see the module)."""

    def __init__(
        self,
        fake: FakeDiscord,
        channel: FakeChannel,
        people: list[FakeUser],
        ai_seats: int,
        ai_level: str,
    ) -> None:
        self.fake = fake
        self.channel = channel
        self.people = {person.id: person for person in people}
        self.ai_seats = ai_seats
        self.ai_level = ai_level
        self.started_at = 0.0
        self.since = 0
        """The current game's lobby: what came before belongs to games over."""
        self.turn = 0

    async def open(self) -> None:
        """Open a lobby, seat the others and the AIs, start."""
        host, *guests = self.people.values()
        seats = len(self.people) + self.ai_seats
        handle = await self.fake.slash(host, self.channel, "marrakech", "new", seats=seats)
        lobby = await handle.answer(timeout=30)
        self.since = lobby.id
        for guest in guests:
            await self._press(guest, lobby, "Join")
        for _ in range(self.ai_seats):
            await self._press(host, lobby, f"Add AI: {self.ai_level}")
        self.started_at = time.perf_counter()
        await self._press(host, lobby, "Start")

    async def _press(self, user: FakeUser, message: FakeMessage, label: str) -> None:
        button = self.fake.world.messages[message.id].button(label=label)
        assert button.custom_id is not None
        await (await self.fake.click(user, message, button.custom_id)).response(timeout=30)

    def _shown(self) -> tuple[FakeMessage, Decision] | FakeMessage | None:
        """A decision of one of the people, or the result of a game that is over."""
        messages = [m for m in self.fake.messages(self.channel)[-6:] if m.id > self.since]
        for message in reversed(messages):
            if is_final(message):
                return message
            if set(message.pinged_user_ids) & set(self.people):
                choices = [d for b in message.enabled_buttons() if (d := decision(b.custom_id))]
                if choices:
                    return message, pick(message, self.turn)
        return None

    async def play(self, figures: Figures, until: float, games: int | None) -> None:
        """Click for the people at click speed until `until` (perf counter) or, with
        `games`, until that many games are over."""
        while time.perf_counter() < until and (games is None or len(figures.games) < games):
            shown: tuple[FakeMessage, Decision] | FakeMessage = await self.fake.wait_until(
                self._shown, timeout=60, what="a decision"
            )
            if isinstance(shown, FakeMessage):
                lines = sum(
                    read_turn_line(m.content) is not None
                    for m in self.fake.messages(self.channel)
                    if self.since < m.id < shown.id
                )
                figures.games.append((time.perf_counter() - self.started_at, lines))
                await self.open()
                continue
            message, chosen = shown
            (mover,) = set(message.pinged_user_ids) & set(self.people)
            self.turn += 1
            handle = await self.fake.click(self.people[mover], message, chosen.custom_id)
            answer = await handle.response(timeout=10)
            figures.clicks += 1
            if handle.refusals or answer.response_type not in UPDATED:
                figures.errors.append(f"{chosen.custom_id}: answered {answer.response_type}")
                continue
            clicked = await handle.answer(timeout=10)
            ended = read_turn_line(clicked.content) is not None
            answered = time.perf_counter()

            def moved_on(c: Decision = chosen) -> bool:
                return self._moved_on(c)

            await self.fake.wait_until(moved_on, timeout=60, what="the game going on")
            if ended and not isinstance(self._shown(), FakeMessage):
                figures.waits.append(time.perf_counter() - answered)

    def _moved_on(self, chosen: Decision) -> bool:
        for message in self.fake.messages(self.channel)[-6:]:
            if message.id <= self.since:
                continue
            if is_final(message):
                return True
            for button in message.enabled_buttons():
                found = decision(button.custom_id)
                if found is not None and found.game_id == chosen.game_id and found.seq > chosen.seq:
                    return True
        return False


@dataclass(frozen=True, slots=True)
class Run:
    """The figures of one count of tables."""

    tables: int
    seconds: float
    turns: int
    bot_token: int
    busiest_second: int
    refused_global: int
    refused_route: int
    other_invalid: int
    late: int
    figures: Figures

    @property
    def sustained(self) -> bool:
        return self.refused_global == 0 and self.late == 0 and not self.figures.errors


async def run_tables(
    count: int,
    people: int,
    ai_seats: int,
    ai_level: str,
    seconds: float,
    games: int | None,
    processes: int = 1,
) -> Run:
    backend = "sqlite" if processes == 1 else "postgres"
    with tempfile.TemporaryDirectory(prefix="marrakech-limits-") as scratch:
        async with (
            FakeDiscord(bot_name="Marrakech", shard_count=processes) as fake,
            database_for(backend, Path(scratch)) as database,
        ):
            guilds = [fake.add_guild(f"Limits {shard}", shard=shard) for shard in range(processes)]
            tables = []
            for number in range(count):
                guild = guilds[number % processes]
                channel = fake.add_text_channel(guild, f"table-{number}")
                users = [fake.add_user(f"person{number}-{n}") for n in range(people)]
                for user in users:
                    fake.add_member(guild, user)
                tables.append(Table(fake, channel, users, ai_seats, ai_level))
            cluster = multiprocess.Cluster(fake, database, Path(scratch), processes=processes)
            try:
                await cluster.start_all()
                for start in range(0, count, 20):
                    await asyncio.gather(*(t.open() for t in tables[start : start + 20]))
                first_request = len(fake.world.requests)
                lines_before = count_lines(fake, tables)
                began = time.perf_counter()
                figures = Figures()
                until = began + seconds
                results = await asyncio.gather(
                    *(table.play(figures, until, games) for table in tables),
                    return_exceptions=True,
                )
                elapsed = time.perf_counter() - began
                figures.errors.extend(repr(r) for r in results if isinstance(r, BaseException))
                requests = fake.world.requests[first_request:]
                turns = count_lines(fake, tables) - lines_before
                late = sum(
                    UNKNOWN_INTERACTION in handle.refusals
                    for handle in fake.world.interactions.values()
                )
            finally:
                await cluster.close()
            figures.errors.extend(
                f"a bot exited with {bot.returncode}"
                for bot in cluster.processes
                if bot.returncode not in (0, None)
            )
            figures.errors.extend(cluster.errors_logged())
    counted = [request for request in requests if request.bot_token]
    per_second = Counter(int(request.at - began) for request in counted)
    limited = [request for request in requests if request.status == 429 and not request.fault]
    return Run(
        tables=count,
        seconds=elapsed,
        turns=turns,
        bot_token=len(counted),
        busiest_second=max(per_second.values(), default=0),
        refused_global=sum(request.scope == "global" for request in limited),
        refused_route=sum(request.scope == "user" for request in limited),
        other_invalid=sum(request.invalid and request.status != 429 for request in requests),
        late=late,
        figures=figures,
    )


def count_lines(fake: FakeDiscord, tables: list[Table]) -> int:
    """The finished turns shown in the tables' channels now."""
    return sum(
        read_turn_line(message.content) is not None
        for table in tables
        for message in fake.messages(table.channel)
    )


def report(run: Run) -> None:
    figures = run.figures
    per_turn = run.bot_token / run.turns if run.turns else 0.0
    print(
        f"{run.tables} tables, {run.seconds:.0f} s: {run.turns} turns "
        f"({run.turns / run.seconds:.1f}/s), {figures.clicks} clicks; bot-token requests "
        f"{run.bot_token} = {per_turn:.2f} per turn, {run.bot_token / run.seconds:.1f}/s "
        f"(busiest second {run.busiest_second})"
    )
    print(
        f"  refused: {run.refused_global} for the global limit, {run.refused_route} for a "
        f"route's; other invalid requests {run.other_invalid}; late answers {run.late}; "
        f"errors {len(figures.errors)}"
    )
    for error in figures.errors[:5]:
        print(f"    {error}")
    if figures.waits:
        waits = sorted(figures.waits)
        ninetieth = waits[min(len(waits) - 1, int(len(waits) * 0.9))]
        print(
            f"  from a person's last click of a turn to their next turn: median "
            f"{statistics.median(waits):.2f} s, 90th percentile {ninetieth:.2f} s "
            f"({len(waits)} turns)"
        )
    for took, turns in figures.games[:5]:
        print(f"  a game of {turns} turns took {took:.1f} s from its start")
    print(f"  sustained: {'yes' if run.sustained else 'no'}")


async def main_async(arguments: argparse.Namespace) -> int:
    runs = []
    for count in arguments.tables:
        run = await run_tables(
            count,
            arguments.people,
            arguments.ai_seats,
            arguments.ai_level,
            arguments.seconds,
            arguments.games,
            arguments.processes,
        )
        report(run)
        runs.append(run)
    sustained = [run.tables for run in runs if run.sustained]
    print(
        f"one bot token sustained {max(sustained) if sustained else 'none'} of "
        f"{', '.join(str(run.tables) for run in runs)} tables"
    )
    return 0 if len(sustained) == len(runs) else 1


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.limits_load", description=__doc__)
    parser.add_argument(
        "--tables",
        type=lambda text: [int(part) for part in text.split(",")],
        default=[40],
        help="tables at once; several counts, comma-separated, are run one after another",
    )
    parser.add_argument("--people", type=int, default=1, choices=(1, 2))
    parser.add_argument("--ai-seats", type=int, default=1, choices=(0, 1, 2, 3))
    parser.add_argument("--ai-level", default="easy", choices=("easy", "medium", "hard"))
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--games", type=int, help="stop once this many games are over")
    parser.add_argument(
        "--processes", type=int, default=1, help="bot processes, one shard each (PostgreSQL)"
    )
    arguments = parser.parse_args()
    if arguments.people + arguments.ai_seats < 2:
        parser.error("a game needs two seats at least")
    return asyncio.run(main_async(arguments))


if __name__ == "__main__":
    sys.exit(main())
