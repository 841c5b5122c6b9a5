"""What every AI level knows about a position: tolls, the exact die, rug placements, zones.

These helpers read the engine's mutable `engine.playout.FastState` (built from any GameState
with `engine.playout.from_state`) and the engine's own tables (`engine.board.WALK_END` for
Assam's walks, `CANDIDATES` for rug positions, `region_mask` for the R8 flood fill), so they
apply exactly the engine's rules; nothing here re-implements a rule differently.
"""

from __future__ import annotations

from engine.board import BIT, CANDIDATES, SQUARES, WALK_END, region_mask
from engine.model import owner_of, seat_color_indices
from engine.playout import FastState
from engine.rules import DIE_FACES

DIE_ODDS: tuple[tuple[int, float], ...] = tuple(
    (face, DIE_FACES.count(face) / len(DIE_FACES)) for face in sorted(set(DIE_FACES))
)
"""The die's faces with their exact probabilities (R5: 1, 2, 2, 3, 3, 4)."""

ORIENT_TURNS = (3, 0, 1)
"""Facing change (mod 4) of the orient actions L, S, R (R4)."""

ROTATE_TURNS = (3, 1)
"""Facing change (mod 4) of the rotate actions L, R (R12)."""


def _zone(square: int) -> int:
    mask = 0
    for a, b in CANDIDATES[square]:
        mask |= BIT[a] | BIT[b]
    return mask


ZONE: tuple[int, ...] = tuple(_zone(sq) for sq in range(SQUARES))
"""ZONE[square]: mask of the squares a rug laid from Assam on `square` can cover (R10)."""


def landing_odds(pose: int) -> tuple[tuple[int, float], ...]:
    """Where a roll from `pose` (square * 4 + facing) ends, as (pose, probability) pairs."""
    base = pose * 5
    return tuple((WALK_END[base + face], odds) for face, odds in DIE_ODDS)


LANDINGS: tuple[tuple[tuple[int, float], ...], ...] = tuple(
    landing_odds(pose) for pose in range(SQUARES * 4)
)
"""LANDINGS[pose]: the landing poses of the four die faces with their probabilities."""


def payees(s: FastState) -> tuple[int, ...]:
    """Per colour index: the seat a toll on that colour goes to, or -1 (eliminated owner, R8)."""
    table = []
    for color in range(4):
        owner = owner_of(s.players, color)
        table.append(owner if owner < s.players and s.alive[owner] else -1)
    return tuple(table)


def own_mask(s: FastState, seat: int) -> int:
    """The squares showing one of `seat`'s colours."""
    mask = 0
    for color in seat_color_indices(s.players, seat):
        mask |= s.masks[color]
    return mask


def toll(s: FastState, payee_of: tuple[int, ...], mover: int, square: int) -> tuple[int, int]:
    """(payee, amount owed) if `mover` ends on `square` (R8); (-1, 0) when nothing is owed."""
    color = s.colors[square]
    if color < 0:
        return -1, 0
    payee = payee_of[color]
    if payee < 0 or payee == mover:
        return -1, 0
    return payee, region_mask(s.masks[color], square).bit_count()


def expected_toll(s: FastState, payee_of: tuple[int, ...], mover: int, pose: int) -> float:
    """The toll `mover` expects to owe when rolling from `pose`, over the exact die."""
    total = 0.0
    colors, masks = s.colors, s.masks
    for landing, odds in LANDINGS[pose]:
        color = colors[landing >> 2]
        if color >= 0:
            payee = payee_of[color]
            if payee >= 0 and payee != mover:
                total += odds * region_mask(masks[color], landing >> 2).bit_count()
    return total


def legal_placements(s: FastState, square: int) -> list[tuple[int, int]]:
    """Legal rug positions with Assam on `square` (R10), in the engine's reading order."""
    cells = s.cells
    return [(a, b) for a, b in CANDIDATES[square] if not (cells[a] and cells[a] == cells[b])]


def next_color(s: FastState, seat: int) -> int:
    """The colour index `seat` lays next (the top of its pile in 2 players), or -1 if none."""
    if s.piles is not None:
        pile = s.piles[seat]
        return pile[-1] if pile else -1
    return seat if s.stock[seat] else -1


def next_mover(s: FastState, seat: int) -> int:
    """The seat whose turn follows `seat`'s (still in, holding rugs), or -1 if none."""
    players = s.players
    for offset in range(1, players + 1):
        other = (seat + offset) % players
        if other != seat and s.alive[other] and s.hand[other]:
            return other
    return -1


def weights(s: FastState, seat: int) -> list[float]:
    """How a point for each seat counts for `seat`: +1 itself, -1/(n-1) each opponent still in.

    A greedy player maximises the weighted sum of score changes: its own gain against the
    average opponent's, so paying one rival in a 4-player game costs less than in a duel.
    """
    alive = [other for other in range(s.players) if s.alive[other] and other != seat]
    share = -1.0 / len(alive) if alive else 0.0
    return [
        1.0 if other == seat else (share if other in alive else 0.0) for other in range(s.players)
    ]


def lay(s: FastState, a: int, b: int, color: int) -> tuple[int, int, int, int, int]:
    """Lay a rug of `color` on (a, b) in the board lists only; returns what `unlay` needs."""
    cells, colors, masks = s.cells, s.colors, s.masks
    saved = (cells[a], cells[b], colors[a], colors[b], s.rugs_laid)
    for square in (a, b):
        old = colors[square]
        if old >= 0:
            masks[old] &= ~BIT[square]
        colors[square] = color
        cells[square] = s.rugs_laid + 1
    masks[color] |= BIT[a] | BIT[b]
    s.rugs_laid += 1
    return saved


def unlay(s: FastState, a: int, b: int, saved: tuple[int, int, int, int, int]) -> None:
    """Undo `lay`."""
    cells, colors, masks = s.cells, s.colors, s.masks
    cell_a, cell_b, color_a, color_b, s.rugs_laid = saved
    color = colors[a]
    masks[color] &= ~(BIT[a] | BIT[b])
    for square, cell, old in ((a, cell_a, color_a), (b, cell_b, color_b)):
        cells[square] = cell
        colors[square] = old
        if old >= 0:
            masks[old] |= BIT[square]
