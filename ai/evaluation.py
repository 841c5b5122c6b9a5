"""How good a position is for one seat: hard's leaf evaluation, on medium's scale.

`position_value(state, seat)` adds up, with the weights of `tactics.weights` (+1 for the seat,
-1/(n-1) for each rival still in):

- the scores as they stand (R11: dirhams plus visible squares, a square counting
  `GreedyWeights.square` points);
- the toll potential of every region (squared size, times the turns left to the owner's
  rivals, as in `ai.greedy`), weighted by `region` for the seat's colours and
  `rival_region` for the others';
- the toll the seat to move expects to pay from where Assam stands (with the standard rules it
  turns the way that costs it least, in the variant it must roll in Assam's facing, R12),
  weighted by `coming_toll`;
- in 2 players, for a running game: `win_stake` (40) times the chance of winning that the sum
  above gives (`ai.win_chance`, calibrated on medium self-play), so that the search
  plays for the win, not only for points: ahead late it avoids lines that risk a big toll,
  behind it takes them;
- once the game is decided for the seat: the final margin plus `DECIDED` for a win (split
  among shared winners) or minus `DECIDED` for a loss or an elimination, so that no estimate of
  a running game, however bad, looks worse than losing it.

`leaf_weights(players, rugs_left)` gives the weights. In 3 and 4 players they are medium's
(`greedy.DEFAULT_WEIGHTS`: a square a point, regions 0.5, the whole coming toll). In 2 players
they follow the game's stage (`DUEL_LEAF`): each weight moves in a straight line with the
rugs left, from its value with none left (`Staged.end`) to that with all 48 left (`end +
rise`). The lines are a least-squares fit of the final margin over the turn starts of 8,000
medium self-play games (`python -m ai.calibrate`, which prints them): at a leaf we are
about to move, as the seat of a turn start is.

| weight (2 players) | 48 rugs left | 24 left | none left |
|---|---|---|---|
| a visible square | 1.67 | 1.32 | 0.98 |
| our regions | 0.52 | 0.77 | 1.01 |
| the rival's regions | 0.36 | 0.57 | 0.78 |
| the coming toll | 0.22 | 0.46 | 0.69 |

Early a square showing is worth more than its point (it may grow into a region, and it is one
the rival does not have) and a region less than its squared size says (it is likely to be
covered before it pays); late the potential is nearly all there is to come. Our regions count
more than the rival's, as we move next and cover theirs first. The coming toll counts below
its size, as a seat that pays stands on the region it paid and often covers it next. How the
lines were fitted and what they are worth in play: docs/ai.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from ai.greedy import DEFAULT_WEIGHTS, GreedyWeights
from ai.tactics import LANDINGS, ORIENT_TURNS, payees, weights
from ai.win_chance import win_chance
from engine.board import SQUARES, region_mask
from engine.model import COLOR_ORDER, owner_of, rugs_per_color
from engine.playout import ORIENT, ROLL, FastState, from_state
from engine.rules import scores
from engine.state import GameState

DECIDED = 100.0
"""Value of a won game (lost: minus this), on top of the score margin."""

DUEL_RUGS = len(COLOR_ORDER) * rugs_per_color(2)
"""Rugs of a 2-player game, both seats' (48: all four colours, R1): the stage of a duel is its
rugs left over this."""


@dataclass(frozen=True, slots=True)
class Staged:
    """A weight that moves in a straight line with the stage of a 2-player game."""

    end: float
    """Its value with no rug left."""
    rise: float
    """What it gains from the end to the start of the game (all `DUEL_RUGS` rugs left)."""

    def at(self, left: int) -> float:
        """Its value with `left` rugs left (both seats)."""
        return self.end + self.rise * (left / DUEL_RUGS)


@dataclass(frozen=True, slots=True)
class DuelLeaf:
    """Hard's leaf tuning in 2 players: medium's other weights, these by stage of the game."""

    square: Staged
    region: Staged
    rival_region: Staged
    coming_toll: Staged
    win_stake: float

    def at(self, left: int) -> GreedyWeights:
        """The weights with `left` rugs left (both seats)."""
        return GreedyWeights(
            region=self.region.at(left),
            rival_region=self.rival_region.at(left),
            win_stake=self.win_stake,
            square=self.square.at(left),
            coming_toll=self.coming_toll.at(left),
        )


DUEL_LEAF = DuelLeaf(
    square=Staged(0.98, 0.685),
    region=Staged(1.01, -0.49),
    rival_region=Staged(0.78, -0.42),
    coming_toll=Staged(0.69, -0.47),
    win_stake=40.0,
)
"""Hard's 2-player leaf (see the module docstring): the fitted lines, rounded."""

_DUEL_STAGES = tuple(DUEL_LEAF.at(left) for left in range(DUEL_RUGS + 1))


def leaf_weights(players: int, rugs_left: int) -> GreedyWeights:
    """Hard's leaf tuning for a game of `players` with `rugs_left` rugs still in the seats'
    hands (see the module docstring)."""
    if players != 2:
        return DEFAULT_WEIGHTS
    return _DUEL_STAGES[max(0, min(rugs_left, DUEL_RUGS))]


def position_value(state: GameState, seat: int, tuning: GreedyWeights | None = None) -> float:
    """The value of `state` for `seat` (higher is better), on the scale of medium's values.

    `tuning`: the weights of the potential and exposure terms (default: `leaf_weights`).
    """
    parts = scores(state)
    totals = [part.total for part in parts]
    if state.outcome is not None or state.is_eliminated(seat):
        rivals = [other for other in range(state.config.players) if other != seat]
        margin = totals[seat] - sum(totals[o] for o in rivals) / len(rivals)
        winners = state.outcome.winners if state.outcome is not None else ()
        return margin + (DECIDED / len(winners) if seat in winners else -DECIDED)
    s = from_state(state)
    if tuning is None:
        tuning = leaf_weights(s.players, sum(s.hand))
    weight = weights(s, seat)
    square = tuning.square
    value = sum(
        weight[other] * (part.dirhams + square * part.visible) for other, part in enumerate(parts)
    )
    value += _potential(s, seat, weight, tuning)
    if s.to_move >= 0 and s.phase in (ORIENT, ROLL):  # a roll is coming
        value += tuning.coming_toll * _exposure(s, weight, tuning)
    if tuning.win_stake and s.players == 2:
        rival = 1 - seat
        value += tuning.win_stake * win_chance(value, s.hand[seat], s.hand[rival])
    return value


def _potential(s: FastState, seat: int, weight: list[float], tuning: GreedyWeights) -> float:
    """Weighted sum over colours of squared region sizes, per the owner's rivals' turns left
    (`tuning.region` for the seat's colours, `tuning.rival_region` if set for the others')."""
    hands = [s.hand[other] if s.alive[other] else 0 for other in range(s.players)]
    left = sum(hands)
    value = 0.0
    for color, mask in enumerate(s.masks):
        owner = owner_of(s.players, color)
        if not mask or owner >= s.players or not s.alive[owner] or not weight[owner]:
            continue
        horizon = min(left - hands[owner], tuning.horizon)
        if horizon <= 0:
            continue
        squares_sum = 0
        todo = mask
        while todo:
            found = region_mask(mask, (todo & -todo).bit_length() - 1)
            squares_sum += found.bit_count() ** 2
            todo &= ~found
        region = tuning.region
        if owner != seat and tuning.rival_region is not None:
            region = tuning.rival_region
        value += weight[owner] * region * horizon / SQUARES * squares_sum
    return value


def _exposure(s: FastState, weight: list[float], tuning: GreedyWeights) -> float:
    """Value for us of the toll the seat to move expects to pay on its coming roll."""
    mover = s.to_move
    payee_of = payees(s)
    purse = s.dirhams[mover]
    base = s.assam * 4
    if s.phase == ORIENT:
        poses = [base + ((s.facing + turn) & 3) for turn in ORIENT_TURNS]
    else:
        poses = [base + s.facing]
    best_cost = best_value = 0.0
    for k, pose in enumerate(poses):
        cost = value = 0.0
        for landing, odds in LANDINGS[pose]:
            square = landing >> 2
            color = s.colors[square]
            if color < 0:
                continue
            payee = payee_of[color]
            if payee < 0 or payee == mover:
                continue
            amount = region_mask(s.masks[color], square).bit_count()
            paid = min(amount, purse)
            cost += odds * amount
            value += odds * (weight[payee] - weight[mover]) * paid
            if amount > purse:
                cost += odds * tuning.elimination
                value -= odds * weight[mover] * tuning.elimination
        if k == 0 or cost < best_cost:
            best_cost, best_value = cost, value
    return best_value
