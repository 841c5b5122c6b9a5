"""Storage on a real database of each back end: migrations, the action log, optimistic
concurrency, reopen."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, cast

import pytest

from bot.storage import (
    AiFor,
    ChannelBusyError,
    CheckViolation,
    Database,
    EndReason,
    GameStatus,
    GameStore,
    IntegrityError,
    NewAction,
    NewGame,
    SeatControl,
    StaleSeqError,
    open_database,
)
from bot.storage import postgres as postgres_backend
from bot.storage import sqlite as sqlite_backend
from bot.storage.database import (
    Backend,
    DatabaseUnavailableError,
    ForeignKeyViolation,
    Migration,
    StorageError,
    load_migrations,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def lobby(channel_id: int = 10, host_id: int = 100) -> NewGame:
    return NewGame(
        guild_id=1,
        channel_id=channel_id,
        host_id=host_id,
        seats_wanted=3,
        variant="standard",
        turn_limit_seconds=3600,
        seed="ab" * 16,
        seed_sha256="cd" * 32,
    )


async def running_game(store: GameStore) -> int:
    game = await store.create(lobby(), NOW)
    seats = await store.add_seat(game.id, 200, NOW)
    keys = {seat.user_id: seat.key for seat in seats}
    await store.start(game.id, [keys[200], keys[100]], {"players": 2}, {"p": 0}, NOW)
    return game.id


async def test_open_migrates_to_the_last_version(database_target: str, backend: Backend) -> None:
    database = await open_database(database_target)
    assert database.backend == backend
    assert await database.schema_version() == len(load_migrations(backend))
    async with database.reading() as conn:
        assert await conn.fetchval("SELECT count(*) FROM games") == 0
    await database.close()


async def test_open_sets_wal_and_makes_the_folder(tmp_path: Path) -> None:
    database = await open_database(tmp_path / "sub" / "bot.sqlite3")
    await database.close()
    with sqlite3.connect(tmp_path / "sub" / "bot.sqlite3") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    assert {"games", "seats", "actions", "bot_meta"} <= tables


async def test_a_row_naming_a_game_that_does_not_exist_is_refused(db: Database) -> None:
    """SQLite is opened with its foreign keys on: a seat of no game is refused there as on
    PostgreSQL, and nothing is written, so the two back ends hold the same rows."""
    with pytest.raises(ForeignKeyViolation):
        await GameStore(db).add_seat(999_999, 100, NOW)
    async with db.reading() as conn:
        assert await conn.fetchval("SELECT count(*) FROM seats") == 0


async def test_reopen_does_not_migrate_twice_and_keeps_data(database_target: str) -> None:
    first = await open_database(database_target)
    game = await GameStore(first).create(lobby(), NOW)
    await first.close()
    second = await open_database(database_target)
    again = await GameStore(second).get(game.id)
    assert again == game
    await second.close()


async def migrated_by_a_newer_bot(database_target: str, backend: Backend) -> int:
    """Make the database at `database_target` look migrated by a bot one migration ahead of
    this one; the number of migrations this bot knows."""
    known = len(load_migrations(backend))
    database = await open_database(database_target)
    async with database.transaction() as conn:
        if backend == "sqlite":
            await conn.execute(f"PRAGMA user_version = {known + 1}")
        else:
            await conn.execute(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                known + 1,
                f"{known + 1:04d}_future.sql",
            )
    await database.close()
    return known


async def test_newer_schema_is_refused(database_target: str, backend: Backend) -> None:
    """A database migrated by a newer bot, even one migration ahead, is refused in one line."""
    known = await migrated_by_a_newer_bot(database_target, backend)
    with pytest.raises(
        StorageError, match=rf"version {known + 1}, newer than this bot \({known}\)"
    ):
        await open_database(database_target)


async def test_a_migration_that_fails_leaves_nothing_of_itself(
    database_target: str, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each migration runs in its own transaction: one whose second statement fails leaves
    neither what its first statement made nor a new version, and is applied whole once it is
    fixed."""
    migrations = load_migrations(backend)
    latest = len(migrations)
    database = await open_database(database_target, schema_version=latest - 1)
    broken = Migration(
        latest, "broken", "CREATE TABLE half_made (id INTEGER);\nSELECT * FROM no_such_table;\n"
    )
    runner = sqlite_backend if backend == "sqlite" else postgres_backend
    monkeypatch.setattr(runner, "load_migrations", lambda _backend: [*migrations[:-1], broken])
    try:
        with pytest.raises(Exception, match="no_such_table"):
            await database.migrate()
        assert await database.schema_version() == latest - 1
        async with database.reading() as conn:
            assert await conn.fetchval(TABLE_NAMED[backend], "half_made") == 0
        monkeypatch.undo()
        assert await database.migrate() == latest
    finally:
        await database.close()


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_migration_cut_off_before_its_version_is_written_leaves_nothing_of_itself(
    database_target: str, backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On SQLite the version is a PRAGMA of its own: it is written inside the migration's
    transaction, so a run stopped at it (a kill, an I/O error) leaves neither the migration's
    changes nor its version, and the next start applies the migration once."""
    migrations = load_migrations(backend)
    latest = len(migrations)
    database = await open_database(database_target, schema_version=latest - 1)
    made_once = Migration(latest, "made_once", "CREATE TABLE made_once (id INTEGER);\n")
    monkeypatch.setattr(
        sqlite_backend, "load_migrations", lambda _backend: [*migrations[:-1], made_once]
    )
    raw: Any = cast(sqlite_backend.SqliteDatabase, database)._connection
    execute = raw.execute

    def stopped_at_the_version(sql: str, *args: Any) -> Any:
        if sql.startswith("PRAGMA user_version ="):
            raise sqlite3.OperationalError("disk I/O error")
        return execute(sql, *args)

    try:
        with monkeypatch.context() as patched:
            patched.setattr(raw, "execute", stopped_at_the_version)
            with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
                await database.migrate()
        assert await database.schema_version() == latest - 1
        async with database.reading() as conn:
            assert await conn.fetchval(TABLE_NAMED[backend], "made_once") == 0
        assert await database.migrate() == latest
        async with database.reading() as conn:
            assert await conn.fetchval(TABLE_NAMED[backend], "made_once") == 1
    finally:
        await database.close()


TABLE_NAMED = {
    "sqlite": "SELECT count(*) FROM sqlite_master WHERE name = $1",
    "postgres": "SELECT count(*) FROM information_schema.tables "
    "WHERE table_schema = current_schema() AND table_name = $1",
}


@pytest.mark.parametrize(
    ("names", "wrong"),
    [
        (["0001_a.sql", "0003_c.sql"], "0003_c.sql is out of sequence (want 2)"),
        (["0001_a.sql", "0002_b.sql", "0002_c.sql"], "is out of sequence (want 3)"),
    ],
)
def test_migrations_must_be_numbered_without_gaps_or_repeats(
    names: list[str], wrong: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in names:
        (tmp_path / name).write_text("SELECT 1;\n", encoding="utf-8")
    monkeypatch.setattr(resources, "files", lambda _package: tmp_path)
    with pytest.raises(StorageError, match=re.escape(wrong)):
        load_migrations("sqlite")


async def test_create_seats_the_host_and_one_open_game_per_channel(db: Database) -> None:
    store = GameStore(db)
    game = await store.create(lobby(), NOW)
    assert game.status is GameStatus.LOBBY
    assert game.seq == 0
    assert [seat.user_id for seat in await store.seats(game.id)] == [100]
    with pytest.raises(ChannelBusyError):
        await store.create(lobby(host_id=101), NOW)
    assert await store.open_in_channel(10) == game
    other = await store.create(lobby(channel_id=11), NOW)
    assert other.id != game.id


async def test_a_closed_game_frees_the_channel_and_is_kept(db: Database) -> None:
    store = GameStore(db)
    game = await store.create(lobby(), NOW)
    ended = await store.end(game.id, GameStatus.ABORTED, EndReason.ABORTED_BY_HOST, 100, NOW)
    assert ended.status is GameStatus.ABORTED
    assert ended.ended_by == 100
    assert await store.open_in_channel(10) is None
    assert (await store.get(game.id)) == ended
    with pytest.raises(StaleSeqError):
        await store.end(game.id, GameStatus.ABORTED, EndReason.ABORTED_BY_HOST, 100, NOW)
    await store.create(lobby(), NOW)


async def test_start_assigns_seats_in_the_given_order(db: Database) -> None:
    store = GameStore(db)
    game_id = await running_game(store)
    seats = await store.seats(game_id)
    assert [(seat.seat, seat.user_id) for seat in seats] == [(0, 200), (1, 100)]
    assert (await store.get(game_id)).status is GameStatus.RUNNING  # type: ignore[union-attr]


async def test_append_actions_is_optimistic_on_seq(db: Database) -> None:
    store = GameStore(db)
    game_id = await running_game(store)
    after = await store.append_actions(
        game_id, 0, [NewAction("S", 200), NewAction("D3", None)], {"p": 2}, NOW
    )
    assert after.seq == 2
    assert after.position == {"p": 2}
    with pytest.raises(StaleSeqError):
        await store.append_actions(game_id, 0, [NewAction("L", 200)], {"p": "x"}, NOW)
    rows = await store.actions(game_id)
    assert [(row.seq, row.notation, row.actor_id) for row in rows] == [
        (1, "S", 200),
        (2, "D3", None),
    ]
    resigned = await store.append_actions(game_id, 2, [NewAction(None, 100, 1)], {}, NOW)
    assert resigned.seq == 3
    last = (await store.actions(game_id))[-1]
    assert (last.seq, last.notation, last.resigned_seat, last.actor_id) == (3, None, 1, 100)
    assert [seat.resigned for seat in await store.seats(game_id)] == [False, True]
    assert (await store.get(game_id)).position == {}  # type: ignore[union-attr]


async def test_a_move_the_ai_made_for_a_person_keeps_why(db: Database) -> None:
    """Why the AI moved for a person is written with the move and its seat's new count, and
    read back by the log and the snapshot; entries without it read None."""
    store = GameStore(db)
    game_id = await running_game(store)
    handed = AiFor("handed-over", 3)
    await store.append_actions(
        game_id,
        0,
        [NewAction("S", None, ai_for=handed), NewAction("D3", None)],
        {},
        NOW,
        controls=[SeatControl(0, 3, True)],
    )
    await store.append_actions(game_id, 2, [NewAction("L", 100)], {}, NOW)
    expected = [handed, None, None]
    assert [row.ai_for for row in await store.actions(game_id)] == expected
    snapshot = await store.snapshot(game_id)
    assert snapshot is not None
    _, seats, log = snapshot
    assert [row.ai_for for row in log] == expected
    assert (seats[0].timeouts, seats[0].autoplay) == (3, True)


@pytest.mark.parametrize("ai_for", [AiFor("resigned", 1), AiFor("timeout", 0)])
async def test_an_unknown_reason_or_count_for_an_ai_move_is_refused(
    db: Database, ai_for: AiFor
) -> None:
    store = GameStore(db)
    game_id = await running_game(store)
    with pytest.raises(CheckViolation):
        await store.append_actions(game_id, 0, [NewAction("S", None, ai_for=ai_for)], {}, NOW)
    assert await store.actions(game_id) == []


async def test_moves_logged_before_the_reason_was_kept_read_none(database_target: str) -> None:
    old = await open_database(database_target, schema_version=15)
    try:
        async with old.transaction() as conn:  # the games of schema 15: columns since added
            game_id = await conn.fetchval(
                "INSERT INTO games (guild_id, channel_id, host_id, status, seats_wanted, "
                "variant, seed, seed_sha256, seq, created_at, updated_at) "
                "VALUES (1, 2, 100, 'running', 2, 'standard', $1, $2, 1, $3, $3) RETURNING id",
                "ab" * 16,
                "cd" * 32,
                "2026-01-01T00:00:00.000+00:00",
            )
            await conn.execute(
                "INSERT INTO actions (game_id, seq, kind, notation, created_at) "
                "VALUES ($1, 1, 'action', 'S', '2026-01-01T00:00:00.000+00:00')",
                game_id,
            )
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        assert [row.ai_for for row in await GameStore(database).actions(game_id)] == [None]
    finally:
        await database.close()


async def test_a_failed_append_leaves_nothing_behind(db: Database) -> None:
    store = GameStore(db)
    game_id = await running_game(store)
    with pytest.raises(CheckViolation):
        # a notation longer than 8 characters violates the log's CHECK after the UPDATE ran
        await store.append_actions(
            game_id, 0, [NewAction("S", 200), NewAction("x" * 9, 1)], {}, NOW
        )
    game = await store.get(game_id)
    assert game is not None
    assert game.seq == 0
    assert await store.actions(game_id) == []


async def test_the_action_log_cannot_be_edited(db: Database) -> None:
    store = GameStore(db)
    game_id = await running_game(store)
    await store.append_actions(game_id, 0, [NewAction("S", 200)], {}, NOW)
    with pytest.raises(IntegrityError, match="append-only"):
        async with db.transaction() as conn:
            await conn.execute("UPDATE actions SET notation = 'L' WHERE game_id = $1", game_id)
    assert [row.notation for row in await store.actions(game_id)] == ["S"]


async def test_concurrent_writers_on_two_connections_apply_exactly_one(
    database_target: str,
) -> None:
    first = await open_database(database_target)
    second = await open_database(database_target)
    game_id = await running_game(GameStore(first))
    stores = [GameStore(first), GameStore(second)] * 4
    results = await asyncio.gather(
        *(
            store.append_actions(game_id, 0, [NewAction("S", index)], {"by": index}, NOW)
            for index, store in enumerate(stores)
        ),
        return_exceptions=True,
    )
    winners = [result for result in results if not isinstance(result, BaseException)]
    losers = [result for result in results if isinstance(result, StaleSeqError)]
    assert len(winners) == 1
    assert len(losers) == len(stores) - 1
    rows = await GameStore(second).actions(game_id)
    assert [row.seq for row in rows] == [1]
    assert winners[0].position == {"by": rows[0].actor_id}
    await first.close()
    await second.close()


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_write_transaction_holds_the_sqlite_file_from_its_start_so_other_writers_wait(
    backend: Backend, db: Database
) -> None:
    """A write transaction takes SQLite's write lock at its start, before its first read: a
    write by another process (a rebuild, a copy) waits for it rather than slip in between the
    read and the write, which would make the transaction's write fail as the database
    unavailable. The other process here may not wait, so it is turned away at once; its write
    lands once the transaction has committed. (PostgreSQL locks rows, not the database.)"""
    path = cast(sqlite_backend.SqliteDatabase, db).path
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    insert = "INSERT INTO bot_meta (key, value) VALUES (?, ?)"
    try:
        async with db.transaction() as conn:
            assert await conn.fetchval("SELECT count(*) FROM bot_meta WHERE key = 'a'") == 0
            with pytest.raises(sqlite3.OperationalError, match="database is locked"):
                other.execute(insert, ("b", "y"))
            await conn.execute("INSERT INTO bot_meta (key, value) VALUES ($1, $2)", "a", "x")
        other.execute(insert, ("b", "y"))
    finally:
        other.close()
    store = GameStore(db)
    assert (await store.get_meta("a"), await store.get_meta("b")) == ("x", "y")
    assert db.availability.up


async def test_user_values_are_bound_not_spliced(db: Database) -> None:
    store = GameStore(db)
    await store.set_meta("x'); DROP TABLE games; --", "v'\"")
    assert await store.get_meta("x'); DROP TABLE games; --") == "v'\""
    assert await store.get_meta("missing") is None
    await store.create(lobby(), NOW)


async def test_board_message_is_remembered(db: Database) -> None:
    store = GameStore(db)
    game_id = await running_game(store)
    await store.set_board_message(game_id, 555, 0)
    game = await store.get(game_id)
    assert game is not None
    assert (game.board_message_id, game.board_message_seq) == (555, 0)
    assert await store.behind_on_display() == []
    await store.append_actions(game_id, 0, [NewAction("S", 200)], {}, NOW)
    assert [row.id for row in await store.behind_on_display()] == [game_id]


async def test_a_lobby_whose_seats_changed_since_its_message_was_recorded_is_behind_on_display(
    db: Database,
) -> None:
    """A join or leave is committed before the lobby's message is edited: a process killed
    between the two leaves the lobby to the next start's catch-up, though its message is
    known."""
    store = GameStore(db)
    game = await store.create(lobby(), NOW)
    await store.set_board_message(game.id, 555, 0)
    assert await store.behind_on_display() == []
    await store.add_seat(game.id, 200, NOW)
    assert [row.id for row in await store.behind_on_display()] == [game.id], "a join"
    await store.set_board_message(game.id, 555, 0)
    assert await store.behind_on_display() == []
    await store.remove_seat(game.id, 200, NOW)
    assert [row.id for row in await store.behind_on_display()] == [game.id], "a leave"


async def test_a_lobby_whose_edit_did_not_go_through_stays_due_until_it_leads_there(
    db: Database,
) -> None:
    """The record of a message the started game's lobby leads to (its first turn, its result)
    says, in the same write, whether the lobby's edit to lead there went through: a lobby
    whose edit did not is listed, with that message, until it is recorded as leading there,
    once, whatever turns are recorded meanwhile."""
    store = GameStore(db)
    game = await store.create(lobby(), NOW)
    seats = await store.add_seat(game.id, 200, NOW)
    await store.set_board_message(game.id, 500, 0)  # the lobby's own message
    await store.start(game.id, [seat.key for seat in seats], {"players": 2}, {"p": 0}, NOW)
    await store.set_board_message(game.id, 601, 0, lobby_linked=True)  # the first turn
    assert await store.lobbies_behind() == []
    await store.set_board_message(game.id, 601, 0, lobby_linked=False)
    assert await store.lobbies_behind() == [(game.id, 601)]
    assert await store.behind_on_display() == [], "the game itself is shown"
    await store.append_actions(game.id, 0, [NewAction("S", 200)], {}, NOW)
    await store.set_board_message(game.id, 602, 1)  # a turn between leaves the lobby be
    assert await store.lobbies_behind() == [(game.id, 601)]
    assert not await store.lobby_linked(game.id, 602), "not the message it is due to lead to"
    assert await store.lobby_linked(game.id, 601)
    assert await store.lobbies_behind() == []
    assert not await store.lobby_linked(game.id, 601), "recorded once"


async def test_a_board_message_older_than_the_one_recorded_is_never_recorded(db: Database) -> None:
    """Two messages of a game posted at once may finish in either order: the older board's
    slow post records nothing, and the game still reads as shown."""
    store = GameStore(db)
    game_id = await running_game(store)
    await store.append_actions(game_id, 0, [NewAction("S", 200)], {}, NOW)
    assert await store.set_board_message(game_id, 601, 1) is not None, "the newer post"
    assert await store.set_board_message(game_id, 500, 0) is None, "the older post, finishing last"
    game = await store.get(game_id)
    assert game is not None
    assert (game.board_message_id, game.board_message_seq) == (601, 1)
    assert await store.behind_on_display() == []
    assert await store.set_board_message(game_id, 602, 1) is not None, "a message at the same seq"


async def test_a_task_cancelled_as_its_transaction_begins_leaves_the_database_usable(
    db: Database,
) -> None:
    """A task cancelled while its BEGIN is on the way to the connection's thread (as the turn
    clock is when the bot stops) must not leave the connection inside a transaction: the BEGIN
    still runs there, so it is rolled back like any other error, for writers and readers."""

    async def write() -> None:
        async with db.transaction() as conn:
            await conn.execute("SELECT 1")

    async def read() -> None:
        async with db.reading() as conn:
            await conn.execute("SELECT 1")

    store = GameStore(db)
    for channel_id, block in enumerate((write, read, write), start=20):
        task = asyncio.create_task(block())
        await asyncio.sleep(0)  # it takes the lock and sends its BEGIN
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        game = await store.create(lobby(channel_id=channel_id), NOW)
        assert await store.open_in_channel(channel_id) == game


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_transaction_whose_commit_fails_leaves_the_sqlite_connection_usable(
    backend: Backend, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite may keep a transaction open after its COMMIT failed (a full disk, an I/O error):
    it is rolled back, or the one connection would stay inside it and every later write fail
    ("cannot start a transaction within a transaction")."""
    raw: Any = cast(sqlite_backend.SqliteDatabase, db)._connection

    async def full() -> None:  # the COMMIT found the disk full; the transaction stays open
        error = sqlite3.OperationalError("database or disk is full")
        error.sqlite_errorcode = sqlite3.SQLITE_FULL
        raise error

    with monkeypatch.context() as patched:
        patched.setattr(raw, "commit", full)
        with pytest.raises(DatabaseUnavailableError):
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO bot_meta (key, value) VALUES ($1, $2)", "k", "v")
    assert not raw.in_transaction, "the failed transaction is not left open"
    store = GameStore(db)
    assert await store.get_meta("k") is None, "the failed write left nothing"
    await db.probe("2026-01-01T00:00:00.000+00:00")  # the next write commits
    assert db.availability.up


async def test_a_lobby_s_message_recorded_after_the_game_started_leaves_its_first_turn(
    db: Database,
) -> None:
    """A join drawn on the lobby just before the host pressed Start records the lobby's message
    after the start, at the same seq as the first turn: it records nothing, and the first
    turn stays the message that shows the game."""
    store = GameStore(db)
    game = await store.create(lobby(), NOW)
    seats = await store.add_seat(game.id, 200, NOW)
    assert await store.set_board_message(game.id, 500, 0, lobby=True) is not None, "a lobby"
    await store.start(game.id, [seat.key for seat in seats], {"players": 2}, {"p": 0}, NOW)
    await store.set_board_message(game.id, 601, 0, lobby_linked=True)  # the first turn
    assert await store.set_board_message(game.id, 500, 0, lobby=True) is None, "the join's, late"
    started = await store.get(game.id)
    assert started is not None
    assert (started.board_message_id, started.lobby_message_id) == (601, 500)
    assert await store.behind_on_display() == []
