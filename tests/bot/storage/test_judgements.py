"""A game's judgement is kept once, on both back ends: the first writer's text stays, and a
text judged again replaces the one kept only while that is still the one kept."""

from __future__ import annotations

from bot.storage import Database
from bot.storage.judgements import JudgementStore
from tests.bot.storage.test_stats import finished_game, row


async def test_a_judgement_is_written_once_and_read_back(db: Database) -> None:
    for channel in (10, 11):
        await finished_game(db, channel, [row(0, 100, 30, 1), row(1, 200, 25, 2)])
    async with db.single_read() as conn:
        first, second = [int(game[0]) for game in await conn.fetch("SELECT id FROM games")]
    store = JudgementStore(db)
    assert await store.judgement(first) is None
    assert await store.add_judgement(first, '{"v":1}') is True
    assert await store.add_judgement(first, '{"v":1,"x":2}') is False, "the second changes nothing"
    assert await store.judgement(first) == '{"v":1}'
    assert await store.judgement(second) is None


async def test_a_judgement_is_replaced_only_while_it_is_still_the_one_kept(db: Database) -> None:
    """Two processes read the same older text and judge the game again: the first replaces it,
    and the second, replacing what it read, changes nothing (the first's text stays)."""
    await finished_game(db, 10, [row(0, 100, 30, 1), row(1, 200, 25, 2)])
    async with db.single_read() as conn:
        game_id = int(await conn.fetchval("SELECT id FROM games"))
    store = JudgementStore(db)
    assert await store.add_judgement(game_id, '{"v":0}')
    assert await store.replace_judgement(game_id, '{"v":0}', '{"v":2}') is True
    # Unguarded by the text kept, the late writer's older layout would overwrite the newer.
    assert await store.replace_judgement(game_id, '{"v":0}', '{"v":1}') is False
    assert await store.judgement(game_id) == '{"v":2}'
