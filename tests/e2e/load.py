"""Load benchmark (not part of the test suite): the real bot process under many games at once.

    python -m tests.e2e.load                  # 200 games in 200 channels, 25 clicks/s, 60 s
    python -m tests.e2e.load --games 50 --rate 10 --seconds 20
    python -m tests.e2e.load --games 12 --rate 6 --ai-games 6 --seconds 60   # with hard AIs
    python -m tests.e2e.load --startup        # start-up with 10,000 finished + 1,000 running
    python -m tests.e2e.load --db postgres    # the same on PostgreSQL (pgserver, or the server
                                              # MARRAKECH_TEST_POSTGRES names)
    python -m tests.e2e.load --db postgres --processes 3   # 3 processes, one shard each
    python -m tests.e2e.load --rate 60 --seconds 20 --profile /tmp/bot.prof   # cProfile the bot

The play run opens the games through slash commands and buttons, then clicks at a steady total
rate, each click on a game whose previous click has been answered and shown (a game that ends
is opened again). With `--ai-games N`, N more channels each hold one person and `--ai-seats`
AI players (hard by default) that think whenever the person has moved; that person answers each
turn after a random pause of `--think` seconds at most. It reports the actions applied per
second, the click-to-answer time (p50, p99, worst, as the fake measures it: from the frame sent
to the bot to the first callback), late answers (Discord's 10062), errors (unanswered or refused
clicks, error answers, ERROR lines in the bot's log), the bot's event loop lag (p50, p99, worst,
as the bot's own probe logs it when it stops) and the bot's peak resident memory (VmHWM, its
worker processes not included). It ends with a stop under load: a SIGTERM to every process as
one more click per click a second reaches them, reporting how long each took to exit, its exit
code, and how many of those clicks were answered first.

The start-up run fills a database, starts the bot on it and reports the time until it is
connected and its resident memory, next to an empty database.

`--db postgres` runs the bot on a PostgreSQL database of its own; `--processes N` (PostgreSQL
only) runs N bot processes on it, the fake Discord with N shards and the games' guilds spread
over them, and reports each process's memory. `--profile PATH` runs the (single) bot process
under cProfile and writes its statistics to PATH when it stops; the top functions by own and
cumulative time are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pstats
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import engine
from bot.services import dice, records
from bot.storage import open_database
from tests.e2e import multiprocess
from tests.e2e.conftest import REPO_ROOT
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.errors import UNKNOWN_INTERACTION
from tests.e2e.fakecord.interactions import InteractionHandle
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import Decision, is_final, is_lobby, live_decisions, pick
from tests.postgres import scratch_database

COMMANDS = ("marrakech", "marrakech-mod")
UPDATED = (6, 7)


LOOP_LAG = re.compile(
    r"event loop lag over (\d+) probes: p50 (\d+) ms, p99 (\d+) ms, worst (\d+) ms"
)


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    ai_table_latencies: list[float] = field(default_factory=list)
    applied: int = 0
    errors: list[str] = field(default_factory=list)
    games_finished: int = 0
    late: int = 0
    elapsed: float | None = None
    """Seconds the clicking ran, once it is over."""


@dataclass
class StopFigures:
    """A stop (SIGTERM) sent to every bot process just as clicks reached it."""

    clicks: int
    """Clicks whose frames had been written to a bot's socket when the SIGTERMs went."""
    answered: int
    """Of them, those the bot answered before it exited."""
    seconds: list[float]
    """Per process: from its SIGTERM until it exited."""
    exit_codes: list[int]


STOP_WAIT_SECONDS = 30.0
"""How long the benchmark waits for a process to exit after its SIGTERM before it kills it."""


def bot_environment(fake: FakeDiscord, database: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "MARRAKECH_"))}
    env.update(
        {
            "DISCORD_TOKEN": "fakecord-load-token",
            "DISCORD_API_BASE_URL": fake.api_base_url,
            "MARRAKECH_DB": str(database),
            "LOG_LEVEL": "INFO",  # the event loop's lag figures are logged at INFO
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
        }
    )
    return env


def peak_rss_mb(pid: int | None) -> float:
    """The process's peak resident set size (VmHWM) in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmHWM:\s+(\d+) kB", status)
    assert match is not None
    return int(match.group(1)) / 1024


def descendants(pid: int | None) -> list[int]:
    """The process ids of `pid`'s children, their children, and so on (Linux /proc)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, pending = [], list(parents.get(pid or -1, []))
    while pending:
        child = pending.pop()
        found.append(child)
        pending.extend(parents.get(child, []))
    return found


def workers_pss_mb(pid: int | None) -> tuple[int, float]:
    """How many processes the bot started, and their proportional set size in all (MB: pages
    shared between them, as forked workers share much, count once in all)."""
    total, count = 0.0, 0
    for child in descendants(pid):
        with contextlib.suppress(OSError):
            rollup = Path(f"/proc/{child}/smaps_rollup").read_text()
            if match := re.search(r"^Pss:\s+(\d+) kB", rollup, re.MULTILINE):
                total += int(match.group(1)) / 1024
                count += 1
    return count, total


def rss_mb(pid: int | None) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert match is not None
    return int(match.group(1)) / 1024


class Table:
    """One channel, its players, and the game being played there: two people, or one person
    and `ai_seats` AI players of `ai_level`."""

    def __init__(
        self,
        fake: FakeDiscord,
        channel: FakeChannel,
        host: FakeUser,
        guest: FakeUser | None,
        *,
        ai_seats: int = 0,
        ai_level: str = "hard",
    ):
        self.fake = fake
        self.channel = channel
        self.users = {host.id: host} | ({guest.id: guest} if guest is not None else {})
        self.host, self.guest = host, guest
        self.ai_seats = ai_seats
        self.ai_level = ai_level
        self.turn = 0

    async def open(self) -> None:
        fake = self.fake
        seats = 1 + self.ai_seats if self.guest is None else 2
        lobby = await (
            await fake.slash(self.host, self.channel, "marrakech", "new", seats=seats)
        ).answer(timeout=30)
        if self.guest is not None:
            join = lobby.button(label="Join").custom_id
            assert join is not None
            await (await fake.click(self.guest, lobby, join)).response(timeout=30)
        for _ in range(self.ai_seats):
            add = lobby.button(label=f"Add AI: {self.ai_level}").custom_id
            assert add is not None
            answer = await (await fake.click(self.host, lobby, add)).response(timeout=30)
            assert answer.message is not None
            lobby = answer.message
        start = lobby.button(label="Start").custom_id
        assert start is not None
        await (await fake.click(self.host, lobby, start)).response(timeout=30)
        await fake.wait_until(self._turn_shown, timeout=60, what="the first turn")

    def _turn_shown(self) -> FakeMessage | None:
        for message, _ in live_decisions(self.fake, self.channel):
            if message.pinged_user_ids and not is_lobby(message):
                return message
        return None

    async def click(self, figures: Figures) -> None:
        """One move by whoever is to play; waits until the game shows its outcome."""
        fake = self.fake
        message = self._turn_shown()
        if message is None:  # over: open a new game here
            figures.games_finished += 1
            await self.open()
            return
        pressed = await self.press(message)
        if pressed is None:
            return  # an AI seat's turn is being shown
        chosen, handle = pressed
        try:
            answer = await handle.response(timeout=10)
        except TimeoutError:
            figures.errors.append(f"unanswered click {chosen.custom_id}")
            return
        if handle.refusals or answer.response_type not in UPDATED:
            content = answer.message.content if answer.message else ""
            figures.errors.append(f"{chosen.custom_id}: {answer.response_type} {content!r}")
            return
        latencies = figures.ai_table_latencies if self.ai_seats else figures.latencies
        latencies.append(handle.latency or 0.0)
        figures.applied += 1

        def moved_on() -> bool:
            if any(
                d.game_id == chosen.game_id and d.seq > chosen.seq
                for _, d in live_decisions(fake, self.channel)
            ):
                return True
            return any(is_final(m) for m in fake.messages(self.channel)[-2:])

        await fake.wait_until(moved_on, timeout=30, what="the outcome of a click")

    async def press(
        self, message: FakeMessage | None = None
    ) -> tuple[Decision, InteractionHandle] | None:
        """Send the click of a move by whoever is to play on the turn `message` (the one
        shown, by default), without waiting for its answer; None when no person is to play."""
        message = message or self._turn_shown()
        if message is None:
            return None
        (mover,) = message.pinged_user_ids
        if mover not in self.users:
            return None
        chosen = pick(message, self.turn)
        self.turn += 1
        handle = await self.fake.click(self.users[mover], message, chosen.custom_id)
        return chosen, handle

    async def play_with_ai(self, figures: Figures, until: float, think: float, seed: int) -> None:
        """Answer each of the person's turns after a random pause, until `until` (perf
        counter); the AI seats play in between."""
        rng = random.Random(seed)
        while time.perf_counter() < until:
            shown = self._turn_shown()
            if shown is None or not set(shown.pinged_user_ids) & set(self.users):
                await asyncio.sleep(0.05)  # the AI seats are thinking
                if shown is None and self._over():
                    figures.games_finished += 1
                    await self.open()
                continue
            await asyncio.sleep(rng.uniform(0, think))
            await self.click(figures)

    def _over(self) -> bool:
        return any(is_final(m) for m in self.fake.messages(self.channel)[-2:])


@contextlib.asynccontextmanager
async def database_for(kind: str, scratch: Path) -> AsyncIterator[str]:
    """A fresh database of `kind` ("sqlite" or "postgres"); yields what MARRAKECH_DB takes."""
    if kind == "sqlite":
        yield str(scratch / "marrakech.sqlite3")
        return
    async with scratch_database() as url:
        yield url


async def play(
    games: int,
    rate: float,
    seconds: float,
    ai_games: int = 0,
    ai_seats: int = 3,
    ai_level: str = "hard",
    think: float = 2.0,
    db: str = "sqlite",
    processes: int = 1,
    profile: Path | None = None,
) -> int:
    with tempfile.TemporaryDirectory(prefix="marrakech-load-") as scratch:
        async with (
            FakeDiscord(bot_name="Marrakech", shard_count=processes) as fake,
            database_for(db, Path(scratch)) as database,
        ):
            guilds = [fake.add_guild(f"Load {shard}", shard=shard) for shard in range(processes)]
            tables = []
            for number in range(games):
                guild = guilds[number % len(guilds)]
                channel = fake.add_text_channel(guild, f"table-{number}")
                host, guest = fake.add_user(f"host{number}"), fake.add_user(f"guest{number}")
                fake.add_member(guild, host)
                fake.add_member(guild, guest)
                tables.append(Table(fake, channel, host, guest))
            ai_tables = []
            for number in range(ai_games):
                guild = guilds[number % len(guilds)]
                channel = fake.add_text_channel(guild, f"ai-table-{number}")
                person = fake.add_user(f"person{number}")
                fake.add_member(guild, person)
                ai_tables.append(
                    Table(fake, channel, person, None, ai_seats=ai_seats, ai_level=ai_level)
                )
            argv = [sys.executable, "-m", "bot"]
            if profile is not None:
                argv = [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "bot"]
            cluster = multiprocess.Cluster(
                fake, database, Path(scratch), processes=processes, argv=argv
            )
            memory: list[tuple[float, int, float]] = []
            try:
                await cluster.start_all()
                opening = time.perf_counter()
                everyone = tables + ai_tables
                for start in range(0, len(everyone), 20):
                    await asyncio.gather(*(t.open() for t in everyone[start : start + 20]))
                print(f"opened {len(everyone)} games in {time.perf_counter() - opening:.1f} s")
                fake.world.interactions.clear()
                figures = Figures()
                until = time.perf_counter() + seconds
                with_ai = [
                    asyncio.create_task(table.play_with_ai(figures, until, think, seed))
                    for seed, table in enumerate(ai_tables)
                ]
                await steady_clicks(tables, rate, seconds, figures)
                results = await asyncio.gather(*with_ai, return_exceptions=True)
                figures.errors.extend(repr(r) for r in results if isinstance(r, BaseException))
                figures.late = sum(
                    UNKNOWN_INTERACTION in record.refusals
                    for record in fake.world.interactions.values()
                )
                memory.extend(
                    (peak_rss_mb(bot.pid), *workers_pss_mb(bot.pid)) for bot in cluster.processes
                )
                stop = await stop_under_load(fake, tables + ai_tables, cluster, max(1, int(rate)))
            finally:
                await cluster.close()
            lines = [line for bot in cluster.processes for line in bot.lines]
            errors_logged = cluster.errors_logged()
            if errors_logged:
                first = lines.index(errors_logged[0])
                print("\n".join(["first error in the bots' logs:", *lines[first:][:25]]))
            late_logged = [line for line in lines if "came too late" in line]
            lags = [
                m for bot in cluster.processes for line in bot.lines if (m := LOOP_LAG.search(line))
            ]
    print(f"database: {db}; bot processes: {processes} (the fake Discord with {processes} shards)")
    for index, (peak, helpers, helpers_mb) in enumerate(memory):
        print(
            f"process {index}: peak memory (VmHWM) {peak:.0f} MB; its workers and their fork "
            f"server: {helpers} processes, {helpers_mb:.0f} MB in all (proportional set size)"
        )
    peak = max((m[0] for m in memory), default=0.0)
    lag = max(lags, key=lambda m: int(m.group(3)), default=None)
    report_play(figures, games, rate, seconds, peak, errors_logged, ai_games, late_logged, lag)
    report_stop(stop)
    if profile is not None:
        print_profile(profile)
    ok = not figures.errors and not errors_logged and not late_logged and not figures.late
    return 0 if ok and all(code == 0 for code in stop.exit_codes) else 1


async def stop_under_load(
    fake: FakeDiscord, tables: list[Table], cluster: multiprocess.Cluster, clicks: int
) -> StopFigures:
    """Send a move's click on up to `clicks` tables, and once their frames are on the bots'
    sockets, SIGTERM every process at once; time each exit and count the clicks answered."""
    pressed = [p for p in await asyncio.gather(*(t.press() for t in tables[:clicks])) if p]
    handles = [handle for _, handle in pressed]
    await fake.wait_until(
        lambda: all(h.dispatched_at is not None or h.undelivered for h in handles),
        timeout=30,
        what="the clicks' frames on the bots' sockets",
    )

    async def timed_stop(bot: BotProcess) -> tuple[float, int]:
        began = time.perf_counter()
        code = await bot.stop(timeout=STOP_WAIT_SECONDS)
        return time.perf_counter() - began, code

    stopped = await asyncio.gather(*(timed_stop(bot) for bot in cluster.processes))
    delivered = [h for h in handles if not h.undelivered]
    return StopFigures(
        clicks=len(delivered),
        answered=sum(h.acknowledged for h in delivered),
        seconds=[seconds for seconds, _ in stopped],
        exit_codes=[code for _, code in stopped],
    )


def report_stop(stop: StopFigures) -> None:
    codes = ", ".join(str(code) for code in stop.exit_codes)
    print(
        f"stop (SIGTERM to every process as {stop.clicks} clicks reached them): exited in "
        f"{max(stop.seconds):.2f} s at most (exit codes {codes}); {stop.answered} of the "
        f"{stop.clicks} clicks answered before the exit"
    )


def print_profile(path: Path) -> None:
    """The bot's busiest functions, by own time and by cumulative time."""
    if not path.exists():
        print(f"no profile at {path}: the bot did not stop cleanly")
        return
    stats = pstats.Stats(str(path))
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)


async def steady_clicks(
    tables: list[Table], rate: float, seconds: float, figures: Figures
) -> Figures:
    busy: set[int] = set()
    running: set[asyncio.Task[None]] = set()
    order = random.Random(8).sample(range(len(tables)), len(tables))
    started = time.perf_counter()
    fired = 0
    cursor = 0
    while tables and (now := time.perf_counter() - started) < seconds:
        due = int(now * rate) + 1
        while fired < due:
            for _ in range(len(order)):
                index = order[cursor % len(order)]
                cursor += 1
                if index not in busy:
                    break
            else:
                figures.errors.append("no game free to click: the bot is too slow")
                break
            busy.add(index)
            task = asyncio.create_task(tables[index].click(figures))
            running.add(task)
            task.add_done_callback(partial(_finished, busy, running, index))
            fired += 1
        await asyncio.sleep(1 / rate / 2)
    figures.elapsed = time.perf_counter() - started
    results = await asyncio.gather(*running, return_exceptions=True)
    figures.errors.extend(repr(r) for r in results if isinstance(r, BaseException))
    return figures


def _finished(
    busy: set[int], running: set[asyncio.Task[None]], index: int, task: asyncio.Task[None]
) -> None:
    busy.discard(index)
    running.discard(task)


def report_play(
    figures: Figures,
    games: int,
    rate: float,
    seconds: float,
    peak: float,
    logged: list[str],
    ai_games: int = 0,
    late_logged: list[str] | None = None,
    lag: re.Match[str] | None = None,
) -> None:
    elapsed = figures.elapsed if figures.elapsed is not None else seconds
    print(f"games: {games} in {games} channels; target rate {rate:g} clicks/s for {seconds:g} s")
    if ai_games:
        print(f"games with AI seats: {ai_games} more, each one person against the AI")
    print(
        f"actions applied: {figures.applied} in {elapsed:.1f} s = "
        f"{figures.applied / elapsed:.1f} actions/s; games finished and reopened: "
        f"{figures.games_finished}"
    )
    everyone = figures.latencies + figures.ai_table_latencies
    for name, latencies in (
        ("click to answer", everyone),
        ("  in games between people", figures.latencies if ai_games else []),
        ("  in games with AI seats", figures.ai_table_latencies),
    ):
        if latencies:
            print(f"{name}: {latency_line(latencies)}")
    print(
        f"late answers: {figures.late} clicks answered after Discord's 3 s (10062), "
        f"{len(late_logged or [])} logged by the bot"
    )
    if lag is not None:
        probes, p50, p99, worst = lag.groups()
        print(f"event loop lag: p50 {p50} ms, p99 {p99} ms, worst {worst} ms ({probes} probes)")
    else:
        print("event loop lag: not reported by the bot")
    print(f"errors: {len(figures.errors)} in clicks, {len(logged)} ERROR lines in the bot's log")
    for error in (logged[:5] + figures.errors)[:10]:
        print(f"  {error}")
    print(f"bot peak memory (VmHWM): {peak:.0f} MB")


def latency_line(latencies: list[float]) -> str:
    ordered = sorted(latencies)

    def quantile(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return (
        f"p50 {quantile(0.5):.0f} ms, p99 {quantile(0.99):.0f} ms, worst {ordered[-1] * 1000:.0f} "
        f"ms, mean {statistics.fmean(ordered) * 1000:.0f} ms over {len(ordered)} clicks"
    )


# --- start-up with a big database -------------------------------------------------------------


def sample_games(count: int, seed: int) -> list[tuple[str, str, list[str | None], str]]:
    """`count` whole 2-player games: (config JSON, seed, log notations, final position JSON)."""
    rng = random.Random(seed)
    played = []
    for number in range(count):
        game_seed = f"{seed:08x}{number:08x}"
        config = engine.deal(2, engine.Variant.STANDARD, dice.setup_rng(game_seed))
        state = engine.new_game(config)
        log: list[str | None] = []
        while not state.is_over:
            if engine.current_player(state) == engine.CHANCE:
                action = dice.roll(game_seed, len(log) + 1, engine.chance_outcomes(state))
            else:
                action = rng.choice(engine.legal_actions(state))
            state, _ = engine.apply(state, action)
            log.append(action)
        config_json = json.dumps(records.config_json(config))
        played.append((config_json, game_seed, log, json.dumps(engine.to_position(state))))
    return played


def position_after(config_json: str, log: list[str | None], length: int) -> str:
    """The position after the first `length` actions of the game (its stored config)."""
    actions = [action for action in log[:length] if action is not None]
    record = engine.record_from_json({**json.loads(config_json), "actions": actions})
    return json.dumps(engine.to_position(engine.replay_record(record)))


async def fill(database: Path, finished: int, running: int, guild_id: int) -> None:
    """A database with `finished` games over and `running` games mid-way (shown up to date)."""
    db = await open_database(database)  # the bot's own migrations
    await db.close()
    samples = sample_games(20, seed=5)
    now = "2026-01-01T00:00:00+00:00"
    with contextlib.closing(sqlite3.connect(database)) as connection, connection:
        game_rows, seat_rows, action_rows, result_rows = [], [], [], []
        for game_id in range(1, finished + running + 1):
            config, seed, log, final = samples[game_id % len(samples)]
            over = game_id <= finished
            length = len(log) if over else min(len(log) - 1, 20 + game_id % 40)
            position = final if over else position_after(config, log, length)
            users = (10_000 + 2 * game_id, 10_001 + 2 * game_id)
            game_rows.append(
                (
                    game_id,
                    guild_id,
                    1_000_000 + game_id,
                    users[0],
                    "over" if over else "running",
                    2,
                    "standard",
                    config,
                    seed,
                    "0" * 64,
                    length,
                    position,
                    5_000_000 + game_id,
                    length,
                    "finished" if over else None,
                    now,
                    now,
                )
            )
            for seat, user in enumerate(users):
                seat_rows.append((game_id, user, seat, now))
                if over:
                    result_rows.append(
                        (game_id, seat, user, None, "red", 10, 10, seat + 1, seat == 0)
                    )
            for seq, action in enumerate(log[:length], start=1):
                actor = None if action is not None and action.isdigit() else users[0]
                action_rows.append((game_id, seq, "action", action, None, actor, now))
        connection.executemany(
            "INSERT INTO games (id, guild_id, channel_id, host_id, status, seats_wanted, variant, "
            "config, seed, seed_sha256, seq, position, board_message_id, board_message_seq, "
            "end_reason, created_at, updated_at) VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            game_rows,
        )
        connection.executemany(
            "INSERT INTO seats (game_id, user_id, seat, joined_at) VALUES (?, ?, ?, ?)", seat_rows
        )
        connection.executemany(
            "INSERT INTO actions (game_id, seq, kind, notation, seat, actor_id, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            action_rows,
        )
        connection.executemany(
            "INSERT INTO results (game_id, seat, user_id, ai_level, color, score, dirhams, place, "
            "won) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            result_rows,
        )


async def start_once(database: Path, scratch: Path, label: str) -> tuple[float, float]:
    async with FakeDiscord(bot_name="Marrakech") as fake:
        fake.add_guild("Load")
        bot = BotProcess(
            [sys.executable, "-m", "bot"],
            bot_environment(fake, database),
            log_path=scratch / f"bot-{label}.log",
            cwd=REPO_ROOT,
        )
        try:
            began = time.perf_counter()
            await bot.start_and_wait_ready(fake, commands=COMMANDS, timeout=60)
            took = time.perf_counter() - began
            await asyncio.sleep(1.0)  # let the start-up warm-up finish before reading memory
            memory = rss_mb(bot.pid)
        finally:
            await bot.close()
    return took, memory


async def startup(finished: int, running: int) -> int:
    with tempfile.TemporaryDirectory(prefix="marrakech-startup-") as name:
        scratch = Path(name)
        empty = scratch / "empty.sqlite3"
        big = scratch / "big.sqlite3"
        filling = time.perf_counter()
        await fill(big, finished, running, guild_id=1)
        size = big.stat().st_size / 1e6
        print(
            f"database: {finished} finished + {running} running games, {size:.0f} MB "
            f"(filled in {time.perf_counter() - filling:.1f} s)"
        )
        await fill(empty, 0, 0, guild_id=1)
        empty_time, empty_memory = await start_once(empty, scratch, "empty")
        big_time, big_memory = await start_once(big, scratch, "big")
    print(f"start-up to connected and ready: {big_time:.2f} s (empty database: {empty_time:.2f} s)")
    print(
        f"resident memory after start-up: {big_memory:.0f} MB (empty database: "
        f"{empty_memory:.0f} MB)"
    )
    return 0 if big_time < 3.0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.load", description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rate", type=float, default=25.0, help="clicks per second in total")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--ai-games", type=int, default=0, help="more games, each one person against AI seats"
    )
    parser.add_argument("--ai-seats", type=int, default=3, choices=(1, 2, 3))
    parser.add_argument("--ai-level", default="hard", choices=("easy", "medium", "hard"))
    parser.add_argument(
        "--think", type=float, default=2.0, help="longest pause before a person's move (s)"
    )
    parser.add_argument("--startup", action="store_true", help="measure start-up instead")
    parser.add_argument("--db", default="sqlite", choices=("sqlite", "postgres"))
    parser.add_argument(
        "--processes", type=int, default=1, help="bot processes, one shard range each (postgres)"
    )
    parser.add_argument("--profile", type=Path, help="run the bot under cProfile, stats to PATH")
    parser.add_argument("--finished", type=int, default=10_000)
    parser.add_argument("--running", type=int, default=1_000)
    arguments = parser.parse_args()
    if arguments.processes > 1 and arguments.db != "postgres":
        parser.error("--processes needs --db postgres: processes share a PostgreSQL database")
    if arguments.profile is not None and arguments.processes != 1:
        parser.error("--profile profiles one process")
    if arguments.startup:
        return asyncio.run(startup(arguments.finished, arguments.running))
    return asyncio.run(
        play(
            arguments.games,
            arguments.rate,
            arguments.seconds,
            arguments.ai_games,
            arguments.ai_seats,
            arguments.ai_level,
            arguments.think,
            arguments.db,
            arguments.processes,
            arguments.profile,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
