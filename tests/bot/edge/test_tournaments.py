"""Opening a tournament with `/marrakech-mod tournament` (bot/edge/tournaments.py): the turn
limit and variant a moderator leaves out are the server's defaults, as for `/marrakech new`.

Through real discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

from tests.bot.edge.test_edge import Edge, edge
from tests.bot.edge.test_edge_async import admin_and_another_channel

__all__ = ["edge"]


async def test_a_tournament_opened_without_a_turn_limit_gets_the_server_s_default(
    edge: Edge,
) -> None:
    """A limit left out is the server's; 0 chosen is none, as for a game."""
    admin, other = admin_and_another_channel(edge)
    await edge.slash(admin, "marrakech-admin", "turn-limit", limit=3600).answer()
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
    ).answer()
    assert "1 h per turn" in signup.embed_text(), signup.embed_text()
    none = await edge.slash(
        edge.moderator,
        "marrakech-mod",
        "tournament",
        channel=other,
        name="Plate",
        format="swiss",
        turn_limit=0,
    ).answer()
    assert "no turn time limit" in none.embed_text(), none.embed_text()
