"""Hard: expectimax over the die, two turns deep, with a model of the next mover.

The search looks at our whole turn and the next mover's whole turn, exactly over the die:

- our turn: every way of turning Assam (standard rules), every die face with its exact
  probability (1, 2, 2, 3, 3, 4), the toll we would pay, then our rugs from where we land,
  best first by medium's appraisal, and (variant R12) both ways of rotating Assam after it;
- the next mover's turn: played as `medium` would play it (its choice of facing, then for
  every die face its toll and its best rug, and in the variant its rotation): a greedy rival
  is what a human opponent also resembles more than a perfect one. Where medium's best options
  tie, each counts with an equal share, as medium's seeded tie-break picks them. In 2 players
  the colour it lays is a chance node too: its top rug is hidden until its turn (R2), so the
  search weighs each colour it still holds by its share of its pile (`pile_tops`);
- the leaves, after both turns, are scored by `ai.evaluation.position_value`: scores,
  region potential, the toll we then face on our own coming roll (in 2 players each weighed
  by the stage of the game, as a fit of medium self-play margins found: see
  `ai.evaluation.leaf_weights`), in 2 players a stake on the chance of winning
  (`ai.win_chance`), and a decided game (won, lost, or we are out) counted beyond any
  running one.

Every state change goes through the checked engine (`engine.rules.apply`), so the search
plays exactly the rules. Our rug options are widened step by step (the best rug at every
landing, then the second best, ...) until all are searched or the budget runs out; the work
unit is one simulated turn of the next mover (over every colour it may draw). The default
budget searches every option in most positions and stops by 0.9 s in the rest. With a work budget
the decision depends only on state and seed (a time budget is a safety cap checked between
nodes). Ties are broken by the seeded generator. Hidden information stays hidden: the search
sees the 2-player piles only as far as they are revealed (R2; see `public_view`).

`option_values` is the same search for a judge: every legal option with its expected value,
each line ending in a leaf the caller chooses (e.g. a seat's chance of winning).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ai.budget import Budget, Clock, Meter
from ai.evaluation import position_value
from ai.greedy import Greedy
from ai.medium import MediumPlayer
from ai.player import Decision, best_index, best_indices, check_decision_node
from ai.prng import SplitMix64
from ai.tactics import DIE_ODDS, ORIENT_TURNS, ROTATE_TURNS, legal_placements
from engine.model import Phase, Variant
from engine.playout import from_state
from engine.rules import ORIENT_ACTIONS, ROTATE_ACTIONS, apply, placement_notation
from engine.state import GameState

DEFAULT_BUDGET = Budget(work=160, seconds=0.9)
"""Hard's default: at most 160 simulated rival turns and 0.9 s of CPU time per decision."""

Leaf = Callable[[GameState, int], float]
"""A leaf evaluation: the value of a state for a seat (higher is better)."""


@dataclass
class _Branch:
    """A state where we act next (after a die face, or after a rotation) and our rug options.

    `options`: our legal rugs, best first by medium's appraisal ([] when we lay none: the
    turn is over, we are out, or the game ended). `values`: the searched values of options[0],
    options[1], ... so far (one value, of the state itself, when there are no options).
    """

    odds: float
    state: GameState
    options: list[str]
    values: list[float]


class HardPlayer:
    """The `hard` level: expectimax over the die with a greedy model of the other players."""

    level = "hard"

    def __init__(self, clock: Clock = time.thread_time) -> None:
        self.clock = clock

    def decide(self, state: GameState, seed: int, budget: Budget | None = None) -> Decision:
        check_decision_node(state)
        if budget is None or (budget.work is None and budget.seconds is None):
            budget = DEFAULT_BUDGET
        searched = _search_options(state, Meter(budget, self.clock), position_value)
        if searched is None:
            fallback = MediumPlayer().decide(state, seed)
            return Decision(fallback.action, self.level, values=fallback.values)
        actions, values, search = searched
        choice = best_index(values, SplitMix64(seed))
        return Decision(
            actions[choice],
            self.level,
            work=search.meter.used,
            evaluations=search.leaves,
            values=tuple(zip(actions, values, strict=True)),
        )


def option_values(
    state: GameState,
    leaf: Leaf = position_value,
    budget: Budget | None = None,
    clock: Clock = time.thread_time,
) -> tuple[tuple[str, float], ...]:
    """Every legal option of the seat to move at a decision node, with its expected value by
    hard's search: over the die, the next mover's turn as medium plays it and, in 2 players,
    the colour it may draw, each line ending in `leaf(state, seat)` (default: hard's leaf).

    Options come as hard ranks them (ORIENT: L, S, R; ROTATE: L, R; PLACE: the rugs best first
    by medium's appraisal), with their notations. The values are expectations of the leaf over
    what the seat does not choose, with our own later choices in the turn (the rug after a
    facing, the rotation after a rug) made to maximise it; with a leaf in [0, 1] such as a
    chance of winning, each value is that chance after the option. Without a budget every
    option is searched (the same state always gives the same values). Under a `budget` the
    rugs searched last are skipped when it runs out: a skipped rug is worth `-inf`, and a facing
    is worth the best of the rugs searched at each landing. Only what the seat may know is read
    (`public_view`). Raises NotADecisionError at a die roll or once the game is over, and
    ValueError when the work budget is too small to value every option once.
    """
    check_decision_node(state)
    searched = _search_options(state, Meter(budget or Budget(), clock), leaf)
    if searched is None:
        raise ValueError("the work budget cannot search every option once")
    actions, values, _ = searched
    return tuple(zip(actions, values, strict=True))


def _search_options(
    state: GameState, meter: Meter, leaf: Leaf
) -> tuple[list[str], list[float], _Search] | None:
    """Hard's search of the options at a decision node: (actions, values, the search), or
    None when the work budget cannot value each option once."""
    seat = check_decision_node(state)
    view = public_view(state, seat)
    search = _Search(seat, meter, view, leaf)
    if view.phase is Phase.ROTATE:
        actions = list(ROTATE_ACTIONS)
        branches = [[_Branch(1.0, apply(view, action)[0], [], [])] for action in actions]
    elif view.phase is Phase.PLACE:
        actions = _ranked_placements(view, seat)
        branches = [[_Branch(1.0, view, actions, [])]]
    else:
        actions = list(ORIENT_ACTIONS)
        branches = search.orientations(view)
    if not meter.fits(search.first_pass(branches)):
        return None
    return actions, search.run(branches, view.phase is Phase.PLACE), search


def public_view(state: GameState, seat: int) -> GameState:
    """`state` with the 2-player piles reduced to what `seat` may know (R2).

    Only the top rug of the seat's own pile is revealed (during its turn). Every hidden part of
    a pile is replaced by a canonical order: the colour with more rugs left on top. The search
    then depends on public information only.
    """
    if state.piles is None:
        return state
    piles = []
    for owner, pile in enumerate(state.piles):
        keep = (
            1 if owner == seat and state.to_move == seat and state.phase is not Phase.ROTATE else 0
        )
        hidden = sorted(pile[keep:], key=lambda color: (-pile[keep:].count(color), color))
        piles.append((*pile[:keep], *hidden))
    return state._replace(piles=tuple(piles))


def _ranked_placements(state: GameState, seat: int) -> list[str]:
    """Our legal rugs at a PLACE state, best first by medium's appraisal."""
    s = from_state(state)
    greedy = Greedy(s, seat)
    options = legal_placements(s, s.assam)
    values = [greedy.placement_value(s.assam, s.facing, a, b) for a, b in options]
    order = sorted(range(len(options)), key=lambda i: -values[i])
    return [placement_notation(*options[i]) for i in order]


class _Search:
    """The expectimax of one decision, counting rival turns on `meter`."""

    def __init__(self, seat: int, meter: Meter, view: GameState, leaf: Leaf) -> None:
        self.seat = seat
        self.meter = meter
        self.leaf = leaf
        self.option_cost = 2 if view.variant is Variant.ROTATE_AFTER else 1
        """Rival turns simulated per rug option: one per rotation of ours in the variant."""
        self.leaves = 0

    # -- our turn --------------------------------------------------------------------------

    def orientations(self, state: GameState) -> list[list[_Branch]]:
        """Per way of turning Assam (L, S, R): a branch per die face with our ranked rugs."""
        branches = []
        for action in ORIENT_ACTIONS:
            turned = apply(state, action)[0]
            faces = []
            for face, odds in DIE_ODDS:
                rolled = apply(turned, f"D{face}")[0]
                placing = rolled.phase is Phase.PLACE
                options = _ranked_placements(rolled, self.seat) if placing else []
                faces.append(_Branch(odds, rolled, options, []))
            branches.append(faces)
        return branches

    def first_pass(self, branches: list[list[_Branch]]) -> int:
        """Work of searching the best rug of every branch (the least search that values all)."""
        return sum(
            self.option_cost if branch.options else 1 for faces in branches for branch in faces
        )

    def run(self, branches: list[list[_Branch]], per_option: bool) -> list[float]:
        """Search the branches; the value of each group (per_option: of each rug option)."""
        for faces in branches:
            for branch in faces:
                if not branch.options:
                    branch.values.append(self.after_turn(branch.state))
        width = max((len(b.options) for faces in branches for b in faces), default=0)
        for k in range(width):
            for faces in branches:
                for branch in faces:
                    if k >= len(branch.options):
                        continue
                    if k and not self.meter.affords(self.option_cost):
                        return self._values(branches, per_option)
                    laid = apply(branch.state, branch.options[k])[0]
                    branch.values.append(self.after_turn(laid))
        return self._values(branches, per_option)

    @staticmethod
    def _values(branches: list[list[_Branch]], per_option: bool) -> list[float]:
        if per_option:
            (branch,) = branches[0]
            unsearched = len(branch.options) - len(branch.values)
            return branch.values + [float("-inf")] * unsearched
        return [sum(b.odds * max(b.values) for b in faces) for faces in branches]

    def after_turn(self, state: GameState) -> float:
        """Value once our rug is down: our rotation (variant), then the next mover's turn."""
        if state.phase is Phase.ROTATE and state.to_move == self.seat:
            return max(self.after_turn(apply(state, action)[0]) for action in ROTATE_ACTIONS)
        return self.rival_turn(state)

    # -- the next mover's turn, as medium plays it -----------------------------------------

    def rival_turn(self, state: GameState) -> float:
        """Expected value after the next mover's turn, played greedily, over its hidden top
        rug (2 players) and the die."""
        if state.outcome is not None or state.to_move == self.seat:
            return self._leaf(state)
        self.meter.spend()
        return sum(
            chance * odds * self._leaf(after)
            for chance, top in pile_tops(state)
            for odds, after in greedy_turn(top)
        )

    def _leaf(self, state: GameState) -> float:
        self.leaves += 1
        return self.leaf(state, self.seat)


def pile_tops(state: GameState) -> list[tuple[float, GameState]]:
    """The colours the seat to move may find on top of its 2-player pile (hidden until its
    turn, R2), each with its chance, as states with that colour on top and the rest of the pile
    in canonical order; [(1.0, state)] when there is no choice."""
    mover = state.to_move
    if state.piles is None or mover is None:
        return [(1.0, state)]
    pile = state.piles[mover]
    colors = sorted(set(pile))
    if len(colors) < 2:
        return [(1.0, state)]
    tops = []
    for color in colors:
        rest = list(pile)
        rest.remove(color)
        rest.sort(key=lambda other: (-rest.count(other), other))
        piles = list(state.piles)
        piles[mover] = (color, *rest)
        tops.append((pile.count(color) / len(pile), state._replace(piles=tuple(piles))))
    return tops


def greedy_turn(state: GameState) -> list[tuple[float, GameState]]:
    """The turn of the seat to move as `medium` plays it: (probability, state after) pairs.

    From ORIENT (standard rules) it turns Assam the way medium would, then for every die face
    pays, lays medium's best rug and, in the variant, rotates as medium would (R12). Where
    medium sees equally good options it picks one with its seeded generator, which the search
    cannot know: each tied option then counts with an equal share of its branch's chance, so
    the outcomes are exactly the distribution of medium's turn. One outcome per die face when
    nothing ties; the probabilities always add up to 1.
    """
    mover = state.to_move
    assert mover is not None
    s = from_state(state)
    greedy = Greedy(s, mover)
    starts = [(1.0, state)]
    if state.phase is Phase.ORIENT:
        poses = [s.assam * 4 + ((s.facing + turn) & 3) for turn in ORIENT_TURNS]
        chosen = best_indices([greedy.orientation_value(pose) for pose in poses])
        starts = [(1.0 / len(chosen), apply(state, ORIENT_ACTIONS[k])[0]) for k in chosen]
    outcomes = []
    for share, start in starts:
        for face, odds in DIE_ODDS:
            rolled = apply(start, f"D{face}")[0]
            if rolled.phase is not Phase.PLACE:
                outcomes.append((share * odds, rolled))
                continue
            _, indices = greedy.best_placements(rolled.assam, int(rolled.facing))
            options = legal_placements(s, rolled.assam)
            for index in indices:
                laid = apply(rolled, placement_notation(*options[index]))[0]
                chance = share * odds / len(indices)
                if laid.phase is Phase.ROTATE:
                    rotations = _greedy_rotations(laid, mover)
                    outcomes.extend(
                        (chance / len(rotations), apply(laid, rotation)[0])
                        for rotation in rotations
                    )
                else:
                    outcomes.append((chance, laid))
    return outcomes


def _greedy_rotations(state: GameState, seat: int) -> list[str]:
    """The rotations medium may pick at a ROTATE state (R12): its best, or both on a tie."""
    s = from_state(state)
    greedy = Greedy(s, seat)
    values = [greedy.reply_value(s.assam * 4 + ((s.facing + turn) & 3))[1] for turn in ROTATE_TURNS]
    return [ROTATE_ACTIONS[k] for k in best_indices(values)]
