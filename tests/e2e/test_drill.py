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
"""Clicks played before the resignation: six turns each (a way to turn Assam, then a rug)."""
SEED = "a"
"""The dice of the game (the bot's test seed hook). With them, and each click taking the next
pick in turn, Alice makes three decisions the coach did not call good and Bob one: her drill
goes on with Next, his ends with Done. Any other seed plays another game, with other drills."""
DEFERRED_UPDATE_MESSAGE = 6


@pytest.fixture
def bot_env(bot_env: dict[str, str]) -> dict[str, str]:
    return {**bot_env, "MARRAKECH_TEST_SEED": SEED}


JUDGED_PICK = (
    r"(within 5\.0\u00a0points of the best\. Well found\."
    r"|[\d.]+\u00a0points below the best \(.+, \d+%\)\.)"
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
    firsts = [drill.content.splitlines()[0] for _, drill in drills]
    assert [re.sub(r" \(turn \d+\).*", "", line) for line in firsts] == [
        "Decision 1 of 3 in game #1",
        "Decision 1 of 3 in game #1",
    ], firsts
    (_, bobs) = drills[1]
    for step in (2, 3):
        bobs = await press(fake, bob, bobs, "Next")
        assert bobs.content.startswith(f"Decision {step} of 3 "), bobs.content
    assert [b.label for b in bobs.buttons()] == ["Show the better move", "Try again", "Done"]
    done = await press(fake, bob, bobs, "Done")
    assert done.content == "That was your last costly decision of game #1."
    assert not done.buttons()
    (user, drill) = drills[0]
    (picture,) = drill.attachments
    assert picture.filename == "marrakech-drill-1-0.png"
    assert picture.data.startswith(b"\x89PNG")

    assert [b.label for b in drill.buttons()] == ["Show the better move", "Try again", "Next"]
    drill = await press(fake, user, drill, "Next")
    assert drill.content.startswith("Decision 2 of 3 ")
    taken = re.search(r"you chose \d+, (.+?), which left you a (\d+)% chance", drill.content)
    assert taken is not None, drill.content
    tried = await press(fake, user, drill, "Try again")
    assert "Pick again among the same options." in tried.content
    again = next(  # a rug's button carries its number on the picture: "3 · c1-c2"
        b.label
        for b in tried.buttons()
        if b.label is not None and b.label.split(" · ")[-1] == taken[1]
    )
    chosen = re.search(r"you chose (\d+), ", tried.content)
    assert chosen is not None, tried.content
    assert again in (taken[1], f"{chosen[1]} · {taken[1]}"), "named by its number there"
    answered = await press(fake, user, tried, again)
    judged = answered.content.splitlines()[-1]
    assert re.fullmatch(rf"{re.escape(again)}: {taken[2]}%, {JUDGED_PICK}", judged), judged
    assert len(fake.messages(channel)) == public, "the channel stays quiet"
