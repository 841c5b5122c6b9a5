"""A game's judgement is kept once, on both back ends: the first writer's text stays."""

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
