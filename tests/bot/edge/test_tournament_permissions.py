"""Opening a tournament where the bot lacks a permission it needs for one (a game's, and the
threads' on top) is refused with an answer that names the missing permission alone, not those
Discord takes away with it (no View Channel, no other; no Send Messages, no links or files),
and opens nothing, and a Start pressed once one was taken away names it and starts nothing; a
member's click on a sign-up's Start or Cancel is refused privately and starts or cancels
nothing; the question before ending a tournament is asked privately, and its Keep playing ends
nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.edge.inflight import HANDLERS
from bot.services.tournament_views import TournamentStatus
from bot.services.views import GameStatus
from tests.bot.edge.test_edge import Edge, private
from tests.bot.edge.test_edge import edge as edge  # the fixture
from tests.bot.edge.test_tournaments import cup_signed_up, first_round_playing
from tests.e2e.fakecord import permissions
from tests.polling import until


@pytest.mark.parametrize(
    ("denied", "named"),
    [
        (permissions.VIEW_CHANNEL, "View Channel"),
        (permissions.SEND_MESSAGES, "Send Messages"),
        (permissions.EMBED_LINKS, "Embed Links"),
        (permissions.ATTACH_FILES, "Attach Files"),
        (permissions.CREATE_PUBLIC_THREADS, "Create Public Threads"),
        (permissions.SEND_MESSAGES_IN_THREADS, "Send Messages in Threads"),
    ],
)
async def test_opening_a_tournament_without_a_permission_it_needs_names_it(
    edge: Edge, denied: int, named: str
) -> None:
    edge.fake.deny_bot(edge.channel, denied)
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    refused = await private(edge.slash(edge.moderator, "marrakech-mod", "tournament", **options))
    said = re.search(r"missing the (.+) permission", refused)
    assert said is not None, refused
    assert said.group(1) == named, refused
    assert not edge.fake.messages(edge.channel), "no sign-up is posted"
    edge.fake.allow_bot(edge.channel)
    opened = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    assert "sign-up" in opened.embed_text(), "with the permission back, the same command opens it"


async def test_only_a_moderator_may_cancel_a_tournament_s_sign_up(edge: Edge) -> None:
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    await edge.click(edge.guest, signup, "Join").answer()
    refused = await private(edge.click(edge.guest, signup, "Cancel"))
    assert "Manage Channels" in refused
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).status is TournamentStatus.SIGNUP
    shown = edge.fake.world.messages[signup.id]
    assert "Cancel" in [button.label for button in shown.enabled_buttons()]
    cancelled = await edge.click(edge.moderator, shown, "Cancel").answer()
    assert not cancelled.enabled_buttons(), "a moderator's click cancels it"
    assert (await tournaments._service.look(1)).status is TournamentStatus.CANCELLED


async def test_only_a_moderator_may_start_a_tournament(edge: Edge) -> None:
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").answer()
    refused = await private(edge.click(edge.guest, signup, "Start"))
    assert "Manage Channels" in refused
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).status is TournamentStatus.SIGNUP
    shown = edge.fake.world.messages[signup.id]
    assert "sign-up" in shown.embed_text()
    assert "Start" in [button.label for button in shown.enabled_buttons()]


async def test_the_question_before_ending_a_tournament_is_asked_privately(edge: Edge) -> None:
    """Only the moderator sees it: it adds no message to the channel, and ends nothing yet."""
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()

    def public() -> list[int]:
        return [m.id for m in edge.fake.messages(edge.channel, include_ephemeral=False)]

    posted = public()
    question = await edge.slash(edge.moderator, "marrakech-mod", "tournament-abort").answer()
    assert question.ephemeral, question.content
    assert question.button(label="End the tournament").custom_id is not None
    assert public() == posted, "no message added to the channel"
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).status is TournamentStatus.SIGNUP


async def test_ending_a_tournament_still_signing_up_cancels_its_sign_up(edge: Edge) -> None:
    """`/marrakech-mod tournament-abort` ends this channel's tournament whatever its stage: one
    still signing up is cancelled (nothing was played), as its Cancel button would, rather
    than the moderator being told it is past that stage."""
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    question = await edge.slash(edge.moderator, "marrakech-mod", "tournament-abort").answer()
    done = await edge.click(edge.moderator, question, "End the tournament").answer()
    assert done.content == "The tournament **Cup** is ended."
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).status is TournamentStatus.CANCELLED
    await until(
        lambda: not edge.fake.world.messages[signup.id].enabled_buttons(),
        "the sign-up shown closed",
    )


async def test_keep_playing_on_the_question_before_ending_a_tournament_ends_nothing(
    edge: Edge,
) -> None:
    """The question's second button takes it back: the moderator is told nothing changed, the
    tournament and its tables' games go on, and the channel is told of no abort."""
    signup = await cup_signed_up(edge)
    await edge.click(edge.moderator, edge.fake.world.messages[signup.id], "Start").answer()
    await first_round_playing(edge)
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    question = await edge.slash(edge.moderator, "marrakech-mod", "tournament-abort").answer()
    kept = await edge.click(edge.moderator, question, "Keep playing").answer()
    assert kept.ephemeral, kept.content
    assert kept.content == "Nothing changed: the tournament goes on."
    assert not kept.buttons(), "the question is closed"
    assert await HANDLERS.drained(30.0), "a handler is still running"
    view = await tournaments._service.look(1)
    assert view.status is TournamentStatus.RUNNING
    assert [table.game_status for table in view.tables] == [GameStatus.RUNNING]
    said = [m.content for m in edge.fake.messages(edge.channel) if "was aborted by" in m.content]
    assert said == [], said


@pytest.mark.parametrize(
    ("denied", "named"),
    [
        (permissions.CREATE_PUBLIC_THREADS, "Create Public Threads"),
        (permissions.SEND_MESSAGES_IN_THREADS, "Send Messages in Threads"),
    ],
)
async def test_start_without_a_permission_the_tables_need_names_it_and_starts_nothing(
    edge: Edge, denied: int, named: str
) -> None:
    """A permission taken from the bot after the sign-up opened would leave the tables without
    their threads: the moderator's Start is refused privately, naming it, the tournament still
    signs up, and with the permission back the same Start starts it."""
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").answer()
    edge.fake.deny_bot(edge.channel, denied)
    refused = await private(edge.click(edge.moderator, signup, "Start"))
    said = re.search(r"missing the (.+) permission", refused)
    assert said is not None, refused
    assert said.group(1) == named, refused
    assert await HANDLERS.drained(30.0), "the click's handler is still running"
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    assert (await tournaments._service.look(1)).status is TournamentStatus.SIGNUP
    shown = edge.fake.world.messages[signup.id]
    assert "Start" in [button.label for button in shown.enabled_buttons()]
    edge.fake.allow_bot(edge.channel)
    await edge.click(edge.moderator, shown, "Start").answer()
    assert (await tournaments._service.look(1)).status is TournamentStatus.RUNNING
