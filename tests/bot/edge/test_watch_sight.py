"""Whether a watcher still sees a game's channel is asked of Discord for their direct
messages (bot.edge.sight): a member fetched is trusted for a minute for the turns' messages,
so a busy server's watchers do not spend its bucket of member requests (10 in 10 s), and the
game's end is asked afresh, so one who left the server is never told it."""

from __future__ import annotations

import pytest

from bot.edge.sight import MEMBER_TRUSTED_SECONDS
from tests.bot.edge.test_edge import Edge, confirm, edge, on_the_gateway, started
from tests.bot.edge.test_watch_buttons import play_turn

__all__ = ["edge"]


def member_requests(edge: Edge) -> int:
    """How many times the bot fetched the outsider (the watcher) as a member of the server."""
    return len(edge.fake.requests_to("GET", f"/members/{edge.outsider.id}"))


async def watched_with_messages(edge: Edge) -> None:
    """The outsider watches game 1 and asks for a direct message at each turn."""
    watching = await edge.slash(edge.outsider, "marrakech", "watch", game=1).answer()
    await edge.click(edge.outsider, watching, "Message me each turn").answer()


async def test_a_watcher_told_turn_after_turn_is_fetched_from_discord_once_a_minute(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn = await started(edge)
    await watched_with_messages(edge)
    watchers = edge.bot.watchers
    assert watchers is not None
    now = 1000.0
    watchers._sight.clock = lambda: now
    async with on_the_gateway(edge, monkeypatch):
        for _ in range(3):
            turn = await play_turn(edge, turn)
        assert len(edge.fake.messages(edge.fake.dm_channel(edge.outsider))) == 3, "each told"
        assert member_requests(edge) == 1, "fetched for the first turn's message alone"
        now += MEMBER_TRUSTED_SECONDS
        await play_turn(edge, turn)
        assert member_requests(edge) == 2, "fetched again once the minute is over"


async def test_a_watcher_who_left_the_server_since_the_last_turn_is_not_told_the_end(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within the minute a member fetched is trusted, the game's end still asks afresh."""
    turn = await started(edge)
    await watched_with_messages(edge)
    watchers = edge.bot.watchers
    assert watchers is not None
    watchers._sight.clock = lambda: 1000.0
    dm = edge.fake.dm_channel(edge.outsider)
    async with on_the_gateway(edge, monkeypatch):
        await play_turn(edge, turn)
        assert len(edge.fake.messages(dm)) == 1, "told the turn while a member"
        guild = edge.channel.guild
        assert guild is not None
        edge.fake.remove_member(guild, edge.outsider)
        await (await confirm(edge, edge.host, "marrakech", "abort", button="Abort")).answer()
        await edge.fake.wait_until(lambda: member_requests(edge) == 2, what="the end asked afresh")
        await watchers.idle()
    assert len(edge.fake.messages(dm)) == 1, "not told the end"
    watcher = await watchers._watch._store.get(1, edge.outsider.id)
    assert watcher is None or not watcher.dms, "their messages are off"
