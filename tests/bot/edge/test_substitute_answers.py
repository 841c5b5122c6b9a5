"""Every refusal of a hand-over or a nudge has a short private answer in every language, with
the person and the moment it names, and a nudge refused says why its person cannot be pinged;
a hand-over is told in the game's channel, ordered from another channel too, in the game's
language, naming without a ping a substitute in their quiet hours."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.edge import errors
from bot.edge.inflight import HANDLERS
from bot.presentation.messages import LANGUAGES
from bot.services.seat_errors import NudgeError, SubstituteError, Unreachable
from tests.bot.edge.test_edge import Edge, edge, mover_of, started
from tests.bot.edge.test_edge_languages import french_game, french_server
from tests.bot.edge.test_seat_requests import held_by_tomorrow, in_quiet_hours
from tests.bot.edge.test_watch_buttons import play_turn

SUBSTITUTE_CODES = (
    "bot",
    "already_in",
    "not_in",
    "no_request",
    "request_done",
    "request_refused",
    "request_expired",
    "request_failed",
    "request_closed",
    "not_asked",
)
WHEN = datetime(2026, 3, 2, 8, tzinfo=UTC)
__all__ = ["edge"]


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


async def test_a_hand_over_ordered_from_another_channel_is_told_in_the_game_s(
    edge: Edge,
) -> None:
    """The moderator is answered privately where they asked; the game's channel is told, with
    the substitute pinged."""
    await started(edge)
    desk = edge.fake.add_text_channel(edge.channel.guild, "mod-desk")  # type: ignore[arg-type]
    ordered = edge.slash(
        edge.moderator,
        "marrakech-mod",
        "substitute",
        channel=desk,
        game=1,
        out=edge.guest,
        **{"in": edge.outsider},
    )
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


async def test_a_duel_seat_handed_over_names_both_its_colours_in_the_game_s_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """On a French server, the hand-over of a seat of a 2-seat game joins its two colours as
    French does ("rouge et bleu"), whatever the moderator's language."""
    async with french_server(tmp_path, monkeypatch, test=request.node) as edge:
        await french_game(edge)
        edge.moderator.locale = "uk"
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
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=3).answer()
    await edge.click(edge.guest, lobby, "Join").response()
    await edge.click(edge.outsider, lobby, "Join").response()
    await edge.click(edge.host, lobby, "Start").response()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    while turn.pinged_user_ids == {edge.host.id}:  # the host may not hand their own seat
        turn = await play_turn(edge, turn)
    (mover_id,) = turn.pinged_user_ids
    out, other = (
        (edge.guest, edge.outsider) if mover_id == edge.guest.id else (edge.outsider, edge.guest)
    )
    asked = await edge.slash(
        edge.host,
        "marrakech",
        "substitute",
        channel=edge.channel,
        out=out,
        **{"in": edge.moderator},
    ).answer()
    await edge.click(other, edge.fake.world.messages[asked.id], "Agree").response()
    pinged = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.pinged_user_ids == {edge.moderator.id} and m.id > asked.id
    )
    assert pinged.content == f"<@{edge.moderator.id}>, it is your turn (game #1)."


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
    answer = await edge.slash(
        getattr(edge, who),
        command,
        "substitute",
        channel=edge.channel,
        out=edge.guest,
        **{"in": edge.outsider},
    ).answer()
    assert answer.ephemeral, answer.content
    assert answer.content == errors.describe(SubstituteError("bot", edge.outsider.id), "en")
    after = await edge.service.play.look(1)
    assert after.players == before.players
