"""Crash safety: SIGKILL the real bot at 32 exact points while scripted games run, restart it.

The bot's test-only crash hook (`MARRAKECH_CRASH_AT=<point>:<n>`, bot/crashpoints.py) kills
the process with SIGKILL the n-th time it passes a point: inside a write statement, between
the COMMIT and the answer to Discord, between the answer and the next turn's message, while it
catches up after a restart, ... Two 2-player games run in two channels, one click at a
time, so at most one click is in flight when the bot dies. After every kill:

- the database passes `PRAGMA integrity_check`, its log replays to its snapshot and every die
  roll is the one the seed gives for its position (so nothing was applied or rolled twice);
- the log holds exactly the clicks the players saw acknowledged, plus at most the click in
  flight (committed before the kill but never answered);
and after every restart every game shows its current decision and nothing else: all live
buttons belong to the current seq, finished games show their result, only the turn being played
shows a board picture (every other turn is one line), and clicking the in-flight button again
changes nothing. Then the games go on from there.

A restart comes at once after its kill, within Discord's 5 s window on the channels the killed
run was posting in, so the restarted bot waits out that window before its catch-up edits
(bot/edge/display.py). The test moves the bot's and the fake's clocks on by that window before
most restarts (tests/e2e/shifted_clock.py), as if the restart had taken that long; the restarts
after the kills inside a catch-up (`resume.posting`) keep real time, so that wait still runs and
the fake still judges the edits made after it.

It runs on both back ends, reading the database through bot.storage. On PostgreSQL the kills
inside a write statement (`db.write`, passed on SQLite's progress callback) have no equivalent
and are left out, and `PRAGMA integrity_check` is SQLite's alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest

from bot.edge.display import CHANNEL_WINDOW_SECONDS
from bot.storage import Database, open_database
from bot.storage.database import BACKENDS, Backend
from tests.e2e.conftest import REPO_ROOT, told_its_shards
from tests.e2e.fake_checks import check_fake_after_test
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.process import BotExitedError, BotProcess
from tests.e2e.players import (
    LoggedAction,
    StoredGame,
    check_replay,
    is_final,
    is_lobby,
    live_decisions,
    pick,
)
from tests.e2e.quiet import TURN_LINE, check_turn_line, has_picture
from tests.e2e.shifted_clock import pass_while_down, with_clock
from tests.postgres import create_database, drop_database

pytestmark = pytest.mark.e2e

T = TypeVar("T")
COMMANDS = ("marrakech", "marrakech-mod")
CRASH_VAR = "MARRAKECH_CRASH_AT"
CRASH_LINE = r"crash point \S+ reached: SIGKILL"
GAMES = 2
STEP_BUDGET = 80
CLEAN_STEPS = 200
UPDATED = (6, 7)  # deferred update, update message

SCHEDULES = (
    (
        ("lobby.created", 1),  # a lobby stored, its message never sent
        ("resume.posting", 1),  # dies again while catching that lobby up
        ("db.committed", 1),
        ("db.write", 3),
        ("db.committed", 2),
        ("db.committing", 4),
        ("db.begun", 2),
        ("lobby.started", 1),  # started in the database, first turn never posted
        ("resume.posting", 1),  # dies while posting that first turn after the restart
        ("click.committed", 1),  # a move stored, the click never answered
        ("click.responded", 1),  # answered, the next turn never posted
        ("turn.posted", 1),  # the next turn sent, its id never stored
        ("db.write", 40),
        ("db.committed", 5),
        ("click.committed", 3),
        ("turn.posted", 2),
    ),
    (
        ("lobby.created", 2),  # the second channel's lobby
        ("lobby.started", 2),
        ("resume.posting", 1),  # dies while posting the first turn of that game
        ("click.responded", 4),
        ("db.committing", 9),
        ("db.committed", 11),
        ("click.committed", 7),
        ("db.write", 77),
        ("click.responded", 2),
        ("db.begun", 13),
        ("turn.posted", 5),
        ("db.write", 9),
        ("db.committed", 17),
        ("click.committed", 12),
        ("click.responded", 9),
        ("turn.posted", 8),
    ),
)
"""Two lanes (a fake Discord, a bot and a database each) run side by side to halve the time."""
KILLS = sum(len(schedule) for schedule in SCHEDULES)
IN_WINDOW_AFTER = "resume.posting"
"""The restart after a kill at this point comes within the channel window, in real time."""
SQLITE_ONLY_POINTS = ("db.write",)
"""Passed on SQLite's progress callback, inside a write statement: PostgreSQL has no such hook."""


def schedules_for(backend: Backend) -> tuple[tuple[tuple[str, int], ...], ...]:
    """The lanes' kills on a back end (those it cannot pass left out)."""
    if backend == "sqlite":
        return SCHEDULES
    return tuple(
        tuple(kill for kill in schedule if kill[0] not in SQLITE_ONLY_POINTS)
        for schedule in SCHEDULES
    )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    name: Backend = request.param
    return name


@pytest.fixture
def lane_folders(tmp_path: Path) -> tuple[Path, Path]:
    """Each lane's folder (its log, its heartbeat, its SQLite file)."""
    other = tmp_path / "lane-2"
    other.mkdir()
    return tmp_path, other


@pytest.fixture
def server(backend: Backend, request: pytest.FixtureRequest) -> str | None:
    """The PostgreSQL server's URL on that back end, else None."""
    if backend == "sqlite":
        return None
    url: str = request.getfixturevalue("postgres_server")
    return url


@pytest.fixture
async def lane_targets(
    server: str | None, lane_folders: tuple[Path, Path]
) -> AsyncIterator[tuple[str, str]]:
    """Each lane's database: an SQLite file in its folder, or a database of its own."""
    if server is None:
        first, second = (str(folder / "marrakech.sqlite3") for folder in lane_folders)
        yield first, second
        return
    made = [await create_database(server) for _ in lane_folders]
    try:
        yield made[0], made[1]
    finally:
        for url in made:
            await drop_database(server, url)


@pytest.fixture
def bot_env(
    bot_env: dict[str, str], lane_targets: tuple[str, str], lane_folders: tuple[Path, Path]
) -> dict[str, str]:
    """The first lane's bot on its database (the heartbeat and the clock file in its folder
    whatever the back end), told its shard count as it restarts often."""
    return {
        **with_clock(told_its_shards(bot_env), lane_folders[0] / "clock-offset"),
        "MARRAKECH_DB": lane_targets[0],
        "MARRAKECH_HEARTBEAT": str(lane_folders[0] / "heartbeat"),
    }


@dataclass
class Storage:
    """A lane's database as the bot left it, read through bot.storage; opened at the first read
    (once the bot has made it) and kept open across the bot's restarts."""

    target: str
    database: Database | None = None

    async def _open(self) -> Database:
        if self.database is None:
            self.database = await open_database(self.target)
        return self.database

    async def integrity(self) -> str:
        """SQLite's `PRAGMA integrity_check`; "ok" on PostgreSQL, which has no such check."""
        database = await self._open()
        if database.backend != "sqlite":
            return "ok"
        async with database.reading() as connection:
            return str(await connection.fetchval("PRAGMA integrity_check"))

    async def games(self) -> dict[int, StoredGame]:
        """Every game, checked: its log replays to its snapshot and every roll is the seeded
        one (tests/e2e/players.py, `check_replay`)."""
        database = await self._open()
        games = {}
        async with database.reading() as connection:
            rows = await connection.fetch(
                "SELECT id, channel_id, status, seq, board_message_id, board_message_seq, "
                "config, position, seed FROM games ORDER BY id"
            )
            for row in rows:
                game_id, seq = int(row["id"]), int(row["seq"])
                log = tuple(
                    LoggedAction(entry["seq"], entry["notation"], entry["actor_id"])
                    for entry in await connection.fetch(
                        "SELECT seq, notation, actor_id FROM actions WHERE game_id = $1 "
                        "ORDER BY seq",
                        game_id,
                    )
                )
                assert [e.seq for e in log] == list(range(1, seq + 1)), (game_id, seq, log)
                if row["config"] is not None:
                    check_replay(game_id, row["config"], row["position"], row["seed"], log)
                games[game_id] = StoredGame(
                    game_id,
                    int(row["channel_id"]),
                    str(row["status"]),
                    seq,
                    row["board_message_id"],
                    row["board_message_seq"],
                    log,
                )
        return games

    async def close(self) -> None:
        if self.database is not None:
            await self.database.close()
            self.database = None


class CrashedError(Exception):
    """The bot died on its crash point while the test was waiting for something."""


@dataclass
class Ledger:
    """What the players saw acknowledged: per game, the seq clicked -> (action, user)."""

    acked: dict[int, dict[int, tuple[str, int]]] = field(default_factory=dict)
    inflight: tuple[int, int, str, int, int] | None = None
    """(game, seq, action, user, message id) of a click not answered yet."""
    applied_in_flight: int = 0
    lost_in_flight: int = 0


@dataclass
class Driver:
    fake: FakeDiscord
    bot: BotProcess
    channels: list[FakeChannel]
    host: FakeUser
    guest: FakeUser
    storage: Storage
    ledger: Ledger = field(default_factory=Ledger)
    watcher: asyncio.Future[str] | None = None
    turns: int = 0

    async def guard(self, waiting: Awaitable[T]) -> T:
        """Await `waiting` unless the bot dies first (then CrashedError)."""
        assert self.watcher is not None
        task = asyncio.ensure_future(waiting)
        racing: set[asyncio.Future[T] | asyncio.Future[str]] = {task, self.watcher}
        await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, BotExitedError, TimeoutError):
            await task
        raise CrashedError()

    def user(self, user_id: int) -> FakeUser:
        return self.host if user_id == self.host.id else self.guest

    async def step(self, channel: FakeChannel) -> None:
        """One player action in the channel, waited for until the players see its outcome."""
        self.turns += 1
        fake = self.fake
        if not live_decisions(fake, channel):
            handle = await fake.slash(self.host, channel, "marrakech", "new", seats=2)
            await self.guard(handle.answer())
            return
        message = fake.latest_with_components(channel)
        if is_lobby(message):
            await self._lobby_step(message)
            return
        chosen = pick(message, self.turns)
        assert len(message.pinged_user_ids) == 1, self.fake.transcript(channel)[-1500:]
        (mover,) = message.pinged_user_ids
        self.ledger.inflight = (chosen.game_id, chosen.seq, chosen.action, mover, message.id)
        handle = await fake.click(self.user(mover), message, chosen.custom_id)
        answer = await self.guard(handle.response())
        assert answer.response_type in UPDATED, answer.message and answer.message.content
        self.ledger.acked.setdefault(chosen.game_id, {})[chosen.seq] = (chosen.action, mover)
        self.ledger.inflight = None
        await self.guard(
            fake.wait_until(
                lambda: moved_on(fake, channel, chosen.game_id, chosen.seq),
                timeout=10,
                what=f"game {chosen.game_id} past seq {chosen.seq}",
            )
        )

    async def _lobby_step(self, lobby: FakeMessage) -> None:
        fake = self.fake
        joined = f"<@{self.guest.id}>" in lobby.embed_text()
        label = "Start" if joined else "Join"
        user = self.host if joined else self.guest
        button = lobby.button(label=label)
        assert button.custom_id is not None
        handle = await fake.click(user, lobby, button.custom_id)
        answer = await self.guard(handle.response())
        assert answer.response_type in UPDATED, answer.message and answer.message.content
        if label == "Start":
            channel = fake.world.channels[lobby.channel_id]
            await self.guard(
                fake.wait_until(
                    lambda: any(d.action in "LSR" for _, d in live_decisions(fake, channel)),
                    timeout=10,
                    what="the first turn",
                )
            )


def moved_on(fake: FakeDiscord, channel: FakeChannel, game_id: int, seq: int) -> bool:
    if any(d.game_id == game_id and d.seq > seq for _, d in live_decisions(fake, channel)):
        return True
    return final_message(fake, channel, game_id) is not None


def final_message(fake: FakeDiscord, channel: FakeChannel, game_id: int) -> FakeMessage | None:
    name = f"marrakech-game-{game_id}.json"
    for message in fake.messages(channel):
        if is_final(message) and any(a.filename == name for a in message.attachments):
            return message
    return None


async def check_after_crash(driver: Driver) -> None:
    """The database is sound and its log is what the players saw, plus at most the click in
    flight."""
    assert await driver.storage.integrity() == "ok"
    ledger = driver.ledger
    for game in (await driver.storage.games()).values():
        played = {e.seq - 1: (e.notation, e.actor_id) for e in game.log if e.actor_id is not None}
        acked = ledger.acked.setdefault(game.id, {})
        for seq, move in acked.items():
            assert played.get(seq) == move, f"game {game.id}: acknowledged {move} at {seq} lost"
        for seq, applied in played.items():
            if seq in acked:
                continue
            assert ledger.inflight is not None, f"game {game.id}: {applied} applied, never clicked"
            assert ledger.inflight[:4] == (game.id, seq, *applied), (ledger.inflight, seq, applied)
            acked[seq] = (str(applied[0]), int(applied[1] or 0))
            ledger.applied_in_flight += 1


async def check_display(driver: Driver) -> None:
    """After a restart every game shows its current decision and no other live button."""
    fake = driver.fake
    games = await driver.storage.games()
    live = [d for channel in driver.channels for _, d in live_decisions(fake, channel)]
    for game in games.values():
        channel = fake.world.channels[game.channel_id]
        seqs = {d.seq for d in live if d.game_id == game.id}
        if game.status == "running":
            assert seqs == {game.seq}, f"game {game.id} at {game.seq} shows {seqs}"
        elif game.status == "lobby":
            assert seqs == {0}, f"lobby {game.id} shows {seqs}"
        else:
            assert not seqs, f"finished game {game.id} still has live buttons"
            if game.status == "over":
                assert final_message(fake, channel, game.id) is not None
    for channel in driver.channels:
        # results of earlier games keep their pictures; otherwise only the turn being played
        pictured = [m for m in fake.messages(channel) if has_picture(m) and not is_final(m)]
        assert len(pictured) <= 1, fake.transcript(channel)[-3000:]
        assert all(m.enabled_buttons() for m in pictured), "a picture only on the turn played"
        for message in fake.messages(channel):
            if not message.enabled_buttons() and TURN_LINE.fullmatch(message.content):
                check_turn_line(message)
    inflight = driver.ledger.inflight
    if inflight is None:
        return
    game_id, seq, action, user_id, message_id = inflight
    before = games[game_id].seq
    handle = await fake.click(
        driver.user(user_id), message_id, f"mk:{game_id}:{seq}:{action}", validate=False
    )
    answer = await handle.answer()
    if before > seq:  # it was applied before the kill: a second click must change nothing
        assert answer.ephemeral, answer.content
        assert (await driver.storage.games())[game_id].seq == before
        driver.ledger.inflight = None
        return
    # Never applied: the click, sent again, counts now (Discord lost the first one).
    assert not answer.ephemeral, answer.content
    driver.ledger.acked.setdefault(game_id, {})[seq] = (action, user_id)
    driver.ledger.lost_in_flight += 1
    driver.ledger.inflight = None
    channel = fake.world.channels[games[game_id].channel_id]
    await fake.wait_until(lambda: moved_on(fake, channel, game_id, seq), timeout=10)


async def run_lane(
    fake: FakeDiscord,
    bot: BotProcess,
    schedule: tuple[tuple[str, int], ...],
    storage: Storage,
    clock_file: Path,
) -> Driver:
    """Play through `schedule`: one run of the bot per crash point, then one clean run. Before
    each restart but those after `IN_WINDOW_AFTER`, the bot's clock (read as it starts) and the
    fake's move on by the channel window."""
    guild = fake.add_guild("Souk")
    channels = [fake.add_text_channel(guild, f"crash-{n}") for n in range(GAMES)]
    host, guest = fake.add_user("alice"), fake.add_user("bob")
    for person in (host, guest):
        fake.add_member(guild, person)
    driver = Driver(fake, bot, channels, host, guest, storage)
    killed_at: str | None = None

    for point, times in (*schedule, (None, 0)):
        if killed_at is not None and killed_at != IN_WINDOW_AFTER:
            await pass_while_down(clock_file, CHANNEL_WINDOW_SECONDS, fake)
        killed_at = point
        bot.env.pop(CRASH_VAR, None)
        if point is not None:
            bot.env[CRASH_VAR] = f"{point}:{times}"
        first_line = len(bot.lines)
        identifies = fake.gateway.identifies
        await bot.start()
        driver.watcher = asyncio.ensure_future(
            bot.wait_for_log(CRASH_LINE, after=first_line, timeout=300)
        )
        try:
            await driver.guard(
                bot.wait_ready(fake, identifies=identifies + 1, syncs=1, commands=COMMANDS)
            )
            await driver.guard(check_display(driver))
            for turn in range(STEP_BUDGET if point is not None else CLEAN_STEPS):
                games = (await storage.games()).values() if point is None else ()
                if any(
                    final_message(fake, channel, game.id) for channel in channels for game in games
                ):
                    break  # the clean run plays on until a game of this lane is over
                await driver.step(channels[turn % GAMES])
            assert point is None, f"crash point {point}:{times} never reached"
        except CrashedError:
            assert point is not None
        finally:
            driver.watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, BotExitedError, TimeoutError):
                await driver.watcher
        if point is None:
            break
        await bot.kill()
        crash = [line for line in bot.lines[first_line:] if re.search(CRASH_LINE, line)]
        assert crash, f"the bot died before {point}:{times}:\n" + "\n".join(bot.lines[-30:])
        await check_after_crash(driver)

    log = bot.log_text()
    assert not re.search(r"ERROR .*error [0-9A-F]{6} while", log), "an unexpected error"
    assert "Traceback" not in log
    return driver


async def test_sigkill_at_32_points_loses_and_repeats_nothing(
    fake: FakeDiscord,
    bot_process: BotProcess,
    bot_command: list[str],
    bot_env: dict[str, str],
    backend: Backend,
    lane_targets: tuple[str, str],
    lane_folders: tuple[Path, Path],
    request: pytest.FixtureRequest,
) -> None:
    kills = [kill for schedule in SCHEDULES for kill in schedule]
    assert len(kills) == KILLS >= 30
    assert len(set(kills)) >= 30
    schedules = schedules_for(backend)
    storages = [Storage(target) for target in lane_targets]
    clocks = [folder / "clock-offset" for folder in lane_folders]
    lane = lane_folders[1]
    try:
        async with FakeDiscord(bot_name="Marrakech") as other_fake:
            env = {
                **bot_env,
                "DISCORD_API_BASE_URL": other_fake.api_base_url,
                "MARRAKECH_DB": lane_targets[1],
                "MARRAKECH_HEARTBEAT": str(lane / "heartbeat"),
                **with_clock({}, lane / "clock-offset"),
            }
            other_bot = BotProcess(bot_command, env, log_path=lane / "bot.log", cwd=REPO_ROOT)
            try:
                drivers = await asyncio.gather(
                    run_lane(fake, bot_process, schedules[0], storages[0], clocks[0]),
                    run_lane(other_fake, other_bot, schedules[1], storages[1], clocks[1]),
                )
            finally:
                await other_bot.close()
            check_fake_after_test(other_fake, request.node)

        games = [g for storage in storages for g in (await storage.games()).values()]
    finally:
        for storage in storages:
            await storage.close()
    finished = [game for game in games if game.status == "over"]
    assert finished, "at least one game played to its end through the crashes"
    applied = sum(d.ledger.applied_in_flight for d in drivers)
    lost = sum(d.ledger.lost_in_flight for d in drivers)
    done = sum(len(schedule) for schedule in schedules)
    left_out = f" ({KILLS - done} in {', '.join(SQLITE_ONLY_POINTS)} left out)" * (done < KILLS)
    print(
        f"\n{backend}: {done} kills{left_out}; {len(games)} games ({len(finished)} finished); "
        f"clicks in flight at a kill: {applied} committed before it, {lost} lost with it (sent "
        "again)"
    )
