"""Learn from your mistakes in words: every line built from the judge's numbers (`Facts` and
the win chances), in English, French and Ukrainian, and a second try called good within the
inaccuracy threshold of the game's size; the seats drilled last keep their costliest decisions
in memory."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import dataclasses
import random
from typing import cast

import pytest

import engine
from ai.judge import Band, Facts, GameJudgement, Judgement, Kind, Option, drill_floor
from bot.presentation import drill, presenter
from bot.presentation.drill import (
    DrillPictures,
    good_enough,
    nothing_to_drill,
    retry_text,
    seat_of,
    step_text,
    turn_words,
    turns_at,
    why,
)
from bot.presentation.messages import text
from bot.services.analysis import FinishedGame
from bot.services.judgements import GameJudgements
from bot.services.views import Player
from bot.workers.pool import WorkerPool
from engine import Facing, Phase
from tests.judged import actors_of, golden_data

RUG = Judgement(
    index=17,
    turn=9,
    seat=0,
    kind=Kind.RUG,
    taken="c1d1",
    best="b2c2",
    taken_chance=0.42,
    best_chance=0.495,
    loss=7.5,
    band=Band.INACCURACY,
    accuracy=74.0,
    options=(
        Option("b2c2", 0.495, Facts(squares=(8, 9), grown=6)),
        Option("a3b3", 0.47, Facts(squares=(14, 15), grown=2)),
        Option("c1d1", 0.42, Facts(squares=(2, 3), covered=1, cut_owner=1, cut_region=3, grown=3)),
    ),
)
ORIENT = Judgement(
    index=4,
    turn=3,
    seat=1,
    kind=Kind.ORIENT,
    taken="L",
    best="S",
    taken_chance=0.3,
    best_chance=0.5,
    loss=20.0,
    band=Band.BLUNDER,
    accuracy=40.0,
    options=(
        Option("S", 0.5, Facts(toll=0.5, worst_toll=2)),
        Option("R", 0.4, Facts(toll=1.25, worst_toll=3)),
        Option("L", 0.3, Facts(toll=4.5, worst_toll=12, out_chance=1 / 6)),
    ),
)
NAMES = ("Alice", "Bob")


def test_a_rug_is_told_by_the_squares_it_covers_and_the_region_it_makes() -> None:
    assert why(Kind.RUG, "c1d1", RUG.options[2].facts, "en", NAMES) == (
        "Rug c1-d1: covers 1 rival square; your region there then has 3\u00a0squares."
        " It cuts into Bob's region of 3\u00a0squares."
    )
    assert why(Kind.RUG, "b2c2", RUG.options[0].facts, "fr", NAMES) == (
        "Tapis b2-c2 : couvre 0\u00a0case adverse ; votre zone y compte alors 6\u00a0cases."
    )
    assert why(Kind.RUG, "c1d1", RUG.options[2].facts, "uk", None) == (
        "Килим c1-d1: накриває 1\u00a0клітинку суперників; ваша ділянка там налічує "
        "3\u00a0клітинки. Він врізається в ділянку з 3\u00a0клітинок (Гравець 2)."
    )


def test_a_way_to_turn_assam_is_told_by_the_toll_it_risks() -> None:
    facts = ORIENT.options[2].facts
    assert why(Kind.ORIENT, "L", facts, "en", None) == (
        "Left: a toll of 4.5\u00a0dirhams on average on the roll, 12 at worst,"
        " a 17% chance of being put out."
    )
    assert why(Kind.ORIENT, "L", facts, "fr", None) == (
        "À gauche : une dîme moyenne de 4,5 sur ce jet de dé, 12 au pire (en dirhams),"
        " 17\u202f% de risque d’être éliminé."
    )
    assert why(Kind.ORIENT, "L", facts, "uk", None) == (
        "Ліворуч: після кидка кубика платіж у середньому 4,5, щонайбільше 12"
        " (у дирхамах), 17\u202f% ризику вибути."
    )


def test_a_turn_after_the_rug_is_told_by_what_the_next_player_owes() -> None:
    """The average is written to a tenth, and a number with a tenth takes the genitive
    singular in Ukrainian ("3,5 дирхама", as the drill's "1,9 пункта")."""
    facts = Facts(toll=1.5, income=3.5)
    assert why(Kind.ROTATE, "L", facts, "en", None) == (
        "Left: the next player owes you 3.5\u00a0dirhams on average."
    )
    assert why(Kind.ROTATE, "L", facts, "fr", None) == (
        "À gauche : le joueur suivant vous doit 3,5\u00a0dirhams en moyenne."
    )
    assert why(Kind.ROTATE, "L", facts, "uk", None) == (
        "Ліворуч: наступний гравець винен вам у середньому 3,5\u00a0дирхама."
    )


def test_a_step_tells_the_choice_then_on_request_the_better_one() -> None:
    hidden = step_text(RUG, 0, 3, 12, False, "en", NAMES)
    assert hidden.splitlines()[0] == (
        "Decision 1 of 3 in game #12 (turn 9): you chose 1, c1-d1,"
        " which left you a 42% chance of winning."
    )
    assert "Better" not in hidden
    shown = step_text(RUG, 0, 3, 12, True, "en", NAMES).splitlines()
    assert shown[2] == "Better was 2, b2-c2: 50%, 7.5\u00a0points more."
    assert shown[3].startswith("Rug b2-c2: covers 0 rival squares")
    assert step_text(ORIENT, 1, 3, 12, True, "fr").splitlines()[2] == (
        "Mieux valait 2, tout droit : 50\u202f%, 20,0\u00a0points de plus."
    )
    assert (
        step_text(ORIENT, 2, 3, 12, True, "uk")
        .splitlines()[0]
        .startswith("Рішення 3 з 3 у грі №12 (хід 3): ви обрали 1, ліворуч")
    )


def test_a_second_try_is_good_within_the_drill_s_floor() -> None:
    # The floor is the least a drilled decision gave away (2 points in 2 players, 1.7 in 4),
    # so picking again what was drilled is never called good.
    assert not good_enough(RUG, "a3b3", 2), "2.5\u00a0points from the best, over 2"
    assert not good_enough(ORIENT, "R", 2), "10\u00a0points from the best"
    assert good_enough(ORIENT, "S", 4)
    near = dataclasses.replace(
        RUG, options=(*RUG.options, Option("d1e1", 0.477, Facts(squares=(3, 4), grown=2)))
    )
    assert good_enough(near, "d1e1", 2), "1.8\u00a0points: under 2 players' 2"
    assert not good_enough(near, "d1e1", 4), "1.8\u00a0points: over 4 players' 1.73"
    assert retry_text(RUG, "b2c2", 2, "en") == (
        "b2-c2: 50%, within 2\u00a0points of the best. Well found."
    )
    assert retry_text(ORIENT, "R", 2, "en") == (
        "right: 40%, 10.0\u00a0points below the best (straight on, 50%)."
    )
    assert retry_text(ORIENT, "R", 4, "fr") == (
        "à droite : 40\u202f%, 10,0\u00a0points sous le meilleur (tout droit, 50\u202f%)."
    )
    assert retry_text(RUG, "b2c2", 4, "uk") == (
        "b2-c2: 50\u202f%, менш ніж 1,7\u00a0пункта від найкращого. Влучно."
    )
    assert retry_text(RUG, "b2c2", 2, "uk") == (  # a whole number agrees with its noun
        "b2-c2: 50\u202f%, менш ніж 2\u00a0пункти від найкращого. Влучно."
    )


NEAR_WON = dataclasses.replace(
    RUG,
    taken_chance=0.95,
    best_chance=0.996,
    loss=4.6,
    options=(
        Option("b2c2", 0.996, Facts(squares=(8, 9), grown=6)),
        Option("a3b3", 0.995, Facts(squares=(14, 15), grown=2)),
        Option("c1d1", 0.95, Facts(squares=(2, 3), grown=3)),
    ),
)
NEAR_LOST = dataclasses.replace(
    RUG,
    taken_chance=0.003,
    best_chance=0.04,
    loss=3.7,
    options=(
        Option("b2c2", 0.04, Facts(squares=(8, 9), grown=6)),
        Option("a3b3", 0.004, Facts(squares=(14, 15), grown=2)),
        Option("c1d1", 0.003, Facts(squares=(2, 3), grown=3)),
    ),
)


def test_the_drill_s_chances_read_certain_only_when_they_are() -> None:
    """A chance that rounds to 100% or 0% without being certain reads ">99%" or "<1%", as the
    analysis's turning point reads it, in the step, the better option and a second try."""
    step = step_text(NEAR_LOST, 0, 3, 12, False, "en", NAMES)
    assert "which left you a <1% chance of winning." in step, step
    better = step_text(NEAR_WON, 0, 3, 12, True, "en", NAMES).splitlines()[2]
    assert better == "Better was 2, b2-c2: >99%, 4.6\u00a0points more.", better
    assert retry_text(NEAR_WON, "a3b3", 2, "en") == (
        "a3-b3: >99%, within 2\u00a0points of the best. Well found."
    )
    assert retry_text(NEAR_WON, "c1d1", 2, "en") == (
        "c1-d1: 95%, 4.6\u00a0points below the best (b2-c2, >99%)."
    )
    assert retry_text(NEAR_LOST, "a3b3", 2, "fr") == (
        "a3-b3 : <\u202f1\u202f%, 3,6\u00a0points sous le meilleur (b2-c2, 4\u202f%)."
    )
    assert "і мали <1\u202f% шансів на перемогу." in step_text(NEAR_LOST, 0, 3, 12, False, "uk")
    certain = dataclasses.replace(
        NEAR_LOST, options=(*NEAR_LOST.options[:2], Option("c1d1", 0.0, Facts()))
    )
    assert "which left you a 0% chance of winning." in step_text(certain, 0, 3, 12, False, "en")


def test_the_chance_of_being_put_out_reads_none_only_when_there_is_none() -> None:
    facts = dataclasses.replace(ORIENT.options[2].facts, out_chance=0.004)
    assert why(Kind.ORIENT, "L", facts, "en", None).endswith("a <1% chance of being put out.")
    facts = dataclasses.replace(ORIENT.options[2].facts, out_chance=0.0)
    assert why(Kind.ORIENT, "L", facts, "en", None).endswith("a 0% chance of being put out.")


@pytest.mark.parametrize(("players", "said"), [(2, "2"), (3, "1.9"), (4, "1.7")])
def test_the_drill_s_floor_is_said_to_the_nearest_tenth(players: int, said: str) -> None:
    """In Try again and where there is nothing to drill: 2 points in 2 players, 1.9 in 3
    (1.886), 1.7 in 4 (1.732)."""
    assert f"within {said}\u00a0points of the best" in retry_text(RUG, "b2c2", players, "en")
    assert f"gave away {said}\u00a0points of winning chance" in nothing_to_drill(5, players, "en")


def test_nothing_to_drill_says_the_floor_with_the_noun_its_number_takes() -> None:
    """Ukrainian: a whole number of points takes its plural ("2 пункти"), a tenth "пункта"."""
    assert "не коштувало 2\u00a0пункти шансів" in nothing_to_drill(5, 2, "uk")
    assert "не коштувало 1,9\u00a0пункта шансів" in nothing_to_drill(5, 3, "uk")
    assert "gave away 2\u00a0points of winning chance" in nothing_to_drill(5, 2, "en")
    assert "n'a fait perdre 2\u00a0points de chances" in nothing_to_drill(5, 2, "fr")


def test_french_drill_numbers_under_two_take_the_singular() -> None:
    """French makes a number under 2 agree in the singular, a tenth included ("1,9 point",
    "0,5 dirham"), and 2 or more in the plural: the floor in 3 and 4 players, a second
    try's loss and the next player's average debt."""
    assert "n'a fait perdre 1,9\u00a0point de chances" in nothing_to_drill(5, 3, "fr")
    assert "à moins de 1,7\u00a0point du meilleur" in retry_text(RUG, "b2c2", 4, "fr")
    near = dataclasses.replace(RUG, options=(RUG.options[0], Option("a3b3", 0.477, Facts())))
    assert "a3-b3 : 48\u202f%, 1,8\u00a0point sous le meilleur" in retry_text(near, "a3b3", 4, "fr")
    assert "a3-b3 : 47\u202f%, 2,5\u00a0points sous le meilleur" in retry_text(RUG, "a3b3", 2, "fr")
    assert why(Kind.ROTATE, "L", Facts(income=0.5), "fr", None) == (
        "À gauche : le joueur suivant vous doit 0,5\u00a0dirham en moyenne."
    )
    assert why(Kind.ROTATE, "L", Facts(income=2.0), "fr", None) == (
        "À gauche : le joueur suivant vous doit 2,0\u00a0dirhams en moyenne."
    )


def test_picking_again_a_decision_that_gave_away_exactly_the_floor_is_not_good() -> None:
    # A decision is drilled when it gave away the floor or more, so one that gave away exactly
    # the floor (2 points in 2 players) is drilled, and picking it again must not be called
    # good: the floor itself is not "within" it.
    at_floor = dataclasses.replace(
        RUG, options=(*RUG.options, Option("d1e1", 0.475, Facts(squares=(3, 4), grown=2)))
    )
    assert at_floor.loss_of("d1e1") == drill_floor(2) == 2.0
    assert not good_enough(at_floor, "d1e1", 2)
    assert retry_text(at_floor, "d1e1", 2, "en") == (
        "d1-e1: 48%, 2.0\u00a0points below the best (b2-c2, 50%)."
    )


def test_a_way_to_turn_assam_is_named_as_the_turn_s_buttons_name_it() -> None:
    """The drill names a way of turning Assam as the turn's buttons and the coach's verdicts
    did (where he looks), not left or right of him; its second try offers them in the buttons'
    order."""
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    turns = turn_words(state, "en")
    assert list(turns.values()) == [c.label for c in presenter.orientation_choices(state, "en")]
    assert turns["S"].endswith("(straight on)")
    shown = step_text(ORIENT, 0, 3, 12, True, "en", turns=turns).splitlines()
    assert shown[0].startswith(f"Decision 1 of 3 in game #12 (turn 3): you chose 1, {turns['L']},")
    assert shown[1].startswith(f"{turns['L']}: "), "the button's name heads the line"
    assert shown[2].startswith(f"Better was 2, {turns['S']}: ")
    assert retry_text(ORIENT, "R", 2, "en", turns=turns).endswith(f"({turns['S']}, 50%).")


def test_a_turn_after_the_rug_is_named_as_its_two_buttons_name_it() -> None:
    """Where Assam turns after the rug, a drilled turn of that step is named by where he looks,
    as its two buttons named it, not left or right of him."""
    rng = random.Random(4)
    state = engine.new_game(engine.deal(2, "rotate-after", rng))
    while state.phase is not Phase.ROTATE:
        outcomes = engine.chance_outcomes(state)
        action = outcomes[0][0] if outcomes else engine.legal_actions(state)[0]
        state, _ = engine.apply(state, action)
    played, _ = engine.apply(state, "L")
    game = FinishedGame(7, engine.record_to_json(engine.record_of(played)), ())
    turned = dataclasses.replace(
        ORIENT,
        index=len(state.history),
        kind=Kind.ROTATE,
        options=(
            Option("R", 0.5, Facts(income=3.5)),
            Option("L", 0.3, Facts(income=0.5)),
        ),
        best="R",
    )
    turns = turns_at(game, turned, "en")
    assert turns is not None, "a turn of Assam, named as its buttons were"
    assert turns == turn_words(state, "en")
    directions = {text(f"button.direction.{facing.name}", "en") for facing in Facing}
    assert list(turns) == [c.action for c in presenter.orientation_choices(state, "en")]
    assert set(turns.values()) <= directions, turns
    shown = step_text(turned, 0, 3, 7, True, "en", turns=turns).splitlines()
    assert shown[0].startswith(f"Decision 1 of 3 in game #7 (turn 3): you chose 1, {turns['L']},")
    assert shown[2].startswith(f"Better was 2, {turns['R']}: ")


def test_a_person_who_left_their_seat_before_deciding_is_one_of_the_game_s_players() -> None:
    """Who handed their seat to a substitute before making a decision still played the game:
    their drill is of that seat (with nothing to drill), never the refusal for someone who did
    not play; the substitute's is of the same seat."""
    game = FinishedGame(
        9, golden_data("2p-standard"), (Player(100, 0), Player(300, 1, stands_in_for=200))
    )
    assert game.actors == ()
    assert (seat_of(game, 200), seat_of(game, 300), seat_of(game, 100)) == (1, 1, 0)
    assert seat_of(game, 400) is None


def test_a_substitute_who_handed_the_seat_on_is_one_of_the_game_s_players() -> None:
    """A substitute (300) who made decisions in seat 1, then handed it on to another (500):
    named in no seat at the end, they are found among those who made the game's decisions,
    and their drill is of that seat, never the refusal for someone who did not play."""
    data = golden_data("2p-standard")
    actors = list(actors_of(data, {0: 100, 1: 200}))
    handed_on = len(actors) // 2
    for index in range(handed_on):
        if actors[index] == 200:
            actors[index] = 300
    game = FinishedGame(9, data, (Player(100, 0), Player(500, 1, stands_in_for=200)), tuple(actors))
    assert 300 in game.actors
    assert (seat_of(game, 300), seat_of(game, 500), seat_of(game, 200)) == (1, 1, 1)
    assert seat_of(game, 400) is None


class _Judgements:
    """Counts the games whose judgement is asked for; each judged with nothing to drill."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    async def of(self, game_id: int, record: engine.Record) -> GameJudgement:
        self.asked.append(game_id)
        return GameJudgement(record.players, (), ())


async def test_the_drill_keeps_the_seats_used_last_and_lets_the_oldest_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past `CACHED_DRILLS` seats the one used longest ago goes, never the one just judged: a
    drill's every click reads its seat's costliest decisions again, and must find them kept."""
    monkeypatch.setattr(drill, "CACHED_DRILLS", 2)
    judgements = _Judgements()
    pictures = DrillPictures(WorkerPool(workers=0), cast(GameJudgements, judgements))
    first, second, third = (FinishedGame(n, golden_data("2p-standard"), ()) for n in (1, 2, 3))
    for game in (first, second, third, third, second):
        await pictures.costliest(game, 0, 100)
    assert judgements.asked == [1, 2, 3], "the seats used last are kept"
    await pictures.costliest(first, 0, 100)
    assert judgements.asked == [1, 2, 3, 1], "the seat used longest ago went"
    await pictures.costliest(second, 0, 100)
    assert judgements.asked == [1, 2, 3, 1], "a seat used again is kept over one used before it"
    await pictures.costliest(third, 0, 100)
    assert judgements.asked == [1, 2, 3, 1, 3], "the seat used longest ago was the third"
