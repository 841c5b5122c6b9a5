"""Hint in a coached game, through real discord.py interactions on the fake Discord
(tests/bot/edge/test_edge.py): the button on the turn of the person to move, answered at once
(deferred, privately) and the coach's option edited in, in the presser's language, a few
times a game; refused with a clear private line off the presser's turn, once the hints are
used up, and in a rated game or a casual one without the coach (whose turns carry no Hint;
`/marrakech hint` asks all the same). After each decision in a coached game, its verdict as a
private follow-up of the same click, in the presser's language, never a public message,
judged while the turn goes on (the click's answer never waits for it); a game without the
coach gets none.

The hints used are stored with the seat: a restart, or another process running the game, sees
them, and two processes at a person's last hint give it once (on SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import engine
from ai.judge import Option
from bot.edge import replies
from bot.edge.game_handlers import GameHandlers
from bot.edge.inflight import HANDLERS
from bot.edge.layout import decision_buttons
from bot.presentation.coach import Options, last_decision, option_label, verdict_line
from bot.presentation.images import labels
from bot.presentation.messages import text
from bot.services import GameService
from bot.services.hints import HINTS_PER_GAME
from bot.storage import Database, GameStore, open_database
from bot.storage.database import Connection
from bot.workers.jobs import coach_verdict_at
from engine import Phase
from render import panel
from render.text import draw_text
from tests.bot.edge.test_confirmations import three_players
from tests.bot.edge.test_edge import (
    DEFERRED_UPDATE_MESSAGE,
    UPDATE_MESSAGE,
    Edge,
    confirm,
    id_of,
    private,
    running_edge,
    started,
)
from tests.bot.edge.test_edge_async import handed_to_the_ai
from tests.bot.edge.test_edge_languages import french_server
from tests.e2e.fakecord import FakeMessage, FakeUser
from tests.e2e.fakecord.interactions import InteractionHandle
from tests.polling import until
from tests.postgres import backend, database_target, postgres_server, postgres_url

__all__ = ["backend", "database_target", "postgres_server", "postgres_url"]

DEFERRED_CHANNEL_MESSAGE = 5


@pytest.fixture
async def edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Edge]:
    async with running_edge(tmp_path, monkeypatch) as running:
        yield running


async def coached_turn(edge: Edge, **options: Any) -> FakeMessage:
    """A coached 2-player game of host and guest (with the other `options` of
    `/marrakech new`), started: its first turn's message."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, coach=True, **options).answer()
    assert "coached, never rated" in str(lobby.embeds[0]["fields"])
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    return await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))


def mover_and_other(edge: Edge, turn: FakeMessage) -> tuple[FakeUser, FakeUser]:
    (pinged,) = turn.pinged_user_ids
    if pinged == edge.host.id:
        return edge.host, edge.guest
    return edge.guest, edge.host


async def hints_used(database: Database, user: FakeUser) -> int:
    """The hints `user` has used in game 1, as stored with their seat."""
    async with database.single_read() as conn:
        used = await conn.fetchval(
            "SELECT hints_used FROM seats WHERE game_id = 1 AND user_id = $1", user.id
        )
    return int(used)


def hold_the_coach_s_searches(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> tuple[asyncio.Event, asyncio.Event, Callable[[], None]]:
    """Make the coach's searches wait: the first event is set as one begins, and each goes on
    once the second is set; the function, called, lets the searches after it run at once."""
    coach = edge.bot.handlers._coach
    assert coach is not None
    search = coach.options
    searching, searched = asyncio.Event(), asyncio.Event()

    async def held(record: Any) -> Any:
        searching.set()
        await searched.wait()
        return await search(record)

    monkeypatch.setattr(coach, "options", held)
    return searching, searched, lambda: monkeypatch.setattr(coach, "options", search)


async def test_hint_is_answered_at_once_privately_a_few_times_a_game(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each Hint is deferred privately before the coach searches: with the search held, the
    click's deferral arrives, and the hint is edited in once the search is done. The
    late-answer watchdog is off, so only the handler itself can defer the click."""
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)
    turn = await coached_turn(edge)
    assert "Hint" in [button.label for button in turn.enabled_buttons()]
    mover, other = mover_and_other(edge, turn)
    public = len(edge.fake.messages(edge.channel))
    searching, searched, _ = hold_the_coach_s_searches(edge, monkeypatch)

    assert "on your own turn" in await private(edge.click(other, turn, "Hint"))
    for left in range(HINTS_PER_GAME - 1, -1, -1):
        searching.clear()
        searched.clear()
        clicking = edge.click(mover, turn, "Hint")
        thinking = await clicking.response()
        assert thinking.response_type == DEFERRED_CHANNEL_MESSAGE
        assert thinking.message is not None
        assert thinking.message.ephemeral, "the bot thinks privately: the channel sees nothing"
        await asyncio.wait_for(searching.wait(), timeout=30.0)
        searched.set()
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


async def test_hint_is_refused_while_the_ai_plays_the_person_s_seat(edge: Edge) -> None:
    """The mover ran out of time three turns in a row, so the AI plays their seat: the turn is
    not theirs to decide, and Hint, on the turn's button or by the command, points them to
    `/marrakech rejoin` as a move does, using none of their hints."""
    await edge.bot.scheduler.stop()  # the AI does not play the seat meanwhile
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    await handed_to_the_ai(edge, mover)
    rejoin = "Take it back with `/marrakech rejoin`."
    assert rejoin in await private(edge.click(mover, turn, "Hint"))
    assert rejoin in await private(edge.slash(mover, "marrakech", "hint"))
    assert await hints_used(edge.store.database, mover) == 0


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


async def test_hint_is_refused_in_a_casual_game_without_the_coach(edge: Edge) -> None:
    """Casual is not coached: a casual game opened without the coach offers no Hint, and
    `/marrakech hint` there is refused privately, with no hint counted."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, casual=True).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    assert "Hint" not in [button.label for button in turn.buttons()]
    mover, _ = mover_and_other(edge, turn)
    public = len(edge.fake.messages(edge.channel))
    refusal = await private(edge.slash(mover, "marrakech", "hint"))
    assert refusal == text("coach.refused.not_coached", "en"), refusal
    assert await hints_used(edge.store.database, mover) == 0
    assert len(edge.fake.messages(edge.channel)) == public


async def test_the_hint_command_gives_the_hint_of_a_coached_game(edge: Edge) -> None:
    turn = await coached_turn(edge)
    mover, other = mover_and_other(edge, turn)
    assert "on your own turn" in await private(edge.slash(other, "marrakech", "hint"))
    answer = await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
    assert answer.ephemeral
    assert answer.content.startswith("💡 The coach would go for turning Assam ")
    assert f"{HINTS_PER_GAME - 1} hints left" in answer.content


async def test_the_hint_s_picture_is_of_the_option_it_names(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint comes with the board as the coach's option leaves it: the one picture drawn is
    of the option the line names, the first of the options found."""
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    coach = edge.bot.handlers._coach
    assert coach is not None
    search, draw = coach.options, coach.hint_png
    found: list[Options] = []
    drawn: list[str] = []

    async def options(record: Any) -> Options:
        found.append(await search(record))
        return found[-1]

    async def hint_png(state: Any, action: str, language: str, players: Any) -> bytes:
        drawn.append(action)
        return await draw(state, action, language, players)

    monkeypatch.setattr(coach, "options", options)
    monkeypatch.setattr(coach, "hint_png", hint_png)
    answer = await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    (options_found,) = found
    state = (await edge.service.play.look(1)).state
    assert state is not None
    named = option_label(state, options_found[0].action, "en")
    assert answer.content.startswith(f"💡 The coach would go for {named}:"), answer.content
    assert len({option.action for option in options_found}) > 1, "a choice to draw one of"
    assert drawn == [options_found[0].action]


HINT_OPENS = {"uk": "💡 Тренер обрав би ", "en": "💡 The coach would go for "}


async def test_a_hint_and_its_refusal_speak_the_presser_s_language_in_a_french_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hint is a private answer: in a coached game on a French server, the Ukrainian host
    and the British guest each get the coach's hint, or the refusal off their turn and once
    their hints are used up, in their own language, as the verdict after their click is."""
    async with french_server(tmp_path, monkeypatch) as edge:
        turn = await french_coached_turn(edge)
        mover, other = mover_and_other(edge, turn)
        language = {edge.host.id: "uk", edge.guest.id: "en"}
        refusal = await private(edge.slash(other, "marrakech", "hint"))
        assert refusal == text("coach.refused.not_your_turn", language[other.id]), refusal
        answer = await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
        assert answer.ephemeral
        assert answer.content.startswith(HINT_OPENS[language[mover.id]]), answer.content
        for _ in range(HINTS_PER_GAME - 1):
            await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
        used_up = await private(edge.slash(mover, "marrakech", "hint"))
        assert used_up == text(
            "coach.refused.none_left", language[mover.id], count=HINTS_PER_GAME
        ), used_up


async def test_the_hint_s_picture_speaks_the_presser_s_language_in_a_french_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint's board is part of the private answer: in a coached game on a French server,
    its panel, caught on its way to drawing, is written in the mover's language, with no French
    word ("Tour", "tapis", "visibles"), as the drill's picture is, and names the game's players
    as the turn's picture does."""
    async with french_server(tmp_path, monkeypatch) as edge:
        turn = await french_coached_turn(edge)
        mover, _ = mover_and_other(edge, turn)
        mine = labels({edge.host.id: "uk", edge.guest.id: "en"}[mover.id])
        coach = edge.bot.handlers._coach
        assert coach is not None
        draw = coach.hint_png
        drawing: list[bool] = []
        drawn: list[str] = []

        def recording(image: Image.Image, xy: tuple[float, float], words: str, **how: Any) -> None:
            if drawing:
                drawn.append(words)
            draw_text(image, xy, words, **how)

        async def hint_png(state: Any, action: str, language: str, players: Any) -> bytes:
            drawing.append(True)
            try:
                return await draw(state, action, language, players)
            finally:
                drawing.clear()

        monkeypatch.setattr(panel, "draw_text", recording)
        monkeypatch.setattr(coach, "hint_png", hint_png)
        answer = await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
        (board,) = answer.attachments
        assert board.filename == "hint.png"
        assert {mine.rugs, mine.visible} <= set(drawn), drawn
        french = labels("fr")
        assert not {french.rugs, french.visible} & set(drawn), drawn
        assert not any(words.startswith("Tour ") for words in drawn), drawn
        players = (await edge.service.play.look(1)).players
        names = {player.name for player in players}
        assert len(names) == 2, players
        assert names <= set(drawn), drawn


async def french_coached_turn(edge: Edge) -> FakeMessage:
    """On french_server: a coached 2-player game of host and guest, started: its first
    turn's message."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, coach=True).answer()
    await edge.click(edge.guest, lobby, "Rejoindre").answer()
    await edge.click(edge.host, lobby, "Commencer").answer()
    return await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))


async def test_the_verdict_speaks_the_presser_s_language_in_a_french_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verdict is a private answer too: in a coached game on a French server, the mover's
    verdict on keeping Assam straight is the coach's own judgement of it, told in the mover's
    language (Ukrainian for the host, English for the guest), not the server's."""
    async with french_server(tmp_path, monkeypatch) as edge:
        turn = await french_coached_turn(edge)
        mover, _ = mover_and_other(edge, turn)
        language = {edge.host.id: "uk", edge.guest.id: "en"}[mover.id]
        straight = next(b for b in turn.enabled_buttons() if id_of(b).endswith(":S"))
        assert straight.label is not None
        (verdict,) = await edge.click(mover, turn, straight.label).followups(1, timeout=30.0)
        assert verdict.ephemeral
        assert verdict.visible_to == mover.id
        state = (await edge.service.play.look(1)).state
        assert state is not None
        coach = edge.bot.handlers._coach
        assert coach is not None
        judgement, facings = await coach.verdict(engine.record_of(state), 0, None)
        expected = verdict_line(judgement, facings, language, state.players)
        assert verdict.content == expected, (verdict.content, expected)


async def test_the_hint_button_leaves_the_turns_of_a_person_with_no_hint_left(
    edge: Edge,
) -> None:
    """Once the mover has used every hint, their turn's next decision offers no Hint (a press
    could only be refused); the other player's turn still does, and so does a restart's."""
    turn = await coached_turn(edge)
    mover, other = mover_and_other(edge, turn)
    for _ in range(HINTS_PER_GAME):
        await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
    assert "Hint" in [b.label for b in edge.fake.world.messages[turn.id].enabled_buttons()], (
        "the message shown before the last hint is edited only by the next decision"
    )
    await edge.click(mover, turn, decision(turn)).answer()  # the die is rolled with it
    placing = edge.fake.world.messages[turn.id]
    labels = [b.label for b in placing.enabled_buttons()]
    assert labels, "a rug to lay"
    assert "Hint" not in labels, labels
    edge.service.loader.forget(1)  # as a restart finds it: read from the database
    view = await edge.service.play.look(1)
    buttons = decision_buttons(view)
    assert buttons is not None
    assert "Hint" not in [getattr(item, "label", None) for item in buttons.children]

    await edge.click(mover, placing, decision(placing)).answer()
    nxt = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.pinged_user_ids == {other.id} and m.id > turn.id
    )
    assert "Hint" in [b.label for b in nxt.enabled_buttons()], "the other player has theirs"


async def at_a_roll(edge: Edge) -> tuple[FakeMessage, FakeUser]:
    """A coached game where Assam turns after the rug, at its first turn's roll: the turn's
    message and its mover."""
    turn = await coached_turn(edge, variant="rotate-after")
    mover, _ = mover_and_other(edge, turn)
    state = (await edge.service.play.look(1)).state
    assert state is not None
    assert state.phase is Phase.ROLL
    return turn, mover


async def test_no_hint_is_taken_while_the_mover_only_has_to_roll(edge: Edge) -> None:
    """Rolling the die (the turn's first step when Assam turns after the rug) is no choice:
    the mover is told to roll first, keeps every hint, and gets one when there is a rug to
    lay."""
    turn, mover = await at_a_roll(edge)
    refused = await private(edge.slash(mover, "marrakech", "hint"))
    assert refused == "Roll the die first: the hint is for the choice that follows."
    await edge.click(mover, turn, "Roll the die").answer()
    answer = await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
    assert answer.content.startswith("💡 The coach would go for laying on "), answer.content
    assert f"{HINTS_PER_GAME - 1} hints left" in answer.content, answer.content


async def test_a_turn_offers_no_hint_while_its_mover_only_has_to_roll(edge: Edge) -> None:
    """Hint is for a choice, never the die: in the variant where Assam turns after the rug,
    the turn's message at the roll offers the roll alone; once rolled, the rug to lay offers
    Hint."""
    turn, mover = await at_a_roll(edge)
    labels = [b.label for b in edge.fake.world.messages[turn.id].enabled_buttons()]
    assert "Roll the die" in labels, labels
    assert "Hint" not in labels, labels
    await edge.click(mover, turn, "Roll the die").answer()
    placing = edge.fake.world.messages[turn.id]
    assert "Hint" in [b.label for b in placing.enabled_buttons()]


async def test_the_turn_of_assam_after_the_rug_offers_a_hint_that_names_a_way_to_turn_him(
    edge: Edge,
) -> None:
    """The turn of Assam after the rug (rotate-after) is a choice: its message offers Hint, and
    the hint, by the button or by `/marrakech hint`, names the coach's way to turn him."""
    turn, mover = await at_a_roll(edge)
    await edge.click(mover, turn, "Roll the die").answer()
    placing = edge.fake.world.messages[turn.id]
    await edge.click(mover, placing, decision(placing)).answer()
    await clicks_handled(edge)
    view = await edge.service.play.look(1)
    assert view.state is not None
    assert (view.state.phase, view.user_to_move) == (Phase.ROTATE, mover.id)
    turning = edge.fake.world.messages[turn.id]
    labels = [b.label for b in turning.enabled_buttons()]
    assert "Hint" in labels, labels
    pressed = await edge.click(mover, turning, "Hint").answer(timeout=30.0)
    assert pressed.content.startswith("💡 The coach would go for turning Assam "), pressed.content
    assert f"{HINTS_PER_GAME - 1} hints left" in pressed.content, pressed.content
    asked = await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
    assert asked.content.startswith("💡 The coach would go for turning Assam "), asked.content
    assert await hints_used(edge.store.database, mover) == 2


CHOICE = r"(turning Assam \w+|keeping Assam facing \w+|laying on [a-g][1-7]-[a-g][1-7])"
VERDICT = re.compile(
    rf"✅ (Best|Good): {CHOICE}\.|✅ Good: {CHOICE}, though {CHOICE} kept "
    rf"[0-9]+\.[0-9]\u00a0points "
    rf"more winning chance\.|⏹️ Decided: every option leaves a [0-9]+% chance of winning\.|"
    rf"(⚠️ Inaccuracy|❗ Mistake|❌ Blunder): {CHOICE} kept [0-9]+\.[0-9]\u00a0points more "
    rf"winning chance than {CHOICE}\."
)


def decision(turn: FakeMessage) -> str:
    """The label of the first choice of the turn (not Hint)."""
    return next(b.label for b in turn.enabled_buttons() if b.label and b.label != "Hint")


async def verdicts_done(edge: Edge) -> None:
    """Wait until every verdict the bot is judging has been told (and whatever its task does
    after that is done)."""
    await asyncio.gather(*edge.bot.handlers._verdicts)


def followups_of(handle: InteractionHandle) -> list[FakeMessage]:
    """Every follow-up the bot sent for `handle` so far."""
    return [e.message for e in handle.events if e.kind == "followup" and e.message is not None]


async def clicks_handled(edge: Edge) -> None:
    """Wait until the bot has handled every game button clicked so far, so every verdict
    those clicks ask for has been started."""
    await until(lambda: not edge.bot.handlers._in_flight, "every click handled")


def with_a_blunder(options: Options) -> Options:
    """`options` (best first) with the last one's chance 30 points under the best's: taking it
    is a blunder."""
    *kept, worst = options
    return (*kept, replace(worst, chance=options[0].chance - 0.30))


async def test_each_decision_gets_a_private_verdict_of_its_own_in_the_same_click_s_answer(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each decision's click gets one private follow-up, its verdict, and nothing else: once
    the verdicts are told, no public message carries them and no click has a second
    follow-up. The verdict judges the decision just taken: the rug is laid after a Hint whose
    options make it a blunder, so its verdict must name the best rug of that decision (a
    verdict on the turn of Assam before it would not)."""
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    clicking = edge.click(mover, turn, decision(turn))
    (verdict,) = await clicking.followups(1, timeout=30.0)
    assert verdict.ephemeral
    assert verdict.visible_to == mover.id
    assert VERDICT.fullmatch(verdict.content), verdict.content

    place = edge.fake.world.messages[turn.id]
    assert "Hint" in [b.label for b in place.enabled_buttons()]
    state = (await edge.service.play.look(1)).state
    assert state is not None
    coach = edge.bot.handlers._coach
    assert coach is not None
    search = coach.options
    hinted: list[Options] = []

    async def blundering(record: Any) -> Options:
        hinted.append(with_a_blunder(await search(record)))
        return hinted[-1]

    monkeypatch.setattr(coach, "options", blundering)
    hint = await edge.click(mover, place, "Hint").answer(timeout=30.0)
    assert hint.content.startswith("💡 The coach would go for laying on "), hint.content
    (options,) = hinted
    best, worst = options[0].action, options[-1].action
    laying = next(b for b in place.enabled_buttons() if id_of(b).endswith(f":{worst}"))
    assert laying.label is not None
    placing = edge.click(mover, place, laying.label)
    (second,) = await placing.followups(1, timeout=30.0)
    assert second.ephemeral
    assert second.visible_to == mover.id
    best_label, taken = option_label(state, best, "en"), option_label(state, worst, "en")
    assert second.content == (
        f"❌ Blunder: {best_label} kept 30.0\u00a0points more winning chance than {taken}."
    ), second.content

    await verdicts_done(edge)
    told = [
        m.content
        for m in edge.fake.messages(edge.channel)
        if verdict.content in m.content or second.content in m.content
    ]
    assert told == [], edge.fake.transcript(edge.channel)
    assert [len(followups_of(click)) for click in (clicking, placing)] == [1, 1]


async def test_the_click_is_answered_and_the_move_shown_while_the_verdict_is_judged(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The public turn never waits for the coach: with the judge held, the decision's click is
    answered and its turn's message shows the move; once the judge is done, the verdict
    follows privately. The late-answer watchdog is off, so only the handler itself can answer
    the click."""
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    coach = edge.bot.handlers._coach
    assert coach is not None
    judge = coach.verdict
    judging, judged = asyncio.Event(), asyncio.Event()

    async def held(record: Any, index: int, options: Any) -> Any:
        judging.set()
        await judged.wait()
        return await judge(record, index, options)

    monkeypatch.setattr(coach, "verdict", held)
    clicking = edge.click(mover, turn, decision(turn))
    answered = await clicking.response()
    assert answered.response_type in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE)
    shown = await clicking.answer()
    assert shown.id == turn.id
    assert "The die shows" in shown.embed_text(), shown.embed_text()
    await asyncio.wait_for(judging.wait(), timeout=30.0)
    assert followups_of(clicking) == [], "no verdict before the judge is done"

    judged.set()
    (verdict,) = await clicking.followups(1, timeout=30.0)
    assert verdict.ephemeral
    assert VERDICT.fullmatch(verdict.content), verdict.content


async def test_a_stop_lets_a_verdict_being_judged_follow_its_click(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clean stop (SIGTERM) that comes while a decision's verdict is judged waits for it, as
    it waits for the handlers still running: the verdict follows its click before the client
    closes, rather than being dropped on a closed connection."""
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    coach = edge.bot.handlers._coach
    assert coach is not None
    judge = coach.verdict
    judging, judged, stopping = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def held(record: Any, index: int, options: Any) -> Any:
        judging.set()
        await judged.wait()
        return await judge(record, index, options)

    waiting = HANDLERS.drained

    async def drained(within: float) -> bool:
        stopping.set()
        return await waiting(within)

    monkeypatch.setattr(coach, "verdict", held)
    monkeypatch.setattr(HANDLERS, "drained", drained)
    clicking = edge.click(mover, turn, decision(turn))
    await clicking.answer()
    await asyncio.wait_for(judging.wait(), timeout=30.0)
    closing = asyncio.create_task(edge.client.close())
    await asyncio.wait_for(stopping.wait(), timeout=30.0)  # the stop got to the handlers
    judged.set()
    await asyncio.wait_for(closing, timeout=30.0)
    (verdict,) = followups_of(clicking)
    assert verdict.ephemeral
    assert VERDICT.fullmatch(verdict.content), verdict.content


async def test_a_roll_of_the_die_gets_no_verdict(edge: Edge) -> None:
    """A die roll is no decision: in the variant where Assam turns after the rug, the first
    player's rug and turn of Assam each get their verdict, and the second player's roll that
    follows gets none (a verdict there could only judge the decision before it, the first
    player's)."""
    turn = await coached_turn(edge, variant="rotate-after")
    mover, other = mover_and_other(edge, turn)
    await edge.click(mover, turn, "Roll the die").answer()
    place = edge.fake.world.messages[turn.id]
    (laid,) = await edge.click(mover, place, decision(place)).followups(1, timeout=30.0)
    assert VERDICT.fullmatch(laid.content), laid.content
    turning = edge.fake.world.messages[turn.id]
    (turned,) = await edge.click(mover, turning, decision(turning)).followups(1, timeout=30.0)
    assert VERDICT.fullmatch(turned.content), turned.content
    nxt = await edge.fake.wait_for_message(
        edge.channel, lambda m: m.pinged_user_ids == {other.id} and m.id > turn.id
    )
    rolling = edge.click(other, nxt, "Roll the die")
    await rolling.answer()
    await clicks_handled(edge)
    await verdicts_done(edge)
    assert followups_of(rolling) == [], [m.content for m in followups_of(rolling)]


async def test_a_hint_s_options_judge_only_the_decision_it_was_asked_at(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Hint still being searched when its person takes the decision is answered after it:
    its options are of that decision, so the next decision (the rug) is judged on a search of
    its own and gets its verdict, never judged on the turn of Assam's options."""
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    searching, searched, searching_at_once = hold_the_coach_s_searches(edge, monkeypatch)
    hinting = edge.click(mover, turn, "Hint")
    await asyncio.wait_for(searching.wait(), timeout=30.0)
    (orienting,) = await edge.click(mover, turn, decision(turn)).followups(1, timeout=30.0)
    assert VERDICT.fullmatch(orienting.content), orienting.content
    searched.set()
    hint = await hinting.answer(timeout=30.0)
    assert hint.content.startswith("💡 The coach would go for turning Assam "), hint.content
    await clicks_handled(edge)
    assert edge.bot.handlers._hinted, "the late hint's options are kept"
    searching_at_once()

    place = edge.fake.world.messages[turn.id]
    placing = edge.click(mover, place, decision(place))
    await placing.answer()
    await clicks_handled(edge)
    await verdicts_done(edge)
    verdicts = followups_of(placing)
    assert len(verdicts) == 1, "the rug's own verdict"
    assert VERDICT.fullmatch(verdicts[0].content), verdicts[0].content


async def test_a_verdict_after_a_rival_resigned_since_the_hint_judges_the_board_left(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rival who resigns between a Hint and the decision changes the board the decision is
    made on (one rival fewer, their rugs neutral): the verdict is the one a search of the
    recorded decision gives, never one on the Hint's options of the board before."""
    turn = await three_players(edge, coach=True)
    (mover_id,) = turn.pinged_user_ids
    players = (edge.host, edge.guest, edge.outsider)
    mover = next(user for user in players if user.id == mover_id)
    rival = next(user for user in players if user is not mover)
    coach = edge.bot.handlers._coach
    assert coach is not None
    search = coach.options
    hinted: list[Options] = []

    async def options(record: Any) -> Options:
        hinted.append(await search(record))
        return hinted[-1]

    monkeypatch.setattr(coach, "options", options)
    await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    await (await confirm(edge, rival, "marrakech", "resign", button="Resign")).answer()
    await edge.fake.wait_until(
        lambda: id_of(edge.fake.world.messages[turn.id].enabled_buttons()[0]) == "mk:1:1:L",
        what="the turn shown again after the resignation",
    )
    shown = edge.fake.world.messages[turn.id]
    (verdict,) = await edge.click(mover, shown, decision(shown)).followups(1, timeout=30.0)
    state = (await edge.service.play.look(1)).state
    assert state is not None
    record = engine.record_of(state)
    judgement, facings = coach_verdict_at(record, last_decision(record))
    assert [o.chance for o in judgement.options] != [o.chance for o in hinted[0]], "a new board"
    assert verdict.content == verdict_line(judgement, facings, "en", state.players)


async def test_a_verdict_gives_its_points_under_the_bands_of_the_game_s_own_players(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In 3 players 4.7 points make an inaccuracy: a choice that gave away 4.66 points, after a
    Hint, is "Good" and its verdict reads 4.6 points, never the 3-player threshold "4.7"."""
    turn = await three_players(edge, coach=True)
    (mover_id,) = turn.pinged_user_ids
    mover = next(u for u in (edge.host, edge.guest, edge.outsider) if u.id == mover_id)
    label = decision(turn)
    choice = next(b for b in turn.enabled_buttons() if b.label == label)
    taken = id_of(choice).rsplit(":", 1)[1]
    best, worst = (action for action in "LSR" if action != taken)
    coach = edge.bot.handlers._coach
    assert coach is not None
    search = coach.options

    async def options(record: Any) -> Options:
        facts = {option.action: option.facts for option in await search(record)}
        chances = {best: 0.5, taken: 0.4534, worst: 0.3}
        return tuple(Option(action, chances[action], facts[action]) for action in chances)

    monkeypatch.setattr(coach, "options", options)
    await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    (verdict,) = await edge.click(mover, turn, label).followups(1, timeout=30.0)
    assert verdict.content.startswith("✅ Good: "), verdict.content
    assert "kept 4.6\u00a0points more" in verdict.content, verdict.content


async def test_a_verdict_that_cannot_be_judged_is_left_out_logged_and_the_move_stands(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A verdict whose judging fails (a worker that breaks) is left out and logged: the click
    is answered with the move, which stands, and no follow-up comes."""
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    coach = edge.bot.handlers._coach
    assert coach is not None

    async def failing(*args: Any) -> Any:
        raise RuntimeError("the worker broke")

    monkeypatch.setattr(coach, "verdict", failing)
    with caplog.at_level(logging.WARNING, logger="bot.edge.game_handlers"):
        clicking = edge.click(mover, turn, decision(turn))
        await clicking.answer(timeout=30.0)
        await clicks_handled(edge)
        await verdicts_done(edge)
    assert followups_of(clicking) == []
    state = (await edge.service.play.look(1)).state
    assert state is not None
    assert state.phase is Phase.PLACE, "the turn of Assam stands"
    (logged,) = [r.getMessage() for r in caplog.records if "no verdict" in r.getMessage()]
    assert "the worker broke" in logged, logged


@pytest.mark.parametrize("options", [{}, {"casual": True}], ids=["rated", "casual"])
async def test_a_rated_game_and_a_casual_one_without_the_coach_get_no_verdict(
    edge: Edge, options: dict[str, Any]
) -> None:
    """A verdict tells the coach's win chances of a running game: only a coached game gets
    one. In a game opened without the coach, the mover's turn of Assam and rug are answered
    with the move alone, once every verdict the bot could be judging is done: no follow-up,
    and no verdict in the channel."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, **options).answer()
    await edge.click(edge.guest, lobby, "Join").answer()
    await edge.click(edge.host, lobby, "Start").answer()
    turn = await edge.fake.wait_for_message(edge.channel, lambda m: bool(m.pinged_user_ids))
    mover, _ = mover_and_other(edge, turn)
    orienting = edge.click(mover, turn, decision(turn))
    await orienting.answer()
    place = edge.fake.world.messages[turn.id]
    placing = edge.click(mover, place, decision(place))
    await placing.answer()
    await clicks_handled(edge)
    await verdicts_done(edge)
    said = [[m.content for m in followups_of(click)] for click in (orienting, placing)]
    assert said == [[], []], said
    told = [m.content for m in edge.fake.messages(edge.channel) if VERDICT.search(m.content)]
    assert told == [], told


async def test_a_closed_game_s_hints_are_forgotten(edge: Edge) -> None:
    """A hint taken in a running game is stored with the mover's seat and its options are kept
    for the verdict; once the game is closed, the options are forgotten."""
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    handlers = edge.bot.handlers
    assert await hints_used(edge.store.database, mover) == 1, "the hint is counted"
    assert handlers._hinted, "the hint's options wait for the verdict"
    await edge.service.play.resign(1, mover.id)
    assert not handlers._hinted


def another_process(edge: Edge, database: Database) -> GameHandlers:
    """The game handlers of a process started afresh on `database`: nothing of the running
    process's memory (its services, its counts), the same Discord parts."""
    running = edge.bot.handlers
    return GameHandlers(
        GameService(GameStore(database)),
        running._guilds,
        running._display,
        running._guide,
        running._analysis,
        coached=running._coach,
    )


@pytest.fixture
async def edge_on(
    database_target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Edge]:
    """The edge on SQLite and on PostgreSQL."""
    async with running_edge(tmp_path, monkeypatch, database_target=database_target) as running:
        yield running


@dataclass
class LastHint:
    """A coached game whose mover has one hint left, and a second process's database."""

    turn: FakeMessage
    mover: FakeUser
    database: Database


@pytest.fixture
async def last_hint(edge_on: Edge, database_target: str) -> AsyncIterator[LastHint]:
    """The mover of a coached game has used all their hints but one; another connection to
    the same database is open for a second process."""
    turn = await coached_turn(edge_on)
    mover, _ = mover_and_other(edge_on, turn)
    for _ in range(HINTS_PER_GAME - 1):
        answer = await edge_on.click(mover, turn, "Hint").answer(timeout=30.0)
        assert answer.content.startswith("💡"), answer.content
    database = await open_database(database_target)
    yield LastHint(turn, mover, database)
    await database.close()


async def test_the_hints_used_survive_a_restart(edge_on: Edge, last_hint: LastHint) -> None:
    edge, turn, mover = edge_on, last_hint.turn, last_hint.mover
    edge.client.buttons = another_process(edge, last_hint.database)
    last = await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    assert last.content.startswith("💡"), last.content
    assert "0 hints left" in last.content, last.content
    assert "used your 3 hints" in await private(edge.click(mover, turn, "Hint"))


def in_step(
    database: Database, taker: ContextVar[int | None], steps: dict[int, asyncio.Barrier]
) -> Callable[[], AbstractAsyncContextManager[Connection]]:
    """`database.single_write`, made to keep two takers in step: a taker's (set in `taker`)
    n-th write waits for the other's n-th before it begins, so neither writes before both
    have done all they did before it. Other writes pass as they are."""
    write = database.single_write
    begun = [0, 0]

    @asynccontextmanager
    async def single_write() -> AsyncIterator[Connection]:
        who = taker.get()
        if who is not None:
            step = begun[who]
            begun[who] += 1
            await steps.setdefault(step, asyncio.Barrier(2)).wait()
        async with write() as conn:
            yield conn

    return single_write


async def test_two_processes_at_the_last_hint_give_it_once(
    edge_on: Edge, last_hint: LastHint, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes, each with its own connection to the database, take the mover's last hint
    at the same time: each one's writes are kept in step with the other's, so a taker that
    read the count and then wrote it in two steps would see the other's read, not its write.
    One process gives the hint, the other refuses it, and the stored count stays at the
    allowance."""
    edge, mover = edge_on, last_hint.mover
    second = GameService(GameStore(last_hint.database))
    taker: ContextVar[int | None] = ContextVar("taker", default=None)
    steps: dict[int, asyncio.Barrier] = {}
    for database in (edge.store.database, last_hint.database):
        monkeypatch.setattr(database, "single_write", in_step(database, taker, steps))

    async def take(who: int, service: GameService) -> int | None:
        taker.set(who)
        return await service.hints.take(1, mover.id)

    both = asyncio.gather(take(0, edge.service), take(1, second))
    taken = await asyncio.wait_for(both, timeout=30.0)
    assert (taken.count(0), taken.count(None)) == (1, 1), taken
    assert await hints_used(edge.store.database, mover) == HINTS_PER_GAME


async def test_a_last_hint_whose_answer_fails_leaves_the_hint_button(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given back in the store only, the game held in memory would count it used, and the
    # person's next decisions would offer no Hint though one is left.
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    for _ in range(HINTS_PER_GAME - 1):
        await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
    coach = edge.bot.handlers._coach
    assert coach is not None

    async def failing(record: Any) -> Any:
        raise RuntimeError("the worker died")

    monkeypatch.setattr(coach, "options", failing)
    failed = await edge.slash(mover, "marrakech", "hint").answer(timeout=30.0)
    assert not failed.content.startswith("💡"), failed.content
    assert await hints_used(edge.store.database, mover) == HINTS_PER_GAME - 1
    await edge.click(mover, turn, decision(turn)).answer()
    placing = edge.fake.world.messages[turn.id]
    assert "Hint" in [button.label for button in placing.enabled_buttons()]


def the_search_fails_once(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach's next search for a hint fails (its worker died); the searches after it work."""
    coach = edge.bot.handlers._coach
    assert coach is not None
    searched = coach.options

    async def failing(record: Any) -> Any:
        monkeypatch.setattr(coach, "options", searched)  # the next search works
        raise RuntimeError("the worker died")

    monkeypatch.setattr(coach, "options", failing)


def the_edit_fails_once(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord fails the next edit that shows a hint (the answer with its picture); the
    answers after it go through."""
    send = replies.send

    async def failing(interaction: Any, **fields: Any) -> Any:
        if "files" not in fields:  # not a hint's answer
            return await send(interaction, **fields)
        monkeypatch.setattr(replies, "send", send)  # the next answer goes
        raise RuntimeError("Discord failed the edit")

    monkeypatch.setattr(replies, "send", failing)


@pytest.mark.parametrize(
    "fails_once",
    [the_search_fails_once, the_edit_fails_once],
    ids=["its-search", "the-edit-that-shows-it"],
)
async def test_a_hint_whose_answer_fails_is_given_back(
    edge: Edge,
    monkeypatch: pytest.MonkeyPatch,
    fails_once: Callable[[Edge, pytest.MonkeyPatch], None],
) -> None:
    """Whatever of its answer fails (coach.md: its search, its picture, or the edit that shows
    it), the hint the person never saw is still theirs: the next one counts it as not used."""
    turn = await coached_turn(edge)
    mover, _ = mover_and_other(edge, turn)
    fails_once(edge, monkeypatch)
    failed = await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    assert not failed.content.startswith("💡"), failed.content
    answer = await edge.click(mover, turn, "Hint").answer(timeout=30.0)
    assert f"{HINTS_PER_GAME - 1} hints left" in answer.content, answer.content
