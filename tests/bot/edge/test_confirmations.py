"""`/marrakech resign`, `/marrakech abort` and `/marrakech-mod abort` ask first, privately: a
danger button that goes ahead and "Keep playing". Nothing happens before the click; the click
checks again, so a confirmation that outlived its game gets the usual short refusal.

Through real discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.edge.inflight import HANDLERS
from bot.storage import GameStatus
from tests.bot.edge.test_edge import (
    Edge,
    confirm,
    lobby_with_guest,
    only_private_answer,
    private,
    running_edge,
    started,
)
from tests.e2e.fakecord import FakeMessage, FakeUser, permissions
from tests.e2e.fakecord.interaction_payloads import component_data
from tests.e2e.fakecord.interactions import MESSAGE_COMPONENT, InteractionHandle

DANGER = 4
SECONDARY = 2


@pytest.fixture
async def edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Edge]:
    async with running_edge(tmp_path, monkeypatch) as running:
        yield running


async def three_players(edge: Edge, **options: Any) -> FakeMessage:
    """A started game of host, guest and outsider (with the other `options` of
    `/marrakech new`); its first turn message."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=3, **options).answer()
    for user in (edge.guest, edge.outsider):
        await edge.click(user, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    return await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))


async def status(edge: Edge, game_id: int = 1) -> GameStatus:
    game = await edge.store.get(game_id)
    assert game is not None
    return game.status


def channel_messages(edge: Edge) -> int:
    return len(edge.fake.messages(edge.channel))


async def handlers_returned() -> None:
    """Wait until every interaction handler has returned: what a handler would still do after
    its answer is done before a test checks that nothing changed."""
    assert await HANDLERS.drained(30.0), "a handler is still running"


async def test_resign_asks_privately_and_nothing_happens_before_the_click(edge: Edge) -> None:
    await started(edge)
    posted = channel_messages(edge)
    seq = (await edge.service.play.look(1)).seq
    question = await edge.slash(edge.guest, "marrakech", "resign").answer()
    assert question.ephemeral
    assert question.content.startswith("Resign from game #1?")
    buttons = question.buttons()
    assert [(b.label, b.style) for b in buttons] == [
        ("Resign", DANGER),
        ("Keep playing", SECONDARY),
    ]
    assert [b.custom_id for b in buttons] == ["mk:confirm:1:resign", "mk:confirm:1:keep"]
    await handlers_returned()
    assert await status(edge) is GameStatus.RUNNING
    assert (await edge.service.play.look(1)).seq == seq
    assert channel_messages(edge) == posted, "the question is for the asker alone"


async def test_keep_playing_changes_nothing(edge: Edge) -> None:
    turn = await started(edge)
    seq = (await edge.service.play.look(1)).seq
    kept = await confirm(edge, edge.guest, "marrakech", "resign", button="Keep playing")
    answer = await kept.answer()
    assert answer.ephemeral
    assert answer.content == "Nothing changed: game #1 goes on."
    assert not answer.buttons(), "the question is closed"
    await handlers_returned()
    assert not [e for e in kept.events if e.kind == "followup"], "the channel is told nothing"
    assert await status(edge) is GameStatus.RUNNING
    assert (await edge.service.play.look(1)).seq == seq
    assert edge.fake.world.messages[turn.id].enabled_buttons(), "the turn goes on"


async def test_keep_playing_on_the_question_to_cancel_a_lobby_keeps_it_open(edge: Edge) -> None:
    """A lobby is a game still open: Keep playing says nothing changed, and the lobby still
    seats the same people and takes its buttons."""
    lobby = await lobby_with_guest(edge)
    await handlers_returned()
    shown = edge.fake.world.messages[lobby.id].to_payload()
    kept = await confirm(edge, edge.host, "marrakech", "abort", button="Keep playing")
    assert await only_private_answer(kept) == "Nothing changed: game #1 goes on."
    assert not (await kept.answer()).buttons(), "the question is closed"
    assert await status(edge) is GameStatus.LOBBY
    view = await edge.service.play.look(1)
    assert [player.user_id for player in view.players] == [edge.host.id, edge.guest.id]
    assert edge.fake.world.messages[lobby.id].to_payload() == shown, "the lobby is as it was"


async def test_confirmed_resignation_is_done_and_told_once_in_the_channel(edge: Edge) -> None:
    turn = await three_players(edge)
    (mover_id,) = turn.pinged_user_ids
    quitter = next(u for u in (edge.host, edge.guest, edge.outsider) if u.id != mover_id)
    resigned = await confirm(edge, quitter, "marrakech", "resign", button="Resign")
    done = await resigned.answer()
    assert done.ephemeral
    assert done.content == "You resigned from game #1."
    assert not done.buttons()
    told = f"<@{quitter.id}> resigned; their rugs on the board are neutral now."
    await edge.fake.wait_until(
        lambda: told in edge.fake.world.messages[turn.id].embed_text(),
        what="the turn being played telling the resignation",
    )
    await handlers_returned()
    said = [m for m in edge.fake.messages(edge.channel) if "resigned" in m.content + m.embed_text()]
    assert [m.id for m in said] == [turn.id], "told once, by the turn's own message"
    view = await edge.service.play.look(1)
    assert view.state is not None
    seat = view.seat_of(quitter.id)
    assert seat is not None
    assert view.state.is_eliminated(seat)
    assert await status(edge) is GameStatus.RUNNING, "two players are still in"


async def test_a_confirmation_for_a_seat_already_given_up_is_refused(edge: Edge) -> None:
    turn = await three_players(edge)
    (mover_id,) = turn.pinged_user_ids
    quitter = next(u for u in (edge.host, edge.guest, edge.outsider) if u.id != mover_id)
    first = await edge.slash(quitter, "marrakech", "resign").answer()
    second = await edge.slash(quitter, "marrakech", "resign").answer()
    await edge.click(quitter, first, "Resign").answer()
    seq = (await edge.service.play.look(1)).seq
    stale = await edge.click(quitter, second, "Resign").answer()
    assert stale.ephemeral
    assert stale.content == "You are not playing in this game."
    assert not stale.buttons()
    assert (await edge.service.play.look(1)).seq == seq, "resigned once only"
    assert "not playing" in await private(edge.slash(quitter, "marrakech", "resign"))


async def test_a_resignation_is_refused_once_the_bot_may_no_longer_post_there(edge: Edge) -> None:
    """The click checks the channel again: a resignation the channel could not be told of is
    not made."""
    await started(edge)
    question = await edge.slash(edge.guest, "marrakech", "resign").answer()
    edge.fake.deny_bot(edge.channel, permissions.ATTACH_FILES)
    refused = await edge.click(edge.guest, question, "Resign").answer()
    assert "Attach Files" in refused.content
    assert await status(edge) is GameStatus.RUNNING
    assert edge.guest.id in [
        p.user_id for p in (await edge.service.play.look(1)).players if not p.resigned
    ]


async def test_a_confirmation_that_outlived_its_game_is_refused(edge: Edge) -> None:
    await started(edge)
    resign = await edge.slash(edge.guest, "marrakech", "resign").answer()
    abort = await edge.slash(edge.host, "marrakech", "abort").answer()
    await (await confirm(edge, edge.host, "marrakech", "abort", button="Abort")).answer()
    assert await status(edge) is GameStatus.ABORTED
    late = await edge.click(edge.guest, resign, "Resign").answer()
    assert late.content == "This game is not running."
    assert late.id == resign.id, "the refusal takes the question's place"
    assert not late.buttons()

    # A new game in the same channel: the old question names game 1, not this one.
    await lobby_with_guest(edge)
    assert await status(edge, 2) is GameStatus.LOBBY
    refused = await edge.click(edge.host, abort, "Abort").answer()
    assert refused.content == "This game is not running."
    assert await status(edge, 2) is GameStatus.LOBBY


async def test_the_host_aborts_a_lobby_after_confirming(edge: Edge) -> None:
    """Ending a lobby by command is cancelling it, as its Cancel button does: the question and
    the answer say so, and the lobby's own message tells the channel (no second notice that
    calls it aborted)."""
    lobby = await lobby_with_guest(edge)
    assert "Only the host" in await private(edge.slash(edge.guest, "marrakech", "abort"))
    question = await edge.slash(edge.host, "marrakech", "abort").answer()
    assert question.content == "Cancel the lobby of game #1? Nobody has played yet."
    public = len(edge.fake.messages(edge.channel))
    aborting = await confirm(edge, edge.host, "marrakech", "abort", button="Abort")
    assert (await aborting.answer()).content == "The lobby of game #1 is cancelled."
    assert await status(edge) is GameStatus.ABORTED
    await edge.fake.wait_until(
        lambda: not edge.fake.world.messages[lobby.id].enabled_buttons(), what="lobby closed"
    )
    shown = edge.fake.world.messages[lobby.id]
    assert f"This lobby was cancelled by <@{edge.host.id}>." in shown.embed_text()
    await edge.bot.display.show_end(await edge.service.play.look(1))  # a catch-up: no notice
    assert len(edge.fake.messages(edge.channel)) == public, "no notice besides the lobby's"


async def test_the_moderator_s_click_is_checked_again(edge: Edge) -> None:
    """A moderator's question clicked by someone without Manage Channels (a forged payload:
    Discord shows an ephemeral message to its asker alone) is refused. The moderator's own
    click aborts the game, and its first message names the moderator, not the host."""
    await started(edge)
    question = await edge.slash(edge.moderator, "marrakech-mod", "abort").answer()
    assert question.content.startswith("Abort game #1?")
    abort = question.button(label="Abort").custom_id
    assert abort == "mk:confirm:1:modabort"
    forged = await click_as(edge, edge.outsider, question, abort).answer()
    assert "Manage Channels" in forged.content
    assert await status(edge) is GameStatus.RUNNING
    asked = await edge.slash(edge.moderator, "marrakech-mod", "abort").answer()
    done = await edge.click(edge.moderator, asked, "Abort").answer()
    assert done.content == "Game #1 is aborted."
    game = await edge.store.get(1)
    assert game is not None
    assert (game.status, game.ended_by) == (GameStatus.ABORTED, edge.moderator.id)
    assert game.lobby_message_id is not None
    lobby_id = game.lobby_message_id
    aborted_by = f"This game was aborted by <@{edge.moderator.id}>."
    await edge.fake.wait_until(
        lambda: aborted_by in edge.fake.world.messages[lobby_id].embed_text(),
        what="the game's first message naming the moderator",
    )


def click_as(edge: Edge, user: FakeUser, message: FakeMessage, custom_id: str) -> InteractionHandle:
    data = component_data(edge.fake.world.messages[message.id], custom_id, None, validate=False)
    return edge.dispatch(
        edge.fake.interaction_from_payload(
            MESSAGE_COMPONENT, user, edge.channel, data, message=message
        )
    )


async def test_refusals_come_before_any_question(edge: Edge) -> None:
    assert "no Marrakech game" in await private(edge.slash(edge.guest, "marrakech", "resign"))
    await lobby_with_guest(edge)
    refused = await edge.slash(edge.guest, "marrakech", "resign").answer()
    assert refused.content == (
        "This game has not started yet: to leave it, use `/marrakech leave`."
    )
    assert not refused.buttons()
    lobby = edge.fake.latest_with_components(edge.channel)
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    for user, command in ((edge.outsider, "resign"), (edge.guest, "abort")):
        answer = await edge.slash(user, "marrakech", command).answer()
        assert answer.ephemeral
        assert not answer.buttons(), answer.content


async def test_a_host_who_resigned_is_refused_the_abort_and_a_moderator_is_shown_theirs(
    edge: Edge,
) -> None:
    """A host out of the game cannot end it (that would wipe their loss); a moderator trying
    the players' command is pointed to theirs."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.outsider, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    await (await confirm(edge, edge.host, "marrakech", "resign", button="Resign")).answer()
    refused = await private(edge.slash(edge.host, "marrakech", "abort"))
    assert refused == (
        "You are out of this game, so you can no longer end it early (that would rate no one, "
        "your loss included). A moderator can: `/marrakech-mod abort`."
    )
    assert await status(edge) is GameStatus.RUNNING
    pointed = await private(edge.slash(edge.moderator, "marrakech", "abort"))
    assert pointed == "Only the host can abort this game. Moderators: `/marrakech-mod abort`."


async def test_a_host_who_resigned_while_their_abort_question_waited_is_refused_by_it(
    edge: Edge,
) -> None:
    """The click checks the host again as the host, not with a moderator's rights: a host who
    asked to abort, then resigned, cannot end the game with the old question (that would wipe
    their loss, as asking again would)."""
    await three_players(edge)
    asked = await edge.slash(edge.host, "marrakech", "abort").answer()
    assert asked.button(label="Abort") is not None
    await (await confirm(edge, edge.host, "marrakech", "resign", button="Resign")).answer()
    refused = await edge.click(edge.host, asked, "Abort").answer()
    assert refused.content.startswith("You are out of this game"), refused.content
    assert not refused.buttons()
    assert await status(edge) is GameStatus.RUNNING


async def test_keep_playing_on_a_question_that_outlived_its_game_says_it_is_over(
    edge: Edge,
) -> None:
    """A moderator ended the game while the host's question waited: Keep playing must not say
    the game goes on."""
    await started(edge)
    asked = await edge.slash(edge.host, "marrakech", "abort").answer()
    await (await confirm(edge, edge.moderator, "marrakech-mod", "abort", button="Abort")).answer()
    assert await status(edge) is GameStatus.ABORTED
    kept = await edge.click(edge.host, asked, "Keep playing").answer()
    assert kept.content == "This game is not running."
    assert kept.id == asked.id
    assert not kept.buttons()


@pytest.mark.parametrize(
    ("who", "locale", "said"),
    [
        ("host", "en-US", "This game has not started yet: to cancel it, use `/marrakech abort`."),
        (
            "host",
            "fr",
            "Cette partie n'a pas encore commencé : pour l'annuler, utilisez `/marrakech arrêter`.",
        ),
        (
            "host",
            "uk",
            "Ця гра ще не почалася: щоб скасувати її, скористайтеся `/марракеш зупинити`.",  # noqa: RUF001
        ),
        ("guest", "en-US", "This game has not started yet: to leave it, use `/marrakech leave`."),
        (
            "guest",
            "fr",
            (
                "Cette partie n'a pas encore commencé : pour la quitter, utilisez"
                " `/marrakech quitter`."
            ),
        ),
        (
            "guest",
            "uk",
            "Ця гра ще не почалася: щоб вийти з неї, скористайтеся `/марракеш вийти`.",  # noqa: RUF001
        ),
        ("outsider", "en-US", "You are not playing in this game."),
    ],
)
async def test_resigning_from_a_lobby_says_how_to_cancel_or_leave_it_and_changes_nothing(
    edge: Edge, who: str, locale: str, said: str
) -> None:
    """A lobby has no game to resign from yet: its host is pointed to cancelling it, a player
    to leaving it, privately and in their language, with no question asked; the lobby keeps
    its seats."""
    lobby = await lobby_with_guest(edge)
    user: FakeUser = getattr(edge, who)
    user.locale = locale
    handle = edge.slash(user, "marrakech", "resign")
    assert await only_private_answer(handle) == said
    view = await edge.service.play.look(1)
    assert view.game.status is GameStatus.LOBBY
    assert [p.user_id for p in view.players] == [edge.host.id, edge.guest.id]
    assert edge.fake.world.messages[lobby.id].embed_text() == lobby.embed_text()
