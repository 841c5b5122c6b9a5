"""Accuracy in the stats through the real bot process and the fake Discord API: after a short
game, the background job judges it in the workers and `/marrakech stats` shows each player's
accuracy over their judged games (the figure the job stored for that player, rounded), and
draws it under the rating in the stats' chart."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from render.accuracy_strip import STRIP_HEIGHT
from render.rating_chart import CHART_HEIGHT, CHART_WIDTH
from tests.e2e.fakecord import FakeDiscord
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.quiet import human_turn, open_game, play_turn_click
from tests.e2e.test_ratings import resign_the_mover, server

pytestmark = pytest.mark.e2e

CLICKS = 8
"""Clicks played before the resignation: two turns each (a way to turn Assam, then a rug)."""


def stored_accuracy(database: Path) -> dict[int, float]:
    """Each person's accuracy in the one game, as the judging job stored it."""
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT user_id, accuracy FROM seat_accuracy").fetchall()
    assert all(accuracy is not None for _, accuracy in rows), rows
    return {user_id: float(accuracy) for user_id, accuracy in rows}


async def test_the_stats_show_the_accuracy_of_a_game_just_played(
    fake: FakeDiscord, bot: BotProcess, tmp_path: Path
) -> None:
    channel, alice, bob = server(fake)
    users = {alice.id: alice, bob.id: bob}
    lines = len(bot.lines)
    await open_game(fake, channel, alice, (bob,))
    for clicks in range(CLICKS):
        current = await fake.wait_until(lambda: human_turn(fake, channel), what="a turn")
        await play_turn_click(fake, users, current, clicks)
    await resign_the_mover(fake, channel, users)
    await bot.wait_for_log(r"accuracy of 2 seats written", after=lines, timeout=60)
    stored = stored_accuracy(tmp_path / "marrakech.sqlite3")
    assert stored.keys() == {alice.id, bob.id}
    for user in (alice, bob):
        stats = await (await fake.slash(user, channel, "marrakech", "stats")).answer(timeout=30)
        text = stats.embed_text()
        shown = f"Accuracy: **{round(stored[user.id])}%** in the last judged game\n"
        assert shown in text, text
        assert "Trend" not in text, "one game has no trend"
        chart = Image.open(io.BytesIO(stats.file("rating.png")))
        assert chart.size == (CHART_WIDTH, CHART_HEIGHT + STRIP_HEIGHT), "the accuracy under it"
