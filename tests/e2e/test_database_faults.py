"""The database going away under the running bot: its PostgreSQL server stopped and started
again (a server of the test's own, tests/postgres.py), and the disk of its SQLite file filling
up and having room again (tests/e2e/full_disk.py: a small tmpfs; skipped where mounting is
refused, failed so under CI).

Meanwhile every click is answered privately, within Discord's 3 s, that the game is paused; a
move stored just before the server went is answered that it counts; the log says once that the
database went and once that it is back (how long, how many clicks were turned away), with no
traceback and no other warning (none per click, per game or per piece of work); the SQLite
file stays sound (PRAGMA integrity_check). Once the database is back the games go on by
themselves, without a restart: the display left behind is repaired, the timeout
and the reminder that fell due meanwhile are done, the AI seats move, and the heartbeat file is
written again. A SIGTERM during an outage exits cleanly (0).

Run with -s to see how soon after the database came back each of those happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from subprocess import PIPE, STDOUT

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.runtime.health import read_heartbeat
from tests.e2e.conftest import REPO_ROOT
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.interactions import InteractionHandle
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.full_disk import Disk, small_disk
from tests.e2e.players import decision, integrity, pick, settled, stored_games
from tests.e2e.quiet import human_turn, open_game
from tests.e2e.shifted_clock import shift_clock
from tests.polling import until
from tests.postgres import StoppableServer, create_database, stoppable_server

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod")
CALLBACK = "/interactions/{interaction_id}/{token}/callback"
UPDATED = (6, 7)
"""Answers to a click that show the game moved on (deferred update, message updated)."""
PAUSED = "The game is paused for a moment"
WENT = r"WARNING +bot\.runtime\.outage: the database is unavailable \(.+\); games are paused"
BACK = r"INFO +bot\.runtime\.outage: the database is back after ([\d.]+) s; (\d+) clicks"
TIMEOUT_LIMIT = 300
REMINDER_LIMIT = 3600
SHIFT = REMINDER_LIMIT / 2 + 1
"""Past the 5-minute table's deadline and the 1-hour table's reminder, not its deadline."""


@pytest.fixture
def postgres() -> Iterator[StoppableServer]:
    with stoppable_server() as server:
        yield server


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    with small_disk(tmp_path / "disk") as small:
        yield small


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord, command: Sequence[str], env: Mapping[str, str], log: Path
) -> AsyncIterator[BotProcess]:
    """The bot as a real process on the fake Discord, logging at INFO."""
    process = BotProcess(command, {**env, "LOG_LEVEL": "INFO"}, log_path=log, cwd=REPO_ROOT)
    try:
        await process.start_and_wait_ready(fake, commands=COMMANDS, timeout=30)
        yield process
    finally:
        await process.close()


@dataclass
class Table:
    """A game in a channel of its own: one person, with an easy AI or a second person."""

    fake: FakeDiscord
    channel: FakeChannel
    people: dict[int, FakeUser]

    @classmethod
    async def open(
        cls, fake: FakeDiscord, name: str, *, second: bool, turn_limit: int = 0
    ) -> Table:
        guild = fake.add_guild(name)
        channel = fake.add_text_channel(guild, name)
        people = [fake.add_user(f"{name}-{n}") for n in range(2 if second else 1)]
        for person in people:
            fake.add_member(guild, person)
        ais = () if second else ("easy",)
        await open_game(fake, channel, people[0], tuple(people[1:]), ais, turn_limit=turn_limit)
        table = cls(fake, channel, {person.id: person for person in people})
        await table.turn()
        return table

    async def turn(self, after: int = 0) -> FakeMessage:
        """The turn a person is to play, newer than message `after`."""

        def newer() -> FakeMessage | None:
            m = human_turn(self.fake, self.channel)
            return m if m is not None and m.id > after else None

        return await self.fake.wait_until(
            newer, timeout=30, what=f"a person's turn in #{self.channel.name}"
        )

    async def click(self, message: FakeMessage, turn: int = 0) -> InteractionHandle:
        """Click a decision on the message, as the person it pings."""
        (mover,) = message.pinged_user_ids
        return await self.fake.click(self.people[mover], message, pick(message, turn).custom_id)

    async def refused(self) -> None:
        """A click on the current turn is answered privately, in time, that the game is
        paused."""
        handle = await self.click(await self.turn())
        answer = await handle.answer(timeout=10)
        assert answer.ephemeral, answer.content
        assert answer.content.startswith(PAUSED), answer.content
        assert not handle.refusals, "answered within Discord's 3 s"

    def said(self, pattern: str) -> FakeMessage | None:
        return next((m for m in self.fake.messages(self.channel) if pattern in m.content), None)


async def behind_on_display(url: str) -> set[int]:
    """The channels of the running games whose message does not show their current seq."""
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT channel_id FROM games WHERE status = 'running' "
            "AND board_message_seq IS DISTINCT FROM seq"
        )
    finally:
        await connection.close()
    return {int(row[0]) for row in rows}


def ticked_after(heartbeat: Path, moment: float) -> bool:
    """Whether the heartbeat file says the event loop ran after `moment` (Unix seconds)."""
    record = read_heartbeat(heartbeat)
    return record is not None and record.ticked_at is not None and record.ticked_at > moment


async def logged(bot: BotProcess, pattern: str, after: int) -> re.Match[str]:
    line = await bot.wait_for_log(pattern, timeout=30, after=after)
    found = re.search(pattern, line)
    assert found is not None
    return found


NOT_THE_OUTAGE = (
    r"WARNING +bot(\.runtime\.app)?: testing only: "
    r"|WARNING +bot\.runtime\.loop_lag: event loop lag "
)
"""Warnings of something else: the start's notes that a test-only setting is on, and the
event loop held up (the machine's load)."""
DISK_FULL_FILES = (
    r"WARNING +bot\.edge\.client: cannot write the heartbeat file \(.*No space left",
    r"WARNING +bot\.runtime\.loop_lag: cannot record that the event loop runs: .*No space left",
)
"""The full disk's warnings about the heartbeat's file, each a fault of its own, told at most
once per outage (the gateway's beat is written every 30 s: an outage may pass between two)."""


def check_log(bot: BotProcess, *, went: int, back: int, files: int = 0) -> None:
    """One WARNING as each outage began, one INFO as each ended; no error, no traceback, and no
    other WARNING (nothing per click, per game or per piece of work) but those of something
    else (`NOT_THE_OUTAGE`) and, for each of `files` full disks, at most one of each warning about
    the heartbeat's file."""
    text = bot.log_text()
    assert len(re.findall(WENT, text)) == went, text
    assert len(re.findall(BACK, text)) == back, text
    assert "Traceback" not in text
    assert " ERROR " not in text
    warnings = [line for line in text.splitlines() if re.search(r" (WARNING|CRITICAL) ", line)]
    told = [line for line in warnings if not re.search(NOT_THE_OUTAGE, line)]
    assert len([line for line in told if re.search(WENT, line)]) == went, told
    files_told = [line for line in told if any(re.search(p, line) for p in DISK_FULL_FILES)]
    for pattern in DISK_FULL_FILES:
        assert len([line for line in files_told if re.search(pattern, line)]) <= files, told
    assert len(told) == went + len(files_told), told


def report(what: str, since: float) -> None:
    print(f"  {what}: {time.monotonic() - since:.1f} s after the database was back")


async def test_the_games_wait_out_a_postgresql_server_stopped_and_started_again(
    fake: FakeDiscord,
    bot_command: Sequence[str],
    bot_env: dict[str, str],
    postgres: StoppableServer,
    clock_file: Path,
    tmp_path: Path,
) -> None:
    url = await create_database(postgres.url)
    env = {
        **bot_env,
        "MARRAKECH_DB": url,
        "MARRAKECH_HEARTBEAT": str(tmp_path / "heartbeat"),
        "MARRAKECH_TEST_CLOCK_FILE": str(clock_file),
    }
    async with running_bot(fake, bot_command, env, tmp_path / "bot.log") as bot:
        ai = await Table.open(fake, "against-ai", second=False)
        timed = await Table.open(fake, "timed", second=False, turn_limit=TIMEOUT_LIMIT)
        slow = await Table.open(fake, "slow", second=True, turn_limit=REMINDER_LIMIT)

        async def shown(channel: FakeChannel | None = None) -> bool:
            behind = await behind_on_display(url)
            return not behind if channel is None else channel.id not in behind

        await until(shown, "every game shown")
        before = await timed.turn()
        lines = len(bot.lines)

        # The server stops between a move's commit and the record of its message.
        fake.rest.callback_deadline = None
        held = fake.faults.hang("POST", CALLBACK)
        kept = await ai.click(await ai.turn())
        await held.wait_fired(timeout=10)
        await asyncio.to_thread(postgres.stop)
        fake.faults.release_hangs()
        (told,) = await kept.followups(1, timeout=10)
        fake.rest.callback_deadline = 3.0
        assert told.ephemeral
        assert told.content.startswith("Your move counts: it is saved."), told.content
        await timed.refused()
        await slow.refused()
        await logged(bot, WENT, lines)
        await shift_clock(bot, clock_file, SHIFT)  # a timeout and a reminder fall due

        await asyncio.to_thread(postgres.start)
        started = time.monotonic()
        back = await logged(bot, BACK, lines)
        assert back[2] == "2", "the two clicks answered that the game was paused"
        print(f"\nPostgreSQL stopped for {back[1]} s; once it was started again:")
        report("the outage's end logged", started)
        await until(lambda: shown(ai.channel), "the move shown")
        report("the move whose message was left behind shown", started)
        await fake.wait_until(lambda: slow.said("half of your time"), timeout=30, what="reminder")
        report("the reminder that fell due sent", started)
        await fake.wait_until(lambda: timed.said("ran out of time"), timeout=30, what="timeout")
        report("the timed-out turn played by the AI", started)
        await timed.turn(after=before.id)
        report("the AI seat's turn played after it", started)
        check_log(bot, went=1, back=1)

        turn = await ai.turn()  # the game goes on as before: the rug is laid, the AI answers
        placed = await ai.click(turn, turn=1)
        assert (await placed.response()).response_type in UPDATED
        await ai.turn(after=turn.id)

        # A SIGTERM during an outage closes cleanly.
        lines = len(bot.lines)
        await asyncio.to_thread(postgres.stop)
        await timed.refused()
        await logged(bot, WENT, lines)
        assert await bot.stop(timeout=30) == 0
        assert "stop signal received" in bot.log_text()
        check_log(bot, went=2, back=1)  # the second outage ended with the bot


async def test_the_games_wait_out_a_full_disk_under_sqlite(
    fake: FakeDiscord,
    bot_command: Sequence[str],
    bot_env: dict[str, str],
    disk: Disk,
    tmp_path: Path,
) -> None:
    database = disk.folder / "marrakech.sqlite3"
    heartbeat = disk.folder / "heartbeat"
    env = {**bot_env, "MARRAKECH_DB": str(database)}
    async with running_bot(fake, bot_command, env, tmp_path / "bot.log") as bot:
        ai = await Table.open(fake, "against-ai", second=False)
        await settled(database)
        lines = len(bot.lines)

        disk.fill()
        filled = time.monotonic()
        await ai.refused()
        await ai.refused()
        await logged(bot, WENT, lines)
        await logged(bot, "cannot record that the event loop runs", lines)  # within 5 s
        assert integrity(database) == "ok"
        assert stored_games(database)  # every log replays

        disk.free()
        freed, freed_at = time.monotonic(), time.time()
        back = await logged(bot, BACK, lines)
        assert back[2] == "2"
        print(f"\nSQLite on a full tmpfs for {freed - filled:.1f} s; once there was room again:")
        report("the outage's end logged", freed)
        await until(lambda: ticked_after(heartbeat, freed_at), "the heartbeat written again")
        report("the heartbeat file written again", freed)
        check = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "healthcheck", env=env, stdout=PIPE, stderr=STDOUT
        )
        said, _ = await check.communicate()
        assert await check.wait() == 0, said

        turn = await ai.turn()
        oriented = await ai.click(turn)
        assert (await oriented.response()).response_type in UPDATED
        await fake.wait_until(
            lambda: any(
                (d := decision(b.custom_id)) and d.action not in ("L", "S", "R")
                for b in fake.world.messages[turn.id].enabled_buttons()
            ),
            what="the placements offered",
        )
        placed = await ai.click(fake.world.messages[turn.id], turn=1)
        assert (await placed.response()).response_type in UPDATED
        await ai.turn(after=turn.id)  # the AI seat played, and it is the person's turn again
        report("a move and the AI seat's answer played", freed)
        await settled(database)
        assert integrity(database) == "ok"
        assert stored_games(database)
        check_log(bot, went=1, back=1, files=1)

        lines = len(bot.lines)
        disk.fill()
        await ai.refused()
        await logged(bot, WENT, lines)
        assert await bot.stop(timeout=30) == 0
        assert "stop signal received" in bot.log_text()
        disk.free()
        assert integrity(database) == "ok"
