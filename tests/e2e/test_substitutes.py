"""A substitute and a nudge through the real bot process and the fake Discord API: a
moderator hands over the seat of the player to move while their turn is under way, the
substitute plays the seat's next decision on the turn message that called that player, the game
ends and its result rates the person who left (as resigned when they left) and not the
substitute, whose stats show the game as finished for someone; a nudge pings the player the
game waits for, in the channel, and its refusals (yourself, too soon, someone already in the
game as a substitute) are short private answers; a host's request to hand a seat over waits
for the others' buttons across a restart, and one refusal cancels it."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from tests.e2e.fakecord import FakeDiscord
from tests.e2e.fakecord import permissions as fake_permissions
from tests.e2e.fakecord.interactions import DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import offers_decision_at, pick
from tests.e2e.quiet import confirm, final_message, human_turn, open_game, play_turn_click

pytestmark = pytest.mark.e2e

MINUS = "\u2212"
NUDGE_SECONDS = 4 * 3600
"""A game can be nudged once every 4 hours (docs/async.md#nudges)."""


COMMANDS = ("marrakech", "marrakech-mod")


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


async def test_a_substitute_mid_game_then_the_result_and_a_nudge(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "week-long")
    alice, bob, carol, dave, erin = (
        fake.add_user(name) for name in ("alice", "bob", "carol", "dave", "erin")
    )
    mod = fake.add_user("mod")
    for user in (alice, bob, carol, dave, erin):
        fake.add_member(guild, user)
    fake.add_member(guild, mod, permissions=fake_permissions.MANAGE_CHANNELS)
    users = {user.id: user for user in (alice, bob, carol, dave)}
    await open_game(fake, channel, alice, (bob, carol))

    # A nudge pings the player the game waits for; the next is refused until 4 h have passed.
    turn = await fake.wait_until(lambda: human_turn(fake, channel), what="the first turn")
    (mover,) = turn.pinged_user_ids
    waiting = [user for user in (alice, bob, carol) if user.id != mover]
    yourself = await (await fake.slash(users[mover], channel, "marrakech", "nudge")).answer()
    assert yourself.ephemeral
    assert "no need to nudge yourself" in yourself.content
    nudged = await (await fake.slash(waiting[0], channel, "marrakech", "nudge")).answer()
    assert not nudged.ephemeral
    assert nudged.pinged_user_ids == {mover}, "the nudge pings in the channel"
    assert f"<@{mover}>, game #1 is waiting for you" in nudged.content
    again = await (await fake.slash(waiting[1], channel, "marrakech", "nudge")).answer()
    assert again.ephemeral
    possible = re.search(r"the next nudge is possible <t:(\d+):", again.content)
    assert possible is not None, again.content
    nudged_at = datetime.fromisoformat(nudged.timestamp).timestamp()
    assert abs(int(possible.group(1)) - (nudged_at + NUDGE_SECONDS)) < 60, again.content

    # The host asks to hand Carol's seat to Erin; the request outlives a restart, only the
    # player it waits for agrees (Carol, leaving, is called too: she may refuse), and Bob's
    # refusal cancels it.
    asked = await (
        await fake.slash(alice, channel, "marrakech", "substitute", out=carol, options={"in": erin})
    ).answer()
    assert not asked.ephemeral
    assert asked.pinged_user_ids == {bob.id, carol.id}, "whom it waits for, and who leaves"
    assert f"one refusal, <@{carol.id}>'s too, cancels it" in asked.content
    agree, refuse = (button.custom_id for button in asked.enabled_buttons())
    assert agree is not None
    assert refuse is not None
    await bot.restart(fake, commands=COMMANDS, sync=False)
    not_asked = await (await fake.click(carol, asked, agree)).answer()
    assert not_asked.ephemeral
    assert "does not wait for your answer" in not_asked.content
    await (await fake.click(bob, asked, refuse)).response()
    refused_request = fake.world.messages[asked.id]
    assert f"<@{bob.id}> refused" in refused_request.content
    assert refused_request.enabled_buttons() == []

    # The first turn is still under way: its player's seat goes to Dave, who plays it from
    # its next decision (the turn message that called that player before the hand-over is now
    # Dave's to click), and the seat's next turn calls Dave, not them.
    out = users[mover]
    handed = await (
        await fake.slash(mod, channel, "marrakech-mod", "substitute", out=out, options={"in": dave})
    ).answer()
    assert not handed.ephemeral
    assert f"<@{dave.id}> takes over <@{out.id}>'s seat" in handed.content
    assert handed.pinged_user_ids == {dave.id}
    refused = await (
        await fake.slash(
            mod, channel, "marrakech-mod", "substitute", out=waiting[0], options={"in": dave}
        )
    ).answer()
    assert refused.ephemeral
    assert "in this game already" in refused.content
    seat_players = {**users, out.id: dave}
    for clicks in range(40):
        current = await fake.wait_until(lambda: human_turn(fake, channel), what="a turn")
        called, content = current.pinged_user_ids, current.content
        if clicks == 0:
            assert current.id == turn.id, "the first click is on the turn under way"
            assert called == {out.id}
        await play_turn_click(fake, seat_players, current, clicks)
        if called & {out.id, dave.id} and current.id > handed.id:
            break
    else:
        raise AssertionError("Dave's seat never came to play a turn posted after the hand-over")
    assert called == {dave.id}, content
    assert fake.world.messages[nudged.id].deleted, "the nudge goes once its turn is over"

    # The two others resign: the seat Dave finishes wins; the person who left it is rated as
    # out first.
    for user in waiting:
        if final_message(fake, channel) is None:
            await confirm(
                fake, user, await fake.slash(user, channel, "marrakech", "resign"), "resign"
            )
    result = await fake.wait_until(lambda: final_message(fake, channel), what="the result")
    text = result.embed_text()
    (out_rating,) = [line for line in text.splitlines() if line.startswith(f"<@{out.id}> 1,")]
    assert f"({MINUS}" in out_rating, text
    rated = text.splitlines()[text.splitlines().index("**Ratings**") + 1 :][:3]
    assert rated[-1] == out_rating, "rated as out first: last of the ratings, not first"
    assert not [line for line in text.splitlines() if line.startswith(f"<@{dave.id}> 1,")], text
    stats = await (await fake.slash(dave, channel, "marrakech", "stats")).answer(timeout=30)
    assert f"Finished for someone: game #1 for <@{out.id}>, place 1" in stats.embed_text()
    own = f"<@{dave.id}> has not played a game of their own in this server yet."
    assert own in stats.embed_text(), "not 'has not finished a game' above the one they finished"
    out_stats = await (await fake.slash(out, channel, "marrakech", "stats")).answer(timeout=30)
    assert "Games played: **1** · wins: **0**" in out_stats.embed_text()


async def test_a_redraw_held_up_past_a_move_never_leaves_the_old_decision_shown(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    """A hand-over redraws the turn's message in the background. Held up on its way to Discord
    (a slow picture, a rate limit) while the player to move clicks, it lands after the click's
    own answer: the message must end showing the decision the game is at, never the one before
    it with buttons no click can use."""
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "week-long")
    alice, bob, carol, dave = (fake.add_user(name) for name in ("alice", "bob", "carol", "dave"))
    mod = fake.add_user("mod")
    for user in (alice, bob, carol, dave):
        fake.add_member(guild, user)
    fake.add_member(guild, mod, permissions=fake_permissions.MANAGE_CHANNELS)
    users = {user.id: user for user in (alice, bob, carol)}
    await open_game(fake, channel, alice, (bob, carol))
    current = await fake.wait_until(lambda: human_turn(fake, channel), what="the first turn")
    (mover,) = current.pinged_user_ids
    out = next(user for user in (alice, bob, carol) if user.id != mover)

    # The bot edits a recent message through the interaction that posted it.
    held = fake.faults.hang("PATCH", f"/webhooks/{{app}}/{{token}}/messages/{current.id}")
    handed = await (
        await fake.slash(mod, channel, "marrakech-mod", "substitute", out=out, options={"in": dave})
    ).answer()
    assert f"<@{dave.id}> takes over <@{out.id}>'s seat" in handed.content
    await held.wait_fired()  # the redraw's edit waits on its way
    chosen = pick(current, 0)
    clicked = await fake.click(users[mover], current, chosen.custom_id)
    assert (await clicked.response()).response_type in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE)

    def shows_the_game_now() -> bool:
        return not offers_decision_at(fake.world.messages[current.id], chosen.seq)

    await fake.wait_until(shows_the_game_now, what=f"the answer to {chosen.custom_id}")
    answered_edits = fake.world.messages[current.id].edit_count
    fake.faults.release_hangs()
    await fake.wait_until(
        lambda: fake.world.messages[current.id].edit_count > answered_edits,
        what="the held redraw landing",
    )
    await fake.wait_until(
        shows_the_game_now, what=f"the message to leave the decision of {chosen.custom_id}"
    )
