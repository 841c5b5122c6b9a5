"""Learn from your mistakes on a finished game's result: the player's costliest decisions,
privately, one at a time, with Show the better move, Try again and Next; anyone else gets a
short refusal, and the buttons work from their ids alone (a new handler, nothing kept).

Through real discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from PIL import Image

import engine
from ai.judge import Facts, Judgement, Option, judgement_from
from bot.edge import replies
from bot.edge.buttons import DrillButton, parse_drill_id
from bot.edge.drill import DrillHandler, drill_buttons, step_message
from bot.presentation import messages, presenter
from bot.presentation.drill import Decision, DrillPictures
from bot.presentation.images import labels
from bot.services.analysis import FinishedGame
from bot.storage.judgements import JudgementStore
from render import DEFAULT_SIZE, panel
from render.panel import ENGLISH
from render.text import draw_text
from tests.bot.edge.test_confirmations import three_players
from tests.bot.edge.test_edge import (
    Edge,
    confirm,
    mover_of,
    private,
    running_edge,
    started,
    thinking_privately_once,
)
from tests.bot.edge.test_edge_faults import Outage, judgement_kept
from tests.bot.edge.test_edge_faults import away as away_fixture  # noqa: F401  (a fixture)
from tests.bot.edge.test_forged_payloads import forged_click
from tests.bot.presentation.test_drill_texts import ORIENT, RUG
from tests.e2e.fakecord import FakeMessage, FakeUser
from tests.polling import until

DEFERRED_UPDATE_MESSAGE = 6
OPEN = "Learn from your mistakes"
GOOD_PICK_POINTS = 2.0
"""The most win-chance points a pick may give away and still be good, in 2 players."""


@pytest.fixture
async def edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Edge]:
    async with running_edge(
        tmp_path, monkeypatch, user_locales=("en-US", "fr", "uk", "en-GB")
    ) as running:
        yield running


@pytest.fixture
def away(away_fixture: Outage) -> Outage:  # noqa: F811  (the imported fixture, by name)
    """An outage to start on the edge's database, as in test_edge_faults.py."""
    return away_fixture


async def played(edge: Edge, turns: int, seats: int = 2) -> FakeMessage:
    """Game 1, host against guest (and the outsider with 3 `seats`): `turns` turns played
    (straight on, the first rug), then everyone but the host resigns. Its result message."""
    turn = await (three_players(edge) if seats == 3 else started(edge))
    seated = {user.id: user for user in (edge.host, edge.guest, edge.outsider)}
    for _ in range(turns):
        (mover_id,) = turn.pinged_user_ids
        mover = seated[mover_id]
        (straight,) = [b for b in turn.buttons() if (b.custom_id or "").endswith(":S")]
        shown = await edge.click(mover, turn, straight.label or "").answer()
        await edge.click(mover, shown, shown.buttons()[0].label or "").answer()

        def next_turn(m: FakeMessage, after: int = turn.id) -> bool:
            return m.id > after and bool(m.pinged_user_ids)

        turn = await edge.fake.wait_for_message(edge.channel, next_turn)
    if seats == 3:
        await (await confirm(edge, edge.outsider, "marrakech", "resign", button="Здатися")).answer()
    await (await confirm(edge, edge.guest, "marrakech", "resign", button="Abandonner")).answer()
    return await edge.fake.wait_for_message(
        edge.channel, lambda m: any(a.filename.endswith(".json") for a in m.attachments)
    )


async def pressed(edge: Edge, user: FakeUser, message: FakeMessage, label: str) -> FakeMessage:
    """Press `label` on a drill message: deferred at once, then the drill's message edited."""
    clicking = edge.click(user, message, label)
    response = await clicking.response()
    said = None if response.message is None else response.message.content
    assert response.response_type == DEFERRED_UPDATE_MESSAGE, (label, said)
    return await clicking.answer(timeout=60.0)


def picture(message: FakeMessage) -> Image.Image:
    (attachment,) = message.attachments
    assert attachment.filename.startswith("marrakech-drill-1-")
    return Image.open(io.BytesIO(attachment.data))


async def test_a_player_goes_through_their_costliest_decisions(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host opens their drill, sees the better move and tries again: picking what they
    took again is named and told how far below the best it is, picking the better move is
    within a good pick's points, a pick that is none of the options is refused, and Next goes
    on; after a restart (a new handler, nothing kept) every button of the drill's message
    still answers from its id alone. Each screen's picture draws the rugs its words name,
    with the numbers they give them, and a second try's picture every option in the order
    of its buttons."""
    final = await played(edge, turns=10)
    drawn = pictures_drawn(monkeypatch)
    (button,) = [b for b in final.buttons() if b.label == OPEN]
    assert button.custom_id == "mk:drill:1:0:open"
    public = len(edge.fake.messages(edge.channel))

    clicking = edge.click(edge.host, final, OPEN)
    drill = await clicking.answer(timeout=60.0)
    answers = [event.message for event in clicking.events if event.message is not None]
    assert all(m.ephemeral for m in answers), "the bot thinks privately: the channel sees nothing"
    assert drill.ephemeral
    assert drill.visible_to == edge.host.id
    assert drill.content.startswith("Decision 1 of 3 "), drill.content
    assert "chance of winning" in drill.content
    taken = re.search(r"you chose (\d+), (\S+), which left you a (\d+)% chance", drill.content)
    assert taken is not None, drill.content
    assert picture(drill).width == DEFAULT_SIZE
    labels = [b.label for b in drill.buttons()]
    assert labels[:2] == ["Show the better move", "Try again"]
    assert drawn[-1] == Drawn(None, (), (taken[1],), None), "the rug taken, with its number"

    better = await pressed(edge, edge.host, drill, "Show the better move")
    assert f"you chose {taken[1]}, {taken[2]}," in better.content, "one number all the step"
    best = re.search(
        r"Better was (\d+), (\S+): (\d+)%, ([\d.]+)\u00a0points more\.", better.content
    )
    assert best is not None, better.content
    assert float(best[4]) >= GOOD_PICK_POINTS, "what was taken is not within a good pick's points"
    assert "Show the better move" not in [b.label for b in better.buttons()], "it is shown"
    tried = await pressed(edge, edge.host, better, "Try again")
    assert "Pick again among the same options." in tried.content
    options = [b for b in tried.buttons() if parse_drill_id(b.custom_id or "")]
    picks = [b.label for b in options if b.label not in ("Show the better move", "Next")]
    named = {(label or "").split(" · ")[-1]: label for label in picks}  # "3 · c1-c2"
    assert {taken[2], best[2]} <= set(named), picks
    assert named[taken[2]] == f"{taken[1]} · {taken[2]}", "the number the step gave it"
    assert named[best[2]] == f"{best[1]} · {best[2]}", "the number Show the better move gave it"
    moves = {b.label: (parse_drill_id(b.custom_id or "") or (0, 0, ""))[2] for b in options}
    taken_move, best_move = moves[named[taken[2]]], moves[named[best[2]]]
    assert drawn[-2:] == [
        Drawn(best_move, (), (taken[1], best[1]), None),  # the better rug beside it
        Drawn(None, tuple(moves[label] for label in picks), (taken[1],), None),  # every option
    ], drawn
    picked = await pressed(edge, edge.host, tried, named[taken[2]] or "")
    assert picked.content.splitlines()[-1] == (  # each named as its button is
        f"{named[taken[2]]}: {taken[3]}%, {best[4]}\u00a0points below the best "
        f"({named[best[2]]}, {best[3]}%)."
    ), picked.content
    assert drawn[-1] == Drawn(taken_move, (), (taken[1], taken[1], best[1]), best_move), (
        "the pick beside the rug taken, and the best the answer names"
    )
    forged = forged_click(edge, edge.host, edge.channel, picked, "mk:drill:1:0:a1g7")
    assert await private(forged) == "That is not one of this decision's options."
    tried = await pressed(edge, edge.host, picked, "Try again")
    found = await pressed(edge, edge.host, tried, named[best[2]] or "")
    assert found.content.splitlines()[-1] == (
        f"{named[best[2]]}: {best[3]}%, within 2\u00a0points of the best. Well found."
    ), found.content
    assert drawn[-1] == Drawn(best_move, (), (taken[1], best[1]), None), "the best drawn once"

    # After a restart nothing of the drill is in memory: the ids alone carry each button.
    old = edge.client.drills
    assert isinstance(old, DrillHandler)
    again = DrillPictures(old._pictures._workers, old._pictures._judgements)
    edge.client.drills = DrillHandler(edge.service.play, again)
    shown = await pressed(edge, edge.host, found, "Show the better move")
    assert shown.content.splitlines()[2].startswith(f"Better was {best[1]}, {best[2]}: "), (
        shown.content
    )
    tried = await pressed(edge, edge.host, shown, "Try again")
    assert tried.content.endswith("Pick again among the same options."), tried.content
    picked = await pressed(edge, edge.host, tried, named[taken[2]] or "")
    assert picked.content.splitlines()[-1] == (  # each named as its button is
        f"{named[taken[2]]}: {taken[3]}%, {best[4]}\u00a0points below the best "
        f"({named[best[2]]}, {best[3]}%)."
    ), picked.content
    following = await pressed(edge, edge.host, picked, "Next")
    assert following.content.startswith("Decision 2 of 3 ")
    following = await pressed(edge, edge.host, following, "Next")
    assert following.content.startswith("Decision 3 of 3 ")
    labels = [b.label for b in following.buttons()]
    assert "Next" not in labels, "the last step"
    done = await pressed(edge, edge.host, following, "Done")
    assert done.content == "That was your last costly decision of game #1."
    assert (done.buttons(), done.attachments) == ([], []), "the drill is over"
    assert len(edge.fake.messages(edge.channel)) == public, "the channel stays quiet"


async def test_each_player_gets_their_own_decisions_whoever_opened_the_drill_first(
    edge: Edge,
) -> None:
    """The drills kept in memory are each seat's own: the guest, opening theirs after the
    host opened the host's, gets what a handler that kept nothing gives them, never the host's
    decisions."""
    final = await played(edge, turns=10)
    hosts = (await edge.click(edge.host, final, OPEN).answer(timeout=60.0)).content
    guests = (await edge.click(edge.guest, final, OPEN).answer(timeout=60.0)).content

    old = edge.client.drills
    assert isinstance(old, DrillHandler)
    fresh = DrillPictures(old._pictures._workers, old._pictures._judgements)
    edge.client.drills = DrillHandler(edge.service.play, fresh)  # nothing kept in memory
    alone = (await edge.click(edge.guest, final, OPEN).answer(timeout=60.0)).content
    assert guests == alone, (guests, alone)
    assert hosts.startswith("Decision 1 of 3 "), hosts


async def test_the_drill_s_steps_speak_the_presser_s_language_on_a_server_of_another(
    edge: Edge,
) -> None:
    """The guest speaks French on an English server (whose result offers "Learn from your
    mistakes"): their drill, each step and each button of it, is in French."""
    final = await played(edge, turns=10)
    drill = await edge.click(edge.guest, final, OPEN).answer(timeout=60.0)
    assert drill.ephemeral
    assert drill.visible_to == edge.guest.id
    assert drill.content.startswith("Décision 1 sur 3 de la partie n° 1 "), drill.content
    assert "de chances de gagner" in drill.content, drill.content
    labels = [b.label for b in drill.buttons()]
    assert labels == ["Voir le meilleur coup", "Réessayer", "Suivant"], labels
    better = await pressed(edge, edge.guest, drill, "Voir le meilleur coup")
    assert "Mieux valait " in better.content, better.content
    tried = await pressed(edge, edge.guest, better, "Réessayer")
    assert tried.content.endswith("Choisissez à nouveau parmi les mêmes options."), tried.content
    following = await pressed(edge, edge.guest, tried, "Suivant")
    assert following.content.startswith("Décision 2 sur 3 "), following.content


async def test_the_drill_s_picture_speaks_the_presser_s_language_on_a_server_of_another(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The French guest's drill step on an English server: its picture's panel, caught on its
    way to drawing, is written in French ("Tour", "tapis", "visibles"), with no English word,
    and names the game's players as the game's pictures do."""
    final = await played(edge, turns=10)
    drawn: list[str] = []

    def recording(image: Image.Image, xy: tuple[float, float], text: str, **how: Any) -> None:
        drawn.append(text)
        draw_text(image, xy, text, **how)

    monkeypatch.setattr(panel, "draw_text", recording)
    drill = await edge.click(edge.guest, final, OPEN).answer(timeout=60.0)
    assert picture(drill).width == DEFAULT_SIZE
    french = labels("fr")
    assert {french.rugs, french.visible} <= set(drawn), drawn
    assert any(text.startswith("Tour ") for text in drawn), drawn
    english = {ENGLISH.rugs, ENGLISH.visible}
    assert not english & set(drawn), drawn
    assert not any(text.startswith("Turn ") for text in drawn), drawn
    names = {player.name for player in (await edge.service.play.look(1)).players}
    assert len(names) == 2, names
    assert names <= set(drawn), drawn


async def test_opening_the_drill_is_deferred_before_the_decisions_are_judged(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Judging a game takes the workers up to a few seconds, more than Discord waits for an
    answer: the click is deferred (the bot thinking, privately) before the costliest decisions
    are asked for, and the drill follows once they come. The watchdog that defers a late
    answer is kept out of it, so the deferral seen is the handler's own."""
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)
    final = await played(edge, turns=10)
    reached, release = hold_the_costliest(monkeypatch)
    clicking = edge.click(edge.host, final, OPEN)
    await thinking_privately_once(clicking, reached)
    release.set()
    drill = await clicking.answer(timeout=60.0)
    assert drill.ephemeral
    assert drill.content.startswith("Decision 1 of 3 "), drill.content


async def test_a_drill_s_button_is_deferred_before_the_decisions_are_read(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Next (as every button of the drill's message) may have to judge the game again (after
    a restart): its click is deferred, as an update of the drill's message, before the
    costliest decisions are asked for, and the next step follows once they come. The watchdog
    that defers a late answer is kept out of it."""
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)
    final = await played(edge, turns=10)
    drill = await edge.click(edge.host, final, OPEN).answer(timeout=60.0)
    reached, release = hold_the_costliest(monkeypatch)
    clicking = edge.click(edge.host, drill, "Next")
    await asyncio.wait_for(reached.wait(), timeout=30.0)
    callbacks = [event.response_type for event in clicking.events if event.kind == "callback"]
    assert callbacks == [DEFERRED_UPDATE_MESSAGE], "not deferred before the slow work"
    release.set()
    following = await clicking.answer(timeout=60.0)
    assert following.content.startswith("Decision 2 of 3 "), following.content


class Drawn(NamedTuple):
    """What a drill step's picture was asked to draw beside the option taken."""

    shown: str | None
    picking: tuple[str, ...]
    badges: tuple[str, ...]
    also: str | None


def pictures_drawn(monkeypatch: pytest.MonkeyPatch) -> list[Drawn]:
    """Note what each drill picture drawn from now on is asked to draw, in order."""
    drawn: list[Drawn] = []
    png = DrillPictures.png

    async def noting(
        self: DrillPictures,
        game: FinishedGame,
        judgement: Decision,
        shown: str | None,
        language: str,
        picking: tuple[str, ...] = (),
        badges: tuple[str, ...] = ("1", "2", "3"),
        also: str | None = None,
    ) -> bytes:
        drawn.append(Drawn(shown, picking, badges, also))
        return await png(self, game, judgement, shown, language, picking, badges, also)

    monkeypatch.setattr(DrillPictures, "png", noting)
    return drawn


def hold_the_costliest(monkeypatch: pytest.MonkeyPatch) -> tuple[asyncio.Event, asyncio.Event]:
    """Make the drill's costliest decisions wait: the first event is set as they are asked
    for, and they come once the second is set."""
    reached, release = asyncio.Event(), asyncio.Event()
    costliest = DrillPictures.costliest

    async def held(
        self: DrillPictures, game: FinishedGame, seat: int, user_id: int
    ) -> tuple[Decision, ...]:
        reached.set()
        await release.wait()
        return await costliest(self, game, seat, user_id)

    monkeypatch.setattr(DrillPictures, "costliest", held)
    return reached, release


async def test_a_drill_of_three_players_judges_a_pick_by_their_floor(edge: Edge) -> None:
    """In a 3-player game the drill's floor is 3 players' 1.9 points, not a duel's 2: a pick
    of the better move is told it is within 1.9 points, and a player none of whose decisions
    gave away that much is told that floor."""
    final = await played(edge, turns=9, seats=3)
    drill = await edge.click(edge.host, final, OPEN).answer(timeout=60.0)
    assert drill.content.startswith("Decision 1 of 1 "), drill.content
    better = await pressed(edge, edge.host, drill, "Show the better move")
    best = re.search(r"Better was (\d+), (\S+): (\d+)%", better.content)
    assert best is not None, better.content
    tried = await pressed(edge, edge.host, better, "Try again")
    found = await pressed(edge, edge.host, tried, f"{best[1]} · {best[2]}")
    assert found.content.splitlines()[-1] == (
        f"{best[1]} · {best[2]}: {best[3]}%, within 1.9\u00a0points of the best. Well found."
    ), found.content
    nothing = await edge.click(edge.guest, final, OPEN).answer(timeout=60.0)
    assert "n'a fait perdre 1,9\u00a0point de chances" in nothing.content, nothing.content


async def test_only_the_games_players_get_its_drill(edge: Edge) -> None:
    final = await played(edge, turns=0)
    refused = await private(edge.click(edge.outsider, final, OPEN))
    assert refused == "Розбір гри №1 доступний лише її гравцям."
    clicking = edge.click(edge.guest, final, OPEN)
    answer = await clicking.answer(timeout=60.0)
    assert answer.ephemeral
    assert (
        answer.content
        == "Partie n° 1 : aucune de vos décisions n'a fait perdre 2\u00a0points de chances de "
        "gagner ou plus. Rien à revoir."
    )


async def test_the_analysis_offers_the_drill_to_the_games_players_alone(edge: Edge) -> None:
    """To each of its players, whatever their seat (seat 0 too), and to no one else."""
    final = await played(edge, turns=0)
    seats = {player.user_id: player.seat for player in (await edge.service.play.look(1)).players}
    assert set(seats.values()) == {0, 1}, "both seats are tried, seat 0 among them"
    drill = ["mk:drill:1:0:open"]
    for user, offered in ((edge.host, drill), (edge.guest, drill), (edge.outsider, [])):
        clicking = edge.click(user, final, "Analysis")
        answer = await clicking.answer(timeout=60.0)
        assert [b.custom_id for b in answer.buttons()] == offered, (user.id, seats.get(user.id))
        if user is edge.host:
            assert [b.label for b in answer.buttons()] == [OPEN]


def test_a_drill_button_is_rebuilt_from_its_id_alone() -> None:
    button = DrillButton(7, 2, "c4c5", label="c4-c5")
    assert (button.game_id, button.step, button.move) == (7, 2, "c4c5")
    assert parse_drill_id(button.custom_id) == (7, 2, "c4c5")


def test_next_is_offered_where_there_is_a_next_step_only() -> None:
    def nexts(step: int, count: int) -> list[str]:
        view = drill_buttons(1, step, count, "en")
        ids = [item.custom_id for item in view.children if isinstance(item, DrillButton)]
        return [value for value in ids if value.endswith(":open")]

    assert nexts(0, 3) == ["mk:drill:1:1:open"]
    assert nexts(1, 3) == ["mk:drill:1:2:open"]
    assert nexts(2, 3) == []
    assert nexts(0, 1) == []


def test_the_second_try_offers_its_options_in_place_of_try_again() -> None:
    """Try again is on every screen of a step but its own: there the options are the try,
    and once one is picked Try again is offered anew."""

    def moves(move: str) -> list[str]:
        message = step_message(RUG, 0, 3, 1, move, 2, "en")
        assert message is not None
        ids = [item.custom_id for item in message.view.children if isinstance(item, DrillButton)]
        return [value.split(":")[-1] for value in ids]

    assert "try" in moves("open")
    assert "try" in moves("better")
    tried = moves("try")
    assert "try" not in tried, tried
    assert {option.action for option in RUG.options} <= set(tried)
    assert "try" in moves("a3b3")


async def test_a_way_to_turn_assam_is_drilled_in_the_words_of_the_turn_s_buttons(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game's first decision (which way Assam faces) drilled: named, and offered again,
    as that turn's buttons were, in their order."""
    turn = await started(edge)
    buttons = [b.label or "" for b in turn.buttons()]
    straight = next(label for label in buttons if label.endswith("(straight on)"))
    await edge.click(await mover_of(edge, turn), turn, straight).answer()  # the action drilled
    await (await confirm(edge, edge.guest, "marrakech", "resign", button="Abandonner")).answer()
    final = await edge.fake.wait_for_message(
        edge.channel, lambda m: any(a.filename.endswith(".json") for a in m.attachments)
    )
    options = (Option("L", 0.5, Facts()), Option("R", 0.4, Facts()), Option("S", 0.3, Facts()))
    judged = dataclasses.replace(
        ORIENT, index=0, turn=1, seat=0, taken="S", best="L", options=options
    )

    async def one_decision(
        self: DrillPictures, game: object, seat: int, user_id: int
    ) -> tuple[Judgement, ...]:
        return (judged,)

    monkeypatch.setattr(DrillPictures, "costliest", one_decision)
    drill = await edge.click(edge.host, final, OPEN).answer(timeout=60.0)
    assert f"you chose 1, {straight}, which left you" in drill.content, drill.content
    tried = await pressed(edge, edge.host, drill, "Try again")
    picks = [b.label for b in tried.buttons()][: len(buttons)]
    assert picks == buttons, "the turn's buttons, in their order"


def test_a_rug_keeps_one_number_on_every_screen_of_its_step() -> None:
    """The try numbers the rugs c1-d1 (taken) 1, b2-c2 2 and a3-b3 3, in reading order, as
    the turn's buttons did. Every screen of the step uses those numbers, in its words and its
    picture: the rug taken is 1 from the start, the better rug 2 when shown, and after a pick
    of 3 the answer names the best as 2 and draws it with that number beside the two others.
    A pick the decision did not offer (a forged one) gets no step."""
    opened = step_message(RUG, 0, 3, 1, "open", 2, "en")
    assert opened is not None
    assert "you chose 1, c1-d1," in opened.content
    assert opened.badges == ("1",)
    better = step_message(RUG, 0, 3, 1, "better", 2, "en")
    assert better is not None
    assert "you chose 1, c1-d1," in better.content
    assert "Better was 2, b2-c2: 50%, 7.5\u00a0points more." in better.content
    assert (better.shown, better.badges) == ("b2c2", ("1", "2"))
    picked = step_message(RUG, 0, 3, 1, "a3b3", 2, "en")
    assert picked is not None
    assert (picked.shown, picked.also, picked.badges) == ("a3b3", "b2c2", ("1", "3", "2"))
    first, *_, last = picked.content.splitlines()
    assert "you chose 1, c1-d1," in first, first
    assert last == "3 · a3-b3: 47%, 2.5\u00a0points below the best (2 · b2-c2, 50%).", last
    found = step_message(RUG, 0, 3, 1, "b2c2", 2, "en")
    assert found is not None
    assert (found.also, found.badges) == (None, ("1", "2")), "the best drawn once"
    forged = step_message(RUG, 0, 3, 1, "a1a2", 2, "en")
    assert forged is None, "a pick the decision did not offer gets no step, never judged"


def test_a_second_try_at_a_rug_numbers_its_options_as_the_picture_does() -> None:
    """On a phone a rug is picked by number, as in the game: each option's button carries the
    number the picture draws on it (reading order), the rug taken is named by its number
    there, and the picture is asked for every option."""
    tried = step_message(RUG, 0, 3, 1, "try", 2, "en")
    assert tried is not None
    actions = sorted((option.action for option in RUG.options), key=engine.parse_placement)
    assert tried.picking == tuple(actions)
    labels = [
        item.item.label
        for item in tried.view.children
        if isinstance(item, DrillButton) and item.custom_id.split(":")[-1] in actions
    ]
    assert labels == [f"{n} · {a[:2]}-{a[2:]}" for n, a in enumerate(actions, start=1)]
    number = actions.index(RUG.taken) + 1
    first = tried.content.splitlines()[0]
    assert f"you chose {number}, {RUG.taken[:2]}-{RUG.taken[2:]}," in first, first


def test_a_second_try_numbers_each_rug_as_the_turn_s_buttons_did() -> None:
    """On a phone the player laid a rug by its number: the drill gives each rug the number
    the turn's buttons gave it, whatever order the judge ranked them in, so the rug they laid
    as 1 is 1 in the drill too."""
    state, _ = engine.apply(engine.new_game(engine.deal(3, "standard", first_player=0)), "S")
    state, _ = engine.apply(state, engine.legal_actions(state)[0])
    actions = engine.legal_actions(state)
    ranked = list(reversed(actions))  # the judge's order, best first
    options = tuple(Option(a, 0.5 - 0.01 * n, Facts()) for n, a in enumerate(ranked))
    judgement = judgement_from(state, actions[0], options)
    tried = step_message(judgement, 0, 3, 1, "try", state.players, "en")
    assert tried is not None
    labels = [
        item.item.label
        for item in tried.view.children
        if isinstance(item, DrillButton) and item.move in actions
    ]
    turn = [choice.label for choice in presenter.placement_choices(state, "en")]
    assert labels == turn
    assert "you chose 1, " in tried.content, tried.content


def test_a_way_to_turn_assam_is_drawn_with_the_numbers_its_text_gives() -> None:
    """The text says "you chose 1" and "Better was 2": the picture labels the way Assam was
    turned 1 and, once the better move is shown, that one 2."""
    opened = step_message(ORIENT, 0, 3, 1, "open", 2, "en")
    assert opened is not None
    assert "you chose 1, " in opened.content, opened.content
    assert opened.badges == ("1",)
    better = step_message(ORIENT, 0, 3, 1, "better", 2, "en")
    assert better is not None
    assert "Better was 2, " in better.content, better.content
    assert (better.shown, better.badges) == (ORIENT.best, ("1", "2"))


async def test_the_drill_opens_though_the_database_fails_to_read_the_game_s_judgement(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The database fails as the game's kept judgement is read: the drill opens all the same
    (the game judged afresh in the workers), with no traceback in the log and nothing at
    WARNING but the outage's own line."""
    final = await played(edge, turns=10)
    await until(lambda: judgement_kept(edge, 1), "the game judged in the background")
    with caplog.at_level(logging.INFO):
        away.fail_in(JudgementStore, "judgement")
        away.fail()
        drill = await edge.click(edge.host, final, OPEN).answer(timeout=60.0)
        away.end()
        await until(lambda: edge.store.database.availability.up, "the database back")
    assert drill.ephemeral
    assert drill.content.startswith("Decision 1 of 3 "), drill.content
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]
    warned = [r.name for r in caplog.records if r.levelno >= logging.WARNING]
    assert set(warned) <= {"bot.runtime.outage"}, warned


async def test_a_drill_s_button_while_the_database_is_away_is_the_short_outage_answer(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The database away altogether as the player presses Next: they are told, privately and
    in their language, the usual one line, with no traceback in the log; Next works once the
    database is back."""
    final = await played(edge, turns=10)
    drill = await edge.click(edge.host, final, OPEN).answer(timeout=60.0)
    told = await away.told_while_away(lambda: edge.click(edge.host, drill, "Next"), caplog)
    assert told == messages.text("error.database_paused", "en")
    following = await pressed(edge, edge.host, drill, "Next")
    assert following.content.startswith("Decision 2 of 3 "), following.content
