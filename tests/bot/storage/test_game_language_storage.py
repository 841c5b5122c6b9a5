"""A game's language is stored with it (migration 0003): kept across a reopen, and games from
before the migration read as English."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.storage import GameStore, NewGame, open_database

NOW = datetime(2026, 1, 1, tzinfo=UTC)
NOW_TEXT = "2026-01-01T00:00:00.000+00:00"
"""NOW as the time columns hold it."""


def lobby(channel_id: int, locale: str) -> NewGame:
    return NewGame(
        guild_id=1,
        channel_id=channel_id,
        host_id=100,
        seats_wanted=3,
        variant="standard",
        turn_limit_seconds=None,
        seed="ab" * 16,
        seed_sha256="cd" * 32,
        locale=locale,
    )


async def test_a_game_keeps_its_language_across_a_reopen(database_target: str) -> None:
    database = await open_database(database_target)
    try:
        store = GameStore(database)
        french = await store.create(lobby(10, "fr"), NOW)
        ukrainian = await store.create(lobby(11, "uk"), NOW)
        assert (french.locale, ukrainian.locale) == ("fr", "uk")
    finally:
        await database.close()
    database = await open_database(database_target)
    try:
        store = GameStore(database)
        again = await store.get(french.id)
        open_here = await store.open_in_channel(11)
        assert again is not None
        assert again.locale == "fr"
        assert open_here is not None
        assert open_here.locale == "uk"
    finally:
        await database.close()


async def test_games_from_before_languages_are_english(database_target: str) -> None:
    old = await open_database(database_target, schema_version=1)
    try:
        async with old.transaction() as conn:
            await conn.execute(
                "INSERT INTO games (channel_id, host_id, seats_wanted, variant, seed, "
                "seed_sha256, created_at, updated_at) "
                "VALUES (10, 100, 3, 'standard', 's', 'h', $1, $1)",
                NOW_TEXT,
            )
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        assert await database.schema_version() >= 2
        old_game = await GameStore(database).get(1)
        assert old_game is not None
        assert old_game.locale == "en"
    finally:
        await database.close()
