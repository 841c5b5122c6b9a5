"""A spectator's private buttons do what they say: Stop watching stops, for good (the watch is
stored), and offers Watch again. Through real discord.py interactions on the fake Discord
(tests/bot/edge/test_edge.py)."""

from __future__ import annotations

from tests.bot.edge.test_edge import Edge, edge, started

__all__ = ["edge"]


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
