"""The coach's judge: bands, accuracy, hand-made positions with known best moves, determinism."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

import ai.judge
from ai.judge import (
    Band,
    Facts,
    Kind,
    Option,
    band_of,
    best_option,
    decision_accuracy,
    decisions,
    facts_of,
    game_accuracy,
    judge_decision,
    judge_game,
    judge_options,
    judgement_from,
    search_chances,
    state_before,
    summarise,
    thresholds,
)
from engine import TaxPaid, Variant, apply, chance_outcomes, deal, new_game, parse_square, resign
from engine.model import Phase
from engine.position import from_position
from engine.record import Record, replay_record
from engine.state import GameState
from tests.ai.conftest import random_game

# -- hand-made positions ---------------------------------------------------------------

YELLOW_REGION = [
    ("yellow", "a3", "a4"),
    ("yellow", "b3", "b4"),
    ("yellow", "c3", "c4"),
    ("yellow", "e3", "e4"),
    ("yellow", "f3", "f4"),
    ("yellow", "d2", "d3"),
    ("yellow", "g3", "g4"),
    ("blue", "d1", "d2"),
    ("blue", "g2", "g3"),
]
"""Yellow's 12 squares (a3-f3, a4-c4, e4-g4) in one region around d4, and two blue rugs."""

RED_ROWS = [("red", f"{column}6", f"{column}7") for column in "abcefg"]
"""Red's 12 squares on rows 6-7, so that the seat in red leads."""


def position(
    rugs: list[tuple[str, str, str]],
    *,
    assam: str,
    facing: str,
    phase: str,
    seats: list[dict[str, Any]],
    to_move: int = 0,
    turn: int = 47,
    last: int = 46,
    variant: str = "standard",
) -> GameState:
    """A position with `rugs` laid in order (the last one numbered `last`)."""
    cells: list[list[Any]] = [[None] * 7 for _ in range(7)]
    first = last - len(rugs) + 1
    for number, (color, *squares) in enumerate(rugs, start=first):
        for name in squares:
            square = parse_square(name)
            cells[square // 7][square % 7] = [color, number]
    return from_position(
        {
            "format": "marrakech-position/1",
            "players": len(seats),
            "variant": variant,
            "turn": turn,
            "to_move": to_move,
            "phase": phase,
            "assam": {"square": assam, "facing": facing},
            "cells": cells,
            "seats": seats,
            "outcome": None,
        }
    )


def endgame(assam: str, facing: str, phase: str, dirhams: int = 10) -> GameState:
    """2 players near the end: red and blue (seat 0, `dirhams`, one rug of each left) lead
    yellow (12 dirhams, no rug left), whose 12-square region lies around d4."""
    return position(
        RED_ROWS + YELLOW_REGION,
        assam=assam,
        facing=facing,
        phase=phase,
        seats=[
            {
                "seat": 0,
                "dirhams": dirhams,
                "rugs_left": {"red": 1, "blue": 1},
                "eliminated": False,
                "pile": ["blue", "red"],
            },
            {
                "seat": 1,
                "dirhams": 12,
                "rugs_left": {"yellow": 0, "brown": 0},
                "eliminated": False,
                "pile": [],
            },
        ],
    )


CUTS = {"c3d3", "d3e3", "d2d3", "b4c4", "e4f4"}
"""The rugs from d4 that cover squares of yellow's region."""


def test_a_rug_that_leaves_a_12_square_region_next_to_assam_is_a_blunder() -> None:
    # Blue lays from d4 and rolls again next (yellow has no rug left): yellow's 12-square
    # region around d4 would put it out (10 dirhams), a rug across it splits it.
    state = endgame("d4", "N", "place")
    judgement = judge_decision(state, "d5d6")
    assert judgement.kind is Kind.RUG
    assert judgement.band is Band.BLUNDER
    assert judgement.loss >= 15
    assert judgement.best in CUTS
    assert judgement.option("d5d6").facts == Facts(squares=(31, 38), grown=2)
    best = judgement.option(judgement.best).facts
    assert (best.cut_owner, best.cut_region) == (1, 12)
    assert best.covered >= 1


def test_a_turn_into_a_12_square_region_is_a_blunder() -> None:
    # From d5 facing east: turning left (north) lands in the region on a 2 or a 3.
    state = endgame("d5", "E", "orient")
    judgement = judge_decision(state, "L")
    assert judgement.kind is Kind.ORIENT
    assert judgement.band is Band.BLUNDER
    assert judgement.best == "R"
    turned_left = judgement.option("L").facts
    assert (turned_left.toll, turned_left.worst_toll) == (4.0, 12)
    assert turned_left.out_chance == pytest.approx(1 / 3)
    assert judgement.option("R").facts.toll == 0.0


def test_a_facing_s_out_chance_counts_only_tolls_beyond_the_seat_s_dirhams() -> None:
    """Turning left from d5 facing east lands in yellow's 12-square region one time in three:
    with 12 dirhams the seat pays its last dirham and stays in (R9), with 11 it goes out. A
    seat with no dirhams turned towards empty squares owes nothing and cannot go out; counting
    a toll equal to the purse as going out would tell it it goes out whatever it does."""
    exactly = facts_of(endgame("d5", "E", "orient", dirhams=12), "L")
    assert (exactly.toll, exactly.worst_toll, exactly.out_chance) == (4.0, 12, 0.0)
    short = facts_of(endgame("d5", "E", "orient", dirhams=11), "L")
    assert short.out_chance == pytest.approx(1 / 3)
    penniless = facts_of(endgame("d5", "E", "orient", dirhams=0), "R")
    assert (penniless.toll, penniless.out_chance) == (0.0, 0.0)


def test_a_turn_after_the_rug_is_worth_what_the_next_mover_owes_in_the_facing_it_leaves() -> None:
    """Yellow (seat 1) has laid its rug in the variant (R12) and turns Assam on d4 facing
    north; its 6-square region lies west of him (a3-c4). Turned left, red rolls west and lands
    in the region on every face: 6 dirhams owed to yellow. Turned right, red rolls east over
    empty squares: nothing."""
    state = position(
        [("yellow", "a3", "a4"), ("yellow", "b3", "b4"), ("yellow", "c3", "c4")],
        assam="d4",
        facing="N",
        phase="rotate",
        variant="rotate-after",
        to_move=1,
        turn=37,
        last=37,
        seats=[
            {
                "seat": 0,
                "dirhams": 20,
                "rugs_left": {"red": 3, "blue": 3},
                "eliminated": False,
                "pile": ["red", "blue", "red", "blue", "red", "blue"],
            },
            {
                "seat": 1,
                "dirhams": 20,
                "rugs_left": {"yellow": 2, "brown": 3},
                "eliminated": False,
                "pile": ["brown", "yellow", "brown", "yellow", "brown"],
            },
        ],
    )
    for action, income in (("L", 6.0), ("R", 0.0)):
        turned, _ = apply(state, action)
        assert turned.to_move == 0
        owed = 0.0
        for roll, odds in chance_outcomes(turned):
            _, events = apply(turned, roll)
            owed += float(odds) * sum(
                e.owed for e in events if isinstance(e, TaxPaid) and e.payee == 1
            )
        assert owed == pytest.approx(income)
        assert facts_of(state, action).income == pytest.approx(income), action


def three_seats(left: tuple[int, int, int]) -> list[dict[str, Any]]:
    """The seats of a 3-player position (red, yellow, blue), 20 dirhams each, with `left` rugs
    of their colour."""
    colors = ("red", "yellow", "blue")
    return [
        {"seat": seat, "dirhams": 20, "rugs_left": {colors[seat]: rugs}, "eliminated": False}
        for seat, rugs in enumerate(left)
    ]


def test_a_turn_after_the_rug_counts_only_what_the_next_mover_owes_the_seat() -> None:
    """In 3 players the next mover may owe a third seat: red's region lies west of Assam on
    d4 and yellow's east. Yellow (seat 1) turning him west earns nothing from blue's roll
    (blue would pay red); turning him east, blue owes yellow on most faces."""
    state = position(
        [("red", f"{column}3", f"{column}4") for column in "abc"]
        + [("yellow", f"{column}3", f"{column}4") for column in "efg"],
        assam="d4",
        facing="N",
        phase="rotate",
        variant="rotate-after",
        to_move=1,
        turn=6,
        last=6,
        seats=three_seats((12, 12, 15)),
    )
    assert facts_of(state, "L").income == 0.0
    assert facts_of(state, "R").income > 0.0


def test_a_rug_cuts_into_the_largest_rival_region_it_covers() -> None:
    """Red's rug on c5-d5 covers half of yellow's lone rug (a region of 2) and blue's region of
    4: the region it cuts into is blue's, the larger, whichever square comes first."""
    state = position(
        [("yellow", "c4", "c5"), ("blue", "d5", "d6"), ("blue", "e5", "e6")],
        assam="d4",
        facing="N",
        phase="place",
        turn=4,
        last=3,
        seats=three_seats((15, 14, 13)),
    )
    facts = facts_of(state, "c5d5")
    assert facts.covered == 2
    assert (facts.cut_owner, facts.cut_region) == (2, 4)


def test_a_rug_over_the_seat_s_own_rug_covers_and_cuts_only_the_rival_s() -> None:
    """Red's rug on c5-d5 covers half of its own region of 4 (b5-c6) and half of yellow's lone
    rug: one rival square covered, and the region it cuts into is yellow's, never red's own,
    though red's is the larger."""
    state = position(
        [("red", "b5", "c5"), ("red", "b6", "c6"), ("yellow", "d5", "d6")],
        assam="d4",
        facing="N",
        phase="place",
        turn=4,
        last=3,
        seats=three_seats((13, 14, 15)),
    )
    facts = facts_of(state, "c5d5")
    assert facts.covered == 1
    assert (facts.cut_owner, facts.cut_region) == (1, 2)


def test_the_best_option_loses_nothing() -> None:
    state = endgame("d4", "N", "place")
    best = best_option(state)
    assert best.chance == max(chance for _, chance in search_chances(state))
    assert best.action in CUTS
    judgement = judge_decision(state, best.action)
    assert judgement.loss == 0.0
    assert judgement.band is Band.GOOD
    assert judgement.accuracy == pytest.approx(100.0, abs=1e-3)
    assert judgement.best == best.action
    assert judgement.taken_chance == judgement.best_chance == best.chance


def test_equal_options_keep_the_search_s_order_and_the_hint_is_the_first_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At a 4-player opening turning left and keeping straight leave exactly the same chance:
    the search lists left first, and so do the options and the Hint. Any equal options keep
    the search's order (medium's ranking), best first."""
    opening_state = new_game(deal(4, Variant.STANDARD, random.Random(1)))
    valued = search_chances(opening_state)
    assert [action for action, _ in valued] == ["L", "S", "R"]
    assert valued[0][1] == valued[1][1] > valued[2][1]
    assert [option.action for option in judge_options(opening_state)] == ["L", "S", "R"]
    assert best_option(opening_state).action == "L"
    state = endgame("d5", "E", "orient")
    tied = (("R", 0.2), ("S", 0.4), ("L", 0.4))
    monkeypatch.setattr(ai.judge, "search_chances", lambda state, work: tied)
    assert [option.action for option in judge_options(state)] == ["S", "L", "R"]
    assert best_option(state).action == "S"


def test_an_option_tied_with_the_first_is_its_own_best() -> None:
    """Keeping straight where turning left leaves exactly the same chance gives nothing away:
    its judgement names the option taken as the best, never the one listed first."""
    state = endgame("d5", "E", "orient")
    options = (Option("L", 0.4, Facts()), Option("S", 0.4, Facts()), Option("R", 0.2, Facts()))
    judged = judgement_from(state, "S", options)
    assert (judged.loss, judged.band) == (0.0, Band.GOOD)
    assert judged.best == "S"


def test_a_costly_choice_is_compared_with_the_first_of_two_best_options() -> None:
    """Where keeping straight and turning left tie as best, a verdict on turning right names
    the first of them, the option the Hint named."""
    state = endgame("d5", "E", "orient")
    for first, second in (("L", "S"), ("S", "L")):
        options = (
            Option(first, 0.4, Facts()),
            Option(second, 0.4, Facts()),
            Option("R", 0.2, Facts()),
        )
        judged = judgement_from(state, "R", options)
        assert (judged.best, judged.best_chance) == (first, 0.4)


def test_either_order_of_a_rugs_squares_is_the_same_option() -> None:
    state = endgame("d4", "N", "place")
    assert judge_decision(state, "d6d5").taken == "d5d6"


def test_an_action_that_is_not_an_option_is_refused() -> None:
    state = endgame("d4", "N", "place")
    with pytest.raises(ValueError, match="not a legal option"):
        judge_decision(state, "a1a2")


def test_the_only_legal_option_is_never_a_mistake(monkeypatch: pytest.MonkeyPatch) -> None:
    # The rules always leave at least two ways; a lone option still costs nothing.
    state = endgame("d4", "N", "place")
    monkeypatch.setattr(ai.judge, "search_chances", lambda state, work: (("d5d6", 0.25),))
    judgement = judge_decision(state, "d5d6")
    assert judgement.forced
    assert judgement.loss == 0.0
    assert judgement.band is Band.GOOD


def test_where_nothing_can_change_the_result_nothing_is_a_mistake() -> None:
    # Blue's last rugs with 30 dirhams and a lead no toll can close: every option wins.
    state = endgame("d4", "N", "place", dirhams=30)
    for option in judge_options(state):
        judgement = judge_decision(state, option.action)
        assert judgement.band is Band.GOOD, judgement


# -- bands and accuracy ----------------------------------------------------------------


def test_bands_are_lichess_in_2_players_and_scale_with_the_spread_of_a_fair_result() -> None:
    assert thresholds(2) == (5.0, 10.0, 15.0)
    assert thresholds(3) == pytest.approx((4.714, 9.428, 14.142), abs=1e-3)
    assert thresholds(4) == pytest.approx((4.330, 8.660, 12.990), abs=1e-3)
    assert [band_of(loss, 2) for loss in (0, 4.99, 5, 9.99, 10, 14.99, 15, 80)] == [
        Band.GOOD,
        Band.GOOD,
        Band.INACCURACY,
        Band.INACCURACY,
        Band.MISTAKE,
        Band.MISTAKE,
        Band.BLUNDER,
        Band.BLUNDER,
    ]
    for players in (3, 4):
        bands = (Band.INACCURACY, Band.MISTAKE, Band.BLUNDER)
        for threshold, band, below in zip(
            thresholds(players), bands, (Band.GOOD, *bands[:2]), strict=True
        ):
            assert band_of(threshold + 0.001, players) is band
            assert band_of(threshold - 0.001, players) is below
    assert band_of(13.0, 4) is Band.BLUNDER
    assert band_of(13.0, 2) is Band.MISTAKE


@pytest.mark.parametrize(
    ("players", "taken", "band"),
    [
        (2, 0.452, Band.GOOD),  # 4.8 points: under a duel's 5
        (3, 0.452, Band.INACCURACY),  # the same 4.8 points: over 3 players' 4.7
        (4, 0.37, Band.BLUNDER),  # 13.0 points: over 4 players' 12.99, a duel's mistake
    ],
)
def test_a_decision_is_banded_by_the_thresholds_of_its_own_number_of_players(
    players: int, taken: float, band: Band
) -> None:
    state = new_game(deal(players, Variant.STANDARD, random.Random(1), first_player=0))
    options = (Option("S", 0.5, Facts()), Option("L", taken, Facts()), Option("R", 0.1, Facts()))
    judged = judgement_from(state, "L", options)
    assert judged.loss == pytest.approx(100 * (0.5 - taken))
    assert judged.band is band, (players, judged.loss)


def test_a_decision_keeps_the_bands_of_the_game_s_players_once_a_seat_is_out() -> None:
    """A 4-player game with a seat resigned is still judged by 4 players' bands: 4.5 points is
    an inaccuracy there (4.3), where 3 players' bands (4.7) would call it good."""
    state = new_game(deal(4, Variant.STANDARD, random.Random(1), first_player=0))
    state, _ = resign(state, 3)
    assert state.seats_in() == (0, 1, 2)
    assert (state.to_move, state.phase) == (0, Phase.ORIENT)
    options = (Option("S", 0.5, Facts()), Option("L", 0.455, Facts()), Option("R", 0.1, Facts()))
    judged = judgement_from(state, "L", options)
    assert judged.loss == pytest.approx(4.5)
    assert judged.band is Band.INACCURACY


@pytest.mark.parametrize(
    ("best", "taken", "band"), [(0.5, 0.45, Band.INACCURACY), (0.6, 0.5, Band.MISTAKE)]
)
def test_a_choice_that_gave_away_exactly_a_threshold_is_in_its_band(
    best: float, taken: float, band: Band
) -> None:
    """The loss is worked out from two chances: 0.5 - 0.45 is 0.04999999999999999 in floats,
    yet the choice gave away 5 points, an inaccuracy in 2 players (10, a mistake, alike)."""
    state = endgame("d5", "E", "orient")
    options = (Option("S", best, Facts()), Option("L", taken, Facts()), Option("R", 0.0, Facts()))
    judged = judgement_from(state, "L", options)
    assert judged.loss == round(100 * (best - taken))
    assert judged.band is band


def test_a_decision_s_accuracy_is_the_share_of_its_stake_the_choice_kept() -> None:
    options = (Option("R", 0.5, Facts()), Option("S", 0.4, Facts()), Option("L", 0.3, Facts()))
    state = endgame("d5", "E", "orient")
    accuracies = [judgement_from(state, action, options).accuracy for action in "RSL"]
    assert accuracies == pytest.approx([100.0, 50.0, 0.0])
    assert judgement_from(state, "S", options).stake == pytest.approx(20.0)
    assert judgement_from(state, "S", options).kept == pytest.approx(10.0)
    assert decision_accuracy(0.3, 0.3, 0.3) == 100.0, "nothing at stake"
    assert decision_accuracy(0.45, 0.5, 0.3) == pytest.approx(75.0)


def test_decisions_with_nothing_at_stake_leave_a_game_s_accuracy_alone() -> None:
    """A game lost a few points at a time, then played on once decided: the decided decisions
    (every option at the same chance) must not make the costly ones look accurate."""
    state = endgame("d5", "E", "orient")
    costly = (Option("R", 0.30, Facts()), Option("S", 0.25, Facts()), Option("L", 0.10, Facts()))
    decided = (Option("R", 0.0, Facts()), Option("S", 0.0, Facts()), Option("L", 0.0, Facts()))
    worst = judgement_from(state, "L", costly)
    moot = [judgement_from(state, "S", decided) for _ in range(20)]
    assert game_accuracy([worst, *moot]) == 0.0
    assert summarise(0, [worst, *moot]).accuracy == 0.0
    assert game_accuracy(moot) == 100.0, "nothing was ever at stake"


def test_a_game_s_accuracy_weighs_each_decision_by_what_it_had_at_stake() -> None:
    state = endgame("d5", "E", "orient")
    big = (Option("R", 0.6, Facts()), Option("L", 0.2, Facts()))
    small = (Option("R", 0.5, Facts()), Option("L", 0.4, Facts()))
    best_of_big = judgement_from(state, "R", big)  # kept 40 of 40
    worst_of_small = judgement_from(state, "L", small)  # kept 0 of 10
    forced = judgement_from(state, "R", big[:1])
    assert game_accuracy([best_of_big, worst_of_small]) == pytest.approx(80.0)
    assert game_accuracy([best_of_big, worst_of_small, forced]) == pytest.approx(80.0)
    assert game_accuracy([forced]) == 100.0


# -- whole games -----------------------------------------------------------------------


def chances_of(judgement: ai.judge.Judgement) -> list[float]:
    """The chances of a judgement's options, best first."""
    return [option.chance for option in judgement.options]


def opening(players: int, variant: Variant, seed: int, actions: int) -> Record:
    """The record of the first `actions` actions of a seeded random game."""
    states = random_game(players, variant, seed)
    last = states[-1]
    history = last.history[:actions]
    return Record(players, variant, last.config.first_player, last.config.piles, history)


@pytest.mark.parametrize(("players", "variant"), [(2, Variant.STANDARD), (4, Variant.ROTATE_AFTER)])
def test_judging_a_record_is_deterministic_and_its_losses_never_negative(
    players: int, variant: Variant
) -> None:
    record = opening(players, variant, 5, 24)
    first = judge_game(record, work=12)
    again = judge_game(record, work=12)
    assert first == again
    assert pickle.loads(pickle.dumps(first)) == first
    assert first.decisions
    kinds = {judgement.kind for judgement in first.decisions}
    assert kinds == (
        {Kind.ORIENT, Kind.RUG} if variant is Variant.STANDARD else {Kind.RUG, Kind.ROTATE}
    )
    for judgement in first.decisions:
        chances = [option.chance for option in judgement.options]
        assert chances == sorted(chances, reverse=True)
        assert judgement.best_chance == chances[0]
        assert judgement.loss >= 0.0
        assert judgement.loss == pytest.approx(100 * (chances[0] - judgement.taken_chance))
        assert judgement.taken == record.actions[judgement.index]
        again_best = judgement_from(
            state_before(record, judgement.index), judgement.best, judgement.options
        )
        assert again_best.loss == 0.0
    for summary in first.seats:
        mine = first.of_seat(summary.seat)
        assert summary.decisions == len(mine)
        assert summary.blunders == sum(j.band is Band.BLUNDER for j in mine)
        chosen = [j for j in mine if not j.forced]
        stake = sum(j.stake for j in chosen)
        expected = 100.0 * sum(j.kept for j in chosen) / stake if stake else 100.0
        assert summary.accuracy == pytest.approx(expected)
        for judgement in chosen:
            worst = judgement.options[-1].chance
            assert judgement.stake == pytest.approx(100 * (chances_of(judgement)[0] - worst))
            assert 0.0 <= judgement.kept <= judgement.stake
    accuracies = {summary.accuracy for summary in first.seats}
    assert any(accuracy < 100.0 for accuracy in accuracies), "some decision lost something"


def test_the_decisions_of_a_record_skip_the_dice_and_follow_resignations() -> None:
    record = opening(3, Variant.STANDARD, 8, 12)
    resigned = Record(
        3, Variant.STANDARD, record.first_player, None, record.actions, {"resignations": [[6, 1]]}
    )
    found = list(decisions(resigned))
    assert all(not action.startswith("D") for _, _, action in found)
    for index, state, action in found:
        assert state == state_before(resigned, index)
        assert apply(state, action)
    assert all(1 not in state.eliminated for index, state, _ in found if index < 6)
    assert all(1 in state.eliminated for index, state, _ in found if index >= 6)


def test_only_the_seats_asked_for_are_judged() -> None:
    record = opening(4, Variant.STANDARD, 3, 16)
    judged = judge_game(record, seats=[2], work=12)
    assert {judgement.seat for judgement in judged.decisions} == {2}
    assert [summary.seat for summary in judged.seats] == [2]


def test_costliest_ranks_the_seats_losses() -> None:
    options = (Option("S", 0.5, Facts()), Option("L", 0.4, Facts()), Option("R", 0.2, Facts()))
    state = endgame("d5", "E", "orient")
    worst = judgement_from(state, "R", options, index=3)
    middle = judgement_from(state, "L", options, index=1)
    none = judgement_from(state, "S", options, index=2)
    judged = ai.judge.GameJudgement(2, (middle, none, worst), ())
    assert judged.costliest(0, 3) == (worst, middle)
    later_tie = judgement_from(state, "L", options, index=5)
    tied = ai.judge.GameJudgement(2, (later_tie, worst, middle), ())
    assert tied.costliest(0, 3) == (worst, middle, later_tie)
    assert worst.loss == pytest.approx(30.0)
    assert [worst.band, middle.band, none.band] == [Band.BLUNDER, Band.MISTAKE, Band.GOOD]
    assert worst.loss_of("L") == middle.loss == 10.0
    assert worst.loss_of("S") == 0.0


def test_costliest_are_the_costliest_of_all_the_seat_s_decisions_costliest_first() -> None:
    """Four decisions over the floor, losing 3, 4, 5 and 30 points in the order played: the
    three taught are the 30, the 5 and the 4, not the first three played."""
    options = (
        Option("S", 0.50, Facts()),
        Option("A", 0.47, Facts()),
        Option("B", 0.46, Facts()),
        Option("C", 0.45, Facts()),
        Option("D", 0.20, Facts()),
    )
    state = endgame("d5", "E", "orient")
    three, four, five, thirty = (
        judgement_from(state, action, options, index=index)
        for index, action in enumerate("ABCD", start=1)
    )
    judged = ai.judge.GameJudgement(2, (three, four, five, thirty), ())
    assert judged.costliest(0) == (thirty, five, four)


def test_costliest_are_the_seat_s_own_decisions_never_a_rival_s() -> None:
    """Each player learns from their own decisions: a rival's costlier one is never theirs."""
    options = (Option("S", 0.5, Facts()), Option("L", 0.45, Facts()), Option("R", 0.1, Facts()))
    first, second = (
        new_game(deal(2, Variant.STANDARD, random.Random(1), first_player=seat)) for seat in (0, 1)
    )
    mine = judgement_from(first, "L", options, index=1)  # 5 points
    rivals = judgement_from(second, "R", options, index=4)  # 40 points
    assert (mine.seat, rivals.seat) == (0, 1)
    judged = ai.judge.GameJudgement(2, (mine, rivals), ())
    assert judged.costliest(0) == (mine,)
    assert judged.costliest(1) == (rivals,)


def test_costliest_teaches_what_gave_away_two_points_or_more() -> None:
    """What Learn from your mistakes teaches: the costliest decisions that gave away at least
    the drill's floor (2 points in 2 players, 1.7 in 4), an inaccuracy or not: a newcomer who
    loses a game by a few points a decision learns from the worst of them. One that gave away
    exactly the floor is drilled; one that gave away less never is, however few the costly
    ones."""
    options = (
        Option("S", 0.5, Facts()),
        Option("L", 0.49, Facts()),
        Option("E", 0.48, Facts()),
        Option("R", 0.47, Facts()),
        Option("A", 0.44, Facts()),
    )
    state = endgame("d5", "E", "orient")
    slight = judgement_from(state, "L", options, index=1)
    small = judgement_from(state, "R", options, index=2)
    costly = judgement_from(state, "A", options, index=3)
    assert (slight.band, small.band, costly.band) == (Band.GOOD, Band.GOOD, Band.INACCURACY)
    both = ai.judge.GameJudgement(2, (slight, small, costly), ())
    assert both.costliest(0) == (costly, small)
    assert ai.judge.GameJudgement(2, (slight,), ()).costliest(0) == ()
    assert ai.judge.drill_floor(2) == 2.0
    exactly = judgement_from(state, "E", options, index=4)
    assert exactly.loss == ai.judge.drill_floor(2)
    assert ai.judge.GameJudgement(2, (slight, exactly), ()).costliest(0) == (exactly,)
    assert ai.judge.drill_floor(4) == pytest.approx(2.0 * 0.866, abs=0.001)


def test_a_seat_s_summary_leaves_its_forced_decisions_out() -> None:
    """Only decisions with a choice count: a forced one adds nothing to the count, the bands
    or the accuracy."""
    options = (Option("S", 0.5, Facts()), Option("L", 0.4, Facts()))
    state = endgame("d5", "E", "orient")
    forced = judgement_from(state, "S", options[:1], index=0)
    chosen = judgement_from(state, "L", options, index=1)
    assert forced.forced
    summary = summarise(0, [forced, chosen])
    assert (summary.decisions, summary.mistakes) == (1, 1)
    assert summary.accuracy == chosen.accuracy


def test_a_seat_s_summary_counts_each_decision_in_its_own_band_alone() -> None:
    """A blunder is counted a blunder, not a mistake as well: one mistake (10 points) and one
    blunder (30 points) are 0 inaccuracies, 1 mistake and 1 blunder."""
    options = (Option("S", 0.5, Facts()), Option("L", 0.4, Facts()), Option("R", 0.2, Facts()))
    state = endgame("d5", "E", "orient")
    mistake = judgement_from(state, "L", options, index=1)
    blunder = judgement_from(state, "R", options, index=3)
    assert (mistake.band, blunder.band) == (Band.MISTAKE, Band.BLUNDER)
    summary = summarise(0, [mistake, blunder])
    assert (summary.inaccuracies, summary.mistakes, summary.blunders) == (0, 1, 1)


def test_a_rug_over_a_resigned_seat_s_rug_covers_no_rival() -> None:
    """The rugs of a seat that left the game are neutral (R9): laying over them cuts into no
    rival's region, and the rug's facts say so."""
    record = Record(
        players=3,
        variant=Variant.STANDARD,
        first_player=2,
        piles=None,
        actions=(
            *("R", "D2", "e3e4", "L", "D3", "g1g2", "R", "D2", "g2g3", "L", "D4", "f5g5"),
            *("S", "D3", "f6f7", "L", "D3", "d7e7", "L", "D4", "e5e6", "R", "D2"),
        ),
        extras={"resignations": [[21, 2]]},
    )
    state = replay_record(record)
    assert state.eliminated == (2,)
    assert state.phase is Phase.PLACE
    assert [state.colors[parse_square(name)] for name in ("e4", "e5")] == [2, 2]  # seat 2's
    facts = facts_of(state, "e4e5")
    assert (facts.covered, facts.cut_owner, facts.cut_region) == (0, None, 0)


def test_the_drill_s_floor_follows_the_number_of_players() -> None:
    """A decision that gave away 1.8 points is over the floor of 4 players (1.73) and under
    that of 2 (2): drilled in a 4-player game, not in a duel."""
    options = (Option("S", 0.5, Facts()), Option("L", 0.482, Facts()))
    state = endgame("d5", "E", "orient")
    lost = judgement_from(state, "L", options, index=1)
    assert lost.loss == pytest.approx(1.8)
    assert ai.judge.GameJudgement(4, (lost,), ()).costliest(0) == (lost,)
    assert ai.judge.GameJudgement(2, (lost,), ()).costliest(0) == ()
