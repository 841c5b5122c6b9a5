"""The chance that the seat about to move wins a 2-player game, from hard's leaf value.

Hard's leaf value (`ai.evaluation.position_value`) estimates the final score margin of
the seat it is computed for. What the arena counts, and what a player wants, is winning. The
two part ways late in a game: 8 points ahead with two rugs left is nearly a sure win, and a
line that risks a big toll for a slightly higher expected margin is then a bad one; 8 points
behind, the same gamble may be the only way to win. `win_chance` turns a leaf value into the
chance of winning, assuming the final margin is normal around the value with a known offset
and spread (both measured, see below), so that the leaves can be valued on wins as well as on
points (`GreedyWeights.win_stake`).

The constants (`BASE_OFFSET`, `OFFSET_PER_RUG`, `SPREAD_SCALE`, `SPREAD_SATURATION`) are
measured on medium self-play by `python -m ai.calibrate`, which also checks that the chances
they give match the results; docs/ai.md has the figures.
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
