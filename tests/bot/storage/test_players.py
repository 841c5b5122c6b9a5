"""Migration 0007 and the player queries: a player's bot-wide choice of direct messages at
their turn, and the language they last asked for them in, and the open games a player holds a
seat in on a server."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from bot.storage import Database, GameStore, NewGame, open_database
from bot.storage.database import BACKENDS, Backend, load_migrations
from bot.storage.players import DirectChoices, PlayerStore

NOW = datetime(2026, 1, 1, tzinfo=UTC)
LATER = datetime(2026, 1, 2, tzinfo=UTC)


def lobby(guild_id: int, channel_id: int, host_id: int) -> NewGame:
    return NewGame(
        guild_id=guild_id,
        channel_id=channel_id,
        host_id=host_id,
        seats_wanted=4,
        variant="standard",
        turn_limit_seconds=None,
        seed="ab" * 16,
        seed_sha256="cd" * 32,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_player_settings_migration_is_0007(backend: Backend) -> None:
    (migration,) = [m for m in load_migrations(backend) if m.version == 7]
    assert migration.name == "0007_turn_messages.sql"
    assert "player_settings" in migration.sql


async def test_turn_dms_are_off_until_asked_and_survive_a_reopen(database_target: str) -> None:
    database = await open_database(database_target)
    try:
        players = PlayerStore(database)
        assert not await players.turn_dms(5)
        assert not await players.set_turn_dms(5, False, NOW), "off already"
        assert await players.set_turn_dms(5, True, NOW)
        assert not await players.set_turn_dms(5, True, LATER)
    finally:
        await database.close()
    database = await open_database(database_target)
    try:
        players = PlayerStore(database)
        assert await players.turn_dms(5)
        assert not await players.turn_dms(6)
        assert await players.set_turn_dms(5, False, LATER)
        assert not await players.turn_dms(5)
    finally:
        await database.close()


async def test_of_two_refusals_at_once_one_turns_the_choice_off(db: Database) -> None:
    # Two direct messages refused at once (two processes, two games): the player is told
    # once, in a game's channel, by the one refusal that turned the choice off.
    players = PlayerStore(db)
    for _ in range(20):
        await players.set_turn_dms(5, True, NOW)
        both = await asyncio.gather(
            players.set_turn_dms(5, False, LATER), players.set_turn_dms(5, False, LATER)
        )
        assert sorted(both) == [False, True]
    assert not await players.turn_dms(5)


async def test_a_new_choice_of_direct_messages_replaces_the_language_of_the_one_before(
    db: Database,
) -> None:
    """The direct messages come in the language asked for the last time: another language, or
    none (the game's), replaces the one before."""
    players = PlayerStore(db)
    await players.set_choices(5, True, False, NOW, "fr")
    assert (await players.choices(5, 6))[5] == DirectChoices(True, False, "fr")
    # Were only the first language kept, this person would keep getting French.
    await players.set_choices(5, True, True, LATER, "uk")
    assert (await players.choices(5, 6))[5] == DirectChoices(True, True, "uk")
    await players.set_choices(5, True, True, LATER)
    assert (await players.choices(5, 6))[5] == DirectChoices(True, True, None), "the game's"


async def test_open_games_of_a_player_are_this_server_s_seats_still_held(db: Database) -> None:
    store = GameStore(db)
    first = await store.create(lobby(1, 10, 100), NOW)
    await store.add_seat(first.id, 101, NOW)
    second = await store.create(lobby(1, 11, 101), NOW)
    elsewhere = await store.create(lobby(2, 12, 101), NOW)
    assert [game.id for game in await store.open_games_of(1, 101)] == [first.id, second.id]
    assert [game.id for game in await store.open_games_of(2, 101)] == [elsewhere.id]
    assert [game.id for game in await store.open_games_of(1, 100)] == [first.id]
    await store.remove_seat(first.id, 101, NOW)
    assert [game.id for game in await store.open_games_of(1, 101)] == [second.id]
    assert await store.open_games_of(1, 999) == []
