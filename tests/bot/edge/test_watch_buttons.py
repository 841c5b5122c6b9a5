"""A spectator's private buttons do what they say, on the private view clicked: Stop watching
stops, for good (the watch is stored), and offers Watch again; Watch on the game's own message
opens a new private view and leaves that message as it was (a slow picture is waited for
privately), and is offered there only while the game runs; the direct messages asked for with
them link the game's current message, wait for the end of the watcher's quiet hours (the
game's end too), bring together the turns that came while one waited on Discord, and go on
after a restart. Through real discord.py interactions on the fake Discord
(tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.edge import direct, display, replies
from bot.edge.inflight import HANDLERS
from bot.edge.watch import WatchMessages
from bot.presentation.links import message_link
from bot.presentation.messages import text
from bot.services.time_rules import QuietHours
from bot.services.views import GameStatus, GameView
from bot.storage.watchers import WatchStore
from tests.bot.edge.test_edge import (
    Edge,
    clock_moving_waits,
    confirm,
    edge,
    lobby_with_guest,
    mover_of,
    on_the_gateway,
    private,
    started,
)
from tests.bot.edge.test_edge_faults import Outage, away, only_the_outage_s_warning
from tests.e2e.fakecord import FakeMessage, permissions
from tests.e2e.fakecord.interactions import DEFERRED_CHANNEL_MESSAGE
from tests.polling import until

__all__ = ["away", "edge"]


async def test_stop_watching_stops_and_offers_to_watch_again(edge: Edge) -> None:
    await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    assert watching.ephemeral
    assert "You watch this game" in watching.embed_text()
    stopped = await edge.click(edge.outsider, watching, "Stop watching").answer()
    assert stopped.ephemeral
    assert "You no longer watch this game." in stopped.embed_text()
    assert [button.label for button in stopped.enabled_buttons()] == ["Watch"]
    watchers = edge.bot.watchers
    assert watchers is not None
    assert await watchers._watch._store.get(1, edge.outsider.id) is None, "the stop is stored"
    again = await edge.click(edge.outsider, stopped, "Watch").answer()
    assert "You watch this game" in again.embed_text()
    assert await watchers._watch._store.get(1, edge.outsider.id) is not None


async def play_turn(edge: Edge, turn: FakeMessage, *, told: bool = True) -> FakeMessage:
    """The player pinged by `turn` plays it with its first button at each step; the next
    turn's message, once the spectators' messages of the turn are sent (or held), or, not
    `told`, once they are under way."""
    mover = await mover_of(edge, turn)
    shown = asyncio.Event()
    edge.bot.display.on_shown(lambda view, message_id: shown.set())  # after the spectators'
    while buttons := edge.fake.world.messages[turn.id].enabled_buttons():
        label = buttons[0].label
        assert label is not None
        await edge.click(mover, edge.fake.world.messages[turn.id], label).answer()
    following = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.id > turn.id and bool(m.pinged_user_ids)
    )
    await asyncio.wait_for(shown.wait(), timeout=30.0)
    watchers = edge.bot.watchers
    assert watchers is not None
    if told:
        await watchers.idle()
    return following


async def test_a_stop_lets_a_watcher_s_message_of_a_turn_claimed_go(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clean stop (SIGTERM) that comes once a watcher's message of a turn is claimed, before
    it is sent, waits for it, as it waits for the handlers still running: the watcher is told
    the turn, which no later message would tell again."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    watchers = edge.bot.watchers
    assert watchers is not None
    watch = watchers._watch
    news = watch.news
    claimed, go, stopping = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def held(view: GameView) -> Any:
        due = await news(view)
        claimed.set()
        await go.wait()
        return due

    waiting = HANDLERS.drained

    async def drained(within: float) -> bool:
        stopping.set()
        return await waiting(within)

    monkeypatch.setattr(watch, "news", held)
    await play_turn(edge, turn, told=False)
    await asyncio.wait_for(claimed.wait(), timeout=30.0)
    monkeypatch.setattr(HANDLERS, "drained", drained)
    closing = asyncio.create_task(edge.client.close())
    await asyncio.wait_for(stopping.wait(), timeout=30.0)  # the stop got to the handlers
    go.set()
    await asyncio.wait_for(closing, timeout=30.0)
    (told,) = edge.fake.messages(edge.fake.dm_channel(edge.outsider))
    assert "**Game #1 · turn 1**" in told.content, told.content


async def test_a_watcher_in_quiet_hours_gets_no_direct_message_until_they_end(
    edge: Edge,
) -> None:
    """The spectators' direct messages wait for the end of the watcher's quiet hours, then
    come together."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    now = edge.service.loader.now().astimezone(UTC)
    quiet = QuietHours.parse(
        (now - timedelta(hours=1)).strftime("%H:%M"),
        (now + timedelta(hours=2)).strftime("%H:%M"),
        "UTC",
    )
    await edge.service.away.set_quiet_hours(edge.outsider.id, quiet)
    dm = edge.fake.dm_channel(edge.outsider)
    turn = await play_turn(edge, turn)
    assert not edge.fake.messages(dm), "quiet hours: no direct message"
    await edge.service.away.set_quiet_hours(edge.outsider.id, None)
    await play_turn(edge, turn)
    (told,) = edge.fake.messages(dm)
    assert "**Game #1 · turn 1**" in told.content, "the turn held comes with the next"
    assert "**Game #1 · turn 2**" in told.content


async def test_a_watcher_away_from_the_server_is_still_told_each_turn(edge: Edge) -> None:
    """Away days stop a player's own clocks; what the person chose to watch still comes
    (Stop watching ends it)."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    assert "You are away" in await private(edge.slash(edge.outsider, "marrakech", "away", days=2))
    await play_turn(edge, turn)
    (told,) = edge.fake.messages(edge.fake.dm_channel(edge.outsider))
    assert "**Game #1 · turn 1**" in told.content, told.content


async def test_a_watcher_s_direct_message_links_the_game_s_current_message(edge: Edge) -> None:
    """The link leads to the message that shows the game now, not to the turn it tells of,
    which the channel has retired to its one line."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    current = await play_turn(edge, turn)
    (told,) = edge.fake.messages(edge.fake.dm_channel(edge.outsider))
    guild = edge.channel.guild
    assert guild is not None
    link = message_link(guild.id, edge.channel.id, current.id)
    assert told.content.splitlines()[0] == f"Game #1, which you watch: {link}", told.content


@pytest.mark.invalid_requests(403)  # Discord refuses a message to closed direct messages
async def test_a_watcher_whose_direct_messages_are_closed_is_sent_none_after_the_first_refusal(
    edge: Edge,
) -> None:
    """Discord refuses each message to closed direct messages, and every refusal counts
    towards its limit of invalid requests: the first turns the watcher's messages for that
    game off, so the turns after it try none, and Refresh shows them off."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    edge.outsider.accepts_dms = False
    refused = len(edge.fake.invalid_requests)
    turn = await play_turn(edge, turn)
    assert len(edge.fake.invalid_requests) == refused + 1, "refused once"
    watchers = edge.bot.watchers
    assert watchers is not None
    watcher = await watchers._watch._store.get(1, edge.outsider.id)
    assert watcher is not None
    assert not watcher.dms, "turned off"
    await play_turn(edge, turn)
    assert len(edge.fake.invalid_requests) == refused + 1, "nothing tried again"
    refreshed = await edge.click(edge.outsider, watching, "Refresh").answer()
    assert "Message me each turn" in [b.label for b in refreshed.enabled_buttons()]


async def test_a_watcher_s_message_lost_to_discord_leaves_their_messages_on(edge: Edge) -> None:
    """Only closed direct messages turn a watcher's messages off: one that Discord loses (a
    503) is logged and not sent again, and the next turn is told."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    dm = edge.fake.dm_channel(edge.outsider)
    lost = edge.fake.faults.server_error("POST", f"/channels/{dm.id}/messages", status=503)
    turn = await play_turn(edge, turn)
    assert lost.hits == 1, "the first message was lost"
    watchers = edge.bot.watchers
    assert watchers is not None
    watcher = await watchers._watch._store.get(1, edge.outsider.id)
    assert watcher is not None
    assert watcher.dms, "still on"
    await play_turn(edge, turn)
    (told,) = edge.fake.messages(dm)
    assert "**Game #1 · turn 2**" in told.content, told.content


async def test_a_watcher_s_message_may_wait_on_discord_longer_than_a_post(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A direct message channel takes 5 messages in 5 s, and discord.py holds a message that
    comes sooner: a watcher's message, claimed already and never sent again, waits for Discord
    up to DM_PATIENCE_SECONDS, not a post's DISCORD_TIMEOUT_SECONDS (cut to nothing here),
    so a watcher of a few fast games loses none of them."""
    monkeypatch.setattr(direct.send_direct, "__defaults__", (0.0,))
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    await play_turn(edge, turn)
    told = [m.content for m in edge.fake.messages(edge.fake.dm_channel(edge.outsider))]
    assert len(told) == 1, told
    assert "**Game #1 · turn 1**" in told[0], told


async def test_turns_that_came_while_a_message_waited_on_discord_come_together_in_the_next(
    edge: Edge,
) -> None:
    """A direct message channel takes 5 messages in 5 s: the turns finished while a watcher's
    message waits on Discord go in the one message after it, not one message each."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    dm = edge.fake.dm_channel(edge.outsider)
    waiting = edge.fake.faults.hang("POST", f"/channels/{dm.id}/messages")
    turn = await play_turn(edge, turn, told=False)
    await waiting.wait_fired()
    turn = await play_turn(edge, turn, told=False)
    await play_turn(edge, turn, told=False)
    edge.fake.faults.release_hangs()
    watchers = edge.bot.watchers
    assert watchers is not None
    await watchers.idle()
    told = [m.content for m in edge.fake.messages(dm)]
    assert len(told) == 2, f"the message that waited, then one more: {told}"
    assert "**Game #1 · turn 1**" in told[0], told
    assert "**Game #1 · turn 2**" not in told[0], told
    assert "**Game #1 · turn 2**" in told[1], told
    assert "**Game #1 · turn 3**" in told[1], told


async def test_a_game_s_end_held_in_quiet_hours_is_told_once_they_end(edge: Edge) -> None:
    """The end comes to a watcher in their quiet hours once those end, without waiting for a
    restart: the game is shown to its watchers again then (here the hours end as the end is
    held)."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    await play_turn(edge, turn)
    watchers = edge.bot.watchers
    assert watchers is not None
    ends = edge.service.loader.now()
    asked: list[int] = []

    async def quiet_until(user_id: int) -> datetime | None:
        asked.append(user_id)
        return ends if len(asked) == 1 else None

    watchers._watch.set_gate(quiet_until)
    dm = edge.fake.dm_channel(edge.outsider)
    await (await confirm(edge, edge.host, "marrakech", "resign", button="Resign")).answer()
    told = await edge.fake.wait_for_message(dm, lambda m: "is over" in m.content)
    assert told.content.splitlines()[-1] == "Game #1 is over; you no longer watch it."
    assert asked == [edge.outsider.id, edge.outsider.id], "held at the end, then told"
    await watchers.idle()
    assert await watchers._watch._store.get(1, edge.outsider.id) is None, "the watch is over"


async def test_a_watcher_s_private_buttons_update_the_view_they_are_on(edge: Edge) -> None:
    """Refresh, the direct messages' switch and Stop redraw the private view clicked rather
    than answer with another one."""
    await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    for label in ("Message me each turn", "Refresh", "Stop watching"):
        clicked = edge.click(edge.outsider, edge.fake.world.messages[watching.id], label)
        assert (await clicked.answer()).id == watching.id, label
    shown = edge.fake.world.messages[watching.id]
    assert "You no longer watch this game." in shown.embed_text()
    assert [button.label for button in shown.enabled_buttons()] == ["Watch"]


async def test_a_game_in_a_channel_the_member_cannot_see_is_not_theirs_to_watch(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/marrakech watch game:` typed in another channel of the server watches the game only
    for a member who can see the game's channel: one denied View Channel there is refused
    privately and watches nothing (no view of its board, no direct message of its turns),
    and their Refresh or Message me each turn on a view opened before is refused alike; a
    member who sees it watches it from anywhere in the server."""
    guild = edge.channel.guild
    assert guild is not None
    lounge = edge.fake.add_text_channel(guild, "lounge")
    viewer, peeker = edge.fake.add_user("viewer"), edge.fake.add_user("peeker")
    for member in (viewer, peeker):
        edge.fake.add_member(guild, member)
    edge.fake.set_overwrite(edge.channel, peeker, deny=permissions.VIEW_CHANNEL)
    await started(edge)
    opened = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    edge.fake.set_overwrite(edge.channel, edge.outsider, deny=permissions.VIEW_CHANNEL)
    watchers = edge.bot.watchers
    assert watchers is not None
    async with on_the_gateway(edge, monkeypatch):
        refused = await edge.slash(peeker, "marrakech", "watch", channel=lounge, game=1).answer()
        assert refused.ephemeral
        assert refused.content == "Game #1 is played in a channel you cannot see."
        assert not refused.embeds, "no view of the game's board"
        for label in ("Refresh", "Message me each turn"):
            again = await edge.click(edge.outsider, opened, label).answer()
            assert again.content == "Game #1 is played in a channel you cannot see.", label
        watching = await edge.slash(viewer, "marrakech", "watch", channel=lounge, game=1).answer()
        assert "You watch this game" in watching.embed_text()
    assert await watchers._watch._store.get(1, peeker.id) is None, "no watch of theirs stored"
    assert await watchers._watch._store.get(1, viewer.id) is not None


async def test_a_watcher_who_lost_sight_of_the_channel_may_still_turn_messages_off_and_stop(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watcher denied View Channel after they asked for a direct message at each turn is
    refused Refresh, but No messages and Stop watching on their view still do what they say,
    told in words: neither shows them the game as it is now."""
    await started(edge)
    opened = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    asked = await edge.click(edge.outsider, opened, "Message me each turn").answer()
    edge.fake.set_overwrite(edge.channel, edge.outsider, deny=permissions.VIEW_CHANNEL)
    watchers = edge.bot.watchers
    assert watchers is not None
    store = watchers._watch._store
    async with on_the_gateway(edge, monkeypatch):
        refused = await edge.click(edge.outsider, asked, "Refresh").answer()
        assert refused.content == "Game #1 is played in a channel you cannot see."
        quiet = await edge.click(edge.outsider, asked, "No messages").answer()
        assert quiet.content == (
            "Game #1 is played in a channel you cannot see: no more messages about it will "
            "come to you."
        )
        assert not quiet.embeds, "no view of the game's board"
        watcher = await store.get(1, edge.outsider.id)
        assert watcher is not None
        assert not watcher.dms, "their messages are off"
        stopped = await edge.click(edge.outsider, asked, "Stop watching").answer()
        assert stopped.content == (
            "Game #1 is played in a channel you cannot see: you no longer watch it."
        )
        assert not stopped.embeds, "no view of the game's board"
    assert await store.get(1, edge.outsider.id) is None, "the stop is stored"


@pytest.mark.parametrize("locale", ["fr", "uk"])
async def test_a_watcher_who_lost_sight_is_told_the_stop_in_their_language(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, locale: str
) -> None:
    guild = edge.channel.guild
    assert guild is not None
    watcher = edge.fake.add_user("watcher", locale=locale)
    edge.fake.add_member(guild, watcher)
    await started(edge)
    opened = await edge.slash(watcher, "marrakech", "watch", game=1).answer()
    edge.fake.set_overwrite(edge.channel, watcher, deny=permissions.VIEW_CHANNEL)
    async with on_the_gateway(edge, monkeypatch):
        stop = text("watch.button.stop", locale)
        stopped = await edge.click(watcher, opened, stop).answer()
    assert stopped.content == text("watch.unseen.stopped", locale, game_id=1)
    assert stopped.content != text("watch.unseen.stopped", "en", game_id=1)


async def test_before_the_cache_knows_the_game_s_channel_only_an_administrator_watches_from_another(
    edge: Edge,
) -> None:
    """In the moments before the client's cache knows the game's channel (the in-process edge
    has no cache), whether a member can see it cannot be told: from another channel, only an
    administrator, who sees every channel, watches the game."""
    guild = edge.channel.guild
    assert guild is not None
    lounge = edge.fake.add_text_channel(guild, "lounge")
    admin = edge.fake.add_user("admin")
    edge.fake.add_member(guild, admin, permissions=permissions.ADMINISTRATOR)
    await started(edge)
    assert edge.client.get_guild(guild.id) is None, "the cache knows the server already"
    refused = edge.slash(edge.outsider, "marrakech", "watch", channel=lounge, game=1)
    assert (await refused.answer()).content == "Game #1 is played in a channel you cannot see."
    watching = await edge.slash(admin, "marrakech", "watch", channel=lounge, game=1).answer()
    assert "You watch this game" in watching.embed_text()


async def test_watch_on_the_game_s_message_opens_a_private_view_and_leaves_that_message_alone(
    edge: Edge,
) -> None:
    """Watch on the game's public message answers with a new private view: drawn over the
    game's message instead, every member would see the spectator's view there, and the
    game's message would lose its link to the game."""
    lobby = await lobby_with_guest(edge)
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))

    def offering_watch() -> FakeMessage | None:
        message = edge.fake.world.messages[lobby.id]
        return message if any(b.label == "Watch" for b in message.enabled_buttons()) else None

    def public() -> list[int]:
        return [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral]

    shown = await edge.fake.wait_until(offering_watch, what="the game's message offering Watch")
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    before = (shown.embed_text(), [b.label for b in shown.buttons()])
    posted = public()
    opened = await edge.click(edge.outsider, shown, "Watch").answer()
    assert opened.ephemeral, "the spectator's view is private"
    assert opened.id != lobby.id, "a new private message, not the game's"
    assert "You watch this game" in opened.embed_text()
    assert await HANDLERS.drained(30.0), "the click's handler is still running"
    after = edge.fake.world.messages[lobby.id]
    assert (after.embed_text(), [b.label for b in after.buttons()]) == before, "as it was"
    assert public() == posted, "no message added to the channel"


async def test_watch_whose_picture_is_slow_thinks_privately(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picture not ready in time, `/marrakech watch` is deferred while it is drawn: the
    bot thinks privately, so the channel never sees who watches."""
    await started(edge)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    posted = [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral]
    monkeypatch.setattr(display, "ANSWER_PATIENCE_SECONDS", 0.0)
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)  # the handler's deferral
    handle = edge.slash(edge.outsider, "marrakech", "watch", game=1)
    opened = await handle.answer()
    assert opened.ephemeral
    assert "You watch this game" in opened.embed_text()
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    callbacks = [event for event in handle.events if event.kind == "callback"]
    assert [event.response_type for event in callbacks] == [DEFERRED_CHANNEL_MESSAGE]
    assert callbacks[0].message is not None
    assert callbacks[0].message.ephemeral, "thinking… shows only to the watcher"
    assert [event.kind for event in handle.events if event.kind == "delete"] == []
    assert [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral] == posted


@pytest.mark.parametrize(
    ("who", "command", "button", "says"),
    [
        ("guest", "resign", "Resign", "The game is over"),
        ("host", "abort", "Abort", "This game was aborted"),
    ],
    ids=["over", "aborted"],
)
async def test_the_game_s_message_offers_watch_only_while_the_game_runs(
    edge: Edge, who: str, command: str, button: str, says: str
) -> None:
    """Once the game is over or stopped, its first message, which now says so, no longer
    carries Watch: a game that is not running cannot be watched (docs/watching.md)."""
    lobby = await lobby_with_guest(edge)
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))

    def labels() -> list[str]:
        return [b.label or "" for b in edge.fake.world.messages[lobby.id].enabled_buttons()]

    await edge.fake.wait_until(lambda: "Watch" in labels(), what="Watch while the game runs")
    user = edge.guest if who == "guest" else edge.host
    await (await confirm(edge, user, "marrakech", command, button=button)).answer()

    def saying_it_ended() -> FakeMessage | None:
        message = edge.fake.world.messages[lobby.id]
        return message if says in message.embed_text() else None

    await edge.fake.wait_until(saying_it_ended, what="the game's message saying it ended")
    assert "Watch" not in labels(), labels()


async def test_a_watcher_is_told_a_game_stopped_before_its_end_and_stops_watching(
    edge: Edge,
) -> None:
    """An aborted game has no result to show, but its end is told to those who watch it with
    messages, and ends their watch as a finished game's does (docs/watching.md)."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    await play_turn(edge, turn)
    dm = edge.fake.dm_channel(edge.outsider)
    told = len(edge.fake.messages(dm))
    await (await confirm(edge, edge.host, "marrakech", "abort", button="Abort")).answer()
    last = await edge.fake.wait_for_message(dm, lambda m: len(edge.fake.messages(dm)) > told)
    assert last.content.splitlines()[-1] == (
        "Game #1 was stopped before its end; you no longer watch it."
    )
    watchers = edge.bot.watchers
    assert watchers is not None
    await watchers.idle()
    assert await watchers._watch._store.get(1, edge.outsider.id) is None, "the watch is over"


async def test_refresh_after_a_game_was_stopped_offers_no_button_and_the_watch_is_over(
    edge: Edge,
) -> None:
    """A watcher without messages refreshes their view after the host aborted the game: the
    view says the game was stopped and offers nothing a stopped game would refuse, and their
    watch ended with the game though they were told nothing."""
    await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    ended = asyncio.Event()

    def shown(view: GameView, message_id: int) -> None:
        if view.status is not GameStatus.RUNNING:
            ended.set()

    edge.bot.display.on_shown(shown)  # after the spectators'
    await (await confirm(edge, edge.host, "marrakech", "abort", button="Abort")).answer()
    await asyncio.wait_for(ended.wait(), timeout=30.0)
    watchers = edge.bot.watchers
    assert watchers is not None
    await watchers.idle()
    refreshed = await edge.click(edge.outsider, watching, "Refresh").answer()
    assert "This game was stopped before its end: watching it ended." in refreshed.embed_text()
    assert [button.label for button in refreshed.enabled_buttons()] == []
    assert await watchers._watch._store.get(1, edge.outsider.id) is None, "the watch is over"
    assert edge.fake.messages(edge.fake.dm_channel(edge.outsider)) == [], "told nothing"


async def a_turn_a_restart_left_untold(edge: Edge) -> tuple[FakeMessage, WatchMessages]:
    """The outsider asks for a message at each turn of game 1; then, as after a start that
    has not read the watched games yet, a turn is shown and not told. The turn message and the
    watchers' controller."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    watchers = edge.bot.watchers
    assert watchers is not None
    watchers._watch._watched.clear()  # as a process just started knows them
    return await play_turn(edge, turn), watchers  # shown, not told: as by a run that stopped


async def test_a_start_learns_the_watched_games_and_tells_their_watchers_what_they_missed(
    edge: Edge,
) -> None:
    """A process that starts knows no watched game until its start reads them: it then tells
    a watcher the turn the last run showed but did not tell, and every turn after; without
    that, every restart would end every watcher's messages."""
    turn, watchers = await a_turn_a_restart_left_untold(edge)
    dm = edge.fake.dm_channel(edge.outsider)
    assert edge.fake.messages(dm) == []
    await edge.bot.before_connect()  # the next start
    await watchers.idle()
    missed = [m.content for m in edge.fake.messages(dm)]
    assert len(missed) == 1, f"the turn missed, told at the start: {missed}"
    assert "**Game #1 · turn 1**" in missed[0], missed
    await play_turn(edge, turn)
    told = [m.content for m in edge.fake.messages(dm)]
    assert len(told) == 2, f"then each turn: {told}"
    assert "**Game #1 · turn 2**" in told[-1], told


@pytest.mark.parametrize("read_cut", ["watched_games", "behind"], ids=["games", "watchers"])
async def test_a_start_s_catch_up_of_the_watchers_an_outage_cuts_off_runs_once_it_is_back(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture, read_cut: str
) -> None:
    """The database is away when a start reads the watched games, or a game's watchers to
    tell: the start goes on, with one INFO line and no warning, and once the database is back
    the watchers are told the turn they missed, and every turn after, with no new start."""
    turn, watchers = await a_turn_a_restart_left_untold(edge)
    dm = edge.fake.dm_channel(edge.outsider)
    away.fail_in(WatchStore, read_cut)
    with caplog.at_level(logging.INFO, logger="bot.edge.watch"):
        away.fail()
        await asyncio.wait_for(watchers.resume(), 5.0)  # as a start: it goes on
        assert edge.fake.messages(dm) == []
        away.end()
        await edge.fake.wait_until(lambda: bool(edge.fake.messages(dm)), what="the turn missed")
    said = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "bot.edge.watch"]
    assert [level for level, _ in said] == [logging.INFO], said
    await play_turn(edge, turn)
    told = [m.content for m in edge.fake.messages(dm)]
    assert len(told) == 2, f"the turn missed, then each turn: {told}"
    assert "**Game #1 · turn 2**" in told[-1], told


async def test_a_start_s_catch_up_of_the_watchers_waiting_for_the_database_ends_with_a_stop(
    edge: Edge, away: Outage
) -> None:
    """A stop during the outage ends the catch-up that waits for the database, before the
    database closes: nothing of it is left running."""
    watchers = edge.bot.watchers
    assert watchers is not None
    away.fail_in(WatchStore, "watched_games")
    away.fail()
    await watchers.resume()
    assert watchers._outages, "the catch-up waits for the database"
    await watchers.stop()
    assert not watchers._outages


async def test_a_start_whose_read_of_the_watched_games_fails_goes_on_with_one_warning(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Learning the watched games is a courtesy: whatever makes it fail, the start goes on,
    and the log says why in one WARNING line without a traceback."""
    watchers = edge.bot.watchers
    assert watchers is not None

    async def broken(self: WatchStore) -> list[tuple[int, bool]]:
        raise RuntimeError("a bug reading the watched games")

    monkeypatch.setattr(WatchStore, "watched_games", broken)
    with caplog.at_level(logging.INFO, logger="bot.edge.watch"):
        await watchers.learn()
    said = [r for r in caplog.records if r.name == "bot.edge.watch"]
    assert [(r.levelno, r.getMessage()) for r in said] == [
        (
            logging.WARNING,
            "the watched games were not read (RuntimeError('a bug reading the watched games'))",
        )
    ]
    assert all(r.exc_info is None for r in said), "no traceback"


async def test_a_turn_s_watcher_messages_an_outage_cuts_off_go_once_it_is_back_unlogged(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The database goes away as a shown turn's watchers are read: the log says nothing of
    the game (the outage's own lines say the database was away), a stop meanwhile would not
    wait for the messages (it ends their wait), and once the database is back the watcher is
    told the turn, without waiting for the game's next turn."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    watchers = edge.bot.watchers
    assert watchers is not None
    dm = edge.fake.dm_channel(edge.outsider)
    away.fail_in(WatchStore, "behind")
    with caplog.at_level(logging.INFO, logger="bot.edge.watch"):
        away.fail()
        await play_turn(edge, turn, told=False)
        await until(lambda: not edge.store.database.availability.up, "the outage")
        assert edge.fake.messages(dm) == []
        await until(lambda: bool(watchers._outages), "the messages waiting for the database")
        assert await HANDLERS.drained(5.0), "a message waiting for the database holds no stop"
        away.end()
        await edge.fake.wait_until(lambda: bool(edge.fake.messages(dm)), what="the turn told")
        await watchers.idle()
    only_the_outage_s_warning(caplog)
    told = [m.content for m in edge.fake.messages(dm)]
    assert len(told) == 1, f"the turn, told once: {told}"
    assert "**Game #1 · turn 1**" in told[0], told


async def test_a_turn_s_watcher_messages_waiting_for_the_database_end_with_a_stop(
    edge: Edge, away: Outage
) -> None:
    """A stop during the outage ends the watchers' messages that wait for the database,
    before the database closes: nothing of them is left running."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()
    watchers = edge.bot.watchers
    assert watchers is not None
    away.fail_in(WatchStore, "behind")
    away.fail()
    await play_turn(edge, turn, told=False)
    await until(lambda: bool(watchers._outages), "the messages waiting for the database")
    await watchers.stop()
    await asyncio.wait_for(watchers.idle(), 5.0)
    assert not watchers._outages


@pytest.mark.parametrize("messages", [True, False], ids=["messages", "no messages"])
async def test_a_start_tells_the_watchers_a_stop_the_last_run_never_showed_and_ends_the_watch(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, messages: bool
) -> None:
    """The last run aborted the game and was killed before it showed the abort. The next
    start knows no watched game until it reads them, which it does before its catch-up shows
    the abort: a watcher with messages is told the game was stopped, and the watch ends, a
    watcher without messages's too (told nothing)."""
    turn = await started(edge)
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    if messages:
        await edge.click(edge.outsider, watching, "Message me each turn").answer()
    await play_turn(edge, turn)
    dm = edge.fake.dm_channel(edge.outsider)
    told = [m.content for m in edge.fake.messages(dm)]
    assert len(told) == int(messages)
    await edge.service.play.abort(1, edge.host.id)  # committed, shown by nothing
    watchers = edge.bot.watchers
    assert watchers is not None
    watchers._watch._watched.clear()  # as a process just started knows them
    watchers._watch._kept.clear()
    clock_moving_waits(edge, monkeypatch)  # the start's wait for the channel's window
    await edge.bot.before_connect()  # the next start
    await watchers.idle()
    now = [m.content for m in edge.fake.messages(dm)]
    if messages:
        assert len(now) == 2, now
        assert now[-1].splitlines()[-1] == (
            "Game #1 was stopped before its end; you no longer watch it."
        )
    else:
        assert now == [], "told nothing"
    assert await watchers._watch._store.get(1, edge.outsider.id) is None, "the watch is over"


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en-US", "There is no game #99 here."),
        ("fr", "Il n'y a pas de partie n° 99 ici."),
        ("uk", "Тут немає гри №99."),
    ],
)
async def test_watching_a_game_number_never_used_names_the_number(
    edge: Edge, locale: str, said: str
) -> None:
    """A number no game of this server has (a typo): the member is told, privately, in their
    language, which number has no game here, not that some game has gone."""
    await started(edge)
    edge.outsider.locale = locale
    assert await private(edge.slash(edge.outsider, "marrakech", "watch", game=99)) == said


async def outsider_watches(edge: Edge) -> bool:
    """Whether a watch of game 1 by the outsider is stored."""
    watchers = edge.bot.watchers
    assert watchers is not None
    return await watchers._watch._store.get(1, edge.outsider.id) is not None


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en-US", "Game #1 is over: `/marrakech replay game:1` shows how it went."),
        ("fr", "La partie n° 1 est finie : `/marrakech revoir partie:1` montre son déroulement."),
        ("uk", "Гра №1 завершилася: `/марракеш повтор гра:1` показує, як вона йшла."),  # noqa: RUF001
    ],
)
async def test_watching_a_finished_game_points_to_its_replay_and_watches_nothing(
    edge: Edge, locale: str, said: str
) -> None:
    """`/marrakech watch` of a game played to its end: privately, in the member's language,
    the command that shows it; no watch is stored."""
    await started(edge)
    await (await confirm(edge, edge.guest, "marrakech", "resign", button="Resign")).answer()
    edge.outsider.locale = locale
    assert await private(edge.slash(edge.outsider, "marrakech", "watch", game=1)) == said
    assert not await outsider_watches(edge)


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en-US", "Game #1 was stopped before its end: there is nothing to watch or replay."),
        (
            "fr",
            "La partie n° 1 a été arrêtée avant sa fin : il n'y a rien à suivre ni à revoir.",
        ),
        ("uk", "Гру №1 зупинено до її кінця: немає чого дивитися чи переглядати."),
    ],
)
async def test_watching_a_stopped_game_says_it_was_stopped_and_watches_nothing(
    edge: Edge, locale: str, said: str
) -> None:
    await started(edge)
    await (await confirm(edge, edge.host, "marrakech", "abort", button="Abort")).answer()
    edge.outsider.locale = locale
    assert await private(edge.slash(edge.outsider, "marrakech", "watch", game=1)) == said
    assert not await outsider_watches(edge)


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        (
            "en-US",
            (
                "Game #1 has not started yet: join it with its Join button, or watch it once"
                " it has started."
            ),
        ),
        (
            "fr",
            (
                "La partie n° 1 n'a pas encore commencé : rejoignez-la avec son bouton"
                " Rejoindre, ou suivez-la une fois commencée."
            ),
        ),
        (
            "uk",
            (
                "Гра №1 ще не почалася: приєднайтеся кнопкою «Приєднатися» або стежте за"  # noqa: RUF001
                " нею, коли вона почнеться."
            ),
        ),
    ],
)
async def test_watching_a_game_still_in_its_lobby_says_how_to_join_and_watches_nothing(
    edge: Edge, locale: str, said: str
) -> None:
    await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
    edge.outsider.locale = locale
    assert await private(edge.slash(edge.outsider, "marrakech", "watch", game=1)) == said
    assert not await outsider_watches(edge)


@pytest.mark.parametrize(
    ("locale", "said"),
    [
        ("en-US", "Game #1 is still being played: `/marrakech watch game:1` follows it."),
        ("fr", "La partie n° 1 est encore en cours : `/marrakech regarder partie:1` la suit."),
        ("uk", "Гра №1 ще триває: `/марракеш спостерігати гра:1` стежить за нею."),  # noqa: RUF001
    ],
)
async def test_replaying_a_game_still_played_points_to_watching_it_and_posts_nothing(
    edge: Edge, locale: str, said: str
) -> None:
    await started(edge)
    posted = [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral]
    edge.outsider.locale = locale
    assert await private(edge.slash(edge.outsider, "marrakech", "replay", game=1)) == said
    assert [m.id for m in edge.fake.messages(edge.channel) if not m.ephemeral] == posted
