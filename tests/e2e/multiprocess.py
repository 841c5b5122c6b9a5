"""Several real bot processes on one PostgreSQL database, each holding some shards of a fake
Discord, and the checks that prove they shared the games correctly.

`Cluster` starts one `BotProcess` per shard (MARRAKECH_SHARD_COUNT=N, MARRAKECH_SHARD_IDS=i),
kills and restarts them, and moves every live process's test clock at once (a restarted
process reads the shared clock file when it starts). `Ledger` records every click the test
sent and how the fake saw it answered; `ReminderWatch` records every reminder the moment it
is posted, with the game's position then. `stored_games` reads the games back through the
bot's own storage layer and replays each action log (seeded dice included).

Shared by tests/e2e/test_multiprocess.py and the load benchmark (tests/e2e/load.py).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.runtime.composition import claim_owner
from bot.services.loader import CLAIM_LEASE_SECONDS
from bot.storage import Database, open_database
from bot.storage.due_work import DueWorkStore
from bot.storage.game_rows import FIRST_DUE, NOT_SHOWN, ShardSet
from bot.storage.values import time_from_column, time_to_column
from tests.e2e.conftest import (
    NO_CERTIFICATES,
    REPO_ROOT,
    SCRUBBED_PREFIXES,
    with_bytecode_cache,
)
from tests.e2e.fakecord import FakeDiscord, FakeMessage
from tests.e2e.fakecord.gateway import GatewaySession
from tests.e2e.fakecord.interactions import InteractionHandle
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import Decision, LoggedAction, check_replay, decision
from tests.polling import until

COMMANDS = ("marrakech", "marrakech-mod")
UPDATED = (6, 7)
"""Answers to a click that show the game moved on (deferred update, message updated)."""
REMINDER = re.compile(r"half of your time for this turn of game #(\d+)")
TURN_LINK = re.compile(r"https://discord\.com/channels/\d+/\d+/(\d+)")
"""The link a reminder carries to the message of the turn it reminds."""
CRASH_LINE = re.compile(r"crash point \S+ reached: SIGKILL")
"""What a bot writes as it dies at a crash point (bot/crashpoints.py)."""


def process_env(
    fake: FakeDiscord,
    database: str,
    *,
    shard_count: int,
    shard_ids: str,
    scratch: Path,
    clock_file: Path | None = None,
    log_level: str = "INFO",
) -> dict[str, str]:
    """The environment of one bot process holding `shard_ids` of `shard_count` shards."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
    env.update(
        {
            "DISCORD_TOKEN": "fakecord-multiprocess-token",
            "DISCORD_API_BASE_URL": fake.api_base_url,
            "MARRAKECH_DB": database,
            "MARRAKECH_SHARD_COUNT": str(shard_count),
            "MARRAKECH_SHARD_IDS": shard_ids,
            "MARRAKECH_HEARTBEAT": str(scratch / f"heartbeat-{shard_ids}"),
            "LOG_LEVEL": log_level,
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
            **NO_CERTIFICATES,
        }
    )
    if clock_file is not None:
        env["MARRAKECH_TEST_CLOCK_FILE"] = str(clock_file)
    return with_bytecode_cache(env)


def shard_ranges(shard_count: int, processes: int) -> list[str]:
    """`processes` contiguous ranges covering the shards ("0-1", "2-3"; "3" for one shard)."""
    ranges = []
    for index in range(processes):
        low = index * shard_count // processes
        high = (index + 1) * shard_count // processes - 1
        ranges.append(str(low) if low == high else f"{low}-{high}")
    return ranges


def shards_of(ids: str) -> list[int]:
    low, _, high = ids.partition("-")
    return list(range(int(low), int(high or low) + 1))


class Cluster:
    """N bot processes sharing one database, process i holding `ranges[i]` of the shards."""

    def __init__(
        self,
        fake: FakeDiscord,
        database: str,
        scratch: Path,
        *,
        processes: int,
        clock_file: Path | None = None,
        log_level: str = "INFO",
        argv: Sequence[str] = (sys.executable, "-m", "bot"),
    ) -> None:
        self.fake = fake
        self.clock_file = clock_file
        self.offset = 0.0
        self.ranges = shard_ranges(fake.shard_count, processes)
        self.processes = [
            BotProcess(
                argv,
                process_env(
                    fake,
                    database,
                    shard_count=fake.shard_count,
                    shard_ids=ids,
                    scratch=scratch,
                    clock_file=clock_file,
                    log_level=log_level,
                ),
                log_path=scratch / f"bot-{index}.log",
                cwd=REPO_ROOT,
            )
            for index, ids in enumerate(self.ranges)
        ]
        self.kills = 0
        self.lock = asyncio.Lock()
        """Held while a process starts, dies or reads the clock: one of those at a time."""
        self.started = [datetime.min.replace(tzinfo=UTC)] * processes
        """The bots' now when each process was last started."""
        self.owners = [
            claim_owner(ShardSet(fake.shard_count, tuple(shards_of(ids)))) for ids in self.ranges
        ]
        """Each process's name in the claims it takes (bot.runtime.composition.claim_owner)."""

    def process_of_shard(self, shard: int) -> int:
        return next(i for i, ids in enumerate(self.ranges) if shard in shards_of(ids))

    def alive(self, index: int) -> bool:
        return self.processes[index].running

    def claimed_by_an_earlier_run(self, owner: str, claimed_until: datetime) -> bool:
        """Whether a claim of `owner` lasting until `claimed_until` was taken before its
        process's current run started (the lease, CLAIM_LEASE_SECONDS, began before)."""
        if owner not in self.owners:
            return False
        index = self.owners.index(owner)
        taken = claimed_until - timedelta(seconds=CLAIM_LEASE_SECONDS)
        return self.alive(index) and taken < self.started[index]

    async def _start(self, index: int) -> None:
        self.started[index] = datetime.now(UTC) + timedelta(seconds=self.offset)
        await self.processes[index].start()

    async def start_all(self, timeout: float = 60.0) -> None:
        """Start every process and wait until each shard is connected and commands synced.
        The first one starts alone: on a new database it syncs the commands and keeps their
        hash, so the others find them synced (Discord takes two syncs a minute)."""
        async with self.lock:
            old = self._sessions()
            await self._start(0)
            await self._wait_connected(0, old, timeout)
            await self.fake.wait_for_commands(*COMMANDS, timeout=timeout)
            await self._start_together(range(1, len(self.processes)), old, timeout)

    async def start_together(self, indexes: Sequence[int], timeout: float = 60.0) -> None:
        """Start the processes `indexes` (all stopped) at once, so that what each does as it
        starts (catching up) races the others, and wait until each is connected."""
        async with self.lock:
            await self._start_together(indexes, self._sessions(), timeout)

    async def _start_together(
        self, indexes: Sequence[int], old: dict[int, GatewaySession | None], timeout: float
    ) -> None:
        await asyncio.gather(*(self._start(i) for i in indexes))
        await asyncio.gather(*(self._wait_connected(i, old, timeout) for i in indexes))

    async def kill(self, index: int) -> None:
        async with self.lock:
            await self.processes[index].kill()
            self.kills += 1

    async def crashed(self, index: int, timeout: float = 60.0) -> None:
        """Wait until process `index` dies by itself (at the crash point its environment arms,
        bot/crashpoints.py), counted as a kill; it may be started again."""
        process = self.processes[index]
        await process.wait_exit(timeout=timeout)
        if not any(CRASH_LINE.search(line) for line in process.lines[-20:]):
            raise AssertionError(f"bot {index} exited:\n" + "\n".join(process.lines[-30:]))
        self.kills += 1

    async def start(self, index: int, timeout: float = 60.0) -> None:
        async with self.lock:
            old = self._sessions()
            await self._start(index)
            await self._wait_connected(index, old, timeout)

    async def shift_clock(self, seconds: float) -> None:
        """Move every process's clock `seconds` further ahead; dead ones read it on start."""
        assert self.clock_file is not None
        async with self.lock:
            self.offset += seconds
            await asyncio.to_thread(self.clock_file.write_text, str(self.offset), "ascii")
            alive = [p for p in self.processes if p.running]
            marks = [len(p.lines) for p in alive]
            for process in alive:
                assert process.pid is not None
                os.kill(process.pid, signal.SIGUSR1)
            await asyncio.gather(
                *(
                    p.wait_for_log(r"clock is now shifted by", after=mark, timeout=30)
                    for p, mark in zip(alive, marks, strict=True)
                )
            )
            self.fake.shift_clock(self.offset)  # after the bots: never ahead of them

    async def close(self) -> None:
        await asyncio.gather(*(p.close() for p in self.processes))

    def _sessions(self) -> dict[int, GatewaySession | None]:
        return {s: self.fake.shard_session(s) for s in range(self.fake.shard_count)}

    async def _wait_connected(
        self, index: int, old: dict[int, GatewaySession | None], timeout: float
    ) -> None:
        """Wait until each shard of process `index` has a live session newer than `old`."""
        process = self.processes[index]
        shards = shards_of(self.ranges[index])

        def probe() -> bool:
            if not process.running:
                raise AssertionError(f"bot {index} exited:\n" + "\n".join(process.lines[-30:]))
            for shard in shards:
                session = self.fake.shard_session(shard)
                if session is None or session is old[shard] or not session.connected:
                    return False
            return True

        await self.fake.wait_until(probe, timeout=timeout, what=f"bot {index}'s shards")

    def errors_logged(self) -> list[str]:
        return [
            line
            for process in self.processes
            for line in process.lines
            if " ERROR " in line or "Traceback" in line
        ]


@dataclass
class Click:
    """A click the test sent, and whether the bot acknowledged it as applied."""

    decision: Decision
    user_id: int
    answered: bool = False
    """Answered in time with a deferred update or an updated message, without refusal."""


@dataclass
class Ledger:
    """Every click sent, by (game, seq, action, user)."""

    clicks: list[Click] = field(default_factory=list)

    def sent(self, chosen: Decision, user_id: int) -> Click:
        click = Click(chosen, user_id)
        self.clicks.append(click)
        return click

    async def settle(self, click: Click, handle: InteractionHandle, timeout: float = 10) -> None:
        """Wait for the click's first answer and record whether it acknowledged the move."""
        if handle.undelivered:
            return
        try:
            answer = await handle.response(timeout=timeout)
        except TimeoutError:
            return  # the process died with the click in hand: not acknowledged
        click.answered = not handle.refusals and answer.response_type in UPDATED


class ReminderWatch:
    """Sees every reminder the moment it is posted (`FakeDiscord.observe`) and notes the turn
    it reminds: the turn message its link leads to (each turn has a message of its own), else
    the seq of the game's live buttons then. Two reminders of one turn remind it twice."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.newest = 0
        self.reminders: list[tuple[int, int | None, int]] = []
        """(game id, the reminded turn's message id or live seq, the reminder's id)."""
        fake.observe(self._look)

    def _look(self) -> None:
        fresh = []
        for message in reversed(self.fake.world.messages.values()):
            if message.id <= self.newest:
                break
            fresh.append(message)
        self.newest = max([self.newest, *(m.id for m in fresh)])
        for message in reversed(fresh):
            found = REMINDER.search(message.content or "")
            if found is None:
                continue
            game_id = int(found[1])
            link = TURN_LINK.search(message.content or "")
            turn = int(link[1]) if link is not None else self._live_seq(message, game_id)
            self.reminders.append((game_id, turn, message.id))

    def _live_seq(self, reminder: FakeMessage, game_id: int) -> int | None:
        for message in self.fake.world.messages.values():
            if message.channel_id != reminder.channel_id:
                continue
            for button in message.enabled_buttons():
                parsed = decision(button.custom_id)
                if parsed is not None and parsed.game_id == game_id:
                    return parsed.seq
        return None

    def duplicates(self) -> list[tuple[int, int]]:
        """(game, turn) that got more than one reminder."""
        counted = Counter((g, s) for g, s, _ in self.reminders if s is not None)
        return [key for key, count in counted.items() if count > 1]


IDLE_MARGIN = timedelta(seconds=30)
"""Work falling due this long after the bots' now or later is not waited for: nothing shifts
the clocks any more, so no process does it before the test stops them."""
IDLE_OBSERVER = "test-observer"
"""The name the idle check reads due work as: no process's, so a game any process claimed is
left out of it (CLAIMS looks at those)."""

CLAIMS = (
    "SELECT claimed_by, claimed_until, ("
    f"(status IN ('running', 'over') AND {NOT_SHOWN}) "
    f"OR (status = 'running' AND {FIRST_DUE} <= $2)) AS work_left "
    "FROM games WHERE claimed_until > $1"
)
"""The claims held at $1, each with whether its game has work left: a change not shown yet,
or a reminder or an automatic move due by $2."""


async def idle(database: Database, cluster: Cluster) -> bool:
    """Nothing is left to any process in the database at the bots' now (the wall clock moved
    `cluster.offset` seconds ahead, as their test clocks are): every started game's message
    shows its last change, nothing falls due before IDLE_MARGIN, and no claim is held but those
    an earlier run of a process left on games with nothing left to do. Such a claim (the run
    was killed after its work, before it let go) holds nothing: the process's new run takes
    back its own claims at once, other processes see it lapse after its lease. Any other claim
    counts, even on a game with nothing left in the database: its process may still be posting
    what it did (a reminder marked sent, waiting for Discord's window)."""
    now = datetime.now(UTC) + timedelta(seconds=cluster.offset)
    soon = now + IDLE_MARGIN
    moments = await DueWorkStore(database).next_moments(now, IDLE_OBSERVER)
    async with database.reading() as conn:
        claims = await conn.fetch(CLAIMS, time_to_column(now), time_to_column(soon))
    return (
        moments.oldest_unshown is None
        and (moments.due is None or moments.due > soon)
        and all(
            not claim["work_left"]
            and cluster.claimed_by_an_earlier_run(
                claim["claimed_by"], time_from_column(str(claim["claimed_until"]))
            )
            for claim in claims
        )
    )


async def wait_idle(cluster: Cluster, database: str, timeout: float = 60.0) -> None:
    """Wait until every process has done what it had in hand: idle in the database (see
    `idle`), then each live process woken to look at its turn clock again (a clock shift of 0,
    acknowledged in its log), and idle again. A process's due work holds its claim until what
    it posts is posted (bot.runtime.composition, `do_due_work`), so no late post escapes."""
    db = await open_database(database)
    try:

        async def quiet() -> bool:
            if await idle(db, cluster):
                return True
            await asyncio.sleep(0.1)
            return False

        await until(quiet, "every process idle", timeout=timeout)
        await cluster.shift_clock(0)
        await until(quiet, "every process idle after a wake", timeout=timeout)
    finally:
        await db.close()


@dataclass(frozen=True, slots=True)
class GameLog:
    id: int
    guild_id: int
    channel_id: int
    status: str
    seq: int
    log: tuple[LoggedAction, ...]


async def stored_games(database: str) -> dict[int, GameLog]:
    """Every game in the database, read through the bot's storage layer; each started game's
    log is checked: positions 1..seq each once, replaying to the stored position, every roll
    the seeded one."""
    db = await open_database(database)
    try:
        async with db.reading() as conn:
            rows = await conn.fetch(
                "SELECT id, guild_id, channel_id, status, seq, config, position, seed "
                "FROM games ORDER BY id"
            )
            actions = await conn.fetch(
                "SELECT game_id, seq, notation, actor_id FROM actions ORDER BY game_id, seq"
            )
    finally:
        await db.close()
    logs: dict[int, list[LoggedAction]] = {}
    for row in actions:
        logs.setdefault(int(row[0]), []).append(LoggedAction(int(row[1]), row[2], row[3]))
    games: dict[int, GameLog] = {}
    for row in rows:
        game_id, guild_id, channel_id, status, seq, config, position, seed = (
            row[i] for i in range(8)
        )
        log = tuple(logs.get(int(game_id), []))
        assert [entry.seq for entry in log] == list(range(1, int(seq) + 1)), (game_id, seq, log)
        if config is not None and position is not None:
            check_replay(int(game_id), str(config), str(position), str(seed), log)
        games[int(game_id)] = GameLog(
            int(game_id), int(guild_id), int(channel_id), str(status), int(seq), log
        )
    return games


@dataclass
class Verdict:
    """What the final checks found; empty lists everywhere is a pass."""

    lost: list[Click] = field(default_factory=list)
    """Acknowledged clicks whose seq the log never reached: a move the player saw accepted and
    the game forgot."""
    superseded: list[Click] = field(default_factory=list)
    """Acknowledged clicks whose log position holds another move (an AI or timeout move got
    there first and the bot answered the click by showing the game anew)."""
    applied: int = 0
    foreign: list[tuple[int, LoggedAction]] = field(default_factory=list)
    """Human moves in a log that no click of the test asked for (applied twice, or invented)."""

    def describe(self) -> str:
        return (
            f"{self.applied} acknowledged clicks in the logs, {len(self.lost)} lost, "
            f"{len(self.superseded)} answered after another move took their place, "
            f"{len(self.foreign)} human moves nobody clicked"
        )


def judge(ledger: Ledger, games: dict[int, GameLog]) -> Verdict:
    """Compare the clicks with the logs."""
    verdict = Verdict()
    sent = {
        (c.decision.game_id, c.decision.seq, c.decision.action, c.user_id) for c in ledger.clicks
    }
    for click in ledger.clicks:
        if not click.answered:
            continue
        game = games[click.decision.game_id]
        position = click.decision.seq + 1
        if position > len(game.log):
            verdict.lost.append(click)
            continue
        entry = game.log[position - 1]
        if entry.notation == click.decision.action and entry.actor_id == click.user_id:
            verdict.applied += 1
        elif click.decision.action != "roll":
            verdict.superseded.append(click)
    for game in games.values():
        for entry in game.log:
            if entry.actor_id is None:
                continue
            before = entry.seq - 1
            asked = any(
                (game.id, before, action, entry.actor_id) in sent
                for action in (entry.notation, "roll")
            )
            if not asked:
                verdict.foreign.append((game.id, entry))
    return verdict
