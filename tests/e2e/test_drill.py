"""Learn from your mistakes through the real bot process and the fake Discord API: after a
short game, a player opens their drill from the result, privately, goes to the next decision
and tries again among the same options, picking what they took again: the answer names that
pick and its chance, and how it compares with the best; the channel stays quiet."""

from __future__ import annotations

import re

import pytest

from tests.e2e.fakecord import FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.quiet import final_message, human_turn, open_game, play_turn_click
from tests.e2e.test_ratings import resign_the_mover, server

pytestmark = pytest.mark.e2e

CLICKS = 24
"""Clicks played before the resignation: six turns each (a way to turn Assam, then a rug).
The dice differ from game to game, so a player may happen to choose well nearly every time,
and only decisions the coach did not call good are drilled; with twelve decisions each, one
of the two has a costly one to drill (two or three most often: then Next goes on to the
second, else Done ends the drill)."""
DEFERRED_UPDATE_MESSAGE = 6
JUDGED_PICK = (
    r"(within 5\.0 points of the best\. Well found\."
    r"|[\d.]+ points below the best \(.+, \d+%\)\.)"
)
"""How a pick compares with the best in a 2-player game: a good one, or how far below it is."""


async def press(fake: FakeDiscord, user: FakeUser, message: FakeMessage, label: str) -> FakeMessage:
    """Press `label` on the drill's private message: deferred at once, then edited."""
    button = fake.world.messages[message.id].button(label=label)
    assert button.custom_id is not None
    assert button.custom_id.startswith("mk:drill:1:")
    handle = await fake.click(user, message, button.custom_id)
    assert (await handle.response()).response_type == DEFERRED_UPDATE_MESSAGE
    return await handle.answer(timeout=60.0)


async def test_a_player_drills_their_costliest_decisions(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    channel, alice, bob = server(fake)
    users = {alice.id: alice, bob.id: bob}
    await open_game(fake, channel, alice, (bob,))
    for clicks in range(CLICKS):
        current = await fake.wait_until(lambda: human_turn(fake, channel), what="a turn")
        await play_turn_click(fake, users, current, clicks)
    await resign_the_mover(fake, channel, users)
    result = final_message(fake, channel)
    assert result is not None
    public = len(fake.messages(channel))

    button = fake.world.messages[result.id].button(label="Learn from your mistakes")
    assert button.custom_id == "mk:drill:1:0:open"
    drills = []
    for user in (alice, bob):
        opened = await fake.click(user, result, button.custom_id)
        drill = await opened.answer(timeout=60.0)
        assert drill.ephemeral
        assert drill.visible_to == user.id
        drills.append((user, drill))
    counts = [re.match(r"Decision 1 of ([123])\b", d.content) for _, d in drills]
    assert any(counts), "neither player has a costly decision: " + repr(
        [d.content for _, d in drills]
    )
    count, user, drill = max(
        (
            (int(found[1]), user, drill)
            for found, (user, drill) in zip(counts, drills, strict=True)
            if found
        ),
        key=lambda counted: counted[0],
    )
    (picture,) = drill.attachments
    assert picture.filename == "marrakech-drill-1-0.png"
    assert picture.data.startswith(b"\x89PNG")

    last = "Next" if count > 1 else "Done"
    assert [b.label for b in drill.buttons()] == ["Show the better move", "Try again", last]
    if count > 1:
        drill = await press(fake, user, drill, "Next")
        assert drill.content.startswith("Decision 2 of ")
    taken = re.search(r"you chose 1, (.+?), which left you a (\d+)% chance", drill.content)
    assert taken is not None, drill.content
    tried = await press(fake, user, drill, "Try again")
    assert "Pick again among the same options." in tried.content
    answered = await press(fake, user, tried, taken[1])
    judged = answered.content.splitlines()[-1]
    assert re.fullmatch(rf"{re.escape(taken[1])}: {taken[2]}%, {JUDGED_PICK}", judged), judged
    assert len(fake.messages(channel)) == public, "the channel stays quiet"
