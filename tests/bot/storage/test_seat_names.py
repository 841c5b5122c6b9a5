"""A seat keeps its player's display name (migration 0004): stored when they open or join a
lobby, read back after a reopen, and a database from before names gets the column with its
seats left nameless."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.storage import CheckViolation, Database, GameStore, NewGame, open_database
from bot.storage.database import BACKENDS, Backend, load_migrations

NOW = datetime(2026, 1, 1, tzinfo=UTC)
NOW_TEXT = "2026-01-01T00:00:00.000+00:00"
"""NOW as the time columns hold it."""
NAMES_VERSION = 4


def lobby(channel_id: int, host_name: str | None) -> NewGame:
    return NewGame(
        guild_id=1,
        channel_id=channel_id,
        host_id=100,
        seats_wanted=4,
        variant="standard",
        turn_limit_seconds=None,
        seed="ab" * 16,
        seed_sha256="cd" * 32,
        host_name=host_name,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_names_migration_is_numbered_after_the_languages_one(backend: Backend) -> None:
    names = [m for m in load_migrations(backend) if m.version == NAMES_VERSION]
    assert [migration.name for migration in names] == ["0004_seat_names.sql"]
    assert "display_name" in names[0].sql


async def test_names_round_trip_through_a_reopen(database_target: str) -> None:
    database = await open_database(database_target)
    try:
        store = GameStore(database)
        game = await store.create(lobby(10, "Оксана ✨"), NOW)
        await store.add_seat(game.id, 101, NOW, "Zoë")
        await store.add_seat(game.id, 102, NOW)
        seats = await store.add_ai_seat(game.id, "hard", NOW)
        assert [(s.user_id, s.display_name) for s in seats] == [
            (100, "Оксана ✨"),
            (101, "Zoë"),
            (102, None),
            (None, None),
        ]
    finally:
        await database.close()
    database = await open_database(database_target)
    try:
        seats = await GameStore(database).seats(game.id)
        assert [s.display_name for s in seats] == ["Оксана ✨", "Zoë", None, None]
    finally:
        await database.close()


async def test_an_empty_name_is_refused_by_the_schema(db: Database) -> None:
    store = GameStore(db)
    game = await store.create(lobby(10, None), NOW)
    with pytest.raises(CheckViolation):
        await store.add_seat(game.id, 101, NOW, "")
    assert [s.display_name for s in await store.seats(game.id)] == [None]


async def test_a_database_from_before_names_gets_them_and_its_seats_stay_nameless(
    database_target: str,
) -> None:
    old = await open_database(database_target, schema_version=NAMES_VERSION - 1)
    try:
        assert await old.schema_version() == NAMES_VERSION - 1
        async with old.transaction() as conn:
            await conn.execute(
                "INSERT INTO games (channel_id, host_id, seats_wanted, variant, seed, "
                "seed_sha256, created_at, updated_at) "
                "VALUES (10, 100, 3, 'standard', 's', 'h', $1, $1)",
                NOW_TEXT,
            )
            await conn.execute(
                "INSERT INTO seats (game_id, user_id, joined_at) VALUES (1, 100, $1)", NOW_TEXT
            )
            await conn.execute(
                "INSERT INTO seats (game_id, ai_level, joined_at) VALUES (1, 'easy', $1)", NOW_TEXT
            )
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        assert await database.schema_version() >= NAMES_VERSION
        store = GameStore(database)
        seats = await store.seats(1)
        assert [(s.user_id, s.ai_level, s.display_name) for s in seats] == [
            (100, None, None),
            (None, "easy", None),
        ]
        after = await store.add_seat(1, 101, NOW, "Bob")
        assert [s.display_name for s in after] == [None, None, "Bob"]
    finally:
        await database.close()
