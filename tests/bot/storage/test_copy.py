"""Copying a whole install between databases (bot.storage.copy), on real databases of both
back ends: a source filled through the services with games in every state and settings of
every kind goes SQLite -> PostgreSQL -> SQLite and comes back row for row, ids included; its
games load and replay as they were; PostgreSQL's sequences move past the copied ids, and those
of tables copied empty start at 1; a target that holds anything, or is at another schema, is
refused and left as it was, and so is a copy of a database into itself; the pages a table is
read in follow each other without a gap or a row read twice; and every table of the schema is
copied, parents before children."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.services import GameService, GameStatus, GameView, GuildService
from bot.services.tournaments import TournamentService
from bot.storage import Database, GameStore, GuildStore, StatsStore, copy, open_database
from bot.storage.away import AwayStore, HeldNotice, QuietRow, Spell
from bot.storage.copy import (
    BOOKKEEPING_TABLES,
    TargetNotEmptyError,
    copy_database,
    schema_tables,
    table_summaries,
)
from bot.storage.database import Backend, StorageError, load_migrations
from bot.storage.judgements import JudgementStore
from bot.storage.players import PlayerStore
from bot.storage.stats import SeatAccuracy
from bot.storage.tournaments import TournamentStore
from bot.storage.watchers import WatchStore
from tests.bot.services.test_service import fixed_clock, play_out, service_on, started, step
from tests.polling import WAIT_SECONDS
from tests.postgres import create_database, drop_database, open_new

HOST, BOB, CAROL = 1001, 1002, 1003
GUILD = 9
NOW = datetime(2026, 1, 1, tzinfo=UTC)
PAGE_SIZE_HERE = 2
"""The rows of a page in the test of paging (the bot's pages hold more than the test's tables)."""
BEFORE_JUDGEMENTS = 21
"""A schema without the game_judgements table (made by migration 22)."""


@dataclass(frozen=True)
class Filled:
    """The ids of the games a source was filled with, by state."""

    lobby: int
    running: int
    played_out: int
    resigned: int
    aborted: int
    cancelled: int
    table_games: tuple[int, ...] = ()
    """The games of a tournament's first round."""

    @property
    def ids(self) -> list[int]:
        return [
            self.lobby,
            self.running,
            self.played_out,
            self.resigned,
            self.aborted,
            self.cancelled,
            *self.table_games,
        ]


async def fill(database: Database) -> Filled:
    """Games in every state and every kind of setting, written through the services."""
    service = service_on(database)
    guilds = GuildService(GuildStore(database), clock=fixed_clock)
    await guilds.set_turn_limit(GUILD, 3600)
    await guilds.set_variant(GUILD, "rotate-after")
    await guilds.allow_channel(GUILD, 601)
    await guilds.allow_channel(GUILD, 602)
    await PlayerStore(database).set_turn_dms(HOST, True, NOW)
    await PlayerStore(database).set_turn_dms(BOB, False, NOW)
    await GameStore(database).set_meta("copied-key", "a value")
    away = AwayStore(database)
    await away.set_away_days(GUILD, 5, NOW)
    await away.set_clocks_in_quiet(GUILD, True, NOW)
    await away.start_spell(GUILD, BOB, Spell(NOW, NOW + timedelta(days=2)))
    await away.set_quiet(HOST, QuietRow("22:00", "07:00", "Europe/Kyiv"), NOW)
    await away.set_quiet(HOST, QuietRow("23:00", "08:00", "Europe/Kyiv"), NOW + timedelta(hours=1))
    await away.hold(HeldNotice(HOST, GUILD, 602, 2, 5, "turn", "en", NOW), NOW)

    lobby = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=601, host_id=HOST, seats=4, host_name="Host's name"
    )
    await service.lobby.join(lobby.id, BOB, name="Bob")
    await service.lobby.add_ai(lobby.id, HOST, "easy")

    running = await started(service, (HOST, BOB, CAROL), channel=602)
    for _ in range(12):
        running = await step(service, running)
    asked = await service.substitutes.ask(running.id, HOST, BOB, 1009, "Sub", in_bot=False)
    await service.substitutes.answer(asked.request.id, CAROL, agree=True)  # Bob's seat changes
    running = await service.play.look(running.id)
    nudger = HOST if running.user_to_move != HOST else CAROL
    await service.nudges.nudge(running.id, nudger)
    await WatchStore(database).watch(running.id, 1009, running.seq, NOW)

    played = await play_out(service, await started(service, (HOST, BOB), channel=603))
    assert played.status is GameStatus.OVER
    await StatsStore(database).add_accuracy(played.id, [SeatAccuracy(0, HOST, 87.5)])
    await JudgementStore(database).add_judgement(played.id, '{"v":1,"players":2}')

    resigned = await started(service, (BOB, CAROL), channel=604)
    resigned = await step(service, resigned)
    resigned = await service.play.resign(resigned.id, CAROL)
    assert resigned.status is GameStatus.OVER

    aborted = await started(service, (HOST, CAROL), channel=605)
    aborted = await step(service, aborted)
    await service.play.abort(aborted.id, HOST)

    cancelled = await service.lobby.create_lobby(guild_id=None, channel_id=606, host_id=CAROL)
    await service.lobby.cancel(cancelled.id, CAROL)

    tournaments = TournamentService(TournamentStore(database), service, seeds=lambda: "5e" * 16)
    tournament = await tournaments.open(
        guild_id=GUILD,
        channel_id=607,
        moderator_id=HOST,
        name="Cup",
        format="swiss",
        seats=2,
        rounds=2,
        variant="standard",
        turn_limit_seconds=None,
        locale="en",
    )
    for user in (HOST, BOB, CAROL):
        await tournaments.join(tournament.id, user, str(user))
    await away.set_tournament_away_days(tournament.id, 3)
    await tournaments.start(tournament.id, HOST, moderator=True)
    for table in await tournaments.claim_tables(tournament.id):
        await tournaments.set_thread(tournament.id, table, 700 + table.number)
    table_games = [
        (await tournaments.start_table(tournament.id, table)).id
        for table in (await tournaments.look(tournament.id)).tables
    ]
    return Filled(
        lobby.id, running.id, played.id, resigned.id, aborted.id, cancelled.id, tuple(table_games)
    )


async def all_rows(database: Database) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, as tuples of its columns by name (the back ends add columns
    in different places), sorted."""
    dump = {}
    tables = await schema_tables(database)
    async with database.reading() as conn:
        for table in tables:
            columns = ", ".join(f'"{column}"' for column in sorted(table.columns))
            rows = await conn.fetch(f'SELECT {columns} FROM "{table.name}"')
            width = len(table.columns)
            dump[table.name] = sorted(
                (tuple(row[i] for i in range(width)) for row in rows), key=repr
            )
    return dump


async def views(database: Database, ids: list[int]) -> list[GameView]:
    service = GameService(GameStore(database), clock=fixed_clock)
    return [await service.play.look(game_id) for game_id in ids]


@pytest.fixture
async def source(tmp_path: Path) -> AsyncIterator[tuple[Database, Filled]]:
    database = await open_database(tmp_path / "source.sqlite3")
    filled = await fill(database)
    yield database, filled
    await database.close()


async def test_a_copy_to_postgres_and_back_keeps_every_row_and_every_game(
    source: tuple[Database, Filled], postgres_url: str, tmp_path: Path
) -> None:
    origin, filled = source
    rows = await all_rows(origin)
    assert all(rows[table] for table in rows), "the source fills every table"
    before = await views(origin, filled.ids)

    postgres = await open_database(postgres_url)
    back = await open_database(tmp_path / "back.sqlite3")
    try:
        copied = await copy_database(origin, postgres)
        assert copied == {table: len(found) for table, found in rows.items()}
        assert await all_rows(postgres) == rows
        assert await table_summaries(postgres) == await table_summaries(origin)
        assert await views(postgres, filled.ids) == before

        await copy_database(postgres, back)
        assert await all_rows(back) == rows
        assert await views(back, filled.ids) == before

        # The rows written next get fresh ids on both back ends, and play goes on.
        for database in (postgres, back):
            service = service_on(database)
            fresh = await service.lobby.create_lobby(guild_id=GUILD, channel_id=700, host_id=BOB)
            assert fresh.id == max(filled.ids) + 1
            await service.lobby.join(fresh.id, CAROL)
            running = await service.play.look(filled.running)
            assert (await step(service, running)).seq > running.seq
    finally:
        await postgres.close()
        await back.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_target_holding_anything_is_refused_and_left_as_it_was(
    source: tuple[Database, Filled], backend: Backend, database_target: str
) -> None:
    origin, _ = source
    target = await open_database(database_target)
    try:
        await PlayerStore(target).set_turn_dms(CAROL, True, NOW)
        before = await all_rows(target)
        with pytest.raises(TargetNotEmptyError, match="player_settings 1"):
            await copy_database(origin, target)
        assert await all_rows(target) == before
    finally:
        await target.close()


async def test_postgres_to_postgres_copies_and_resets_the_sequences(
    source: tuple[Database, Filled], postgres_server: str, postgres_url: str
) -> None:
    origin, filled = source
    middle = await open_database(postgres_url)
    other_url = await create_database(postgres_server)
    try:
        other = await open_database(other_url)
        try:
            await copy_database(origin, middle)
            await copy_database(middle, other)
            assert await all_rows(other) == await all_rows(origin)
            fresh = await service_on(other).lobby.create_lobby(
                guild_id=GUILD, channel_id=700, host_id=BOB
            )
            assert fresh.id == max(filled.ids) + 1
        finally:
            await other.close()
    finally:
        await middle.close()
        await drop_database(postgres_server, other_url)


async def test_every_sequence_of_a_copy_to_postgres_numbers_past_the_rows_copied(
    source: tuple[Database, Filled], postgres_url: str
) -> None:
    """Identity and serial (`bigserial`) columns alike: each one's sequence gives next an id
    past the largest one copied, so every table's next row is stored, not refused as a
    duplicate key (the notice quiet hours hold next, in held_notices, among them)."""
    origin, _ = source
    postgres = await open_database(postgres_url)
    try:
        await copy_database(origin, postgres)
        numbered = await next_ids(postgres)
        assert {"games.id", "held_notices.id"} <= set(numbered)
        behind = {name: pair for name, pair in numbered.items() if pair[0] <= pair[1]}
        assert not behind, "(next id, largest copied) of the sequences left behind"

        notice = HeldNotice(HOST, GUILD, 602, 99, 7, "turn", "en", NOW)
        assert await AwayStore(postgres).hold(notice, NOW)
    finally:
        await postgres.close()


async def next_ids(postgres: Database) -> dict[str, tuple[int, int]]:
    """Each identity or serial column ("table.column") of a PostgreSQL database: the id its
    sequence gives next, and the largest id the column holds (0 if none)."""
    numbered: dict[str, tuple[int, int]] = {}
    async with postgres.reading() as conn:
        for table in await schema_tables(postgres):
            for column in table.columns:
                sequence = await conn.fetchval(
                    "SELECT pg_get_serial_sequence($1, $2)", table.name, column
                )
                if sequence is None:
                    continue
                row = await conn.fetchrow(f"SELECT last_value, is_called FROM {sequence}")
                assert row is not None
                following = row[0] + 1 if row[1] else row[0]
                largest = await conn.fetchval(f'SELECT max("{column}") FROM "{table.name}"')
                numbered[f"{table.name}.{column}"] = (following, largest or 0)
    return numbered


async def test_a_copy_to_postgres_numbers_a_table_copied_empty_from_one(
    tmp_path: Path, postgres_url: str
) -> None:
    """A table with an identity or serial id that holds no row (an install that never held a
    notice, nor ran a tournament) is copied empty, and its sequence starts at 1 as on a new
    database, while the tables that hold rows number past theirs: the copy goes through, and
    the first row written to an empty table is stored with id 1."""
    origin = await open_new(tmp_path / "source.sqlite3")
    postgres = await open_database(postgres_url)
    try:
        lobby = await service_on(origin).lobby.create_lobby(
            guild_id=GUILD, channel_id=601, host_id=HOST
        )
        rows = await all_rows(origin)
        await copy_database(origin, postgres)
        assert await all_rows(postgres) == rows

        numbered = await next_ids(postgres)
        empty = {name for name in numbered if not rows[name.split(".")[0]]}
        assert {"held_notices.id", "tournaments.id"} <= empty
        assert {"games.id", "seats.id"} <= set(numbered) - empty
        assert numbered == {
            name: (largest + 1, largest) for name, (_, largest) in numbered.items()
        }, "(next id, largest copied) of each sequence"
        assert all(numbered[name] == (1, 0) for name in empty)

        notice = HeldNotice(HOST, GUILD, 601, lobby.id, 1, "turn", "en", NOW)
        assert await AwayStore(postgres).hold(notice, NOW)
        async with postgres.reading() as conn:
            assert await conn.fetchval("SELECT id FROM held_notices") == 1
        fresh = await service_on(postgres).lobby.create_lobby(
            guild_id=GUILD, channel_id=602, host_id=BOB
        )
        assert fresh.id == lobby.id + 1
    finally:
        await postgres.close()
        await origin.close()


async def test_every_table_the_migrations_make_is_copied_parents_first(db: Database) -> None:
    tables = await schema_tables(db)
    names = [table.name for table in tables]
    assert set(names) == tables_made_by_migrations() - BOOKKEEPING_TABLES
    assert len(names) == len(set(names))
    for position, table in enumerate(tables):
        assert table.parents <= set(names[:position]), f"{table.name} comes before a parent"
        assert table.key, f"{table.name} has a primary key to page on"
    for child in ("seats", "actions", "results"):
        assert names.index("games") < names.index(child)


def tables_made_by_migrations() -> set[str]:
    """The tables the SQLite migrations leave, read from their text (created, renamed, dropped,
    in order)."""
    statement = re.compile(
        r"CREATE TABLE (?:IF NOT EXISTS )?(?P<created>\w+)"
        r"|DROP TABLE (?:IF EXISTS )?(?P<dropped>\w+)"
        r"|ALTER TABLE (?P<old>\w+) RENAME TO (?P<new>\w+)",
        re.IGNORECASE,
    )
    tables: set[str] = set()
    for migration in load_migrations("sqlite"):
        for found in statement.finditer(migration.sql):
            if found["created"]:
                tables.add(found["created"])
            elif found["dropped"]:
                tables.discard(found["dropped"])
            else:
                tables.discard(found["old"])
                tables.add(found["new"])
    return tables


async def test_a_copy_in_pages_of_a_few_rows_keeps_every_row(
    source: tuple[Database, Filled],
    postgres_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each table is read in pages, each page starting after the last key of the one before:
    with pages of PAGE_SIZE_HERE rows, tables keyed on one column and on several take several
    pages, ending on a full page or on a part of one."""
    origin, _ = source
    rows = await all_rows(origin)
    counts = {table: len(found) for table, found in rows.items()}
    monkeypatch.setattr(copy, "PAGE_SIZE", PAGE_SIZE_HERE)
    paged = {table for table, count in counts.items() if count > PAGE_SIZE_HERE}
    assert len(paged) >= 5, "several tables take several pages"
    assert any(counts[table] % PAGE_SIZE_HERE == 0 for table in paged), "a last page full"
    keys = {table.name: table.key for table in await schema_tables(origin)}
    assert any(len(keys[table]) > 1 for table in paged), "a key of several columns"

    postgres = await open_database(postgres_url)
    back = await open_database(tmp_path / "back.sqlite3")
    try:
        assert await copy_database(origin, postgres) == counts
        assert await all_rows(postgres) == rows
        assert await copy_database(postgres, back) == counts
        assert await all_rows(back) == rows
        assert await table_summaries(back) == await table_summaries(origin)
    finally:
        await postgres.close()
        await back.close()


async def test_a_target_of_another_schema_is_refused_and_left_as_it_was(
    db: Database, tmp_path: Path
) -> None:
    await GameStore(db).set_meta("copied-key", "a value")
    older = await open_database(tmp_path / "older.sqlite3", schema_version=BEFORE_JUDGEMENTS)
    try:
        # names the tables that differ, among them the one the older schema lacks
        with pytest.raises(
            StorageError,
            match=r"schemas differ \(tables [a-z_, ]*\bgame_judgements\b[a-z_, ]*\); open both",
        ):
            await copy_database(db, older)
        assert not any((await all_rows(older)).values())
    finally:
        await older.close()


async def test_a_target_whose_columns_differ_is_refused_in_one_line(
    db: Database, tmp_path: Path
) -> None:
    """The same tables with a column more on one side are two schemas: refused by name,
    before a row is read, and the target is left as it was."""
    await GameStore(db).set_meta("copied-key", "a value")
    other = await open_database(tmp_path / "other.sqlite3")
    try:
        async with other.transaction() as conn:
            await conn.execute("ALTER TABLE bot_meta ADD COLUMN extra TEXT")
        with pytest.raises(StorageError, match=r"schemas differ \(tables bot_meta\)"):
            await copy_database(db, other)
        assert not any((await all_rows(other)).values())
    finally:
        await other.close()


async def test_a_database_is_not_copied_into_itself(db: Database) -> None:
    """Refused before anything is read (on SQLite the copy would wait on itself for ever; the
    bound only turns such a wait into a failure)."""
    await GameStore(db).set_meta("copied-key", "a value")
    with pytest.raises(StorageError, match="cannot be copied into itself"):
        async with asyncio.timeout(WAIT_SECONDS):
            await copy_database(db, db)
    assert await GameStore(db).get_meta("copied-key") == "a value"
