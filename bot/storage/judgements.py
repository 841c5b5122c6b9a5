"""The coach's judgement of each finished game, kept once (`game_judgements`, docs/coach.md
"One judgement per game"): the compact JSON text of `ai.judge_json`, which this store keeps as
it is given. The first writer's text stays; a second writer (another process that judged the
same game at the same time) changes nothing, and the judge being deterministic, both texts
say the same. A text of an older layout, or a damaged one, is replaced in place once judged
again (`replace_judgement`), only if it is still the one kept."""

from __future__ import annotations

from bot.storage.database import Database


class JudgementStore:
    """Reads and writes games' judgements; each method is one statement."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def judgement(self, game_id: int) -> str | None:
        """The stored judgement of game `game_id`, or None when it has none yet."""
        async with self._db.single_read() as conn:
            text = await conn.fetchval(
                "SELECT judgement FROM game_judgements WHERE game_id = $1", game_id
            )
        return None if text is None else str(text)

    async def add_judgement(self, game_id: int, judgement: str) -> bool:
        """Keep `judgement` for game `game_id`, unless it has one already; whether this one
        was written."""
        async with self._db.single_write() as conn:
            added = await conn.execute(
                "INSERT INTO game_judgements (game_id, judgement) VALUES ($1, $2) "
                "ON CONFLICT (game_id) DO NOTHING",
                game_id,
                judgement,
            )
        return added == 1

    async def replace_judgement(self, game_id: int, kept: str, judgement: str) -> bool:
        """Put `judgement` in the place of `kept`, if that is still the text kept for game
        `game_id`; whether it was replaced."""
        async with self._db.single_write() as conn:
            replaced = await conn.execute(
                "UPDATE game_judgements SET judgement = $3 WHERE game_id = $1 AND judgement = $2",
                game_id,
                kept,
                judgement,
            )
        return replaced == 1
