"""Copying a whole install from one database to another: SQLite or PostgreSQL, either way.

An admin whose server grew moves the bot's state with `marrakech-bot copy-db FROM TO`; this
module does the table work for it. Nothing here names a table or a column: both are read from
each database's own catalogue (sqlite_master and PRAGMA table_info, pg_catalog and
information_schema), and so are the foreign keys that order the tables, parents before
children. A migration that adds a table or a column is copied without a change here.

`contents` looks at what a database holds (its schema version, and each table's row count)
without writing anything, so that `check_target_empty` refuses a target that holds a row, or a
table the bot does not make, before anything opens and migrates it.

The copy runs in one transaction on the target, reading the source in one snapshot, in pages
(keyset pagination on each table's primary key) written with `executemany`; the rows keep their
ids. A target holding any row in any table (the migrations' own bookkeeping aside) is refused.
On PostgreSQL every identity or serial column's sequence is then moved past the largest id
copied, so the rows the bot writes next get fresh ids (SQLite's AUTOINCREMENT and rowid ids
follow the largest id by themselves).

`table_summaries` reads every table's row count and an order-free digest of its rows, so the
caller can check that the target holds what the source held. Replaying the games is the
services' work, not this layer's.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.storage.database import Backend, Connection, Database, Row, StorageError
from bot.storage.open import open_database, parse_target

PAGE_SIZE = 20000
"""Rows read, then written with one `executemany`, at a time."""
BOOKKEEPING_TABLES = frozenset({"schema_migrations"})
"""Tables of the migrations themselves: each database keeps its own, never copied or compared
(SQLite keeps its version in PRAGMA user_version, and its sqlite_* tables are its own)."""

_SQLITE_TABLES = (
    "SELECT name FROM sqlite_master WHERE type = 'table' "
    "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
)
_SQLITE_COLUMNS = "SELECT name, pk FROM pragma_table_info($1) ORDER BY cid"
_SQLITE_PARENTS = 'SELECT DISTINCT "table" FROM pragma_foreign_key_list($1)'
_POSTGRES_TABLES = (
    "SELECT table_name FROM information_schema.tables "
    "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
)
_POSTGRES_COLUMNS = (
    "SELECT column_name, udt_name, "
    "is_identity = 'YES' OR coalesce(column_default, '') LIKE 'nextval(%' AS numbered "
    "FROM information_schema.columns "
    "WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' "
    "ORDER BY ordinal_position"
)
_POSTGRES_KEY = (
    "SELECT a.attname FROM pg_index i "
    "JOIN pg_class t ON t.oid = i.indrelid "
    "JOIN pg_namespace n ON n.oid = t.relnamespace "
    "JOIN unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ON true "
    "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
    "WHERE i.indisprimary AND n.nspname = current_schema() AND t.relname = $1 "
    "ORDER BY k.position"
)
_POSTGRES_PARENTS = (
    "SELECT DISTINCT p.relname FROM pg_constraint c "
    "JOIN pg_class t ON t.oid = c.conrelid "
    "JOIN pg_class p ON p.oid = c.confrelid "
    "JOIN pg_namespace n ON n.oid = t.relnamespace "
    "WHERE c.contype = 'f' AND n.nspname = current_schema() AND t.relname = $1"
)
_POSTGRES_SEQUENCE = "SELECT pg_get_serial_sequence($1, $2)"


class TargetNotEmptyError(StorageError):
    """The target database already holds rows; a copy only fills an empty one."""

    def __init__(self, rows: dict[str, int]) -> None:
        listed = ", ".join(f"{table} {count}" for table, count in sorted(rows.items()))
        super().__init__(
            f"the target database is not empty ({listed} rows); copy-db only fills an empty one"
        )
        self.rows = rows


@dataclass(frozen=True, slots=True)
class Contents:
    """What a database holds: the schema version its migrations reached (0: none) and every
    table's row count (the bookkeeping ones aside)."""

    version: int
    rows: dict[str, int]


@dataclass(frozen=True, slots=True)
class Table:
    """A table as the catalogue describes it: its columns in order, the columns of its primary
    key (empty if it has none), the tables its foreign keys point at, and on PostgreSQL the
    columns' types and the columns an identity or a serial sequence numbers."""

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    parents: frozenset[str]
    types: tuple[str, ...] = ()
    numbered: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TableSummary:
    """How many rows a table holds, and a digest of them that ignores their order."""

    rows: int
    digest: int


async def schema_tables(database: Database) -> list[Table]:
    """The database's tables (the bookkeeping ones aside), parents before their children and
    otherwise by name."""
    async with database.reading() as conn:
        tables = await _catalogue(conn, database.backend)
    return _in_dependency_order(tables)


async def contents(target: str | Path) -> Contents:
    """What the database at `target` holds, looked at without writing anything (no migration;
    a SQLite file that is not there holds nothing, and is not created)."""
    backend, location = parse_target(target)
    if backend == "sqlite" and not await asyncio.to_thread(Path(location).exists):
        return Contents(0, {})
    database = await open_database(target, read_only=True)
    try:
        version = await database.schema_version()
        async with database.reading() as conn:
            tables = await _catalogue(conn, backend)
            rows = {table.name: await _count(conn, table.name) for table in tables}
    finally:
        await database.close()
    return Contents(version, rows)


def check_target_empty(target: Contents, tables: Iterable[str]) -> None:
    """Refuse a target (as `contents` found it) that holds a table not among `tables`, the
    bot's (StorageError: it is another application's database, or a newer bot's), or a row in
    any table (TargetNotEmptyError). A target that holds no table, or only empty ones of the
    bot's (an older bot's empty database), is one to fill."""
    foreign = sorted(set(target.rows) - set(tables))
    if foreign:
        raise StorageError(
            f"the target database holds tables this bot does not make ({', '.join(foreign)}); "
            "copy-db only fills an empty one"
        )
    found = {name: count for name, count in target.rows.items() if count}
    if found:
        raise TargetNotEmptyError(found)


async def copy_database(source: Database, target: Database) -> dict[str, int]:
    """Copy every row of every table of `source` into the empty `target`, ids included, in one
    transaction on the target; the rows copied per table.

    Both must be at the same schema (the caller brings them to it). TargetNotEmptyError if the
    target holds a row, StorageError if the two schemas differ; either way the target is left
    as it was.
    """
    if source is target:
        raise StorageError("a database cannot be copied into itself")
    copied: dict[str, int] = {}
    async with source.reading() as reader, target.transaction() as writer:
        tables = _in_dependency_order(await _catalogue(writer, target.backend))
        _check_same_schema(await _catalogue(reader, source.backend), tables)
        found = {table.name: await _count(writer, table.name) for table in tables}
        if any(found.values()):
            raise TargetNotEmptyError({name: count for name, count in found.items() if count})
        for table in tables:
            copied[table.name] = await _copy_table(reader, writer, table, target.backend)
        if target.backend == "postgres":
            await _restart_sequences(writer, tables)
    return copied


async def table_summaries(database: Database) -> dict[str, TableSummary]:
    """Every table's row count and a digest of its rows (their columns taken by name, their
    order ignored), read in one snapshot."""
    summaries: dict[str, TableSummary] = {}
    async with database.reading() as conn:
        for table in _in_dependency_order(await _catalogue(conn, database.backend)):
            rows = digest = 0
            by_name = replace(table, columns=tuple(sorted(table.columns)))  # as both sides list
            async for page in _pages(conn, by_name):
                rows += len(page)
                digest = (digest + sum(_row_digest(row) for row in page)) % 2**64
            summaries[table.name] = TableSummary(rows, digest)
    return summaries


async def game_ids(database: Database) -> list[int]:
    """The id of every game, in order (for the caller to load and replay each)."""
    async with database.reading() as conn:
        return [int(row[0]) for row in await conn.fetch("SELECT id FROM games ORDER BY id")]


# --- the catalogue ---------------------------------------------------------------------------


async def _catalogue(conn: Connection, backend: Backend) -> list[Table]:
    if backend == "sqlite":
        return await _sqlite_catalogue(conn)
    return await _postgres_catalogue(conn)


async def _sqlite_catalogue(conn: Connection) -> list[Table]:
    tables = []
    for row in await conn.fetch(_SQLITE_TABLES):
        name = str(row[0])
        if name in BOOKKEEPING_TABLES:
            continue
        columns = await conn.fetch(_SQLITE_COLUMNS, name)
        key = [(int(column["pk"]), str(column["name"])) for column in columns if column["pk"]]
        parents = await conn.fetch(_SQLITE_PARENTS, name)
        tables.append(
            Table(
                name,
                tuple(str(column["name"]) for column in columns),
                tuple(column for _, column in sorted(key)),
                frozenset(str(parent[0]) for parent in parents) - {name},
            )
        )
    return tables


async def _postgres_catalogue(conn: Connection) -> list[Table]:
    tables = []
    for row in await conn.fetch(_POSTGRES_TABLES):
        name = str(row[0])
        if name in BOOKKEEPING_TABLES:
            continue
        columns = await conn.fetch(_POSTGRES_COLUMNS, name)
        key = await conn.fetch(_POSTGRES_KEY, name)
        parents = await conn.fetch(_POSTGRES_PARENTS, name)
        tables.append(
            Table(
                name,
                tuple(str(column["column_name"]) for column in columns),
                tuple(str(column[0]) for column in key),
                frozenset(str(parent[0]) for parent in parents) - {name},
                tuple(str(column["udt_name"]) for column in columns),
                tuple(str(column["column_name"]) for column in columns if column["numbered"]),
            )
        )
    return tables


def _in_dependency_order(tables: Sequence[Table]) -> list[Table]:
    """Parents before children, by name among tables whose parents are all placed."""
    pending = {table.name: table for table in tables}
    ordered: list[Table] = []
    while pending:
        placed = {table.name for table in ordered}
        ready = sorted(name for name, table in pending.items() if table.parents <= placed)
        if not ready:
            unknown = {p for t in pending.values() for p in t.parents} - placed - set(pending)
            if unknown:
                raise StorageError(f"foreign keys point at tables not copied: {sorted(unknown)}")
            raise StorageError(f"the foreign keys of {sorted(pending)} form a cycle")
        ordered.extend(pending.pop(name) for name in ready)
    return ordered


def _check_same_schema(source: Sequence[Table], target: Sequence[Table]) -> None:
    have = {table.name: set(table.columns) for table in source}
    want = {table.name: set(table.columns) for table in target}
    if have == want:
        return
    differences = sorted(
        name for name in have.keys() | want.keys() if have.get(name) != want.get(name)
    )
    raise StorageError(
        f"the two databases' schemas differ (tables {', '.join(differences)}); "
        "open both with the same bot version"
    )


# --- reading and writing rows ------------------------------------------------------------------


def _quoted(name: str) -> str:
    """An identifier read from the catalogue, quoted for SQL."""
    return '"' + name.replace('"', '""') + '"'


def _column_list(names: Sequence[str]) -> str:
    return ", ".join(_quoted(name) for name in names)


async def _copy_table(
    reader: Connection, writer: Connection, table: Table, backend: Backend
) -> int:
    """Copy the table's rows page by page; how many. SQLite takes each page through
    `executemany`; PostgreSQL takes it as one statement, a column array per column unnested
    into rows (many times faster than a statement per row)."""
    copied = 0
    columns = _column_list(table.columns)
    if backend == "sqlite":
        values = ", ".join(f"${number}" for number in range(1, len(table.columns) + 1))
        sql = f"INSERT INTO {_quoted(table.name)} ({columns}) VALUES ({values})"
        async for page in _pages(reader, table):
            await writer.executemany(sql, page)
            copied += len(page)
        return copied
    arrays = ", ".join(
        f"${number}::{_quoted(kind)}[]" for number, kind in enumerate(table.types, start=1)
    )
    # OVERRIDING SYSTEM VALUE: the copied ids go in even for a GENERATED ALWAYS identity.
    override = " OVERRIDING SYSTEM VALUE" if table.numbered else ""
    sql = f"INSERT INTO {_quoted(table.name)} ({columns}){override} SELECT * FROM unnest({arrays})"
    async for page in _pages(reader, table):
        await writer.execute(sql, *(list(column) for column in zip(*page, strict=True)))
        copied += len(page)
    return copied


async def _count(conn: Connection, table: str) -> int:
    """How many rows the table holds (the name comes from the catalogue)."""
    sql = f"SELECT count(*) FROM {_quoted(table)}"
    return int(await conn.fetchval(sql))


async def _pages(conn: Connection, table: Table) -> AsyncIterator[list[tuple[object, ...]]]:
    """The table's rows in pages of PAGE_SIZE, in the order of its primary key (one page of
    every row for a table without one)."""
    select = f"SELECT {_column_list(table.columns)} FROM {_quoted(table.name)}"
    width = len(table.columns)
    if not table.key:
        sql = select
        rows = _as_tuples(await conn.fetch(sql), width)
        if rows:
            yield rows
        return
    key = _column_list(table.key)
    positions = [table.columns.index(column) for column in table.key]
    after = ", ".join(f"${number}" for number in range(1, len(table.key) + 1))
    sql = f"{select} ORDER BY {key} LIMIT {PAGE_SIZE}"
    page = _as_tuples(await conn.fetch(sql), width)
    sql = f"{select} WHERE ({key}) > ({after}) ORDER BY {key} LIMIT {PAGE_SIZE}"
    while page:
        yield page
        if len(page) < PAGE_SIZE:
            return
        last = page[-1]
        page = _as_tuples(await conn.fetch(sql, *(last[at] for at in positions)), width)


def _as_tuples(rows: Sequence[Row], width: int) -> list[tuple[object, ...]]:
    return [tuple(row[index] for index in range(width)) for row in rows]


async def _restart_sequences(conn: Connection, tables: Sequence[Table]) -> None:
    """Move each identity or serial sequence past the largest value its column holds."""
    for table in tables:
        for column in table.numbered:
            sequence = await conn.fetchval(_POSTGRES_SEQUENCE, _quoted(table.name), column)
            if sequence is None:
                continue
            largest = f"coalesce(max({_quoted(column)}), 0)"
            owner = _quoted(table.name)
            sql = f"SELECT setval($1::text::regclass, {largest} + 1, false) FROM {owner}"
            await conn.fetchval(sql, sequence)


def _row_digest(row: tuple[object, ...]) -> int:
    """A 64-bit digest of a row's values (ints, text and NULLs read alike from both back
    ends); summed over a table, it does not depend on the rows' order."""
    digest = hashlib.blake2b(repr(row).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")
