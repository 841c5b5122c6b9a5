"""Swiss rounds at tables of 3 or 4 seats: the seating of least cost (bot/services/swiss_cost.py)
among the partitions of the players into tables of the round's sizes.

- Up to `EXACT_PLAYERS` players the search is exhaustive (branch and bound: the best-ranked
  player not yet seated tries every table size left and every set of companions; a branch that
  already costs as much as the best seating found is cut), so the seating is the least-cost one.
- Above, the players start at tables in ranking order and are improved by exchanges of two
  players between tables, each one lowering the cost, until none does. Where a rematch
  remains, `rematch_free` looks for a seating without any, and failing that
  `Descent.shake_loose` (a tabu search) for one with fewer; the same descent ends it, so the
  seating is *exchange-optimal*: no exchange of two players lowers its cost.

Everything is a function of the costs (the ranking and the meetings): ties go to the first
seating found in a fixed order, and every budget counts steps, never time, so every process
gets the same tables.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from bot.services.swiss_cost import Costs

EXACT_PLAYERS = 12
"""The most players whose seating is found by an exhaustive search."""
FREE_STEPS = 20_000
"""The most sets of companions the search for a seating without a rematch tries (above
EXACT_PLAYERS)."""
TABU_STEPS = 300
"""The most steps of the tabu search for fewer rematches above EXACT_PLAYERS."""
TENURE = 10
"""How many steps two exchanged players stay where they went (unless moving them is best yet)."""


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

    walk(list(range(sum(sizes))), 0)
    return best


def rematch_free(costs: Costs, sizes: Sequence[int]) -> list[list[int]] | None:
    """A seating without a rematch, by a depth-first search (the player not yet seated with the
    fewest others not yet seated whom they have not met, the best-ranked of those, tries every
    table size left with such players who have not met each other, in ranking order), or None
    when `FREE_STEPS` sets of companions tried find none."""
    counts = {size: sizes.count(size) for size in sorted(set(sizes), reverse=True)}
    step = costs.rematch_step
    fresh = [
        [other for other, cost in enumerate(row) if cost < step and other != player]
        for player, row in enumerate(costs.pair)
    ]
    tables: list[list[int]] = []
    steps = 0

    def walk(free: list[int]) -> bool:
        nonlocal steps
        if not free:
            return True
        unseated = set(free)
        options = {
            player: [other for other in fresh[player] if other in unseated] for player in free
        }
        head = min(free, key=lambda player: len(options[player]))
        candidates = options[head]
        for size, left in counts.items():
            if not left:
                continue
            counts[size] = left - 1
            for companions in itertools.combinations(candidates, size - 1):
                steps += 1
                if steps > FREE_STEPS:
                    return False
                if any(costs.pair[a][b] >= step for a, b in itertools.combinations(companions, 2)):
                    continue
                tables.append([head, *companions])
                if walk([p for p in free if p != head and p not in companions]):
                    return True
                tables.pop()
            counts[size] = left
        return False

    return tables if walk(list(range(sum(sizes)))) else None


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
        if self.costs.rematches(cost):
            found = rematch_free(self.costs, [len(table) for table in self.tables])
            self.load(self.shake_loose(cost) if found is None else found)
            self.descend()
        return self.tables

    def shake_loose(self, cost: int) -> list[list[int]]:
        """Tabu search for fewer rematches: each step makes the best exchange of a player of a
        rematch with a player of another table, even one that costs more, and neither may move
        again for `TENURE` steps unless that leads to the cheapest seating yet; the cheapest
        seating seen after `TABU_STEPS` steps (or none left)."""
        pair, where, step = self.costs.pair, self.where, self.costs.rematch_step
        best_cost, best = cost, [list(table) for table in self.tables]
        free_from = [0] * self.count
        for turn in range(TABU_STEPS):
            stuck = [
                player
                for player in range(self.count)
                if any(pair[player][other] >= step for other in self.tables[where[player]])
            ]
            if not stuck:
                break
            chosen: tuple[int, int, int] | None = None
            for first in stuck:
                here = where[first]
                for second in range(self.count):
                    there = where[second]
                    if here == there:
                        continue
                    change = self.change(first, second)
                    allowed = free_from[first] <= turn and free_from[second] <= turn
                    if (allowed or cost + change < best_cost) and (
                        chosen is None or change < chosen[0]
                    ):
                        chosen = (change, first, second)
            if chosen is None:
                break
            change, first, second = chosen
            self.exchange(first, second)
            cost += change
            free_from[first] = free_from[second] = turn + TENURE
            if cost < best_cost:
                best_cost, best = cost, [list(table) for table in self.tables]
        return best

    def total(self) -> int:
        return sum(self.costs.table(table) for table in self.tables)

    def descend(self) -> None:
        """Make the first exchange that lowers the cost, again and again, until none does."""
        where = self.where
        improved = True
        while improved:
            improved = False
            for first in range(self.count):
                for second in range(first + 1, self.count):
                    if where[first] == where[second]:
                        continue
                    if self.change(first, second) < 0:
                        self.exchange(first, second)
                        improved = True

    def change(self, first: int, second: int) -> int:
        """How much exchanging two players of different tables changes the cost."""
        pair, link, where = self.costs.pair, self.link, self.where
        here, there = where[first], where[second]
        return (
            link[second][here]
            - link[first][here]
            + link[first][there]
            - link[second][there]
            - 2 * pair[first][second]
        )

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
