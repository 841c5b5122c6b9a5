"""Swiss rounds at tables of 3 or 4 seats: the seating of least cost (bot/services/swiss_cost.py)
among the partitions of the players into tables of the round's sizes.

- Up to `EXACT_PLAYERS` players the search is exhaustive (branch and bound: the best-ranked
  player not yet seated tries every table size left and every set of companions; a branch that
  already costs as much as the best seating found is cut), so the seating is the least-cost one.
- Above, the players start at tables in ranking order and are improved by exchanges of two
  players between tables, each one lowering the cost, until none does: the seating is
  *exchange-optimal*. While rematches remain, it then tries `KICKS` times to shake them loose (a
  player of a rematch exchanged with a player drawn from a seeded generator, followed by the
  same descent), keeping a result only when it costs less; the last kept seating is
  exchange-optimal again.

Everything is a function of the costs (the ranking and the meetings): ties go to the first
seating found, the generator's seed is fixed, and every budget counts steps, never time, so
every process gets the same tables.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from bot.services.swiss_cost import Costs

EXACT_PLAYERS = 12
"""The most players whose seating is found by an exhaustive search."""
KICKS = 60
"""The most attempts to shake a rematch loose above EXACT_PLAYERS."""


def seat(costs: Costs, sizes: Sequence[int]) -> list[list[int]]:
    """The tables (lists of ranking places, best first) of players 0..n-1 at tables of `sizes`,
    in ranking order of their best-ranked player."""
    exact = sum(sizes) <= EXACT_PLAYERS
    tables = exhaustive(costs, sizes) if exact else Descent(costs, sizes).run()
    return sorted(sorted(table) for table in tables)


def exhaustive(costs: Costs, sizes: Sequence[int]) -> list[list[int]]:
    """The least-cost seating, by branch and bound over every partition into `sizes`."""
    counts = {size: sizes.count(size) for size in sorted(set(sizes), reverse=True)}
    pair = costs.pair
    best_cost: int | None = None
    best: list[list[int]] = []
    tables: list[list[int]] = []

    def walk(free: list[int], cost: int) -> None:
        nonlocal best_cost, best
        if best_cost is not None and cost >= best_cost:
            return
        if not free:
            best_cost, best = cost, [list(table) for table in tables]
            return
        head, rest = free[0], free[1:]
        for size, left in counts.items():
            if not left:
                continue
            counts[size] = left - 1
            for companions in itertools.combinations(rest, size - 1):
                table = [head, *companions]
                added = sum(pair[head][other] for other in companions) + sum(
                    pair[a][b] for a, b in itertools.combinations(companions, 2)
                )
                tables.append(table)
                walk([player for player in rest if player not in companions], cost + added)
                tables.pop()
            counts[size] = left
        return

    walk(list(range(sum(sizes))), 0)
    return best


class Descent:
    """Exchanges of two players between tables, each lowering the cost, until none does."""

    def __init__(self, costs: Costs, sizes: Sequence[int]) -> None:
        self.costs = costs
        self.count = sum(sizes)
        tables, start = [], 0
        for size in sizes:
            tables.append(list(range(start, start + size)))
            start += size
        self.load(tables)

    def load(self, tables: list[list[int]]) -> None:
        """Take this seating as the current one."""
        pair = self.costs.pair
        self.tables = [list(table) for table in tables]
        self.where = [0] * self.count
        for index, table in enumerate(self.tables):
            for player in table:
                self.where[player] = index
        self.link = [
            [sum(pair[player][other] for other in table) for table in self.tables]
            for player in range(self.count)
        ]

    def run(self) -> list[list[int]]:
        """The exchange-optimal seating this search ends on."""
        self.descend()
        cost = self.total()
        rng = random.Random(0)
        for _ in range(KICKS):
            if self.costs.rematches(cost) == 0:
                break
            saved = [list(table) for table in self.tables]
            self.kick(rng)
            self.descend()
            new = self.total()
            if new < cost:
                cost = new
            else:
                self.load(saved)
        return self.tables

    def total(self) -> int:
        return sum(self.costs.table(table) for table in self.tables)

    def descend(self) -> None:
        """Make the first exchange that lowers the cost, again and again, until none does."""
        pair, link, where = self.costs.pair, self.link, self.where
        improved = True
        while improved:
            improved = False
            for first in range(self.count):
                for second in range(first + 1, self.count):
                    here, there = where[first], where[second]
                    if here == there:
                        continue
                    change = (
                        link[second][here]
                        - link[first][here]
                        + link[first][there]
                        - link[second][there]
                        - 2 * pair[first][second]
                    )
                    if change < 0:
                        self.exchange(first, second)
                        improved = True

    def exchange(self, first: int, second: int) -> None:
        """Swap two players of different tables."""
        pair, link, where = self.costs.pair, self.link, self.where
        here, there = where[first], where[second]
        for player in range(self.count):
            row = pair[player]
            moved = row[second] - row[first]
            link[player][here] += moved
            link[player][there] -= moved
        self.tables[here][self.tables[here].index(first)] = second
        self.tables[there][self.tables[there].index(second)] = first
        where[first], where[second] = there, here

    def kick(self, rng: random.Random) -> None:
        """Exchange a player of a rematch with a player of another table, drawn at random."""
        step = self.costs.rematch_step
        pair = self.costs.pair
        stuck = [
            player
            for table in self.tables
            for player in table
            if any(pair[player][other] >= step for other in table)
        ]
        player = stuck[rng.randrange(len(stuck))]
        other = rng.randrange(self.count - 1)
        other += other >= player
        if self.where[other] != self.where[player]:
            self.exchange(player, other)
