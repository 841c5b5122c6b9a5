"""A coached game through the real bot process and the fake Discord API: its lobby says it is
coached and never rated, the person to move asks for a Hint and gets it privately, their
decision's click gets a private verdict as its one follow-up, and the result says no rating
changed. The channel never sees the hint or the verdict, checked once the game has ended, so
that a public post made just after the private one shows too."""

from __future__ import annotations

import re

import pytest

from tests.e2e.fakecord import FakeDiscord, FakeMessage
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.quiet import confirm, final_message, human_turn, open_game
from tests.e2e.test_ratings import server

pytestmark = pytest.mark.e2e

TURN = r"(turning Assam \w+|keeping Assam facing \w+)"
VERDICT = re.compile(
    rf"✅ (Best|Good): {TURN}\.|✅ Good: {TURN}, though {TURN} kept [0-9]+\.[0-9]\u00a0points more "
    rf"winning chance\.|⏹️ Decided: every option leaves a [<>]?[0-9]+% chance of winning\.|"
    rf"(⚠️ Inaccuracy|❗ Mistake|❌ Blunder): {TURN} kept [0-9]+\.[0-9]\u00a0points more "
    rf"winning chance than {TURN}\."
)


def button_id(message: FakeMessage, *, hint: bool) -> str:
    """The Hint button's custom_id, or the first choice's."""
    ids = [b.custom_id or "" for b in message.enabled_buttons()]
    return next(i for i in ids if i.endswith(":hint") == hint)


async def test_a_coached_game_with_a_hint_and_a_verdict(fake: FakeDiscord, bot: BotProcess) -> None:
    channel, alice, bob = server(fake)
    users = {alice.id: alice, bob.id: bob}
    lobby = await open_game(fake, channel, alice, (bob,), coach=True)
    assert "coached, never rated" in lobby.embed_text()
    turn = await fake.wait_until(lambda: human_turn(fake, channel), what="the first turn")
    (mover_id,) = turn.pinged_user_ids
    mover = users[mover_id]
    public = len(fake.messages(channel))

    hint = await (await fake.click(mover, turn, button_id(turn, hint=True))).answer(timeout=30)
    assert hint.ephemeral
    assert hint.content.startswith("💡 The coach would go for turning Assam ")
    assert "2 hints left in this game." in hint.content
    assert len(fake.messages(channel)) == public, fake.transcript(channel)

    deciding = await fake.click(mover, turn, button_id(turn, hint=False))
    (verdict,) = await deciding.followups(1, timeout=30)
    assert verdict.ephemeral
    assert VERDICT.fullmatch(verdict.content), verdict.content
    assert len(fake.messages(channel)) == public, fake.transcript(channel)

    handle = await fake.slash(mover, channel, "marrakech", "resign")
    await confirm(fake, mover, handle, "resign")
    result = await fake.wait_until(lambda: final_message(fake, channel), what="the result")
    assert "A coached game: never rated, no rating changed." in result.embed_text()
    # the game has ended since the verdict: whatever the bot did after it is in the channel
    shown = fake.messages(channel)
    told = [m.content for m in shown if verdict.content in m.content or hint.content in m.content]
    assert told == [], fake.transcript(channel)
    followups = [e for e in deciding.events if e.kind == "followup"]
    assert len(followups) == 1, followups
