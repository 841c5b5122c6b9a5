"""The database helpers of the tests (tests/postgres.py): `open_new` opens a test's own
database, new or made by the test; only an SQLite file not there yet starts as a copy of the
migrated one, so a database the test made, or opens again as a restarted bot would, keeps its
rows. On both back ends."""

from __future__ import annotations

from bot.storage import GameStore, open_database
from tests.postgres import (
    backend,
    create_database,
    database_target,
    drop_database,
    open_new,
    postgres_server,
    postgres_url,
)

__all__ = ["backend", "database_target", "postgres_server", "postgres_url"]


async def test_open_new_opens_a_database_the_test_made_as_it_is(database_target: str) -> None:
    made = await open_database(database_target)
    await GameStore(made).set_meta("made-by", "the test")
    await made.close()
    opened = await open_new(database_target)
    try:
        assert await GameStore(opened).get_meta("made-by") == "the test", "its rows are kept"
    finally:
        await opened.close()


ALTERED = (
    "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() "
    "AND table_name = 'bot_meta' AND column_name = 'extra'"
)


async def _one_test_s_database(server: str, before_dropping: str = "") -> None:
    """What a PostgreSQL test does with its database: `open_new`, rows written and ids drawn
    (`before_dropping` run too), closed, dropped (so perhaps kept emptied for the next)."""
    url = await create_database(server)
    opened = await open_new(url)
    try:
        store = GameStore(opened)
        assert await store.get_meta("left-by") is None, "no row of an earlier test's"
        await store.set_meta("left-by", "an earlier test")
        async with opened.transaction() as conn:
            assert await conn.fetchval("SELECT nextval('games_id_seq')") == 1
            assert await conn.fetchval(ALTERED) == 0, "no column an earlier test added"
            if before_dropping:
                await conn.execute(before_dropping)
    finally:
        await opened.close()
    await drop_database(server, url)


async def test_a_new_postgresql_database_holds_nothing_an_earlier_test_left(
    postgres_server: str,
) -> None:
    """A schema an earlier test left migrated may be handed on emptied: no row of its, and
    its ids start again from 1, as in a new one."""
    for _ in range(3):
        await _one_test_s_database(postgres_server)


async def test_a_postgresql_schema_a_test_altered_is_never_handed_on(
    postgres_server: str,
) -> None:
    """Only a schema exactly as the migrations made it is kept for a later test: one whose
    table a test altered is dropped, and the next test's schema has no such column."""
    await _one_test_s_database(postgres_server)
    await _one_test_s_database(postgres_server, "ALTER TABLE bot_meta ADD COLUMN extra text")
    for _ in range(2):
        await _one_test_s_database(postgres_server)
