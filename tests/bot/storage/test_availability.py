"""A database that cannot be used now, on both back ends: the failure is raised as
DatabaseUnavailableError and marks the database gone, with its reason; a failure of the SQL
itself does not, nor does an SQLite lock another program holds a few seconds; the database is
marked back only once a probe commits a write; opening a PostgreSQL connection gives up in time
on a server that never answers, and closing a pool that does not close in time cuts it; and the
listening connection of PostgreSQL is opened again after it was lost, its pauses starting over
once it listens."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, cast

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.storage import Database, GameStore
from bot.storage import postgres as postgres_backend
from bot.storage.availability import Availability
from bot.storage.database import PROBE_KEY, Backend, DatabaseUnavailableError
from bot.storage.games import SCHEDULE_CHANNEL
from bot.storage.postgres import PostgresDatabase
from bot.storage.sqlite import SqliteDatabase
from tests.polling import until

PROBED = "2026-01-01T00:00:00.000+00:00"
GUARD_SECONDS = 10.0
"""How long a test lets an opening run that should give up at once (this is no timing)."""


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_full_sqlite_file_refuses_writes_until_a_probe_commits(
    backend: Backend, db: Database
) -> None:
    raw = cast(SqliteDatabase, db)._connection
    async with db.reading() as conn:
        pages = int(await conn.fetchval("PRAGMA page_count"))
    await raw.execute(f"PRAGMA max_page_count = {pages}")  # as full as a disk with no room
    with pytest.raises(DatabaseUnavailableError):
        async with db.transaction() as conn:
            await conn.execute(
                "INSERT INTO bot_meta (key, value) VALUES ($1, $2)", "big", "x" * 100_000
            )
    assert not db.availability.up
    with pytest.raises(DatabaseUnavailableError):  # a click's one-statement write too
        async with db.single_write() as conn:
            await conn.execute(
                "INSERT INTO bot_meta (key, value) VALUES ($1, $2)", "big", "x" * 100_000
            )
    assert db.availability.reason == "OperationalError: database or disk is full"
    # A mistake in the SQL is no outage; reads go on, and a write that changed nothing
    # commits without saying the file takes writes again.
    with pytest.raises(Exception, match="no such table") as mistake:
        async with db.reading() as conn:
            await conn.fetch("SELECT * FROM no_such_table")
    assert not isinstance(mistake.value, DatabaseUnavailableError)
    async with db.transaction() as conn:
        assert await conn.execute("UPDATE games SET status = status WHERE id = 0") == 0
    assert not db.availability.up

    await raw.execute(f"PRAGMA max_page_count = {pages * 1000}")  # room again
    await db.probe(PROBED)
    assert db.availability.up
    assert db.availability.gone_since is None
    assert await GameStore(db).get_meta(PROBE_KEY) == PROBED


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_full_sqlite_file_serves_reads_that_do_not_mark_it_back(
    backend: Backend, db: Database
) -> None:
    """docs/reliability.md, The database and the disk: a full SQLite disk still serves reads;
    only a committed write counts as back. A read that works while the disk is full says
    nothing of writes, so the outage goes on, its start kept."""
    raw = cast(SqliteDatabase, db)._connection
    await GameStore(db).set_meta("kept", "yes")
    async with db.reading() as conn:
        pages = int(await conn.fetchval("PRAGMA page_count"))
    await raw.execute(f"PRAGMA max_page_count = {pages}")  # as full as a disk with no room
    with pytest.raises(DatabaseUnavailableError):
        async with db.transaction() as conn:
            await conn.execute(
                "INSERT INTO bot_meta (key, value) VALUES ($1, $2)", "big", "x" * 100_000
            )
    gone_since = db.availability.gone_since
    assert gone_since is not None

    async with db.reading() as conn:
        assert await conn.fetchval("SELECT value FROM bot_meta WHERE key = $1", "kept") == "yes"
    assert not db.availability.up, "a transaction's read marked the full file back"
    async with db.single_read() as single:
        assert await single.fetchval("SELECT value FROM bot_meta WHERE key = $1", "kept") == "yes"
    assert not db.availability.up, "a one-statement read marked the full file back"
    assert db.availability.gone_since == gone_since


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_probe_that_fails_marks_nothing_back(backend: Backend, db: Database) -> None:
    """A probe made while the file is still locked by another writer (a lock held too long)
    leaves the database gone, since the first failure of the outage, and wakes nothing that
    waits for it to come back; the probe that commits does."""
    sqlite = cast(SqliteDatabase, db)
    await sqlite._connection.execute("PRAGMA busy_timeout = 0")  # a lock held is held too long
    writer = sqlite3.connect(sqlite.path, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        with pytest.raises(DatabaseUnavailableError):
            await GameStore(db).set_meta("k", "v")
        went, reason = db.availability.gone_since, db.availability.reason
        waiting = asyncio.Event()
        woken: list[str] = []

        async def wait_for_the_database() -> None:
            waiting.set()
            await db.availability.back()
            woken.append("back")

        waiter = asyncio.create_task(wait_for_the_database())
        await waiting.wait()
        with pytest.raises(DatabaseUnavailableError):
            await db.probe(PROBED)
        assert woken == [], "a probe that failed woke what waits for the database"
        assert not db.availability.up
        assert (db.availability.gone_since, db.availability.reason) == (went, reason)
        writer.execute("ROLLBACK")
        await db.probe(PROBED)
        await asyncio.wait_for(waiter, GUARD_SECONDS)
        assert woken == ["back"]
    finally:
        writer.close()


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_probe_whose_commit_fails_marks_nothing_back(
    backend: Backend, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A probe whose row is written but whose COMMIT fails (an fsync error on a failing disk)
    has not committed: the database stays gone since the outage's first failure, with its
    reason, nothing that waits for it is woken, and the probe's row is not kept. The probe
    that commits marks it back."""
    raw: Any = cast(SqliteDatabase, db)._connection
    first = sqlite3.OperationalError("database or disk is full")
    db.availability.failed(first)
    went, reason = db.availability.gone_since, db.availability.reason
    woken: list[str] = []

    async def wait_for_the_database() -> None:
        await db.availability.back()
        woken.append("back")

    waiter = asyncio.create_task(wait_for_the_database())

    async def fsync_failed() -> None:
        error = sqlite3.OperationalError("disk I/O error")
        error.sqlite_errorcode = sqlite3.SQLITE_IOERR_FSYNC
        raise error

    with monkeypatch.context() as patched:
        patched.setattr(raw, "commit", fsync_failed)
        with pytest.raises(DatabaseUnavailableError):
            await db.probe(PROBED)
    await asyncio.sleep(0)  # a waiter the probe woke would run here
    assert woken == [], "a probe that did not commit woke what waits for the database"
    assert not db.availability.up
    assert (db.availability.gone_since, db.availability.reason) == (went, reason)
    assert await GameStore(db).get_meta(PROBE_KEY) is None

    await db.probe(PROBED)
    await asyncio.wait_for(waiter, GUARD_SECONDS)
    assert woken == ["back"]
    assert await GameStore(db).get_meta(PROBE_KEY) == PROBED


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_write_waits_5_s_for_a_lock_another_program_holds_and_is_no_outage(
    backend: Backend, db: Database
) -> None:
    """Another program holding the file's write lock for a few seconds (the operator's sqlite3
    shell, a maintenance command run beside the bot) makes the database slow, not unavailable:
    the bot's connection waits 5 s for the lock. A write made meanwhile waits for it, and lands
    once it is let go."""
    sqlite = cast(SqliteDatabase, db)
    async with db.reading() as conn:
        assert await conn.fetchval("PRAGMA busy_timeout") == 5000, "5 s, in milliseconds"
    loop = asyncio.get_running_loop()
    writing = asyncio.Event()

    def traced(sql: str) -> None:  # on the connection's thread, as each statement starts
        if sql.startswith("INSERT INTO bot_meta"):
            loop.call_soon_threadsafe(writing.set)

    await sqlite._connection.set_trace_callback(traced)
    holder = sqlite3.connect(sqlite.path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        write = asyncio.create_task(GameStore(db).set_meta("k", "v"))
        await asyncio.wait_for(writing.wait(), GUARD_SECONDS)
        assert not write.done(), "the write waits for the lock"
        holder.execute("ROLLBACK")
        await asyncio.wait_for(write, GUARD_SECONDS)
    finally:
        holder.close()
        await sqlite._connection.set_trace_callback(None)  # type: ignore[arg-type]  # off
    assert db.availability.up, "a lock held a few seconds is no outage"
    assert await GameStore(db).get_meta("k") == "v"


@pytest.mark.parametrize("backend", ["sqlite"])
@pytest.mark.parametrize(
    "code",
    [
        "SQLITE_IOERR_READ",
        "SQLITE_IOERR_WRITE",
        "SQLITE_IOERR_FSYNC",
        "SQLITE_READONLY_DBMOVED",
        "SQLITE_BUSY_RECOVERY",
        "SQLITE_CANTOPEN_ISDIR",
    ],
)
async def test_every_extended_code_of_an_unavailable_kind_marks_the_sqlite_file_gone(
    backend: Backend, db: Database, code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python's sqlite3 gives the extended result code: a real I/O error is SQLITE_IOERR_WRITE,
    _READ, _FSYNC, ..., hardly ever the bare SQLITE_IOERR. Each is an outage of its kind."""
    raw: Any = cast(SqliteDatabase, db)._connection
    execute = raw.execute

    async def failing(sql: str, *args: Any) -> Any:
        if sql.startswith("INSERT INTO bot_meta"):
            error = sqlite3.OperationalError("disk I/O error")
            error.sqlite_errorcode = getattr(sqlite3, code)
            error.sqlite_errorname = code
            raise error
        return await execute(sql, *args)

    with monkeypatch.context() as patched:
        patched.setattr(raw, "execute", failing)
        with pytest.raises(DatabaseUnavailableError):
            await GameStore(db).set_meta("k", "v")
    assert not db.availability.up
    assert db.availability.reason == "OperationalError: disk I/O error"


def test_an_outage_keeps_the_reason_of_its_first_failure() -> None:
    """The failures that follow the first one in an outage say nothing new: the reason the
    outage is logged with stays the first one's."""
    availability = Availability()
    availability.failed(OSError("the disk is full"))
    went = availability.gone_since
    availability.failed(ConnectionResetError("the server went away"))
    assert availability.reason == "OSError: the disk is full"
    assert availability.gone_since == went


def test_a_reason_the_server_gives_over_several_lines_is_kept_in_one() -> None:
    """A PostgreSQL server's error comes with its HINT (or DETAIL) on lines of their own, as
    asyncpg writes it: the outage's one WARNING line keeps them, on that line."""
    full = asyncpg.DiskFullError(
        'could not extend file "base/16384/16385": No space left on device\n'
        "HINT:  Check free disk space."
    )
    availability = Availability()
    availability.failed(full)
    assert availability.reason == (
        'DiskFullError: could not extend file "base/16384/16385": No space left on device '
        "HINT: Check free disk space."
    )


@pytest.mark.parametrize("backend", ["postgres"])
async def test_a_lost_server_connection_is_unavailable_until_a_probe_commits(
    backend: Backend, db: Database, postgres_url: str
) -> None:
    admin = await asyncpg.connect(postgres_url)

    async def cut_under_a_transaction() -> None:
        async with db.transaction() as conn:
            pid = await conn.fetchval("SELECT pg_backend_pid()")
            await admin.execute("SELECT pg_terminate_backend($1)", pid)
            await conn.fetchval("SELECT 1")

    try:
        with pytest.raises(DatabaseUnavailableError):
            await cut_under_a_transaction()
    finally:
        await admin.close()
    assert not db.availability.up
    async with db.reading() as conn:  # the pool opens a new connection
        assert await conn.fetchval("SELECT 1") == 1
    assert not db.availability.up, "only a probe says it is back"
    await db.probe(PROBED)
    assert db.availability.up
    assert await GameStore(db).get_meta(PROBE_KEY) == PROBED


@pytest.mark.parametrize("backend", ["postgres"])
async def test_a_server_out_of_reach_or_a_closed_pool_is_unavailable(
    backend: Backend, db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nowhere = f"postgresql://postgres@/marrakech?host={tmp_path}"  # no server's socket here
    pool = await asyncpg.create_pool(nowhere, min_size=0)
    unreachable = PostgresDatabase(pool, nowhere)
    with pytest.raises(DatabaseUnavailableError):
        async with unreachable.reading():
            pass
    assert unreachable.availability.reason.startswith("FileNotFoundError")
    for one_statement in (unreachable.single_read, unreachable.single_write):
        with pytest.raises(DatabaseUnavailableError):  # a click's one-statement work too
            async with one_statement():
                pass
    monkeypatch.setattr(postgres_backend, "CLOSE_TIMEOUT_SECONDS", 0)  # no time to close: cut
    await unreachable.close()
    with pytest.raises(DatabaseUnavailableError):  # used after close: the pool is closed
        async with unreachable.transaction():
            pass
    assert db.availability.up, "each database has its own"


class RefusingPool:
    """Stands in for asyncpg's pool: every connection asked for is refused with `error`, as a
    server out of resources refuses it."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    @contextlib.asynccontextmanager
    async def acquire(self) -> AsyncIterator[object]:
        raise self.error
        yield  # pragma: no cover  (a generator, for the context manager)


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.TooManyConnectionsError("sorry, too many clients already"),
        asyncpg.DiskFullError("could not extend file: No space left on device"),
    ],
    ids=["out of connections", "disk full"],
)
async def test_a_server_out_of_connections_or_out_of_disk_is_unavailable(
    error: Exception,
) -> None:
    """PostgreSQL's class 53 answers say the server cannot be used now, as a server down
    does: each use raises DatabaseUnavailableError and marks the database gone, its reason
    naming the error (not an unexpected error per click)."""
    database = PostgresDatabase(RefusingPool(error), "postgresql://x@/y")
    for use in (database.transaction, database.single_write, database.reading):
        with pytest.raises(DatabaseUnavailableError):
            async with use():
                pass
    assert not database.availability.up
    assert database.availability.reason == f"{type(error).__name__}: {error}"


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.AdminShutdownError("terminating connection due to administrator command"),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.ConnectionFailureError("could not receive data from client"),
        asyncpg.ClientCannotConnectError("could not connect to server"),
    ],
    ids=["shutting down", "starting up", "connection failed", "cannot connect"],
)
async def test_a_server_shutting_down_starting_up_or_failing_the_connection_is_unavailable(
    error: Exception,
) -> None:
    """PostgreSQL's class 57 answers (the server shutting down, restarting, starting up) and
    class 08 ones (the connection failed or could not be made) say the server cannot be used
    now: each use, a one-statement read too, raises DatabaseUnavailableError and marks the
    database gone, its reason naming the error."""
    database = PostgresDatabase(RefusingPool(error), "postgresql://x@/y")
    uses = (database.transaction, database.single_write, database.single_read, database.reading)
    for use in uses:
        with pytest.raises(DatabaseUnavailableError):
            async with use():
                pass
    assert not database.availability.up
    assert database.availability.reason == f"{type(error).__name__}: {error}"


async def test_a_server_that_takes_the_connection_and_never_answers_is_given_up_on_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A PostgreSQL connection takes at most 2 s to open, so that a click finding the server
    unreachable is still answered within Discord's 3 s: a server that takes the connection and
    says nothing (hung, or a port left open in front of a stopped one) is no exception. The
    2 s are cut short here."""
    assert postgres_backend.CONNECT_TIMEOUT_SECONDS <= 2.0
    monkeypatch.setattr(postgres_backend, "CONNECT_TIMEOUT_SECONDS", 0.05)
    held: list[asyncio.StreamWriter] = []

    async def silent(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # takes the connection, answers nothing

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    outcome = "opened"
    try:
        async with asyncio.timeout(GUARD_SECONDS):
            try:
                database = await PostgresDatabase.connect(
                    f"postgresql://marrakech:pw@127.0.0.1:{port}/marrakech"
                )
            except TimeoutError:
                outcome = "gave up"
            else:
                await database.close()
    except TimeoutError:
        outcome = f"still waiting after {GUARD_SECONDS:.0f} s"
    finally:
        for writer in held:
            writer.close()
        server.close()
    assert outcome == "gave up"


class NeverClosingPool:
    """Stands in for asyncpg's pool, one whose connection waits on a server gone without
    closing its sockets (its host down, a network cut): its close never ends; `terminate`
    cuts it."""

    def __init__(self) -> None:
        self.terminated = False

    async def close(self) -> None:
        await asyncio.Event().wait()

    def terminate(self) -> None:
        self.terminated = True


async def test_a_pool_whose_close_never_ends_is_cut_after_its_bound(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A SIGTERM during an outage still ends: the pool is given at most 5 s to close, then its
    connections are cut. The 5 s are cut short here."""
    assert postgres_backend.CLOSE_TIMEOUT_SECONDS <= 5.0
    monkeypatch.setattr(postgres_backend, "CLOSE_TIMEOUT_SECONDS", 0.05)
    pool = NeverClosingPool()
    database = PostgresDatabase(pool, "postgresql://x@/y")
    outcome = "closed"
    try:
        async with asyncio.timeout(GUARD_SECONDS):
            with caplog.at_level(logging.INFO, logger="bot.storage.postgres"):
                await database.close()
    except TimeoutError:
        outcome = f"still closing after {GUARD_SECONDS:.0f} s"
    assert outcome == "closed"
    assert pool.terminated, "the connections are cut"
    assert "the database connections were cut, not closed" in caplog.text


@pytest.mark.parametrize("backend", ["postgres"])
async def test_a_lost_listening_connection_is_opened_again(
    backend: Backend, db: Database, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    calls = 0

    def called() -> None:
        nonlocal calls
        calls += 1

    listening = asyncio.create_task(GameStore(db).listen(called))
    admin = await asyncpg.connect(postgres_url)
    try:
        await until(lambda: calls == 1, "the first LISTEN")  # it may have missed something
        with caplog.at_level(logging.INFO, logger="bot.storage.postgres"):
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN %'"
            )
            await until(lambda: calls == 3, "the loss, then the LISTEN again")
        said = [record.getMessage() for record in caplog.records]
        assert f"the connection listening on {SCHEDULE_CHANNEL} was lost; opening it again" in said
        assert f"listening on {SCHEDULE_CHANNEL} again" in said
        await admin.execute("SELECT pg_notify($1, '')", SCHEDULE_CHANNEL)
        await until(lambda: calls == 4, "the notification on the new connection")
    finally:
        await admin.close()
        listening.cancel()
        await asyncio.wait({listening})


@pytest.mark.parametrize("backend", ["postgres"])
async def test_listening_waits_for_a_server_out_of_reach(
    backend: Backend, db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_backend, "LISTEN_RETRY_SECONDS", 0.001)
    monkeypatch.setattr(postgres_backend, "LISTEN_RETRY_MAX_SECONDS", 0.002)
    tries = 0
    connect = asyncpg.connect

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal tries
        tries += 1
        return await connect(*args, **kwargs)

    monkeypatch.setattr(asyncpg, "connect", counted)  # the module bot.storage.postgres uses
    nowhere = PostgresDatabase(
        cast(PostgresDatabase, db)._pool, f"postgresql://x@/y?host={tmp_path}"
    )
    listening = asyncio.create_task(
        nowhere.listen("nothing", lambda: pytest.fail("never listened"))
    )
    try:
        await until(lambda: tries >= 3, "three tries")
        assert not listening.done()
    finally:
        listening.cancel()
        await asyncio.wait({listening})


class CutListening:
    """A listening connection of the fake server, which the test can cut."""

    def __init__(self) -> None:
        self.on_lost: Callable[[Any], None] | None = None

    def add_termination_listener(self, listener: Callable[[Any], None]) -> None:
        self.on_lost = listener

    async def add_listener(self, channel: str, callback: Any) -> None:
        return None

    async def close(self, timeout: float | None = None) -> None:
        return None

    def terminate(self) -> None:
        return None

    def cut(self) -> None:
        assert self.on_lost is not None
        self.on_lost(self)


class NotedPauses:
    """Stands in for bot.storage.postgres's asyncio: each pause is noted and taken at once."""

    def __init__(self) -> None:
        self.pauses: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, delay: float) -> None:
        self.pauses.append(delay)
        await asyncio.sleep(0)


async def test_the_pauses_before_listening_again_double_up_to_5_s_and_start_over_once_it_listens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """0.5 s doubling up to 5 s while the server stays away; once a connection listened, the
    next loss starts again from 0.5 s. A scripted server: five refusals, a connection, then
    after it is cut one refusal and a connection."""
    script = ["refuse"] * 5 + ["listen", "refuse", "listen"]
    opened: list[CutListening] = []

    async def connect(*args: Any, **kwargs: Any) -> CutListening:
        if script.pop(0) == "refuse":
            raise ConnectionRefusedError(111, "Connect call failed")
        opened.append(CutListening())
        return opened[-1]

    noted = NotedPauses()
    monkeypatch.setattr(asyncpg, "connect", connect)  # the module bot.storage.postgres uses
    monkeypatch.setattr(postgres_backend, "asyncio", noted)
    calls = 0

    def called() -> None:
        nonlocal calls
        calls += 1

    database = PostgresDatabase(None, "postgresql://x@/y")
    listening = asyncio.create_task(database.listen("schedule", called))
    try:
        await until(lambda: calls == 1, "the first LISTEN, after five refusals")
        opened[0].cut()
        await until(lambda: calls == 3, "the loss, one refusal, then the LISTEN again")
    finally:
        listening.cancel()
        await asyncio.wait({listening})
    assert noted.pauses == [0.5, 1.0, 2.0, 4.0, 5.0, 0.5]
