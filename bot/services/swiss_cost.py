"""The cost of seating players together in a Swiss round, one integer per pair, whose totals
order seatings by the rules of docs/tournaments.md ("Swiss", rules 1 to 4).

Each rule is weighted above the most that all the rules after it can add up to in one seating,
so no amount of a later one outweighs one unit of an earlier one. Players are numbered by their
place in the ranking (0: the best-ranked).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Costs:
    """The pair costs of one round, by ranking place."""

    pair: list[list[int]]
    """pair[a][b]: the cost of a and b at one table (0 on the diagonal)."""
    bye_step: int
    """The cost of a bye for each player with the fewest byes ranked below the one taking it."""
    rematch_step: int
    """The cost of one rematch: more than any seating costs without one."""

    def table(self, members: Sequence[int]) -> int:
        """The cost of one table of these players (ranking places)."""
        return sum(self.pair[a][b] for a, b in itertools.combinations(members, 2))

    def rematches(self, total: int) -> int:
        """How many rematches a seating of cost `total` has."""
        return total // self.rematch_step


def round_costs(ranked: Sequence[int], met: Mapping[frozenset[int], int]) -> Costs:
    """The costs of seating the players of `ranked` (best first), who met as `met` counts."""
    count = len(ranked)
    gap_bound = sum((count - gap) * gap * gap for gap in range(1, count))
    bye_step = gap_bound + 1
    earlier_step = count * bye_step  # above the largest bye cost plus every gap
    times = [[0] * count for _ in range(count)]
    for a, b in itertools.combinations(range(count), 2):
        times[a][b] = times[b][a] = met.get(frozenset((ranked[a], ranked[b])), 0)
    earlier_bound = sum(times[a][b] for a, b in itertools.combinations(range(count), 2))
    rematch_step = (earlier_bound + 1) * earlier_step
    pair = [
        [
            (a - b) ** 2 + (rematch_step + times[a][b] * earlier_step if times[a][b] else 0)
            for b in range(count)
        ]
        for a in range(count)
    ]
    return Costs(pair, bye_step, rematch_step)
