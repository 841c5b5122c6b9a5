"""How good a position is for one seat: hard's leaf evaluation, on medium's scale.

`position_value(state, seat)` adds up, with the weights of `tactics.weights` (+1 for the seat,
-1/(n-1) for each rival still in):

- the scores as they stand (R11: dirhams plus visible squares). In 2 players a visible square
  counts `square_bonus` (0.6) more than a point while 30 rugs or more are left, the bonus
  shrinking linearly to none at the end: a least-squares fit of the final margin over medium
  self-play (`python -m engine.ai.calibrate`) weighs a square 1.4-1.6 times a dirham in the
  middle of the game and about 1.0 in its last 12 turns (a square showing now may yet grow
  into a region, and it is one fewer the rival can claim);
- the toll potential of every region (squared size, times the turns left to the owner's
  rivals, as in `engine.ai.greedy`), weighted by `leaf_weights(players)`. In 2 players a
  region counts for more at a leaf, two turns ahead, than in medium's one-turn appraisal
  (region 0.8 instead of 0.5); in 3 and 4 players medium's weight is kept. Measured in the
  arena against medium (`python -m engine.arena --a hard --b medium --players N`): 2 players,
  the same 200 games, region 0.3 / 0.5 / 0.8 won 59.8 / 58.8 / 68.8% (on the first 100 of
  them 1.2 and 1.8 won 52.5 and 58% where 0.8 won 68.5%), and 0.8 won 62.8% of 400 games
  with seed 1; 4 players, 200 games with seed 1, 0.5 came first in 43.5% and 0.8 in 36.5%.
  In 2 players the rival's regions then count at 0.55: at a leaf we move next, and a least
  squares fit of the final margin over 214,795 turn starts of 4,448 medium-against-medium
  games gave the mover's potential about 0.75 and the other seat's about 0.55 (win-or-loss
  logistic fit: 0.70 and 0.52). Over the same 400 games with seed 1: 63.2% against 62.8%;
- the toll the seat to move expects to pay from where Assam stands: with the standard rules it
  turns the way that costs it least, in the variant it must roll in Assam's facing (R12). In 2
  players at `coming_toll` (half) its weight: the same fit gives it 0.4-0.6, as a seat that
  pays stands on the region it paid and often covers it with its next rug. The square bonus
  and the half toll together, against the leaf without them, paired over the same games
  (luck-adjusted): seed 1, 400 games, score difference +1.14 (standard error 0.65), wins +1.9
  (2.5) points; seed 21, 200 games, -0.82 (0.92) and -2.5 (3.4); seed 22, 200 games, +1.93
  (0.85) and +6.6 (3.2); over the 800 games +0.85 (0.45) and +2.0 (1.7);
- in 2 players, for a running game: `win_stake` (40) times the chance of winning that the
  sum above gives (`engine.ai.win_chance`, calibrated on medium self-play), so that the search
  plays for the win, not only for points: ahead late it avoids lines that risk a big toll,
  behind it takes them. Measured in the arena against medium, paired over the same 800 games
  (seeds 1, 21, 22): +1.2 points of wins (standard error 1.0), score difference +0.09 (0.21),
  luck-adjusted; 63.2% of 400 games with seed 1 (62.8% without). A stake of 100 did the same
  on seed 21;
- once the game is decided for the seat: the final margin plus `DECIDED` for a win (split
  among shared winners) or minus `DECIDED` for a loss or an elimination, so that no estimate of
  a running game, however bad, looks worse than losing it.
"""

from __future__ import annotations

from engine.ai.greedy import DEFAULT_WEIGHTS, GreedyWeights
from engine.ai.tactics import LANDINGS, ORIENT_TURNS, payees, weights
from engine.ai.win_chance import win_chance
from engine.board import SQUARES, region_mask
from engine.model import owner_of
from engine.playout import ORIENT, ROLL, FastState, from_state
from engine.rules import scores
from engine.state import GameState

DECIDED = 100.0
"""Value of a won game (lost: minus this), on top of the score margin."""

BONUS_RUGS = 30
"""Rugs left (all seats) below which `GreedyWeights.square_bonus` shrinks, to 0 at the end."""

DUEL_WEIGHTS = GreedyWeights(
    region=0.8, rival_region=0.55, win_stake=40.0, square_bonus=0.6, coming_toll=0.5
)
"""Hard's leaf tuning in 2 players: medium's weights with a heavier region potential, heavier
for our own regions (we move next at a leaf, so the rival's are also ours to cover first), a
visible square worth up to 1.6 points while many rugs are left, the coming toll at half its
size, and a win worth 40 points on top of the margin (see the module docstring)."""


def leaf_weights(players: int) -> GreedyWeights:
    """Hard's leaf tuning for a game of `players` (see the module docstring)."""
    return DUEL_WEIGHTS if players == 2 else DEFAULT_WEIGHTS


def position_value(state: GameState, seat: int, tuning: GreedyWeights | None = None) -> float:
    """The value of `state` for `seat` (higher is better), on the scale of medium's values.

    `tuning`: the weights of the potential and exposure terms (default: `leaf_weights`).
    """
    if tuning is None:
        tuning = leaf_weights(state.config.players)
    parts = scores(state)
    totals = [part.total for part in parts]
    if state.outcome is not None or state.is_eliminated(seat):
        rivals = [other for other in range(state.config.players) if other != seat]
        margin = totals[seat] - sum(totals[o] for o in rivals) / len(rivals)
        winners = state.outcome.winners if state.outcome is not None else ()
        return margin + (DECIDED / len(winners) if seat in winners else -DECIDED)
    s = from_state(state)
    weight = weights(s, seat)
    square = 1.0 + tuning.square_bonus * min(1.0, sum(s.hand) / BONUS_RUGS)
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
