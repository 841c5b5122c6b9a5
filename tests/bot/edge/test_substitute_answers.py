"""Every refusal of a hand-over or a nudge has a short private answer in every language, with
the person and the moment it names, and a nudge refused says why its person cannot be pinged;
a hand-over is told in the game's channel, ordered from another channel too, in the game's
language (though the server changed its own since), naming without a ping a substitute in
their quiet hours; its turn's message calls the new player, drawn again in the background or
at the next start when Discord fails it, and the reminder of the one who left goes with it.
A nudge, a hand-over or a rejoin asked of a game still in its lobby says it has not started
and what to do meanwhile (its host starts it; players join or leave with its buttons)."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.edge import answers, errors
from bot.edge import display as display_module
from bot.edge.inflight import HANDLERS
from bot.edge.substitutes import _handover_text
from bot.presentation.messages import LANGUAGES, text
from bot.services.errors import GameNotStartedError, TournamentCreatorOnlyError
from bot.services.seat_errors import NudgeError, SubstituteError, Unreachable
from bot.services.substitutes import Handover
from bot.services.views import GameView, Reminder
from tests.bot.edge.test_edge import (
    Edge,
    a_window_later,
    edge,
    late_command,
    lobby_with_guest,
    mover_of,
    on_the_gateway,
    started,
)
from tests.bot.edge.test_edge_languages import french_game, french_server
from tests.bot.edge.test_seat_requests import (
    guest_or_outsider_to_move,
    held_by_tomorrow,
    in_quiet_hours,
    three_playing,
)
from tests.bot.presentation.test_community import finished
from tests.e2e.fakecord import FakeChannel, FakeMessage, FakeUser
from tests.e2e.fakecord.interactions import InteractionHandle
from tests.polling import WAIT_SECONDS

SUBSTITUTE_CODES = (
    "bot",
    "not_member",
    "already_in",
    "not_in",
    "no_request",
    "request_done",
    "request_refused",
    "request_expired",
    "request_failed",
    "request_closed",
    "not_asked",
    "nobody_to_agree",
    "host_out",
    "host_not_seated",
)
WHEN = datetime(2026, 3, 2, 8, tzinfo=UTC)
__all__ = ["edge"]


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Only the tournament's creator or a moderator can do that."),
        ("fr", "Seul le créateur du tournoi ou un modérateur peut faire cela."),
        ("uk", "Це може зробити лише творець турніру або модератор."),  # noqa: RUF001
    ],
)
def test_a_tournament_s_refusal_names_its_creator_not_a_host(language: str, said: str) -> None:
    """A table's players and a tournament's entrants may not know its creator as the "host"
    that a plain game's refusal names."""
    assert errors.describe(TournamentCreatorOnlyError(), language) == said


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_refusal_has_a_short_answer(language: str) -> None:
    for code in SUBSTITUTE_CODES:
        answer = errors.describe(SubstituteError(code, 42), language)
        assert answer, code
        assert len(answer) < 200, code
        assert "{" not in answer, code
    assert "<@42>" in (errors.describe(SubstituteError("already_in", 42), language) or "")
    too_soon = errors.describe(NudgeError("too_soon", until=WHEN), language) or ""
    assert f"<t:{int(WHEN.timestamp())}:R>" in too_soon, "it says when a nudge is possible"
    for code in ("yourself", "nobody"):
        assert errors.describe(NudgeError(code), language)
    for reason in ("away", "quiet", "sick"):
        why = Unreachable(reason, WHEN)
        answer = errors.describe(
            NudgeError("unreachable", user_id=7, until=WHEN, why=why), language
        )
        assert answer is not None
        assert "<@7>" in answer


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        ("away", "<@7> is away: no ping until they are back ({when})."),
        ("quiet", "<@7> is in their quiet hours: no ping until they end ({when})."),
        ("sick", "<@7> cannot be pinged now ({when})."),
    ],
    ids=["away", "quiet", "other"],
)
def test_a_nudge_refused_because_its_person_cannot_be_pinged_says_why(
    reason: str, said: str
) -> None:
    """Away, in their quiet hours, or (for any other reason) cannot be pinged now: each with
    the moment a ping may go."""
    error = NudgeError("unreachable", user_id=7, until=WHEN, why=Unreachable(reason, WHEN))
    assert errors.describe(error, "en") == said.format(when=f"<t:{int(WHEN.timestamp())}:R>")


def ordered_from(edge: Edge, desk: FakeChannel) -> InteractionHandle:
    """A moderator's hand-over of game 1's guest seat to the outsider, typed in `desk`."""
    return edge.slash(
        edge.moderator,
        "marrakech-mod",
        "substitute",
        channel=desk,
        game=1,
        out=edge.guest,
        **{"in": edge.outsider},
    )


async def test_a_hand_over_ordered_from_another_channel_is_told_in_the_game_s(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The moderator is answered privately where they asked; the game's channel is told, with
    the substitute pinged. The client is on the gateway, as in production: its cache of the
    server says the moderator holds Manage Channels in the game's channel too."""
    await started(edge)
    desk = edge.fake.add_text_channel(edge.channel.guild, "mod-desk")  # type: ignore[arg-type]
    async with on_the_gateway(edge, monkeypatch):
        ordered = ordered_from(edge, desk)
        answer = await ordered.answer()
    assert answer.ephemeral
    assert answer.channel_id == desk.id
    told = await edge.fake.wait_for_message(edge.channel, lambda m: "takes over" in m.content)
    assert told.pinged_user_ids == {edge.outsider.id}
    colors = told.content.split("'s seat (", 1)[1].split(")", 1)[0]
    assert re.fullmatch(r"(red|yellow|blue|brown) and (red|yellow|blue|brown)", colors), (
        "a duel's seat plays two colours, and the hand-over names both"
    )
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert not [m for m in edge.fake.messages(desk) if not m.ephemeral], "the desk stays quiet"


async def test_a_hand_over_whose_notice_discord_never_takes_answers_the_moderator_in_time(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice in the game's channel, ordered from another channel, waits for Discord
    DISCORD_TIMEOUT_SECONDS at most (shortened here), as any post: the moderator is answered
    privately, not left waiting on Discord, and told the truth: the seat is handed over (not
    "try again", which would be refused), only its notice was not posted."""
    await started(edge)
    desk = edge.fake.add_text_channel(edge.channel.guild, "mod-desk")  # type: ignore[arg-type]
    monkeypatch.setattr(answers, "DISCORD_TIMEOUT_SECONDS", 0.2)
    hung = edge.fake.faults.hang("POST", f"/channels/{edge.channel.id}/messages")
    try:
        async with on_the_gateway(edge, monkeypatch):
            ordered = ordered_from(edge, desk)
            answer = await ordered.answer()
            drained = await HANDLERS.drained(WAIT_SECONDS)
    finally:
        edge.fake.faults.release_hangs(apply=False)
    assert drained, "the moderator's command still waits on Discord"
    assert hung.hits == 1, "the notice was posted, and never answered"
    assert answer.ephemeral
    assert answer.channel_id == desk.id
    assert answer.content == text("substitute.done_untold", "en", game_id=1), answer.content
    players = (await edge.service.play.look(1)).players
    assert edge.outsider.id in [player.user_id for player in players], "the seat is handed over"


async def a_hand_over_told_in_french(edge: Edge) -> None:
    """A moderator hands the guest's seat of the French duel to the outsider: the hand-over is
    told publicly, naming the seat's two colours joined as French joins them."""
    told = await edge.slash(
        edge.moderator,
        "marrakech-mod",
        "substitute",
        channel=edge.channel,
        out=edge.guest,
        **{"in": edge.outsider},
    ).answer()
    assert not told.ephemeral
    colors = told.content.split(f"<@{edge.guest.id}> (", 1)[1].split(")", 1)[0]
    color = "(rouge|jaune|bleu|marron)"
    assert re.fullmatch(f"{color} et {color}", colors), told.content


async def test_a_duel_seat_handed_over_names_both_its_colours_in_the_game_s_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """On a French server, the hand-over of a seat of a 2-seat game joins its two colours as
    French does ("rouge et bleu"), whatever the moderator's language."""
    async with french_server(tmp_path, monkeypatch, test=request.node) as edge:
        await french_game(edge)
        edge.moderator.locale = "uk"
        await a_hand_over_told_in_french(edge)


async def test_a_hand_over_ordered_from_another_channel_answers_the_moderator_in_theirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The private answer where the moderator asked is theirs: Ukrainian, though the game and
    the server speak French (the game's channel is told in French)."""
    async with french_server(tmp_path, monkeypatch, test=request.node) as edge:
        await french_game(edge)
        edge.moderator.locale = "uk"
        desk = edge.fake.add_text_channel(edge.channel.guild, "bureau")  # type: ignore[arg-type]
        async with on_the_gateway(edge, monkeypatch):
            answer = await ordered_from(edge, desk).answer()
            assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert answer.ephemeral
    assert answer.content == text("substitute.done_elsewhere", "uk", game_id=1)


async def test_a_hand_over_is_told_in_the_game_s_language_once_the_server_changed_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """A French game, on a server that has since switched to Ukrainian: its hand-over is told
    in French, as every other message of the game."""
    async with french_server(tmp_path, monkeypatch, test=request.node) as edge:
        await french_game(edge)
        guild = edge.channel.guild
        assert guild is not None
        guild.preferred_locale = "uk"
        await a_hand_over_told_in_french(edge)


async def test_a_seat_handed_over_on_its_turn_calls_its_new_player_on_the_turn(
    edge: Edge,
) -> None:
    """The turn under way goes to the substitute: its message calls them, not the player who
    left (an edit pings no one; the hand-over's own message pings them)."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    handed = edge.slash(
        edge.moderator,
        "marrakech-mod",
        "substitute",
        channel=edge.channel,
        out=mover,
        **{"in": edge.outsider},
    )
    await handed.answer()
    expected = f"<@{edge.outsider.id}>, it is your turn (game #1)."
    await edge.fake.wait_until(
        lambda: edge.fake.world.messages[turn.id].content == expected,
        what="the turn calling its new player",
    )


async def test_a_seat_handed_over_by_agreement_on_its_turn_pings_its_new_player(
    edge: Edge,
) -> None:
    """The host's request, once agreed, hands over the seat whose turn it is: the one who now
    has to play is pinged (the request's message, edited, pings no one)."""
    _, mover = await seat_to_move(edge, "agreement")
    asked_id = await agreed_hand_over(edge, mover)
    pinged = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.pinged_user_ids == {edge.moderator.id} and m.id > asked_id
    )
    assert pinged.content == f"<@{edge.moderator.id}>, it is your turn (game #1)."


async def test_a_seat_handed_over_by_agreement_off_its_turn_calls_no_one_to_play(
    edge: Edge,
) -> None:
    """The seat handed over by agreement is not the one to move: its new player is not called
    to a turn that is someone else's, and the player to move is not called again."""
    _, mover = await seat_to_move(edge, "agreement")
    out = edge.outsider if mover is edge.guest else edge.guest
    asked_id = await agreed_hand_over(edge, out)  # the player to move agrees
    assert await HANDLERS.drained(30.0), "the agreement's handler is still running"
    seats = {seat.user_id for seat in await edge.store.seats(1)}
    assert edge.moderator.id in seats, "the seat changed hands"
    assert out.id not in seats
    assert not edge.fake.world.messages[asked_id].enabled_buttons(), "carried out"
    later = [m for m in edge.fake.messages(edge.channel) if m.id > asked_id]
    calls_to_play = [m.content for m in later if "it is your turn" in m.content]
    assert calls_to_play == [], calls_to_play
    assert [m.content for m in later if m.pinged_user_ids] == [], "nobody is called"


async def seat_to_move(edge: Edge, by: str) -> tuple[FakeMessage, FakeUser]:
    """A started game whose seat to move is about to be handed over `by` a moderator (a game
    of two) or by agreement (a game of three, played on until the host is not to move): its
    turn's message and the player to move."""
    if by == "moderator":
        turn = await started(edge)
    else:
        turn = await guest_or_outsider_to_move(edge, await three_playing(edge))
    (mover_id,) = turn.pinged_user_ids
    (mover,) = [user for user in (edge.host, edge.guest, edge.outsider) if user.id == mover_id]
    return turn, mover


async def hand_over(edge: Edge, by: str, out: FakeUser) -> FakeUser:
    """Hand `out`'s seat over `by` a moderator's order (to the outsider), or by the host's
    request that the other player agrees to (to the moderator): its new player."""
    if by == "moderator":
        await edge.slash(
            edge.moderator,
            "marrakech-mod",
            "substitute",
            channel=edge.channel,
            out=out,
            **{"in": edge.outsider},
        ).answer()
        return edge.outsider
    await agreed_hand_over(edge, out)
    return edge.moderator


async def agreed_hand_over(edge: Edge, out: FakeUser) -> int:
    """The host asks for `out`'s seat to go to the moderator, and the game's other player (not
    the host, not `out`) agrees: the request's message id."""
    asked = await edge.slash(
        edge.host,
        "marrakech",
        "substitute",
        channel=edge.channel,
        out=out,
        **{"in": edge.moderator},
    ).answer()
    other = edge.outsider if out is edge.guest else edge.guest
    await edge.click(other, edge.fake.world.messages[asked.id], "Agree").answer()
    return asked.id


def redraw_fails_once(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord fails the next redraw of a turn's message; the redraws after it go through."""
    display = edge.bot.display
    redraw = display._redraw_turn

    async def failing(view: GameView, message_id: int) -> None:
        monkeypatch.setattr(display, "_redraw_turn", redraw)
        raise RuntimeError("Discord failed the edit")

    monkeypatch.setattr(display, "_redraw_turn", failing)


def calls(edge: Edge, turn: FakeMessage, user: FakeUser) -> bool:
    """The turn's message calls `user` to play."""
    return edge.fake.world.messages[turn.id].content == f"<@{user.id}>, it is your turn (game #1)."


@pytest.mark.parametrize("by", ["moderator", "agreement"])
async def test_a_hand_over_whose_redraw_failed_calls_its_new_player_all_the_same(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, by: str
) -> None:
    """Discord fails the redraw of the turn's message for the seat's new player (the hand-over
    is stored): they are pinged as a hand-over pings them, and the message calls them once
    the display's retry drew it again in the background."""
    monkeypatch.setattr(display_module, "REDISPLAY_DELAYS_SECONDS", (0.0,) * 5)
    turn, out = await seat_to_move(edge, by)
    redraw_fails_once(edge, monkeypatch)
    newcomer = await hand_over(edge, by, out)
    await edge.fake.wait_for_message(
        edge.channel, lambda m: m.pinged_user_ids == {newcomer.id}, timeout=10.0
    )
    await edge.fake.wait_until(
        lambda: calls(edge, turn, newcomer), what="the turn calling its new player", timeout=10.0
    )


async def test_a_start_redraws_a_hand_over_whose_redraw_failed(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run whose redraw of the turn's message Discord failed stops before trying again: the
    next start draws the message again, calling the seat's new player."""
    turn, out = await seat_to_move(edge, "moderator")
    display = edge.bot.display
    monkeypatch.setattr(display, "retry_display", lambda game_id: None)  # the run stops first
    redraw_fails_once(edge, monkeypatch)
    newcomer = await hand_over(edge, "moderator", out)
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert calls(edge, turn, out)
    a_window_later(edge, monkeypatch)
    await edge.bot.before_connect()  # the next start
    assert calls(edge, turn, newcomer), edge.fake.world.messages[turn.id].content


async def timed_seat_to_move(edge: Edge, by: str) -> tuple[FakeMessage, FakeUser]:
    """As `seat_to_move`, in a game with a turn limit of an hour."""
    seats = 2 if by == "moderator" else 3
    options = {"seats": seats, "turn_limit": 3600}
    lobby = await edge.command(
        edge.host, ("marrakech", "new"), edge.channel, options, validate=True
    ).answer()
    for player in (edge.guest, edge.outsider)[: seats - 1]:
        await edge.click(player, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    if by == "agreement":
        turn = await guest_or_outsider_to_move(edge, turn)
    (mover_id,) = turn.pinged_user_ids
    (mover,) = [user for user in (edge.host, edge.guest, edge.outsider) if user.id == mover_id]
    return turn, mover


def reminders(edge: Edge) -> list[str]:
    """The reminders still in the edge's channel (a deleted one is gone)."""
    return [m.content for m in edge.fake.messages(edge.channel) if "half of your time" in m.content]


async def played_by(edge: Edge, user: FakeUser, turn: FakeMessage) -> FakeMessage:
    """`user` plays the turn of `turn`'s message with its first button at each step (the
    message may call them though it did not ping them: a seat handed over); the next turn's
    message, once every handler has returned."""
    while buttons := edge.fake.world.messages[turn.id].enabled_buttons():
        label = buttons[0].label
        assert label is not None
        await edge.click(user, edge.fake.world.messages[turn.id], label).answer()
    following = await edge.fake.wait_for_message(
        edge.channel,
        lambda m: m.id > turn.id and bool(m.pinged_user_ids) and bool(m.enabled_buttons()),
    )
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    return following


@pytest.mark.parametrize("by", ["moderator", "agreement"])
async def test_the_reminder_of_a_seat_handed_over_on_its_turn_goes_with_the_one_who_left(
    edge: Edge, by: str
) -> None:
    """The reminder called the person who left, by a moment that no longer holds (the
    newcomer's clock starts anew): it goes with the hand-over, as it goes when its player
    goes away. The newcomer's own reminder, at half their time, goes once they have played,
    and no reminder is left calling anyone to a turn already played."""
    await edge.bot.scheduler.stop()  # the test sends the reminders itself
    turn, out = await timed_seat_to_move(edge, by)
    assert await HANDLERS.drained(30.0), "a handler of the start is still running"
    view = await edge.service.play.look(1)
    await edge.bot.display.send_reminder(Reminder(view, out.id, datetime.now(UTC)))
    assert len(reminders(edge)) == 1
    newcomer = await hand_over(edge, by, out)
    assert await HANDLERS.drained(30.0), "the hand-over's handler is still running"
    assert reminders(edge) == [], "the reminder of the one who left is still calling them"
    game = await edge.store.get(1)
    assert game is not None
    assert game.reminder_message_id is None, "nothing left to retire"
    view = await edge.service.play.look(1)  # half of the newcomer's time is gone
    await edge.bot.display.send_reminder(Reminder(view, newcomer.id, datetime.now(UTC)))
    (theirs,) = reminders(edge)
    assert theirs.startswith(f"<@{newcomer.id}>, half of your time"), theirs
    await played_by(edge, newcomer, turn)
    assert reminders(edge) == [], edge.fake.transcript(edge.channel)


async def test_a_seat_handed_to_someone_in_their_quiet_hours_names_them_without_a_ping(
    edge: Edge,
) -> None:
    """No ping reaches a person in their quiet hours: the hand-over names the substitute
    only, and the turn it hands them is held for the message that comes as their hours end."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    await in_quiet_hours(edge, edge.outsider)
    await edge.slash(
        edge.moderator,
        "marrakech-mod",
        "substitute",
        channel=edge.channel,
        out=mover,
        **{"in": edge.outsider},
    ).answer()
    told = await edge.fake.wait_for_message(edge.channel, lambda m: "takes over" in m.content)
    assert f"<@{edge.outsider.id}>" in told.content
    assert not told.pinged_user_ids, told.content
    held = [
        (notice.user_id, notice.game_id, notice.kind) for notice in await held_by_tomorrow(edge)
    ]
    assert held == [(edge.outsider.id, 1, "turn")]


async def test_the_game_s_first_message_lists_the_substitute_once_the_seat_changes_hands(
    edge: Edge,
) -> None:
    """The first message's list of players is who holds the seats now: someone who comes
    back to the channel finds the substitute there, not the person who left."""
    turn = await started(edge)
    view = await edge.service.play.look(1)
    lobby_id = view.game.lobby_message_id
    assert lobby_id is not None
    mover = await mover_of(edge, turn)
    await edge.slash(
        edge.moderator,
        "marrakech-mod",
        "substitute",
        channel=edge.channel,
        out=mover,
        **{"in": edge.outsider},
    ).answer()

    def lists_the_substitute() -> bool:
        players = edge.fake.world.messages[lobby_id].embeds[0]["fields"][0]["value"]
        return f"<@{edge.outsider.id}>" in players and f"<@{mover.id}>" not in players

    await edge.fake.wait_until(lists_the_substitute, what="the first message redrawn")
    described = edge.fake.world.messages[lobby_id].embeds[0]["description"]
    assert "discord.com/channels/" in described, "it still leads to the game"


async def handing_over(
    edge: Edge, who: str, command: str, out: FakeUser, newcomer: FakeUser
) -> FakeMessage:
    """The answer `who` (an attribute of `edge`) gets to `command`'s substitute, in the game's
    channel: the moderator hands `out`'s seat to `newcomer`, or the host asks to."""
    return await edge.slash(
        getattr(edge, who),
        command,
        "substitute",
        channel=edge.channel,
        out=out,
        **{"in": newcomer},
    ).answer()


@pytest.mark.parametrize(
    ("who", "command"),
    [("moderator", "marrakech-mod"), ("host", "marrakech")],
    ids=["moderator", "host-s-request"],
)
async def test_a_seat_is_not_handed_to_a_bot_and_nothing_changes(
    edge: Edge, who: str, command: str
) -> None:
    """The newcomer Discord flags as a bot is refused with a short private answer, whether a
    moderator hands the seat over or the host asks to."""
    await started(edge)
    before = await edge.service.play.look(1)
    edge.outsider.bot = True
    answer = await handing_over(edge, who, command, edge.guest, edge.outsider)
    assert answer.ephemeral, answer.content
    assert answer.content == errors.describe(SubstituteError("bot", edge.outsider.id), "en")
    after = await edge.service.play.look(1)
    assert after.players == before.players


@pytest.mark.parametrize(
    ("who", "command"),
    [("moderator", "marrakech-mod"), ("host", "marrakech")],
    ids=["moderator", "host-s-request"],
)
async def test_a_seat_is_not_handed_to_someone_outside_the_server_and_nothing_changes(
    edge: Edge, who: str, command: str
) -> None:
    """A user Discord sends without membership of the server (their id pasted into `in:`)
    could neither see the game's channel nor press its buttons: refused with a short private
    answer naming them, whether a moderator hands the seat over or the host asks the others
    to agree, and no request is posted."""
    await three_playing(edge)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    before = await edge.service.play.look(1)
    shown = [m.id for m in edge.fake.messages(edge.channel)]
    stranger = edge.fake.add_user("stranger")
    answer = await handing_over(edge, who, command, edge.guest, stranger)
    assert answer.ephemeral, answer.content
    assert answer.content == errors.describe(SubstituteError("not_member", stranger.id), "en")
    assert f"<@{stranger.id}>" in answer.content
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert (await edge.service.play.look(1)).players == before.players
    assert [m.id for m in edge.fake.messages(edge.channel)] == shown


@pytest.mark.parametrize(
    ("who", "command"),
    [("moderator", "marrakech-mod"), ("host", "marrakech")],
    ids=["moderator", "host-s-request"],
)
async def test_a_seat_asked_of_a_member_who_holds_none_names_that_member_and_nothing_changes(
    edge: Edge, who: str, command: str
) -> None:
    """The outsider plays no seat of the duel: the short private answer names them, the member
    named as leaving, not the one who was to come in."""
    await started(edge)
    before = await edge.service.play.look(1)
    answer = await handing_over(edge, who, command, edge.outsider, edge.moderator)
    assert answer.ephemeral, answer.content
    assert answer.content == f"<@{edge.outsider.id}> holds no seat still in this game.", (
        "it names the outsider, named as leaving, not the moderator, named to come in"
    )
    after = await edge.service.play.look(1)
    assert after.players == before.players


@pytest.mark.parametrize("by", ["moderator", "agreement"])
async def test_a_substitute_is_named_by_their_server_nickname(edge: Edge, by: str) -> None:
    """The panel names the seat's new player for the rest of the game as it names a player who
    joins: by their server nickname, not their username."""
    guild = edge.channel.guild
    assert guild is not None
    guild.members[edge.outsider.id].nick = "L'Étranger"
    guild.members[edge.moderator.id].nick = "La Modératrice"
    _, mover = await seat_to_move(edge, by)
    incoming = await hand_over(edge, by, mover)
    nick = guild.members[incoming.id].nick
    view = await edge.service.play.look(1)
    assert {player.user_id: player.name for player in view.players}[incoming.id] == nick
    seats = await edge.store.seats(1)
    assert [seat.display_name for seat in seats if seat.user_id == incoming.id] == [nick]


async def test_a_hand_over_ordered_too_late_is_told_and_drawn_all_the_same(edge: Edge) -> None:
    """A moderator's hand-over that reaches the bot after Discord's 3 s: Discord refuses the
    answer that tells it, but the seat is handed over, so the channel is told all the same
    (pinging the substitute) and the turn under way calls its new player."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    late = late_command(
        edge, edge.moderator, "marrakech-mod", "substitute", out=mover, **{"in": edge.outsider}
    )
    await late.wait_for(lambda handle: bool(handle.refusals))  # its handler is under way
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    assert late.refusals[0] == 10062, "Discord refused the command's answer"
    told = [m for m in edge.fake.messages(edge.channel) if "takes over" in m.content]
    assert [m.pinged_user_ids for m in told] == [{edge.outsider.id}], told
    expected = f"<@{edge.outsider.id}>, it is your turn (game #1)."
    assert edge.fake.world.messages[turn.id].content == expected


UNRATED_HANDOVER = {
    "en": "<@102> counts as having resigned now; this game is not rated.",
    "fr": "<@102> compte comme ayant abandonné maintenant ; cette partie n'est pas classée.",
    "uk": "Для <@102> це вважається здачею гри зараз; ця гра без рейтингу.",  # noqa: RUF001
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", ["casual", "coached"])
def test_the_hand_over_of_a_seat_in_an_unrated_game_speaks_of_no_rating(
    language: str, kind: str
) -> None:
    """In a casual or coached game nobody is rated: the hand-over says the game is not rated,
    never that the newcomer is not rated for it (as if the others were)."""
    view = finished(language, casual=True)
    if kind == "coached":
        view = dataclasses.replace(view, game=dataclasses.replace(view.game, coach=True))
    said = _handover_text(Handover(view, 2, 102, 104), language)
    assert said.endswith(UNRATED_HANDOVER[language]), said
    rated = _handover_text(Handover(finished(language), 2, 102, 104), language)
    assert not rated.endswith(UNRATED_HANDOVER[language]), rated


HOST_NOT_STARTED = {
    "en": "This game has not started yet: press **Start** on its message once its players are "
    "in. Until then, players come and go with **Join** and **Leave**.",
    "fr": "Cette partie n'a pas encore commencé : appuyez sur **Commencer** sous son message une "
    "fois ses joueurs inscrits. D'ici là, les joueurs vont et viennent avec **Rejoindre** et "
    "**Quitter**.",
    "uk": "Ця гра ще не почалася: натисніть **Почати** під її повідомленням, коли всі гравці на "  # noqa: RUF001
    "місці. Доти гравці приходять і йдуть кнопками **Приєднатися** та **Вийти**.",  # noqa: RUF001
}
OTHERS_NOT_STARTED = {
    "en": "This game has not started yet: wait for its host to press **Start**. Until then, "
    "players come and go with **Join** and **Leave** on its message.",
    "fr": "Cette partie n'a pas encore commencé : attendez que son hôte appuie sur **Commencer**. "
    "D'ici là, les joueurs vont et viennent avec **Rejoindre** et **Quitter** sous son message.",
    "uk": "Ця гра ще не почалася: зачекайте, поки засновник натисне **Почати**. Доти гравці "  # noqa: RUF001
    "приходять і йдуть кнопками **Приєднатися** та **Вийти** під її повідомленням.",  # noqa: RUF001
}


@pytest.mark.parametrize(
    ("who", "command", "said"),
    [
        ("host", ("marrakech", "nudge"), HOST_NOT_STARTED),
        ("guest", ("marrakech", "nudge"), OTHERS_NOT_STARTED),
        ("host", ("marrakech", "substitute"), HOST_NOT_STARTED),
        ("moderator", ("marrakech-mod", "substitute"), OTHERS_NOT_STARTED),
        ("guest", ("marrakech", "rejoin"), OTHERS_NOT_STARTED),
    ],
    ids=["host-s-nudge", "guest-s-nudge", "host-s-request", "moderator-s-hand-over", "rejoin"],
)
async def test_a_lobby_s_nudge_hand_over_or_rejoin_says_it_has_not_started_and_what_to_do(
    edge: Edge, who: str, command: tuple[str, ...], said: dict[str, str]
) -> None:
    """None of these acts on a game before it starts: its asker learns so privately, with what
    to do instead (its host presses Start; until then a player leaves, or a newcomer joins,
    with its buttons), and the lobby is left as it was, nothing posted in its channel."""
    await lobby_with_guest(edge)
    assert await HANDLERS.drained(30.0), "the join's handler is still running"
    before = await edge.service.play.look(1)
    shown = [message.id for message in edge.fake.messages(edge.channel)]
    options = {"out": edge.guest, "in": edge.outsider} if command[1] == "substitute" else {}
    handle = edge.command(getattr(edge, who), command, edge.channel, options, validate=True)
    answer = await handle.answer()
    assert answer.ephemeral, answer.content
    assert answer.content == said["en"], answer.content
    assert await HANDLERS.drained(30.0), "the command's handler is still running"
    after = await edge.service.play.look(1)
    assert (after.status, after.players) == (before.status, before.players)
    assert [message.id for message in edge.fake.messages(edge.channel)] == shown


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("host", [True, False], ids=["host", "others"])
def test_a_game_not_started_is_said_so_in_every_language(language: str, host: bool) -> None:
    said = HOST_NOT_STARTED if host else OTHERS_NOT_STARTED
    assert errors.describe(GameNotStartedError(host=host), language) == said[language]
