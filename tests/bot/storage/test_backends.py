"""The two back ends behind one interface: the same migrations lead to the same tables and
columns (their defaults, indexes and CHECK constraints too) and keep what the rows they rebuild
held, targets name their back end, SQL written once runs on both with the same results and the
same errors, transactions pass the same crash points, and a statement run alone costs one round
trip."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot import crashpoints
from bot.storage import (
    Database,
    GameStore,
    IntegrityError,
    NewGame,
    StorageError,
    UniqueViolation,
    open_database,
)
from bot.storage.database import BACKENDS, Backend, Connection, load_migrations
from bot.storage.open import parse_target
from bot.storage.sqlite import numbered
from tests.polling import WAIT_SECONDS
from tests.round_trips import counting

NOW = datetime(2026, 1, 1, tzinfo=UTC)
NOW_TEXT = "2026-01-01T00:00:00.000+00:00"
"""NOW as the time columns hold it."""

SQLITE_COLUMNS = (
    'SELECT m.name, p.name, p."notnull" OR p.pk > 0, p.dflt_value FROM sqlite_master m '
    "JOIN pragma_table_info(m.name) p "
    "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'"
)
POSTGRES_COLUMNS = (
    "SELECT table_name, column_name, is_nullable = 'NO', column_default "
    "FROM information_schema.columns "
    "WHERE table_schema = current_schema() AND table_name != 'schema_migrations'"
)
SQLITE_INDEXES = (
    "SELECT sql FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'"
)
POSTGRES_INDEXES = (
    "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() "
    "AND indexname NOT LIKE '%_pkey'"
)
SQLITE_TABLES = (
    "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
)
POSTGRES_CHECKS = (
    "SELECT t.relname, pg_get_constraintdef(c.oid) FROM pg_constraint c "
    "JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace "
    "WHERE c.contype = 'c' AND n.nspname = current_schema()"
)
INDEX = re.compile(
    r"CREATE (UNIQUE )?INDEX (\w+) ON (?:\w+\.)?(\w+) (?:USING btree )?\(([^)]*)\)(?: WHERE (.*))?"
)
CHECK = re.compile(r"\bCHECK\s*\(", re.IGNORECASE)
CAST = re.compile(r"::(?:double precision|\w+)")
ANY_OF = re.compile(r"= ANY \(ARRAY\[([^\]]*)\]\)")
BETWEEN = re.compile(r"([\w.]+(?:\([\w.]*\))?) BETWEEN ([\w.']+) AND ([\w.']+)", re.IGNORECASE)


def lobby(channel_id: int = 10) -> NewGame:
    return NewGame(
        guild_id=1,
        channel_id=channel_id,
        host_id=100,
        seats_wanted=3,
        variant="standard",
        turn_limit_seconds=None,
        seed="ab" * 16,
        seed_sha256="cd" * 32,
    )


# --- migrations -------------------------------------------------------------------------------


def test_both_back_ends_have_the_same_migrations() -> None:
    sqlite, postgres = (load_migrations(backend) for backend in BACKENDS)
    assert [m.version for m in sqlite] == list(range(1, len(sqlite) + 1))
    assert [(m.version, m.name) for m in postgres] == [(m.version, m.name) for m in sqlite]


def closing(text: str, opening: int) -> int:
    """Where the parenthesis opened at `opening` closes."""
    depth = 0
    for at in range(opening, len(text)):
        depth += {"(": 1, ")": -1}.get(text[at], 0)
        if depth == 0:
            return at
    raise ValueError(f"unbalanced: {text!r}")


def terms(condition: str | None) -> frozenset[str]:
    """The terms a condition (a CHECK, an index's WHERE) ANDs together, each written one way.
    PostgreSQL gives back its own form of what it was told: `x = ANY (ARRAY[...])` for
    `x IN (...)`, two comparisons for BETWEEN, casts, a parenthesis around every term."""
    if condition is None:
        return frozenset()
    text = ANY_OF.sub(r"IN (\1)", CAST.sub("", " ".join(condition.split())))
    text = BETWEEN.sub(r"(\1 >= \2 AND \1 <= \3)", text)
    found = []
    pending = [text]
    while pending:
        term = pending.pop().strip()
        while term.startswith("(") and closing(term, 0) == len(term) - 1:
            term = term[1:-1].strip()
        depth = 0
        for at, char in enumerate(term):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0 and term[at : at + 5].upper() == " AND ":
                pending += [term[:at], term[at + 5 :]]
                break
        else:
            found.append(" ".join(term.replace("(", " ").replace(")", " ").split()).lower())
    return frozenset(found)


def checks(create_table: str) -> list[str]:
    """The conditions of the CHECK constraints an SQLite CREATE TABLE holds (the columns' and
    the table's)."""
    text = "\n".join(line.split("--")[0] for line in create_table.splitlines())
    return [text[match.end() : closing(text, match.end() - 1)] for match in CHECK.finditer(text)]


def default(value: str | None) -> str | None:
    """A column's default, written one way; none for a key the back end numbers itself
    (PostgreSQL's sequence, SQLite's INTEGER PRIMARY KEY)."""
    if value is None or value.startswith("nextval("):
        return None
    return CAST.sub("", value)


@dataclass(frozen=True)
class Schema:
    """What one back end's schema holds, written the same way on both."""

    columns: set[tuple[str, str, bool, str | None]]
    """(table, column, NOT NULL, default) of every column."""
    indexes: set[tuple[str, str, bool, tuple[str, ...], frozenset[str]]]
    """(name, table, unique, columns, the terms of its WHERE) of every secondary index."""
    checks: set[tuple[str, str]]
    """(table, term) of every term of every CHECK constraint."""


async def schema(conn: Connection, backend: Backend) -> Schema:
    """The schema of the back end `conn` is on."""
    sqlite = backend == "sqlite"
    columns = {
        (row[0], row[1], bool(row[2]), default(row[3]))
        for row in await conn.fetch(SQLITE_COLUMNS if sqlite else POSTGRES_COLUMNS)
    }
    indexes = set()
    for row in await conn.fetch(SQLITE_INDEXES if sqlite else POSTGRES_INDEXES):
        found = INDEX.fullmatch(" ".join(row[0].split()))
        assert found is not None, f"an index of an unknown form: {row[0]}"
        unique, name, table, indexed, where = found.groups()
        keys = tuple(key.strip() for key in indexed.split(","))
        indexes.add((name, table, bool(unique), keys, terms(where)))
    if sqlite:
        conditions = [
            (row[0], check) for row in await conn.fetch(SQLITE_TABLES) for check in checks(row[1])
        ]
    else:
        conditions = [
            (row[0], row[1].removeprefix("CHECK ")) for row in await conn.fetch(POSTGRES_CHECKS)
        ]
    constraints = {(table, term) for table, condition in conditions for term in terms(condition)}
    return Schema(columns, indexes, constraints)


@pytest.mark.parametrize("version", [1, 4, None], ids=["first", "middle", "last"])
async def test_both_back_ends_end_in_the_same_tables_and_columns(
    tmp_path: Path, postgres_url: str, version: int | None
) -> None:
    """The same columns, each with its NOT NULL and its default; the same indexes, each on the
    same columns, as unique and as partial (its WHERE) as the other's; the same CHECK
    constraints."""
    found = []
    for backend, target in (("sqlite", str(tmp_path / "bot.sqlite3")), ("postgres", postgres_url)):
        database = await open_database(target, schema_version=version)
        try:
            assert database.backend == backend
            async with database.reading() as conn:
                found.append(await schema(conn, database.backend))
        finally:
            await database.close()
    sqlite, postgres = found
    assert {"games", "seats", "actions", "bot_meta"} <= {table for table, *_ in sqlite.columns}
    assert postgres.columns == sqlite.columns
    assert postgres.indexes == sqlite.indexes
    assert postgres.checks == sqlite.checks
    assert ("games", "seats_wanted >= 2") in sqlite.checks, "the checks are read"


async def test_processes_migrating_at_once_apply_each_migration_once(postgres_url: str) -> None:
    """Each waits on the migrations' lock while another applies one, and each migration's
    transaction lets the lock go, so all of them get through; a lock never let go fails here
    after a bound instead of leaving the test waiting for ever."""
    opening = [asyncio.create_task(open_database(postgres_url)) for _ in range(4)]
    try:
        async with asyncio.timeout(WAIT_SECONDS):
            databases = await asyncio.gather(*opening)
        async with databases[0].reading() as conn:
            rows = await conn.fetch("SELECT version, name FROM schema_migrations ORDER BY version")
        assert [(row["version"], row["name"]) for row in rows] == [
            (m.version, m.name) for m in load_migrations("postgres")
        ]
    finally:
        for task in opening:
            task.cancel()
        for opened in await asyncio.gather(*opening, return_exceptions=True):
            if isinstance(opened, Database):
                await opened.close()


async def test_migrating_stops_at_the_version_asked_and_goes_on_later(database_target: str) -> None:
    database = await open_database(database_target, schema_version=3)
    assert await database.schema_version() == 3
    await database.close()
    database = await open_database(database_target)
    assert await database.schema_version() == len(load_migrations(database.backend))
    await database.close()


async def test_seat_ids_keep_the_keys_sqlite_gave_its_seats(tmp_path: Path) -> None:
    """Migration 0008 turns SQLite's hidden rowid into the seats' id column: the keys the bot
    handed out before (gaps included) stay the same."""
    path = tmp_path / "bot.sqlite3"
    await (await open_database(path, schema_version=7)).close()
    with sqlite3.connect(path) as raw:
        raw.execute(
            "INSERT INTO games (channel_id, host_id, seats_wanted, variant, seed, seed_sha256, "
            "created_at, updated_at) VALUES (10, 100, 3, 'standard', 's', 'h', ?1, ?1)",
            (NOW_TEXT,),
        )
        for user_id, level in ((100, None), (None, "easy"), (None, "hard")):
            raw.execute(
                "INSERT INTO seats (game_id, user_id, ai_level, joined_at) VALUES (1, ?, ?, ?)",
                (user_id, level, NOW_TEXT),
            )
        raw.execute("DELETE FROM seats WHERE ai_level = 'easy'")
        before = raw.execute("SELECT rowid, user_id, ai_level FROM seats ORDER BY rowid").fetchall()
    assert [row[0] for row in before] == [1, 3]
    database = await open_database(path)
    try:
        seats = await GameStore(database).seats(1)
        assert [(seat.key, seat.user_id, seat.ai_level) for seat in seats] == before
        after = await GameStore(database).add_ai_seat(1, "medium", NOW)
        assert [seat.key for seat in after] == [1, 3, 4]
    finally:
        await database.close()


SEAT_IDS_VERSION = 8
"""The migration that gives every seat an id column (0008), which SQLite makes by building the
table again."""


async def test_seats_keep_their_names_and_clocks_across_the_seat_ids_migration(
    database_target: str,
) -> None:
    """A running game's seats written before version 8 keep all they held once it is applied:
    the player's name in the pictures, the seat, the timeouts in a row, the AI playing it, a
    resignation."""
    old = await open_database(database_target, schema_version=SEAT_IDS_VERSION - 1)
    try:
        async with old.transaction() as conn:
            game_id = await conn.fetchval(
                "INSERT INTO games (channel_id, host_id, status, seats_wanted, variant, seed, "
                "seed_sha256, created_at, updated_at) "
                "VALUES (10, 100, 'running', 3, 'standard', 's', 'h', $1, $1) RETURNING id",
                NOW_TEXT,
            )
            for user_id, level, seat, resigned, timeouts, autoplay, name in (
                (100, None, 0, 0, 0, 0, "Host"),
                (200, None, 1, 0, 3, 1, "Zoë"),
                (None, "hard", 2, 1, 0, 0, None),
            ):
                await conn.execute(
                    "INSERT INTO seats (game_id, user_id, ai_level, seat, joined_at, resigned, "
                    "timeouts, autoplay, display_name) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    game_id,
                    user_id,
                    level,
                    seat,
                    NOW_TEXT,
                    resigned,
                    timeouts,
                    autoplay,
                    name,
                )
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        seats = await GameStore(database).seats(game_id)
        kept = [
            (s.user_id, s.ai_level, s.seat, s.resigned, s.timeouts, s.autoplay, s.display_name)
            for s in seats
        ]
        assert kept == [
            (100, None, 0, False, 0, False, "Host"),
            (200, None, 1, False, 3, True, "Zoë"),
            (None, "hard", 2, True, 0, False, None),
        ]
        assert {seat.joined_at for seat in seats} == {NOW}
    finally:
        await database.close()


# --- targets ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("data/bot.sqlite3", ("sqlite", "data/bot.sqlite3")),
        (Path("/data/bot.sqlite3"), ("sqlite", "/data/bot.sqlite3")),
        ("sqlite:///data/bot.sqlite3", ("sqlite", "data/bot.sqlite3")),
        ("sqlite:////data/bot.sqlite3", ("sqlite", "/data/bot.sqlite3")),
        (
            "postgresql://bot:pw@db:5432/marrakech",
            ("postgres", "postgresql://bot:pw@db:5432/marrakech"),
        ),
        ("postgres://db/marrakech", ("postgres", "postgres://db/marrakech")),
    ],
)
def test_a_target_names_its_back_end(target: str | Path, expected: tuple[str, str]) -> None:
    assert parse_target(target) == expected


def test_a_sqlite_url_needs_a_path() -> None:
    with pytest.raises(StorageError):
        parse_target("sqlite:///")


async def test_a_sqlite_url_opens_the_file(tmp_path: Path) -> None:
    database = await open_database(f"sqlite:///{tmp_path}/url.sqlite3")
    await database.close()
    assert (tmp_path / "url.sqlite3").is_file()


def test_numbered_parameters_become_sqlite_s_own() -> None:
    assert numbered("SELECT $1, $2, $10 WHERE a = $1") == "SELECT ?1, ?2, ?10 WHERE a = ?1"
    assert numbered("SELECT '$1', 'it''s $2', $3") == "SELECT '$1', 'it''s $2', ?3"


# --- the connection ---------------------------------------------------------------------------


async def test_rows_counts_and_values_are_the_same_on_both(db: Database) -> None:
    async with db.transaction() as conn:
        inserted = await conn.execute(
            "INSERT INTO bot_meta (key, value) VALUES ($1, $2), ($3, $2)", "a", "x", "b"
        )
        await conn.executemany("INSERT INTO bot_meta (key, value) VALUES ($1, $2)", [])
        await conn.executemany(
            "INSERT INTO bot_meta (key, value) VALUES ($1, $2)", [("c", "y"), ("d", "y")]
        )
        updated = await conn.execute("UPDATE bot_meta SET value = $1 WHERE value = 'y'", "z")
        missed = await conn.execute("DELETE FROM bot_meta WHERE key = $1", "none")
    assert (inserted, updated, missed) == (2, 2, 0)
    async with db.reading() as conn:
        rows = await conn.fetch("SELECT key, value FROM bot_meta ORDER BY key")
        row = await conn.fetchrow("SELECT key, value FROM bot_meta WHERE key = $1", "c")
        none = await conn.fetchrow("SELECT key FROM bot_meta WHERE key = $1", "none")
        count = await conn.fetchval("SELECT count(*) FROM bot_meta")
        nothing = await conn.fetchval("SELECT value FROM bot_meta WHERE key = $1", "none")
    assert [(r["key"], r["value"]) for r in rows] == [
        ("a", "x"),
        ("b", "x"),
        ("c", "z"),
        ("d", "z"),
    ]
    assert row is not None
    assert (row[0], row["value"], list(row.keys())) == ("c", "z", ["key", "value"])
    assert (none, count, nothing) == (None, 4, None)


async def test_a_duplicate_key_is_a_unique_violation_naming_its_columns(db: Database) -> None:
    store = GameStore(db)
    game = await store.create(lobby(), NOW)
    with pytest.raises(UniqueViolation) as caught:
        await store.add_seat(game.id, 100, NOW)
    assert caught.value.table == "seats"
    assert caught.value.columns == ("game_id", "user_id")
    await store.set_meta("k", "v")
    async with db.transaction() as conn:
        with pytest.raises(UniqueViolation) as caught:
            await conn.execute("INSERT INTO bot_meta (key, value) VALUES ('k', 'w')")
    assert (caught.value.table, caught.value.columns) == ("bot_meta", ("key",))
    assert isinstance(caught.value, IntegrityError)
    assert await store.get_meta("k") == "v"


async def test_an_error_rolls_the_whole_transaction_back(db: Database) -> None:
    async def write_then_fail() -> None:
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO bot_meta (key, value) VALUES ('k', 'v')")
            raise RuntimeError

    with pytest.raises(RuntimeError):
        await write_then_fail()
    assert await GameStore(db).get_meta("k") is None


async def test_a_read_sees_one_snapshot(database_target: str) -> None:
    reader = await open_database(database_target)
    writer = await open_database(database_target)
    try:
        async with reader.reading() as conn:
            before = await conn.fetchval("SELECT count(*) FROM bot_meta")
            await GameStore(writer).set_meta("k", "v")
            assert await conn.fetchval("SELECT count(*) FROM bot_meta") == before
        assert await GameStore(reader).get_meta("k") == "v"
    finally:
        await reader.close()
        await writer.close()


@pytest.fixture
def reached(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    points: list[str] = []
    monkeypatch.setattr(crashpoints, "reach", points.append)
    return points


async def test_transactions_pass_the_crash_points(db: Database, reached: list[str]) -> None:
    await GameStore(db).set_meta("k", "v")
    assert reached == ["db.begun", "db.committing", "db.committed"]
    reached.clear()

    async def fail() -> None:
        async with db.transaction():
            raise RuntimeError

    with pytest.raises(RuntimeError):
        await fail()
    assert reached == ["db.begun"]
    reached.clear()
    await GameStore(db).get_meta("k")
    assert reached == []


async def test_a_single_write_passes_the_crash_points_until_it_fails(
    db: Database, reached: list[str]
) -> None:
    async def fail() -> None:
        async with db.single_write() as conn:
            await conn.execute("INSERT INTO bot_meta (key, value) VALUES ('k', NULL)")

    with pytest.raises(IntegrityError):
        await fail()
    assert reached == ["db.begun", "db.committing"]
    assert await GameStore(db).get_meta("k") is None


# --- one statement on its own ----------------------------------------------------------------


async def test_a_statement_alone_is_one_round_trip(db: Database) -> None:
    """No BEGIN, no COMMIT, and (PostgreSQL) no reset of the connection going back to the
    pool: the statement is all the database hears."""
    store = GameStore(db)
    with counting(db) as trips:
        await store.set_meta("k", "v")
        assert trips.count == 1
        assert await store.get_meta("k") == "v"
        assert trips.count == 2
        async with db.transaction() as conn:
            await conn.execute("UPDATE bot_meta SET value = 'w' WHERE key = 'k'")
        assert trips.count == 2 + 3, "BEGIN, the statement, COMMIT"


async def test_a_block_for_one_statement_refuses_a_second(db: Database) -> None:
    async def two_writes() -> None:
        async with db.single_write() as conn:
            await conn.execute("INSERT INTO bot_meta (key, value) VALUES ('a', '1')")
            await conn.execute("INSERT INTO bot_meta (key, value) VALUES ('b', '2')")

    with pytest.raises(StorageError, match="second statement"):
        await two_writes()
    async with db.single_read() as conn:
        assert await conn.fetchval("SELECT count(*) FROM bot_meta") == 1, "the first one stands"
        with pytest.raises(StorageError, match="second statement"):
            await conn.fetchval("SELECT count(*) FROM bot_meta")
    async with db.single_write() as conn:
        with pytest.raises(StorageError, match="several statements"):
            await conn.executemany("INSERT INTO bot_meta (key, value) VALUES ($1, $2)", [])
