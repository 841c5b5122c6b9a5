"""A database slower than Discord's patience, under the real bot process: another program holds
the SQLite file's write lock while a player clicks, so the click's move waits for it.

Discord refuses an answer that comes after 3 s (the fake does too, with 10062). The bot must
acknowledge the click while its move still waits, and once the lock is let go store the move
and show it on the clicked message: nothing refused, nothing lost, nothing applied twice.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.fakecord import FakeDiscord
from tests.e2e.fakecord.interactions import DEFERRED_UPDATE_MESSAGE
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import offers_decision_at, pick
from tests.e2e.quiet import human_turn, open_game
from tests.e2e.test_ratings import server

pytestmark = pytest.mark.e2e

HELD_AT_MOST = 4.5
"""How long the lock is held while no acknowledgement comes (Discord waits 3 s; the bot's
SQLite connection waits 5 s for a lock before it calls the database unavailable)."""
SLOW = "was slow to answer: acknowledged, answer to follow"
"""What the bot logs as its watchdog acknowledges a click for a handler held up."""


@contextmanager
def write_locked(database: Path) -> Iterator[None]:
    """Hold the SQLite file's write lock (readers go on, as WAL lets them)."""
    connection = sqlite3.connect(database, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        yield
        connection.execute("ROLLBACK")
    finally:
        connection.close()


def write_lock_held(database: Path) -> bool:
    """Whether another connection holds the file's write lock: a writer that does not wait
    for it is refused."""
    with contextlib.closing(sqlite3.connect(database, timeout=0, isolation_level=None)) as writer:
        try:
            writer.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                raise
            return True
        writer.execute("ROLLBACK")
        return False


def moves_after(database: Path, game_id: int, seq: int) -> int:
    """How many moves of the game are stored after `seq` (read beside the write lock, as WAL
    lets readers)."""
    with contextlib.closing(sqlite3.connect(database)) as reader:
        row = reader.execute(
            "SELECT count(*) FROM actions WHERE game_id = ? AND seq > ?", (game_id, seq)
        ).fetchone()
    return int(row[0])


async def test_a_click_held_up_by_a_locked_database_is_acknowledged_in_time_then_shown(
    fake: FakeDiscord, bot: BotProcess, bot_env: dict[str, str]
) -> None:
    channel, alice, bob = server(fake)
    users = {alice.id: alice, bob.id: bob}
    await open_game(fake, channel, alice, (bob,))
    turn = await fake.wait_until(lambda: human_turn(fake, channel), what="the first turn")
    (mover_id,) = turn.pinged_user_ids
    chosen = pick(turn, 0)
    db_file = Path(bot_env["MARRAKECH_DB"])
    lines = len(bot.lines)

    with write_locked(db_file):
        click = await fake.click(users[mover_id], turn, chosen.custom_id)
        try:
            await click.wait_for(lambda h: h.acknowledged or bool(h.refusals), HELD_AT_MOST)
        except TimeoutError:
            pytest.fail("the click was not acknowledged while its move waited for the database")
        assert write_lock_held(db_file), "the lock is held while the click is acknowledged"
        assert moves_after(db_file, chosen.game_id, chosen.seq) == 0, "the move waits"
        assert offers_decision_at(fake.world.messages[turn.id], chosen.seq), "nothing moved yet"

    assert click.refusals == [], f"Discord refused an answer: {click.refusals}"
    assert click.callback_type == DEFERRED_UPDATE_MESSAGE
    await fake.wait_until(
        lambda: not offers_decision_at(fake.world.messages[turn.id], chosen.seq),
        what="the move shown on the clicked message",
    )
    assert click.refusals == []
    assert click.followup_ids == [], "no private answer: the move was not turned away"
    assert [e.kind for e in click.events][:2] == ["callback", "edit_original"]
    assert any(SLOW in line for line in bot.lines[lines:]), "acknowledged by the bot's watchdog"
    with sqlite3.connect(bot_env["MARRAKECH_DB"]) as database:
        by_the_mover = database.execute(
            "SELECT seq, notation FROM actions WHERE game_id = ? AND actor_id = ?",
            (chosen.game_id, mover_id),
        ).fetchall()
    assert by_the_mover == [(chosen.seq + 1, chosen.action)], "the move stored once"
