"""Withdrawing from a running tournament on Discord (bot/edge/tournaments.py): the standings'
Withdraw button asks its player privately, then withdraws them (their game resigned, the
standings marking them); a moderator's `/marrakech-mod tournament-withdraw member:` asks too;
every refusal is a short private answer that changes nothing; the button works from a client
started afresh on the same database.

Through real discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bot.runtime.composition import build_bot
from bot.runtime.health import Heartbeat
from bot.services.tournament_views import TournamentStatus, TournamentView
from bot.services.views import GameStatus
from tests.bot.edge.test_edge import Edge, edge, private
from tests.e2e.fakecord import FakeMessage
from tests.polling import until

__all__ = ["edge"]


async def cup_running(edge: Edge, *players: str) -> FakeMessage:
    """A Swiss tournament, Cup, opened and started by the moderator with the named people of
    the edge, every table of its first round playing: the standings message."""
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
    ).answer()
    for name in players:
        await edge.click(getattr(edge, name), signup, "Join").answer()
    await edge.click(edge.moderator, signup, "Start").answer()

    async def playing() -> bool:
        tables = (await look(edge)).tables
        return bool(tables) and all(t.game_status is GameStatus.RUNNING for t in tables)

    await until(playing, "the first round's games set up and running")
    return edge.fake.world.messages[signup.id]


async def look(edge: Edge) -> TournamentView:
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    return await tournaments._service.look(1)


async def test_a_player_withdraws_with_the_standings_button_once_asked(edge: Edge) -> None:
    """Three players: a moderator who does not play is told so; the guest's Keep changes
    nothing; their Withdraw resigns their game of round 1 and marks them in the standings;
    pressed again, it says they withdrew already."""
    standings = await cup_running(edge, "host", "guest", "outsider")
    stranger = await private(edge.click(edge.moderator, standings, "Withdraw"))
    assert stranger == "You do not play in this tournament.", stranger

    question = await edge.click(edge.guest, standings, "Withdraw").answer()
    assert question.ephemeral
    assert question.content.startswith("Withdraw from **Cup**? You are paired in none"), question
    kept = await edge.click(edge.guest, question, "Keep playing").answer()
    assert kept.content == "Nothing changed: the tournament goes on.", kept.content
    assert all(line.withdrew_after is None for line in (await look(edge)).standings)

    question = await edge.click(edge.guest, standings, "Withdraw").answer()
    done = await edge.click(edge.guest, question, "Withdraw").answer()
    assert done.content == "You withdrew from **Cup** after round 1.", done.content
    view = await look(edge)
    (line,) = [line for line in view.standings if line.user_id == edge.guest.id]
    assert line.withdrew_after == 1
    (table,) = [t for t in view.round_tables(1) if edge.guest.id in t.humans]
    assert table.game_id is not None
    game = await edge.service.play.look(table.game_id)
    assert game.status is GameStatus.OVER, "their 2-seat game ends with their resignation"
    assert table.thread_id is not None
    thread = edge.fake.world.channels[table.thread_id]
    result = await edge.fake.wait_for_message(
        thread, lambda m: any(a.filename.endswith(".json") for a in m.attachments)
    )
    assert f"<@{edge.guest.id}>: out of the game" in result.embed_text(), "the thread shows it"
    await until(
        lambda: (
            f"Withdrew: <@{edge.guest.id}> after round 1"
            in edge.fake.world.messages[standings.id].embed_text()
        ),
        "the standings mark the player who withdrew",
    )
    again = await private(edge.click(edge.guest, standings, "Withdraw"))
    assert again == "You have already withdrawn from this tournament.", again


async def test_a_moderator_withdraws_a_member_once_asked_and_is_told_what_will_not_do(
    edge: Edge,
) -> None:
    """No tournament here, one still signing up (its Leave is named), a bot, a member who does
    not play and a member without Manage Channels are each answered privately; the moderator's
    Withdraw withdraws the guest, a forged click of a member's on it withdraws nobody. With one
    player left the tournament ends after its round: the host wins."""

    nothing = await private(
        edge.slash(edge.moderator, "marrakech-mod", "tournament-withdraw", member=edge.host)
    )
    assert nothing == "There is no tournament in this channel.", nothing
    signup = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament", name="Cup", format="swiss"
    ).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").answer()
    early = await private(
        edge.slash(edge.moderator, "marrakech-mod", "tournament-withdraw", member=edge.host)
    )
    assert early == (
        f"This tournament has not started: <@{edge.host.id}> leaves it with its sign-up's "
        "**Leave** button."
    ), early
    await edge.click(edge.moderator, signup, "Start").answer()
    bot = await private(
        edge.slash(
            edge.moderator, "marrakech-mod", "tournament-withdraw", member=edge.fake.world.bot_user
        )
    )
    assert bot.endswith("is a bot: bots play in no tournament."), bot
    stranger = await private(
        edge.slash(edge.moderator, "marrakech-mod", "tournament-withdraw", member=edge.outsider)
    )
    assert stranger == f"<@{edge.outsider.id}> does not play in this tournament.", stranger
    member = await private(
        edge.command(
            edge.host,
            ("marrakech-mod", "tournament-withdraw"),
            edge.channel,
            {"member": edge.guest},
            validate=False,
        )
    )
    assert member == "Only members with the Manage Channels permission can do that.", member

    question = await edge.slash(
        edge.moderator, "marrakech-mod", "tournament-withdraw", member=edge.guest
    ).answer()
    assert question.ephemeral
    assert question.content.startswith(f"Withdraw <@{edge.guest.id}> from **Cup**?"), question
    forged = await private(edge.click(edge.host, question, "Withdraw"))
    assert forged == "Only members with the Manage Channels permission can do that.", forged
    assert all(line.withdrew_after is None for line in (await look(edge)).standings)
    done = await edge.click(edge.moderator, question, "Withdraw").answer()
    assert done.content == f"<@{edge.guest.id}> is withdrawn from **Cup** after round 1."

    async def over() -> bool:
        return (await look(edge)).status is TournamentStatus.OVER

    await until(over, "the tournament over, one player left")
    assert (await look(edge)).winners == (edge.host.id,)
    await edge.fake.wait_for_message(
        edge.channel, lambda message: f"<@{edge.host.id}> wins **Cup**" in message.content
    )


async def test_the_withdraw_button_works_from_a_client_started_afresh(
    edge: Edge, tmp_path: Path
) -> None:
    """The standings' Withdraw carries all it needs in its id: a client started anew on the same
    database (a restart) asks and withdraws as the first would."""
    standings = await cup_running(edge, "host", "guest", "outsider")
    fresh = build_bot(edge.store.database, heartbeat=Heartbeat(tmp_path / "fresh"))
    await fresh.client.login("fake-token")
    fresh.display._restarted_at = None
    try:
        restarted = dataclasses.replace(
            edge, bot=fresh, client=fresh.client, service=fresh.service, store=fresh.store
        )
        question = await restarted.click(edge.guest, standings, "Withdraw").answer()
        assert question.content.startswith("Withdraw from **Cup**?"), question.content
        done = await restarted.click(edge.guest, question, "Withdraw").answer()
        assert done.content == "You withdrew from **Cup** after round 1.", done.content
    finally:
        await fresh.client.close()
    (line,) = [line for line in (await look(edge)).standings if line.user_id == edge.guest.id]
    assert line.withdrew_after == 1
