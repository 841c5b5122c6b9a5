"""The playout policy of `hard`: a fast "medium-lite" for `engine.playout.run`.

Playouts must be cheap (hundreds of whole games per second) yet play sensibly, or their
results say little about the real game. Per decision it does a fraction of medium's work:

- ORIENT: the way of turning with the smallest expected toll over the exact die (R8), with a
  little noise so that near-equal options are both explored;
- PLACE: the rug that shows the most new squares (covering a rival counts double) and touches
  the most squares of its own colour (region growth), plus noise;
- ROTATE (variant R12): the facing whose landings make the next mover pay us most.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.ai.prng import SplitMix64
from engine.ai.tactics import (
    LANDINGS,
    ORIENT_TURNS,
    ROTATE_TURNS,
    expected_toll,
    next_color,
    next_mover,
    payees,
)
from engine.board import BIT, NEIGHBOURS, SQUARES, region_mask
from engine.model import owner_of
from engine.playout import ORIENT, PLACE, FastState, Policy

BORDER: tuple[int, ...] = tuple(sum(BIT[n] for n in NEIGHBOURS[sq]) for sq in range(SQUARES))
"""BORDER[square]: mask of the square's orthogonal neighbours."""

ORIENT_NOISE = 0.3
PLACE_NOISE = 0.6
GROWTH = 0.35


def lite_policy(rng: SplitMix64) -> Policy:
    """A medium-lite playout policy drawing its noise from `rng`."""
    random = rng.random

    def choose(s: FastState, kind: int, options: Sequence[Any]) -> int:
        mover = s.to_move
        players = s.players
        if kind == ORIENT:
            payee_of = payees(s)
            base = s.assam * 4
            best, best_value = 0, -1e9
            for k, turn in enumerate(ORIENT_TURNS):
                value = -expected_toll(s, payee_of, mover, base + ((s.facing + turn) & 3))
                value += random() * ORIENT_NOISE
                if value > best_value:
                    best, best_value = k, value
            return best
        if kind == PLACE:
            colors = s.colors
            color = next_color(s, mover)
            same = s.masks[color]
            best, best_value = 0, -1e9
            for k, (a, b) in enumerate(options):
                value = random() * PLACE_NOISE
                for q in (a, b):
                    old = colors[q]
                    if old < 0:
                        value += 1.0
                    elif owner_of(players, old) != mover:
                        value += 2.0 if s.alive[owner_of(players, old)] else 1.0
                touching = (BORDER[a] | BORDER[b]) & same & ~(BIT[a] | BIT[b])
                value += GROWTH * touching.bit_count()
                if value > best_value:
                    best, best_value = k, value
            return best
        rival = next_mover(s, mover)
        if rival < 0:
            return int(random() * len(options))
        payee_of = payees(s)
        base = s.assam * 4
        best, best_value = 0, -1e9
        for k, turn in enumerate(ROTATE_TURNS):
            value = random() * ORIENT_NOISE
            for landing, odds in LANDINGS[base + ((s.facing + turn) & 3)]:
                square = landing >> 2
                color = s.colors[square]
                if color >= 0 and payee_of[color] == mover:
                    value += odds * region_mask(s.masks[color], square).bit_count()
            if value > best_value:
                best, best_value = k, value
        return best

    return choose


__all__ = ["PLACE", "lite_policy"]
