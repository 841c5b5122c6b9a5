"""The database helpers of the tests (tests/postgres.py): `open_new` opens a test's own
database, new or made by the test; only an SQLite file not there yet starts as a copy of the
migrated one, so a database the test made, or opens again as a restarted bot would, keeps its
rows. On both back ends."""

from __future__ import annotations

from bot.storage import GameStore, open_database
from tests.postgres import backend, database_target, open_new, postgres_server, postgres_url

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
