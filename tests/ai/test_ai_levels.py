"""Every AI level plays only legal actions, deterministically for a seed, from varied positions."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import MutableSequence
from dataclasses import replace
from pathlib import Path

import pytest

from ai import LEVELS, Budget, NotADecisionError, choose_action, decide, make_player
from ai.greedy import DEFAULT_WEIGHTS, Greedy
from ai.hard import public_view
from ai.medium import appraise
from ai.tactics import LANDINGS, ORIENT_TURNS, ZONE, legal_placements, payees, toll
from engine import Variant, apply, deal, legal_actions, new_game, parse_square
from engine.model import Facing, Phase
from engine.playout import from_state
from engine.rules import placement_notation
from engine.state import GameState
from tests.ai.conftest import random_game
from tests.engine.builders import board

SMALL = Budget(work=14)
"""A work budget that keeps hard's tests fast while still searching (a first pass is <= 12)."""


def _budget(level: str) -> Budget | None:
    return SMALL if level == "hard" else None


def _sample(positions: list[GameState], level: str) -> list[GameState]:
    return positions[::8] if level == "hard" else positions


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_only_legal_actions(level: str, positions: list[GameState]) -> None:
    for index, state in enumerate(_sample(positions, level)):
        action = choose_action(state, level, seed=index, budget=_budget(level))
        assert action in legal_actions(state), (level, state.phase, action)
        apply(state, action)


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_decision(level: str, positions: list[GameState]) -> None:
    for index, state in enumerate(_sample(positions, level)[::6]):
        first = decide(state, level, seed=1000 + index, budget=_budget(level))
        again = decide(state, level, seed=1000 + index, budget=_budget(level))
        assert first == again


def test_the_seed_matters_for_random_play(positions: list[GameState]) -> None:
    state = next(p for p in positions if p.phase is Phase.PLACE and len(legal_actions(p)) > 4)
    assert len({choose_action(state, "random", seed) for seed in range(40)}) > 1


def test_easy_lays_the_rug_showing_most_new_squares_covering_a_rival_counting_double() -> None:
    """Easy values a rug by the squares it shows of its colours: 1 for an empty square, 2 for
    a rival's, 0 for its own; seven times in ten it lays the best of them, else any of the 11:
    the best about 145 times in 200 seeds (standard deviation 6.3), not always, as an easy that
    was always careful would, nor half the time."""
    # Red (seat 0) lays a rug at d4; c3 and d3 show two different yellow rugs.
    state = board(4, [("c2c3", "yellow"), ("d2d3", "yellow"), ("e5f5", "red")], phase=Phase.PLACE)
    values = dict(decide(state, "easy", seed=0).values)
    assert values["c3d3"] == 4.0  # two rival squares
    assert values["c3c4"] == values["d3e3"] == 3.0  # a rival square and an empty one
    assert values["e4f4"] == 2.0  # two empty squares
    assert values["e4e5"] == 1.0  # an empty square and one of its own
    assert max(values, key=values.__getitem__) == "c3d3"
    assert len(values) == 11
    chosen = [choose_action(state, "easy", seed) for seed in range(200)]
    assert 127 <= chosen.count("c3d3") <= 164, "within three standard deviations"


def test_easy_counts_both_of_a_duel_seat_s_colours_as_its_own() -> None:
    """In 2 players each seat plays two colours (R1): red's seat counts blue's squares as its
    own (0), not a rival's (2); yellow's count double."""
    rugs = [("c2c3", "blue"), ("d2d3", "blue"), ("e2e3", "yellow"), ("f5g5", "red")]
    state = board(2, rugs, phase=Phase.PLACE)
    values = dict(decide(state, "easy", seed=0).values)
    assert values["c3d3"] == 0.0  # two squares of its own blue
    assert values["d3e3"] == 2.0  # its own blue and a rival's yellow
    assert values["e3e4"] == 3.0  # a rival's yellow and an empty square
    assert max(values, key=values.__getitem__) == "e3e4"


def test_easy_turns_assam_after_its_rug_either_way_at_random(positions: list[GameState]) -> None:
    """In the variant (R12) easy turns Assam after its rug left or right at random: over 60
    seeds each way comes up about half the time."""
    state = next(p for p in positions if p.phase is Phase.ROTATE)
    chosen = [choose_action(state, "easy", seed) for seed in range(60)]
    assert set(chosen) == {"L", "R"}
    assert 15 <= chosen.count("L") <= 45


def test_medium_breaks_exact_ties_with_its_seeded_generator() -> None:
    """At the opening every way of turning Assam is worth the same to medium; which it takes
    follows the seed, so each of them is played."""
    state = _opening(False)
    _, values, _ = appraise(state)
    assert values[0] == values[1] == values[2]
    chosen = [choose_action(state, "medium", seed) for seed in range(30)]
    assert set(chosen) == {"L", "S", "R"}


def test_medium_turns_assam_after_its_rug_towards_the_facing_that_pays_it_most() -> None:
    """At ROTATE (R12) medium values each way by what the next mover, rolling from the facing
    that way leaves (as the engine turns Assam), is expected to pay it, and takes the larger:
    a medium that gave each way the other's value would turn towards the facing that pays it
    least."""
    differing = 0
    for players in (2, 3, 4):
        for state in random_game(players, Variant.ROTATE_AFTER, 30 + players):
            if state.phase is not Phase.ROTATE:
                continue
            seat = state.to_move
            assert seat is not None
            greedy = Greedy(from_state(state), seat)
            expected = {}
            for action in ("L", "R"):
                after = apply(state, action)[0]
                expected[action] = greedy.reply_value(after.assam * 4 + int(after.facing))[1]
            decision = decide(state, "medium", seed=0)
            assert dict(decision.values) == pytest.approx(expected)
            if abs(expected["L"] - expected["R"]) > 1e-9:
                differing += 1
                assert decision.action == max(expected, key=expected.__getitem__)
    assert differing >= 5


class WithoutTheTurnAfter(Greedy):
    """Medium's appraisal of a rug less what it leaves Assam's next mover to pay."""

    def handover_value(
        self, square: int, facing: int, rotate_after: bool, mine: int | None = None
    ) -> tuple[float, int]:
        return 0.0, 0


def test_medium_counts_a_covered_rival_square_as_shown_and_as_taken_from_the_rival() -> None:
    """Medium's worth of a rug before regions and the handover (4 players, rivals at -1/3):
    each square it shows counts 1; one taken from a rival counts 1/3 more (the rival's loss),
    one of its own nothing. Red lays at d4; c3 and d3 show yellow, e5 red."""
    state = board(4, [("c2c3", "yellow"), ("d2d3", "yellow"), ("e5f5", "red")], phase=Phase.PLACE)
    s = from_state(state)
    greedy = WithoutTheTurnAfter(s, 0, replace(DEFAULT_WEIGHTS, region=0.0))
    worth = {
        placement_notation(a, b): greedy.placement_value(s.assam, s.facing, a, b)
        for a, b in legal_placements(s, s.assam)
    }
    assert worth["c3d3"] == pytest.approx(2 * (1 + 1 / 3))  # two yellow squares
    assert worth["c3c4"] == pytest.approx(1 + 1 / 3 + 1)  # a yellow square, an empty one
    assert worth["e4f4"] == pytest.approx(2.0)  # two empty squares
    assert worth["e4e5"] == pytest.approx(1.0)  # an empty square and one of its own


def test_medium_values_a_rug_by_the_better_of_the_two_turns_of_assam_after_it() -> None:
    """In rotate-after we turn Assam ourselves after our rug, so a rug is worth what the way
    medium will then take (the larger of its two values at that step) is worth: on a position
    where the two ways after a rug differ by five dirhams or more, and where left is the better
    way after some rugs and right after others, each rug's value is its own worth plus the
    better turn's, never the worse one's, nor always the same way's."""
    for state in random_game(3, Variant.ROTATE_AFTER, 33):
        if state.phase is not Phase.PLACE or state.to_move is None:
            continue
        values = dict(decide(state, "medium", seed=0).values)
        s = from_state(state)
        own = WithoutTheTurnAfter(s, state.to_move)
        turns_after = {}
        for a, b in legal_placements(s, s.assam):
            rug = placement_notation(a, b)
            turning = apply(state, rug)[0]
            assert turning.phase is Phase.ROTATE
            turns_after[rug] = (
                own.placement_value(s.assam, s.facing, a, b),
                dict(decide(turning, "medium", seed=0).values),
            )
        differences = [turns["L"] - turns["R"] for _, turns in turns_after.values()]
        if max(map(abs, differences)) < 5 or max(differences) < 1 or min(differences) > -1:
            continue
        for rug, (worth, turns) in turns_after.items():
            assert values[rug] == pytest.approx(worth + max(turns.values())), (rug, turns)
        return
    raise AssertionError("no position where the better way of turning Assam differs by rug")


@pytest.mark.parametrize("level", LEVELS)
def test_no_decision_at_a_die_roll_or_after_the_end(level: str) -> None:
    state = new_game(deal(2, Variant.ROTATE_AFTER, first_player=0, rng=_Shuffler()))
    assert state.phase is Phase.ROLL
    with pytest.raises(NotADecisionError):
        choose_action(state, level, seed=0)
    over = state._replace(phase=Phase.OVER, to_move=None)
    with pytest.raises(NotADecisionError):
        choose_action(over, level, seed=0)


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown AI level"):
        make_player("grandmaster")


class _Shuffler:
    """A stand-in RNG for `deal` that leaves the piles in their fresh order."""

    def randrange(self, stop: int) -> int:
        return 0

    def shuffle(self, items: MutableSequence[object]) -> None:
        return None


def _opening(reverse_hidden: bool) -> GameState:
    """A 2-player opening; `reverse_hidden` reverses every pile except seat 0's top rug."""
    state = new_game(deal(2, Variant.STANDARD, first_player=0, rng=_Shuffler()))
    assert state.piles is not None
    mine = (state.piles[0][0], *sorted(state.piles[0][1:], reverse=reverse_hidden))
    theirs = tuple(sorted(state.piles[1], reverse=reverse_hidden))
    return state._replace(piles=(mine, theirs))


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_hidden_pile_order_does_not_change_the_decision(level: str) -> None:
    forward, backward = _opening(False), _opening(True)
    assert forward.piles != backward.piles
    for actions in ((), ("S", "D3"), ("L", "D2")):
        a, b = forward, backward
        for action in actions:
            a, b = apply(a, action)[0], apply(b, action)[0]
        for seed in range(1 if level == "hard" else 3):
            budget = _budget(level)
            assert choose_action(a, level, seed, budget) == choose_action(b, level, seed, budget)


def test_public_view_keeps_only_the_revealed_top_rug() -> None:
    forward, backward = _opening(False), _opening(True)
    seen = public_view(forward, 0)
    assert seen == public_view(backward, 0)
    assert seen.piles is not None
    assert forward.piles is not None
    assert seen.piles[0][0] == forward.piles[0][0]
    assert sorted(seen.piles[1]) == sorted(forward.piles[1])


def test_public_view_hides_the_seat_s_next_rug_while_it_turns_assam_after_its_rug() -> None:
    # rotate-after (R12): the rug just laid was the top; the next is revealed only at the
    # seat's next turn (R2), so while it turns Assam its whole pile is hidden, as the rival's.
    checked = 0
    for state in random_game(2, Variant.ROTATE_AFTER, 0):
        if state.phase is not Phase.ROTATE:
            continue
        seat = state.to_move
        assert seat is not None
        assert state.piles is not None
        pile = state.piles[seat]
        if len(set(pile)) < 2:
            continue
        other = next(i for i, color in enumerate(pile) if color != pile[0])
        swapped = list(pile)
        swapped[0], swapped[other] = swapped[other], swapped[0]
        piles = list(state.piles)
        piles[seat] = tuple(swapped)
        assert public_view(state._replace(piles=tuple(piles)), seat) == public_view(state, seat)
        checked += 1
    assert checked >= 5


def test_the_ai_package_does_not_load_random(repo_root: Path) -> None:
    probe = "import sys, ai; print('random' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, '.'); {probe}"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "False"


def _toll_ahead(dirhams: int = 3) -> GameState:
    """Assam on d4 facing N below a 9-square yellow region (seat 1's), seat 0 to turn him with
    `dirhams` dirhams: straight on every face lands in the region, left or right none does."""
    state = new_game(deal(2, Variant.STANDARD, first_player=0, rng=_Shuffler()))
    region = [row * 7 + col for row in range(3) for col in range(2, 5)]
    cells = tuple(region.index(sq) + 1 if sq in region else 0 for sq in range(49))
    colors = tuple(1 if sq in region else -1 for sq in range(49))
    return state._replace(cells=cells, colors=colors, dirhams=(dirhams, 30), rugs_laid=len(region))


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_medium_and_hard_turn_away_from_a_ruinous_toll(level: str) -> None:
    state = _toll_ahead()
    for seed in range(3):
        assert choose_action(state, level, seed, _budget(level)) in ("L", "R")


def test_easy_turns_assam_half_the_time_the_way_with_the_smallest_expected_toll() -> None:
    """Easy values each way by minus its expected toll over the exact die: straight on costs
    9 on every face, left and right nothing. Careful half the time (never straight on), else
    any way (straight on a third of that): about 50 of 300 seeds go straight on (standard
    deviation 6.5), where an easy that sought the toll would go there about 200 times, and one
    careful nine times in ten about 10."""
    state = _toll_ahead()
    values = dict(decide(state, "easy", seed=0).values)
    assert values == {"L": 0.0, "S": -9.0, "R": 0.0}
    chosen = [choose_action(state, "easy", seed) for seed in range(300)]
    assert 31 <= chosen.count("S") <= 69, "within three standard deviations"
    assert {"L", "R"} <= set(chosen)


def test_medium_counts_a_seat_that_cannot_pay_as_out_but_not_one_paying_its_last_dirham() -> None:
    """Medium's appraisal of a toll (R8, R9): each dirham counts for the payer and the payee,
    and only a toll beyond the payer's purse adds the loss of going out. Paying the exact last
    dirham leaves the seat in, for the mover as for a rival."""
    state = _toll_ahead(dirhams=9)
    ours, rivals = Greedy(from_state(state), 0), Greedy(from_state(state), 1)
    elimination = DEFAULT_WEIGHTS.elimination
    # Seat 0 pays seat 1: each dirham is -1 for the payer and +1 for the payee, 2 x -1 for us.
    assert ours.toll_value(0, 1, 8) == pytest.approx(-16.0)
    assert ours.toll_value(0, 1, 9) == pytest.approx(-18.0)
    assert ours.toll_value(0, 1, 10) == pytest.approx(-18.0 - elimination)
    # For the rival, the same tolls are gains, and our going out a large one.
    assert rivals.toll_value(0, 1, 9) == pytest.approx(18.0)
    assert rivals.toll_value(0, 1, 10) == pytest.approx(18.0 + elimination)


def test_medium_counts_the_rug_after_a_landing_unless_its_toll_puts_the_seat_out() -> None:
    """A roll's landing is worth its toll (R8), then the best rug laid from there, unless the
    toll puts the seat out (R9). From d4 facing north every face stops in `_toll_ahead`'s
    9-square region: with 9 dirhams the seat pays its last dirham, stays in and lays its rug;
    with 8 it goes out and lays none. With no dirhams, facing west every face stops on an
    empty square: nothing is owed and the rug still counts."""
    straight_on = parse_square("d4") * 4 + Facing.N
    for dirhams, lays in ((9, True), (8, False)):
        s = from_state(_toll_ahead(dirhams=dirhams))
        greedy = Greedy(s, 0)
        for landing, _ in LANDINGS[straight_on]:
            assert toll(s, payees(s), 0, landing >> 2) == (1, 9)
            rug = greedy.best_placements(landing >> 2, landing & 3)[0] if lays else 0.0
            expected = greedy.toll_value(0, 1, 9) + rug
            assert greedy.landing_value(landing) == pytest.approx(expected), dirhams
    s = from_state(_toll_ahead(dirhams=0))
    greedy = Greedy(s, 0)
    for landing, _ in LANDINGS[parse_square("d4") * 4 + Facing.W]:
        assert toll(s, payees(s), 0, landing >> 2) == (-1, 0)
        rug = greedy.best_placements(landing >> 2, landing & 3)[0]
        assert rug != 0.0
        assert greedy.landing_value(landing) == pytest.approx(rug)


def test_medium_expects_the_next_mover_to_turn_assam_the_way_that_costs_it_least() -> None:
    """Standard rules: medium values handing Assam over by the next mover's cheapest way to
    turn him. Seen from seat 1, whose region lies straight ahead in `_toll_ahead`, seat 0 (30
    dirhams) would pay 9 straight on and nothing left or right: the handover is worth what a
    free way is worth to seat 1, not the toll seat 0 can turn away from."""
    greedy = Greedy(from_state(_toll_ahead(dirhams=30)), 1)
    square, facing = parse_square("d4"), int(Facing.N)
    left, straight, right = (
        greedy.reply_value(square * 4 + ((facing + turn) & 3)) for turn in ORIENT_TURNS
    )
    assert straight[0] == pytest.approx(9.0)
    assert left[0] == right[0] == 0.0
    value, _ = greedy.handover_value(square, facing, rotate_after=False)
    assert value in (left[1], right[1])
    assert value < straight[1]


def test_medium_counts_the_next_mover_out_only_when_its_toll_exceeds_its_purse() -> None:
    """Medium's appraisal of the next mover's reply (R8, R9), seen from seat 1: every face
    from d4 facing north stops in its 9-square region in `_toll_ahead`. Seat 0 paying its
    last dirham stays in, as one with 30; with 8 it pays all, is out and lays no rug."""
    pose = parse_square("d4") * 4 + Facing.N
    rich, exact, short = (
        Greedy(from_state(_toll_ahead(dirhams=dirhams)), 1).reply_value(pose)
        for dirhams in (30, 9, 8)
    )
    elimination = DEFAULT_WEIGHTS.elimination
    assert rich[0] == pytest.approx(9.0)
    assert exact == pytest.approx(rich)
    assert short[0] == pytest.approx(9.0 + elimination)
    # its 8 dirhams to seat 1 (+1 for it, -1 for seat 0), its going out, no rug of its to fear
    assert short[1] == pytest.approx(2.0 * 8 + elimination)


def _seat_0_shows(*names: str) -> GameState:
    """A 2-player game (seat 0 to move, 30 dirhams each) whose board shows seat 0's first
    colour on the squares `names` alone."""
    state = new_game(deal(2, Variant.STANDARD, first_player=0, rng=_Shuffler()))
    ours = [parse_square(name) for name in names]
    cells = tuple(ours.index(sq) + 1 if sq in ours else 0 for sq in range(49))
    colors = tuple(0 if sq in ours else -1 for sq in range(49))
    return state._replace(cells=cells, colors=colors, dirhams=(30, 30), rugs_laid=len(ours))


def test_medium_s_cover_risk_counts_at_most_two_of_our_squares_a_landing() -> None:
    """The risk of being covered: `cover_risk` per square of ours within the reach of the next
    mover's rug, at most two per landing. Seat 1 rolls from d4 facing north onto d3, d2, d1 or
    c1, all empty (nothing owed); a rug laid from there could cover 6, 4, 2 or 2 of seat 0's
    squares."""
    ours = ("b3", "c3", "e3", "f3", "c2", "e2")
    greedy = Greedy(from_state(_seat_0_shows(*ours)), 0)
    mine = sum(1 << parse_square(name) for name in ours)
    pose = parse_square("d4") * 4 + Facing.N
    exposed = [(mine & ZONE[landing >> 2]).bit_count() for landing, _ in LANDINGS[pose]]
    assert exposed == [6, 4, 2, 2]
    cost, value = greedy.reply_value(pose, mine)
    assert cost == 0.0
    risk = DEFAULT_WEIGHTS.cover_risk
    capped = [
        odds * risk * min(count, 2)
        for (_, odds), count in zip(LANDINGS[pose], exposed, strict=True)
    ]
    assert value == pytest.approx(-sum(capped))
