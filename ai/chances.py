"""Every seat's chance of winning from a position, in games of 2, 3 or 4 players.

`win_chances(state)` gives one chance per seat, summing to 1: what the analysis of a finished
game draws after every turn (`ai.analysis`).

- **A finished game**: its winners share 1 (R11), everyone else has 0.
- **One seat left in**: it has 1.
- **A 2-player game**: hard's own estimate (`ai.win_chance`) for the seat to move, read from
  its leaf value without the win stake; its rival has the rest.
- **3 or 4 players** (or what is left of them): the same leaf (`ai.evaluation`, medium's
  weights) read as each seat's expected final score against the others'. In those games the
  leaf's value for a seat is its estimate less the average estimate of its rivals still in,
  and that is linear, so with m seats in, (m - 1) / m times that value is the seat's estimate
  less the average of all m. Each seat's final total less the average of those in is then taken
  to be normal around that estimate, moved by `Field.offset_per_rug` for each rug it holds
  above the average hand (rugs still to lay are points to come, which the leaf does not
  count), with a spread `Field.spread(left)` that narrows as the rugs run out, independently
  for each seat. The chance of a seat is that of its total being the highest, integrated
  numerically over its own deviation.

The constants of `FIELDS` were measured on medium self-play by `python -m
ai.calibrate_chances`, which also prints how well the chances match the games' results
(docs/ai.md has the figures).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ai.evaluation import leaf_weights, position_value
from ai.win_chance import win_chance
from engine.state import GameState


@dataclass(frozen=True, slots=True)
class Field:
    """How a seat's final total spreads around its estimate, in a game of 3 or 4 players."""

    offset_per_rug: float
    """Points its final total gains for each rug it holds above the average hand."""
    slope: float
    """The variance of a seat's deviation per rug left, while few are left."""
    ceiling: float
    """The variance of a seat's deviation with many rugs left (early on it grows no more)."""
    widen: float = 1.0
    """How much wider than the deviations measured the chances take them: the estimates of the
    seats err together, not independently, so the measured spread alone makes the chances a
    little too sure (the factor whose chances best match the results)."""

    def deviation(self, left: int) -> float:
        """The standard deviation of one seat's final total (less the average of the seats
        in) around its estimate, with `left` rugs still to lay by the seats in: the variance
        grows as `slope` per rug, then levels off at `ceiling` (a smooth minimum of the two)."""
        if left <= 0:
            return 0.0
        linear = self.slope * left
        return math.sqrt(linear / (1.0 + (linear / self.ceiling) ** 4) ** 0.25)

    def spread(self, left: int) -> float:
        """The spread the chances use with `left` rugs left: the deviation, widened."""
        return self.widen * self.deviation(left)


FIELDS: dict[int, Field] = {
    3: Field(offset_per_rug=2.9, slope=10.0, ceiling=240.0, widen=1.05),
    4: Field(offset_per_rug=2.5, slope=5.5, ceiling=139.0, widen=1.1),
}
"""The measured constants by number of players (`python -m ai.calibrate_chances`)."""

STEPS = 121
"""Points of the numerical integration over a seat's deviation (-6 to +6 standard ones)."""
_GRID = tuple(-6.0 + 12.0 * k / (STEPS - 1) for k in range(STEPS))
_DENSITY = tuple(math.exp(-z * z / 2.0) for z in _GRID)


def win_chances(state: GameState) -> tuple[float, ...]:
    """Each seat's chance of winning from `state`, in seat order; they sum to 1 (see the
    module). A seat that is out has 0."""
    players = state.players
    if state.outcome is not None:
        winners = state.outcome.ranking[0]
        return tuple(1.0 / len(winners) if seat in winners else 0.0 for seat in range(players))
    alive = [seat for seat in range(players) if not state.is_eliminated(seat)]
    if len(alive) == 1:
        return tuple(1.0 if seat in alive else 0.0 for seat in range(players))
    if players == 2:
        return _duel(state)
    means = estimates(state)
    hands = {seat: state.rugs_in_hand(seat) for seat in alive}
    field = FIELDS[players]
    average_hand = sum(hands.values()) / len(alive)
    shifted = [means[seat] + field.offset_per_rug * (hands[seat] - average_hand) for seat in alive]
    spread = field.spread(sum(hands.values()))
    chances = dict(zip(alive, best_of(shifted, spread), strict=True))
    return tuple(chances.get(seat, 0.0) for seat in range(players))


def estimates(state: GameState) -> dict[int, float]:
    """For each seat still in a running game of 3 or 4 players: its estimated final total less
    the average estimate of the seats in, from the leaf value (see the module)."""
    alive = [seat for seat in range(state.players) if not state.is_eliminated(seat)]
    share = (len(alive) - 1) / len(alive)
    return {seat: position_value(state, seat) * share for seat in alive}


def best_of(means: list[float], spread: float) -> list[float]:
    """The chance that each of independent normal variables with these `means` and one
    standard deviation `spread` is the largest (a tie, of probability 0, is left out); they
    sum to 1. With no spread left, the largest mean wins (shared when equal)."""
    if spread <= 0.0:
        top = max(means)
        first = [1.0 if mean == top else 0.0 for mean in means]
        return [chance / sum(first) for chance in first]
    raw = []
    for i, mean in enumerate(means):
        gaps = [(mean - other) / spread for j, other in enumerate(means) if j != i]
        total = 0.0
        for z, density in zip(_GRID, _DENSITY, strict=True):
            product = density
            for gap in gaps:
                product *= 0.5 * math.erfc(-(gap + z) / math.sqrt(2.0))
            total += product
        raw.append(total)
    whole = sum(raw)
    return [chance / whole for chance in raw]


def _duel(state: GameState) -> tuple[float, float]:
    """Both seats' chances in a running 2-player game, from hard's estimate for the seat to
    move (or seat 0 when no seat is to move)."""
    seat = state.to_move if state.to_move is not None else 0
    rival = 1 - seat
    own, theirs = state.rugs_in_hand(seat), state.rugs_in_hand(rival)
    plain = replace(leaf_weights(2, own + theirs), win_stake=0.0)
    chance = win_chance(position_value(state, seat, plain), own, theirs)
    return (chance, 1.0 - chance) if seat == 0 else (1.0 - chance, chance)
