"""A spectator through the real bot process and the fake Discord API: Watch on a running game's
message opens a private view with no button that acts on the game; a member of another server
is refused; with direct messages on, the watcher follows the game to its end, each finished
turn told once, the turns that come at once in one message, and nothing of it reaches the
game's channel or pings anyone. Then alice's reliability, from the turns she played, in her
stats and beside her name in her next lobby."""

from __future__ import annotations

import re

import pytest

from tests.e2e.fakecord import FakeDiscord, FakeMessage, permissions
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import is_watch
from tests.e2e.quiet import (
    TURN_LINE,
    confirm,
    final_message,
    human_turn,
    lobby_at_first_turn,
    open_game,
    play_turn_click,
)

pytestmark = pytest.mark.e2e

CLICKS = 20
"""Clicks alice plays before resigning: ten turns (a way to turn Assam, then a rug), enough for
a lobby to say how fast she usually plays."""


def watch_button(message: FakeMessage, action: str) -> str:
    (custom_id,) = [
        b.custom_id
        for b in message.enabled_buttons()
        if b.custom_id is not None and b.custom_id.endswith(f":{action}")
    ]
    return custom_id


def turns_told(dm: FakeMessage) -> list[int]:
    return [int(m["turn_en"]) for m in TURN_LINE.finditer(dm.content) if m["turn_en"]]


async def test_a_watcher_follows_a_game_to_its_end_privately(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "games")
    alice, carol = fake.add_user("alice"), fake.add_user("carol")
    for user in (alice, carol):
        fake.add_member(guild, user)
    elsewhere = fake.add_guild("Bazaar")
    other_channel = fake.add_text_channel(elsewhere, "games")
    dave = fake.add_user("dave")
    fake.add_member(elsewhere, dave)

    lobby = await open_game(fake, channel, alice, (), ("easy",))
    await lobby_at_first_turn(fake, channel, lobby.id)
    shown = fake.world.messages[lobby.id]
    opened = await (await fake.click(carol, shown, watch_button(shown, "watch"))).answer()
    assert opened.ephemeral
    assert opened.visible_to == carol.id
    assert all(is_watch(b.custom_id) for b in opened.enabled_buttons()), "none acts on the game"
    assert "the board now" in opened.embed_text()
    numbered = re.search(r"Game #(\d+)", opened.embed_text())
    assert numbered is not None
    game_id = int(numbered[1])

    refused = await (
        await fake.slash(dave, other_channel, "marrakech", "watch", game=game_id)
    ).answer()
    assert refused.ephemeral
    assert refused.content == f"Game #{game_id} is not a game of this server."

    asked = await (await fake.click(carol, opened, watch_button(opened, "dmon"))).answer()
    assert "direct message at each finished turn" in asked.embed_text()

    for clicks in range(CLICKS):
        current = await fake.wait_until(lambda: human_turn(fake, channel), what="alice's turn")
        await play_turn_click(fake, {alice.id: alice}, current, clicks)
    await fake.wait_until(lambda: human_turn(fake, channel), what="alice's turn")
    await confirm(fake, alice, await fake.slash(alice, channel, "marrakech", "resign"), "resign")
    await fake.wait_until(lambda: final_message(fake, channel), what="the result")

    dm = fake.dm_channel(carol)
    last = await fake.wait_until(
        lambda: next((m for m in fake.messages(dm) if "is over" in m.content), None),
        timeout=30,
        what="the watcher told of the end",
    )
    told = fake.messages(dm)
    assert told[-1].id == last.id
    turns = [turn for message in told for turn in turns_told(message)]
    # told from the turn being played when the messages were asked for, to the last
    assert turns == list(range(turns[0], max(turns) + 1)), "every turn, once, in order"
    assert turns[0] <= 2
    assert len(told) < len(turns), "the turns that came at once came together"
    assert any(len(turns_told(message)) >= 2 for message in told)
    assert all(not message.pinged_user_ids for message in told)

    for message in fake.messages(channel, include_ephemeral=False):
        assert carol.id not in message.pinged_user_ids
        assert f"<@{carol.id}>" not in f"{message.content}\n{message.embed_text()}"
    refreshed = await (await fake.click(carol, asked, watch_button(asked, "refresh"))).answer()
    assert "watching it ended" in refreshed.embed_text()
    assert not refreshed.enabled_buttons()

    stats = await (await fake.slash(carol, channel, "marrakech", "stats", member=alice)).answer(
        timeout=30
    )
    assert (
        "**Reliability**: usually plays within 1 min · 0% of turns ran out · 1 game left "
        "unfinished (1 resigned, 0 left to the AI, 0 substituted away)"
    ) in stats.embed_text()
    lobby = await (await fake.slash(alice, channel, "marrakech", "new", seats=2)).answer()
    assert f"<@{alice.id}> · usually plays within 1 min" in lobby.embed_text()

    # The bot tells a game's watchers one message after another, so anything it did with a
    # watcher's message was done before the next one reached her: by now, with the last one
    # told long ago, no copy of one is in the channel.
    news = {message.content for message in told}
    copied = [m.content for m in fake.messages(channel) if m.content in news]
    assert not copied, "a watcher's message reached the game's channel"


async def test_a_watcher_who_can_no_longer_see_the_channel_is_told_nothing_more(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    """The game's channel is for a role's holders. Watchers who asked for a direct message at
    each turn and then lose sight of the channel (the role taken away, the channel hidden from
    them, the server left) are told no turn after it, nor the end, and one who loses it after
    a turn is not told the end; one who still sees it is told both. Their messages for the
    game are turned off, as their view shows once they see the channel again. One who lost
    sight is refused Refresh, and may still stop watching."""
    guild = fake.add_guild("Souk")
    channel = fake.add_text_channel(guild, "games")
    souk = fake.add_role(guild, "souk")
    (bot_role,) = [role for role in guild.roles.values() if role.managed]
    fake.set_overwrite(channel, guild, deny=permissions.VIEW_CHANNEL)
    for role in (souk, bot_role):
        fake.set_overwrite(channel, role, allow=permissions.VIEW_CHANNEL)
    # zara, the newest, is told last of a game's watchers
    alice, carol, dave, erin, fay, zara = (
        fake.add_user(name) for name in ("alice", "carol", "dave", "erin", "fay", "zara")
    )
    watching = (carol, dave, erin, fay, zara)
    members = {user.id: fake.add_member(guild, user) for user in (alice, *watching)}
    for member in members.values():
        member.role_ids.append(souk.id)

    lobby = await open_game(fake, channel, alice, (), ("easy",))
    await lobby_at_first_turn(fake, channel, lobby.id)
    shown = fake.world.messages[lobby.id]
    views: dict[int, FakeMessage] = {}
    for user in watching:
        opened = await (await fake.click(user, shown, watch_button(shown, "watch"))).answer()
        asked = await (await fake.click(user, opened, watch_button(opened, "dmon"))).answer()
        assert "direct message at each finished turn" in asked.embed_text()
        views[user.id] = asked

    members[carol.id].role_ids.remove(souk.id)
    fake.set_overwrite(channel, dave, deny=permissions.VIEW_CHANNEL)
    fake.remove_member(guild, erin)
    for clicks in range(2):
        current = await fake.wait_until(lambda: human_turn(fake, channel), what="alice's turn")
        await play_turn_click(fake, {alice.id: alice}, current, clicks)
    await fake.wait_until(
        lambda: next(iter(fake.messages(fake.dm_channel(zara))), None),
        timeout=30,
        what="the watcher who still sees the channel told the turn",
    )
    for user in (carol, dave, erin):
        assert not fake.messages(fake.dm_channel(user)), f"{user.name} was told a turn"
    (fay_told,) = fake.messages(fake.dm_channel(fay))
    assert turns_told(fay_told), "told the turn while she could see the channel"

    refreshed = await (
        await fake.click(carol, views[carol.id], watch_button(views[carol.id], "refresh"))
    ).answer()
    assert refreshed.content.endswith("is played in a channel you cannot see.")
    members[carol.id].role_ids.append(souk.id)
    back = await (
        await fake.click(carol, views[carol.id], watch_button(views[carol.id], "refresh"))
    ).answer()
    assert "No message comes to you but this one." in back.embed_text(), "her messages are off"
    stopped = await (
        await fake.click(dave, views[dave.id], watch_button(views[dave.id], "stop"))
    ).answer()
    assert stopped.content.endswith("a channel you cannot see: you no longer watch it.")
    assert not stopped.embeds, "no view of the game's board"

    fake.set_overwrite(channel, fay, deny=permissions.VIEW_CHANNEL)
    await fake.wait_until(lambda: human_turn(fake, channel), what="alice's turn")
    await confirm(fake, alice, await fake.slash(alice, channel, "marrakech", "resign"), "resign")
    await fake.wait_until(
        lambda: next(
            (m for m in fake.messages(fake.dm_channel(zara)) if "is over" in m.content), None
        ),
        timeout=30,
        what="the watcher who still sees the channel told the end",
    )
    for user in (carol, dave, erin):
        assert not fake.messages(fake.dm_channel(user)), f"{user.name} was told the end"
    assert fake.messages(fake.dm_channel(fay)) == [fay_told], "fay was told the end"
