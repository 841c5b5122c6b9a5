"""The runtime's stop: a stop signal closes the client and ends the run with exit code 0,
even while discord.py is asleep in a reconnect's back-off (Discord unreachable for long),
which closing the client does not end; a gateway that ends by itself gives the exit code
docs/deployment.md documents for the way it ended."""

from __future__ import annotations

import asyncio
import logging
import signal
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace, TracebackType
from typing import Any, cast

import asyncpg  # type: ignore[import-untyped]
import discord
import pytest

from bot.edge.sync import DevGuildRefusedError
from bot.runtime import app
from bot.runtime.health import Heartbeat, read_heartbeat
from bot.runtime.loop_lag import LoopLagProbe
from bot.runtime.settings import Settings, load_settings
from bot.runtime.test_hooks import TestHooks
from bot.storage import open_database
from bot.storage.database import Backend, DatabaseUnavailableError, load_migrations
from tests.bot.storage.test_storage import migrated_by_a_newer_bot
from tests.e2e.full_disk import small_disk
from tests.postgres import backend, database_target, database_url, postgres_server, postgres_url

__all__ = ["backend", "database_target", "postgres_server", "postgres_url"]


class AsleepInBackOff:
    """A client whose gateway task waits out an hour-long reconnect back-off, as discord.py's
    sharded client does after many failed reconnects; closing it does not wake the task."""

    def __init__(self) -> None:
        self.closed = False

    async def __aenter__(self) -> AsleepInBackOff:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self, token: str) -> None:
        await asyncio.sleep(3600)

    async def close(self) -> None:
        self.closed = True


async def test_a_stop_signal_ends_the_run_during_a_reconnect_back_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(app, "STOP_GRACE_SECONDS", 0.01)
    client = AsleepInBackOff()
    stop = asyncio.Event()
    stop.set()

    code = await asyncio.wait_for(app._run_client(cast(Any, client), "token", stop), 10)

    assert code == app.EXIT_OK
    assert client.closed


class EndsOnItsOwn(AsleepInBackOff):
    """A client whose gateway task ends by itself: with `error`, or cleanly when it is None."""

    def __init__(self, error: BaseException | None) -> None:
        super().__init__()
        self.error = error

    async def start(self, token: str) -> None:
        if self.error is not None:
            raise self.error


@pytest.mark.parametrize(
    ("error", "code", "said"),
    [
        (None, 0, None),
        (discord.LoginFailure("Improper token has been passed."), 3, "Discord refused the token"),
        (OSError("Temporary failure in name resolution"), 4, "cannot reach Discord"),
        (discord.GatewayNotFound(), 4, "cannot reach Discord"),  # type: ignore[no-untyped-call]
        (
            discord.ConnectionClosed(
                cast(Any, SimpleNamespace(close_code=4011)), shard_id=0, code=4011
            ),
            2,
            "Discord refused shard 0 (close code 4011, sharding required)",
        ),
        (
            discord.ConnectionClosed(
                cast(Any, SimpleNamespace(close_code=4010)), shard_id=3, code=4010
            ),
            2,
            "Discord refused shard 3 (close code 4010, invalid shard)",
        ),
        (
            DevGuildRefusedError(
                123456789012345678,
                discord.Forbidden(
                    cast(Any, SimpleNamespace(status=403, reason="Forbidden")), "Missing Access"
                ),
            ),
            2,
            "Discord refused the slash commands of server 123456789012345678",
        ),
        (RuntimeError("a bug"), 1, "the gateway connection failed"),
        (
            DatabaseUnavailableError("database or disk is full"),
            6,
            "the database failed while the bot was starting: database or disk is full",
        ),
    ],
)
async def test_the_way_the_gateway_ends_gives_the_documented_exit_code(
    error: BaseException | None,
    code: int,
    said: str | None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """docs/deployment.md: 0 a clean stop, 1 any other failure (logged with a traceback, the
    one clue a developer has), 2 a bad setting (the shards Discord refuses, a server of
    MARRAKECH_DEV_GUILDS that refuses the commands), 3 the token
    refused, 4 Discord not reached, 6 the database failing the start's first writes (a full
    disk: a supervisor tries again), each of these in one line, without a traceback."""
    stop = asyncio.Event()

    with caplog.at_level(logging.ERROR, logger="bot.runtime.app"):
        ended = await asyncio.wait_for(
            app._run_client(cast(Any, EndsOnItsOwn(error)), "token", stop), 10
        )

    assert ended == code
    messages = [record.getMessage() for record in caplog.records]
    if said is None:
        assert messages == []
    else:
        (message,) = messages
        assert message.startswith(said)
        (record,) = caplog.records
        if code == 1:
            assert record.exc_info is not None, "exit 1 is logged with its traceback"
            assert record.exc_info[1] is error
        else:
            assert record.exc_info is None, "one line, no traceback"


def test_ctrl_c_is_a_clean_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    async def interrupted(settings: Settings, hooks: TestHooks) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(app, "_serve", interrupted)
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", discord.VoiceClient.warn_nacl)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", discord.VoiceClient.warn_dave)
    settings = load_settings({"DISCORD_TOKEN": "token"})

    assert app.run(settings) == 0


WAIT_SECONDS = 10.0
"""How long a test waits at most for what happens within a second (this is no timing)."""


class ClosedOnce:
    """The database and the worker pool of a run: only their closing matters here."""

    def __init__(self) -> None:
        self.closed = False

    async def close(self) -> None:
        self.closed = True


RunClient = Callable[[Any, str, asyncio.Event], Awaitable[int]]


async def serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run_client: RunClient) -> int:
    """Run app._serve on a database, a worker pool and a client that are fakes; remove its
    signal handlers afterwards so the test run's own are left as they were."""
    database = ClosedOnce()
    pools: list[ClosedOnce] = []

    def pool() -> ClosedOnce:
        pools.append(ClosedOnce())
        return pools[-1]

    async def opened(target: object) -> ClosedOnce:
        return database

    monkeypatch.setattr(app, "open_database", opened)
    monkeypatch.setattr(app, "WorkerPool", pool)
    monkeypatch.setattr(app, "build_bot", lambda *args, **kwargs: SimpleNamespace(client=None))
    monkeypatch.setattr(app, "_run_client", run_client)
    settings = load_settings(
        {"DISCORD_TOKEN": "token", "MARRAKECH_DB": str(tmp_path / "marrakech.sqlite3")}
    )
    loop = asyncio.get_running_loop()
    try:
        code = await app._serve(settings, TestHooks())
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR2):
            loop.remove_signal_handler(signum)
    assert database.closed, "the database is closed when the run ends"
    assert [workers.closed for workers in pools] == [True], (
        "the worker pool is closed when the run ends: its processes do not outlive the bot"
    )
    return code


async def test_the_event_loop_ticks_the_heartbeat_file_while_the_bot_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """So that the health check sees a blocked event loop (bot.runtime.health)."""
    ticked = asyncio.Event()

    class NotedHeartbeat(Heartbeat):
        def tick(self) -> None:
            super().tick()
            ticked.set()

    monkeypatch.setattr(app, "Heartbeat", NotedHeartbeat)

    async def until_ticked(client: Any, token: str, stop: asyncio.Event) -> int:
        await asyncio.wait_for(ticked.wait(), WAIT_SECONDS)
        return app.EXIT_OK

    assert await serve(monkeypatch, tmp_path, until_ticked) == app.EXIT_OK
    record = read_heartbeat(tmp_path / "heartbeat")
    assert record is not None
    assert record.ticked_at is not None


async def test_sigterm_asks_the_run_to_stop(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What `docker stop` sends: without a handler the bot would be killed, not stopped."""
    unhandled = asyncio.Event()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: unhandled.set())
    outcome: list[str] = []

    async def stopped_by_sigterm(client: Any, token: str, stop: asyncio.Event) -> int:
        signal.raise_signal(signal.SIGTERM)
        waits = {asyncio.ensure_future(stop.wait()), asyncio.ensure_future(unhandled.wait())}
        _, pending = await asyncio.wait(
            waits, timeout=WAIT_SECONDS, return_when=asyncio.FIRST_COMPLETED
        )
        for waiting in pending:
            waiting.cancel()
        outcome.append("stopped" if stop.is_set() else "not stopped")
        return app.EXIT_OK

    try:
        assert await serve(monkeypatch, tmp_path, stopped_by_sigterm) == app.EXIT_OK
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert outcome == ["stopped"]


async def test_sigusr2_logs_the_run_s_lag_figures_and_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """What `kill -USR2` asks for (docs/deployment.md): without a handler its default action
    would kill the bot."""
    unhandled = asyncio.Event()
    summarized = asyncio.Event()
    previous = signal.signal(signal.SIGUSR2, lambda signum, frame: unhandled.set())

    class NotedProbe(LoopLagProbe):
        def log_summary(self) -> None:
            super().log_summary()
            summarized.set()

    monkeypatch.setattr(app, "LoopLagProbe", NotedProbe)
    outcome: list[str] = []

    async def asked_for_the_figures(client: Any, token: str, stop: asyncio.Event) -> int:
        signal.raise_signal(signal.SIGUSR2)
        waits = {asyncio.ensure_future(summarized.wait()), asyncio.ensure_future(unhandled.wait())}
        _, pending = await asyncio.wait(
            waits, timeout=WAIT_SECONDS, return_when=asyncio.FIRST_COMPLETED
        )
        for waiting in pending:
            waiting.cancel()
        outcome.append("summarized" if summarized.is_set() else "not summarized")
        outcome.append("stopped" if stop.is_set() else "running")
        return app.EXIT_OK

    try:
        with caplog.at_level(logging.INFO, logger="bot.runtime.loop_lag"):
            assert await serve(monkeypatch, tmp_path, asked_for_the_figures) == app.EXIT_OK
    finally:
        signal.signal(signal.SIGUSR2, previous)
    assert outcome == ["summarized", "running"]
    assert not unhandled.is_set()
    said = [r.getMessage() for r in caplog.records if r.name == "bot.runtime.loop_lag"]
    assert said, "the figures are logged"
    assert said[0].startswith("event loop lag"), said


async def test_sigusr2_while_the_database_opens_logs_the_figures_and_does_not_kill_the_bot(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`kill -USR2` works at any time (docs/deployment.md): opening the database comes first
    and may take long (an upgrade's migrations, a PostgreSQL server slow to answer), and
    without a handler by then the signal's default action would kill the bot."""
    unhandled = asyncio.Event()
    summarized = asyncio.Event()
    previous = signal.signal(signal.SIGUSR2, lambda signum, frame: unhandled.set())

    class NotedProbe(LoopLagProbe):
        def log_summary(self) -> None:
            super().log_summary()
            summarized.set()

    async def opening(target: object) -> None:
        signal.raise_signal(signal.SIGUSR2)
        waits = {asyncio.ensure_future(summarized.wait()), asyncio.ensure_future(unhandled.wait())}
        _, pending = await asyncio.wait(
            waits, timeout=WAIT_SECONDS, return_when=asyncio.FIRST_COMPLETED
        )
        for waiting in pending:
            waiting.cancel()
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(app, "LoopLagProbe", NotedProbe)
    monkeypatch.setattr(app, "open_database", opening)
    settings = load_settings(
        {"DISCORD_TOKEN": "token", "MARRAKECH_DB": str(tmp_path / "marrakech.sqlite3")}
    )
    loop = asyncio.get_running_loop()
    try:
        with caplog.at_level(logging.INFO, logger="bot.runtime.loop_lag"):
            assert await app._serve(settings, TestHooks()) == 5
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR2):
            loop.remove_signal_handler(signum)
        signal.signal(signal.SIGUSR2, previous)
    assert not unhandled.is_set(), "the signal reached no handler of the bot's"
    assert summarized.is_set()
    said = [r.getMessage() for r in caplog.records if r.name == "bot.runtime.loop_lag"]
    assert said, "the figures are logged"
    assert said[0].startswith("event loop lag"), said


async def test_a_stop_signal_while_the_database_opens_ends_the_opening_and_the_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An upgrade's migrations on a large SQLite file, or a PostgreSQL database whose
    migrations another process is applying, may hold the opening longer than `docker stop`
    waits before it kills (10 s): the stop ends the opening (each migration is one
    transaction: the one under way is rolled back, and the next start applies it) and the
    bot stops cleanly, without building the rest of the bot."""
    cancelled = asyncio.Event()
    built: list[object] = []

    async def opening(target: object) -> None:
        signal.raise_signal(signal.SIGTERM)
        try:
            await asyncio.Event().wait()  # migrations that take long
        except asyncio.CancelledError:
            cancelled.set()
            raise

    monkeypatch.setattr(app, "open_database", opening)
    monkeypatch.setattr(app, "build_bot", lambda *args, **kwargs: built.append(args))
    settings = load_settings(
        {"DISCORD_TOKEN": "token", "MARRAKECH_DB": str(tmp_path / "marrakech.sqlite3")}
    )
    loop = asyncio.get_running_loop()
    try:
        with caplog.at_level(logging.INFO, logger="bot.runtime.app"):
            code = await asyncio.wait_for(app._serve(settings, TestHooks()), WAIT_SECONDS)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR2):
            loop.remove_signal_handler(signum)
    assert code == app.EXIT_OK
    assert cancelled.is_set(), "the opening is cancelled"
    assert built == []
    said = [r.getMessage() for r in caplog.records if r.name == "bot.runtime.app"]
    assert said == ["stop signal received while the database was opening, closing"]


async def start_on(target: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> int:
    """Run the bot's start on the database `target` (what MARRAKECH_DB takes) until it ends,
    its ERROR lines caught in `caplog`: its exit code. The heartbeat goes in `tmp_path`, not
    the working folder's data/heartbeat; the start's signal handlers are removed afterwards so
    the test run's own are left as they were."""
    heartbeat = str(tmp_path / "heartbeat")
    settings = load_settings(
        {"DISCORD_TOKEN": "token", "MARRAKECH_DB": target, "MARRAKECH_HEARTBEAT": heartbeat}
    )
    loop = asyncio.get_running_loop()
    try:
        with caplog.at_level(logging.ERROR, logger="bot.runtime.app"):
            return await asyncio.wait_for(app._serve(settings, TestHooks()), 60)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR2):
            loop.remove_signal_handler(signum)


@pytest.mark.parametrize(
    ("database", "code"),
    [
        ("{tmp}/not-a-database.sqlite3", 5),
        ("/proc/no-such-folder/marrakech.sqlite3", 5),
        ("{tmp}", 5),
        ("{server}", 5),
        ("postgresql://marrakech:pw@127.0.0.1:1/marrakech", 6),
        ("postgresql://marrakech:pw@no-such-host.invalid/marrakech", 6),
    ],
    ids=[
        "not-a-database",
        "no-such-folder",
        "a-folder",
        "a-database-the-server-does-not-have",
        "no-answer",
        "a-host-name-that-does-not-resolve",
    ],
)
async def test_a_database_that_cannot_be_opened_stops_the_start_in_one_line(
    database: str,
    code: int,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    request: pytest.FixtureRequest,
) -> None:
    """A path that cannot be used, a file that is not a database, a database the PostgreSQL
    server does not have (5: a person must look), a server that does not answer or whose name
    does not resolve (6: it may be starting, or its container being made again, so a supervisor
    restarts the bot): one ERROR line naming the database, no traceback, and the password
    hidden."""
    (tmp_path / "not-a-database.sqlite3").write_text("hello", encoding="ascii")
    server = ""
    if "{server}" in database:
        server = database_url(request.getfixturevalue("postgres_server"), "no_such_database")
    target = database.format(tmp=tmp_path, server=server)
    ended = await start_on(target, tmp_path, caplog)
    assert ended == code
    (record,) = [r for r in caplog.records if r.name == "bot.runtime.app"]
    message = record.getMessage()
    assert message.startswith("cannot open the database "), message
    assert "\n" not in message
    assert record.exc_info is None, "no traceback"
    assert ":pw@" not in message


@pytest.mark.parametrize("migrations_left", [0, 3], ids=["up-to-date", "an-upgrade"])
async def test_a_sqlite_file_on_a_full_disk_stops_the_start_with_6_saying_the_disk_is_full(
    migrations_left: int, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot restarted (or upgraded) while the disk of its SQLite file is full: SQLite cannot
    grow the file's -shm or -wal beside it. That passes once there is room, as an outage
    under the running bot does, so the start stops with 6 (a supervisor starts it again), not
    5 (which the documented service unit never restarts), in one line saying the disk is
    full."""
    with small_disk(tmp_path / "disk") as disk:
        path = disk.folder / "marrakech.sqlite3"
        latest = len(load_migrations("sqlite"))
        database = await open_database(path, schema_version=latest - migrations_left)
        await database.close()
        disk.fill()
        ended = await start_on(str(path), tmp_path, caplog)
    assert ended == 6
    (record,) = [r for r in caplog.records if r.name == "bot.runtime.app"]
    message = record.getMessage()
    assert "the disk is full" in message, message
    assert record.exc_info is None, "no traceback"


async def test_a_sqlite_file_the_bot_may_read_but_not_write_stops_the_start_with_5(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A backup restored with another owner or mode: SQLite opens such a file as it opens any,
    and only the first write would fail, once the bot is logging in (exit 1, restarted for
    ever). The start tries a write and undoes it: 5, in one line, and the file as it was.
    SQLite's read-only mode stands in for a file the system refuses to write (to root, whom
    the tests may run as, no mode refuses)."""
    target = tmp_path / "marrakech.sqlite3"
    await (await open_database(target)).close()
    before = target.read_bytes()
    writable_connect = sqlite3.connect

    def read_only_connect(database: str | Path, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.pop("uri", None)
        connection: sqlite3.Connection = writable_connect(
            f"file:{database}?mode=ro", *args, uri=True, **kwargs
        )
        return connection

    monkeypatch.setattr(sqlite3, "connect", read_only_connect)
    ended = await start_on(str(target), tmp_path, caplog)
    assert ended == 5
    (record,) = [r for r in caplog.records if r.name == "bot.runtime.app"]
    message = record.getMessage()
    assert message.endswith("the file can be read but not written (check its owner and mode)")
    assert record.exc_info is None, "no traceback"
    assert target.read_bytes() == before


async def test_a_refusal_the_server_details_stops_the_start_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL's refusals come with DETAIL and HINT lines, which asyncpg puts in the
    error's text: the start's ERROR line holds them, on one line (a log line is one line)."""
    error = asyncpg.InsufficientPrivilegeError('permission denied for database "marrakech"')
    error.detail = "User does not have CONNECT privilege."
    error.hint = "Ask the database's owner to GRANT CONNECT."

    async def refused(target: object) -> None:
        raise error

    monkeypatch.setattr(app, "open_database", refused)
    ended = await start_on("postgresql://marrakech:pw@127.0.0.1/marrakech", tmp_path, caplog)
    assert ended == 5
    (record,) = [r for r in caplog.records if r.name == "bot.runtime.app"]
    message = record.getMessage()
    assert "\n" not in message, message
    assert message.endswith(
        'permission denied for database "marrakech" DETAIL: User does not have CONNECT '
        "privilege. HINT: Ask the database's owner to GRANT CONNECT."
    ), message
    assert record.exc_info is None, "no traceback"


async def test_a_database_a_newer_bot_migrated_stops_the_start_with_5_saying_to_upgrade(
    database_target: str, backend: Backend, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A bot never runs on a schema newer than its own (docs/deployment.md, Upgrades): the
    start ends with 5, which a supervisor leaves down until a person upgrades the bot."""
    known = await migrated_by_a_newer_bot(database_target, backend)
    ended = await start_on(database_target, tmp_path, caplog)
    assert ended == 5
    (record,) = [r for r in caplog.records if r.name == "bot.runtime.app"]
    message = record.getMessage()
    assert message.startswith("cannot open the database "), message
    assert message.endswith(f"newer than this bot ({known}); upgrade the bot"), message
    assert record.exc_info is None, "no traceback"


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.TooManyConnectionsError("sorry, too many clients already"),
    ],
    ids=["starting up", "full"],
)
async def test_a_server_starting_up_or_full_stops_the_start_with_6_for_a_restart(
    error: Exception,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """PostgreSQL answers that it is starting up (or recovering) or that it is full: that may
    pass by itself, so the start ends with 6, which a supervisor restarts, not 5, which the
    systemd unit of docs/deployment.md leaves down until a person looks."""

    async def refused(target: object) -> None:
        raise error

    monkeypatch.setattr(app, "open_database", refused)
    ended = await start_on("postgresql://marrakech:pw@127.0.0.1/marrakech", tmp_path, caplog)
    assert ended == 6
    (record,) = [r for r in caplog.records if r.name == "bot.runtime.app"]
    assert record.getMessage().startswith("cannot open the database "), record.getMessage()
    assert record.exc_info is None, "no traceback"
