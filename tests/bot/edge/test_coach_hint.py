"""Hint in a coached game, through real discord.py interactions on the fake Discord
(tests/bot/edge/test_edge.py): the button on the turn of the person to move, answered at once
(deferred, privately) and the coach's option edited in, a few times a game; refused with a
clear private line off the presser's turn, once the hints are used up, and in a rated game
(whose turns carry no Hint; `/marrakech hint` asks all the same). After each decision in a
coached game, its verdict as a private follow-up of the same click, never a public message."""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PIL import Image

from bot.presentation.coach import HINTS_PER_GAME
from tests.bot.edge.test_edge import Edge, private, running_edge, started
from tests.e2e.fakecord import FakeMessage, FakeUser

DEFERRED_CHANNEL_MESSAGE = 5


@pytest.fixture
async def edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Edge]:
    async with running_edge(tmp_path, monkeypatch) as running:
        yield running


async def coached_turn(edge: Edge) -> FakeMessage:
    """A coached 2-player game of host and guest, started: its first turn's message."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, coach=True).answer()
    assert "coached, never rated" in str(lobby.embeds[0]["fields"])
    await edge.click(edge.guest, lobby, "Join").response()
    await edge.click(edge.host, lobby, "Start").response()
    return await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))


def mover_and_other(edge: Edge, turn: FakeMessage) -> tuple[FakeUser, FakeUser]:
    (pinged,) = turn.pinged_user_ids
    if pinged == edge.host.id:
        return edge.host, edge.guest
    return edge.guest, edge.host


async def test_hint_is_answered_at_once_privately_a_few_times_a_game(edge: Edge) -> None:
    turn = await coached_turn(edge)
    assert "Hint" in [button.label for button in turn.enabled_buttons()]
    mover, other = mover_and_other(edge, turn)
    public = len(edge.fake.messages(edge.channel))

    assert "on your own turn" in await private(edge.click(other, turn, "Hint"))
    for left in range(HINTS_PER_GAME - 1, -1, -1):
        clicking = edge.click(mover, turn, "Hint")
        assert (await clicking.response()).response_type == DEFERRED_CHANNEL_MESSAGE
        answer = await clicking.answer(timeout=30.0)
        assert answer.ephemeral
        assert answer.visible_to == mover.id
        assert answer.content.startswith("💡 The coach would go for turning Assam ")
        assert f"{left} hint" in answer.content
        (board,) = answer.attachments
        assert board.filename == "hint.png"
        assert Image.open(io.BytesIO(board.data)).format == "PNG"
    assert "used your 3 hints" in await private(edge.click(mover, turn, "Hint"))
    assert len(edge.fake.messages(edge.channel)) == public, "the channel stays quiet"


async def test_hint_is_refused_in_a_rated_game_with_a_clear_private_line(edge: Edge) -> None:
    turn = await started(edge)
    assert "Hint" not in [button.label for button in turn.buttons()]
    mover, _ = mover_and_other(edge, turn)
    public = len(edge.fake.messages(edge.channel))
    refusal = await private(edge.slash(mover, "marrakech", "hint"))
    assert refusal == (
        "Hints are for coached games only: rated games and tournaments are played without "
        "the coach."
    )
    assert len(edge.fake.messages(edge.channel)) == public


async def test_the_hint_command_gives_the_hint_of_a_coached_game(edge: Edge) -> None:
    turn = await coached_turn(edge)
    mover, other = mover_and_other(edge, turn)
    assert "on your own turn" in await private(edge.slash(other, "marrakech", "hint"))
    answer = await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
    assert answer.ephemeral
    assert answer.content.startswith("💡 The coach would go for turning Assam ")
    assert f"{HINTS_PER_GAME - 1} hints left" in answer.content


VERDICT = re.compile(
    r"✅ Good\.|(Inaccuracy|Mistake|Blunder): (turning Assam \w+|laying on [a-g][1-7]-[a-g][1-7]) "
    r"kept [0-9]+ % more winning chance\."
)


def decision(turn: FakeMessage) -> str:
    """The label of the first choice of the turn (not Hint)."""
    return next(b.label for b in turn.enabled_buttons() if b.label and b.label != "Hint")


async def test_each_decision_gets_a_private_verdict_in_the_same_click_s_answer(
    edge: Edge,
) -> None:
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    public = len(edge.fake.messages(edge.channel))
    clicking = edge.click(mover, turn, decision(turn))
    (verdict,) = await clicking.followups(1, timeout=30.0)
    assert verdict.ephemeral
    assert verdict.visible_to == mover.id
    assert VERDICT.fullmatch(verdict.content), verdict.content
    place = edge.fake.world.messages[turn.id]
    assert "Hint" in [b.label for b in place.enabled_buttons()]
    (verdict,) = await edge.click(mover, place, decision(place)).followups(1, timeout=30.0)
    assert VERDICT.fullmatch(verdict.content), verdict.content
    assert verdict.content == "✅ Good." or verdict.content.split(":")[1].startswith(" laying")
    assert all(not m.ephemeral for m in edge.fake.messages(edge.channel)[public:])


async def test_a_closed_game_s_hints_are_forgotten(edge: Edge) -> None:
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    handlers = edge.bot.handlers
    assert handlers._hints, "the hint is counted while the game runs"
    await edge.service.play.resign(1, mover.id)
    assert not handlers._hints
    assert not handlers._hinted
