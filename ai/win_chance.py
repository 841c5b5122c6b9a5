"""The chance that the seat about to move wins a 2-player game, from hard's leaf value.

Hard's leaf value (`ai.evaluation.position_value`) estimates the final score margin of
the seat it is computed for. What the arena counts, and what a player wants, is winning. The
two part ways late in a game: 8 points ahead with two rugs left is nearly a sure win, and a
line that risks a big toll for a slightly higher expected margin is then a bad one; 8 points
behind, the same gamble may be the only way to win. `win_chance` turns a leaf value into the
chance of winning, assuming the final margin is normal around the value with a known offset
and spread (both measured, see below), so that the leaves can be valued on wins as well as on
points (`GreedyWeights.win_stake`).

Measured with `python -m ai.calibrate --games 8000 --jobs 2` (medium against medium,
standard rules, seed 1; 383,568 starts of a turn, 2026-11-25), for the seat about to move:

- the offset: the final margin exceeds the leaf value by 0.4-1.7 points (0.9 on average) when
  both seats hold as many rugs, and by 2.2-4.2 (3.0 on average, more near the end) when the
  mover holds one rug more, as the second player does at each of its turns: the leaf value
  does not count the rugs still to be laid, each worth its squares and what it covers. In use:
  0.7, and 3.0 more per rug held above the rival (the least-squares line through all turn
  starts is 0.93 + 2.08 per rug; the constants in use lean to the last turns, where the
  chance matters most, and are the ones hard was measured with in the arena);
- the spread: the standard deviation of the final margin around the value, which shrinks as
  the rugs run out: 21.3 points at the first turn, 14.6 with 16 rugs left, 7.7 with 4 and 3.8
  with 1. `spread(left)` is sqrt(15.5 * left / (1 + left / 74)), within 5.5% of the measured
  value at every count of rugs left (the least-squares fit: 15.7 and 89).

With these constants the predicted chances are calibrated: turn starts given 0.0-0.1,
0.1-0.2, ..., 0.9-1.0 were won 3.6%, 14.8%, 25.0%, 34.4%, 45.4%, 52.8%, 64.2%, 74.5%, 85.2% and
96.6% of the time (predicted on average 2.9%, 15.1%, ..., 97.0%).

Those figures are for the leaf as it was when the constants were chosen (with one weight per
part for the whole game). On the leaf in use, whose weights follow the stage of the game
(`ai.evaluation.DUEL_LEAF`; 4,000 games of the same seed, 191,789 turn starts), the fit
gives the offset 1.22 + 2.08 per rug and the spread 15.7 and 95; the chances of the constants
in use are still calibrated within 1.1 points in every tenth (won 3.9%, 15.0%, 26.4%, 35.8%,
45.8%, 53.5%, 64.4%, 74.5%, 84.9%, 96.3%), and the spread in use is within 6.6% of the measured
one at every count of rugs left (narrowest against it with 24 to 30 left, by 6.3-6.5%).
"""

from __future__ import annotations

import math

BASE_OFFSET = 0.7
"""How much the final margin exceeds the leaf value when both seats hold as many rugs."""

OFFSET_PER_RUG = 3.0
"""How much more it exceeds it for each rug the seat holds above its rival."""

SPREAD_SCALE = 15.5
"""The variance of the final margin per rug left, while few rugs are left."""

SPREAD_SATURATION = 74.0
"""Rugs left at which that variance per rug has halved."""


def spread(left: int) -> float:
    """The standard deviation of the final margin around the leaf value with `left` rugs
    still to be laid by both seats."""
    return math.sqrt(SPREAD_SCALE * left / (1.0 + left / SPREAD_SATURATION))


def win_chance(value: float, own_rugs: int, rival_rugs: int) -> float:
    """The chance of winning for a seat whose leaf value is `value`, holding `own_rugs` rugs
    against its rival's `rival_rugs`; a tie counts half (R11). With no rug left the game is
    over and the value is the margin itself."""
    left = own_rugs + rival_rugs
    if left <= 0:
        return 1.0 if value > 0 else 0.0 if value < 0 else 0.5
    mean = value + BASE_OFFSET + OFFSET_PER_RUG * (own_rugs - rival_rugs)
    return 0.5 * (1.0 + math.erf(mean / (spread(left) * math.sqrt(2.0))))
