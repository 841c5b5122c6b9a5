"""Who sits at which table in a round of a tournament: pure functions of the players, their
ranking and who met whom, so that every process pairing the same round gets the same tables.

A table is a tuple of seats, each a player's user id or `None` for a seat an AI fills (a bye).
The rules (table sizes, byes, what a Swiss round guarantees, the round-robin schedules) are
written in one place, docs/tournaments.md, "Formats and pairings"; the code follows it:
`table_sizes`, `needs_bye`, `swiss_tables` (its cost in bot/services/swiss_cost.py, solved by
bot/services/swiss_matching.py at 2 seats and bot/services/swiss_search.py at 3 or 4),
`round_robin_schedule`, and `without` for a round-robin's round once players withdrew.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence

from bot.services import swiss_search
from bot.services.swiss_cost import round_costs
from bot.services.swiss_matching import matched_pairs

Seat = int | None
"""A user id, or None for a seat an AI fills."""
Table = tuple[Seat, ...]
MIN_TABLE = 2


def pair(first: int, second: int) -> frozenset[int]:
    """The key of a pair of players in a `met` count."""
    return frozenset((first, second))


def table_sizes(players: int, seats: int) -> list[int]:
    """The sizes of the tables `players` sit at with at most `seats` seats each: as few tables
    as possible, sizes as even as possible, biggest first. With 2 seats an odd count leaves
    one player over (the bye), who is not counted here."""
    if players < MIN_TABLE:
        return []
    if seats == MIN_TABLE:
        return [2] * (players // 2)
    tables = math.ceil(players / seats)
    small, extra = divmod(players, tables)
    return [small + 1] * extra + [small] * (tables - extra)


def needs_bye(players: int, seats: int) -> bool:
    """Whether a round leaves one player without a human opponent (2 seats, odd count)."""
    return seats == MIN_TABLE and players % 2 == 1


def meetings(tables: Iterable[Table]) -> dict[frozenset[int], int]:
    """How many times each pair of players shared a table (AI seats left out)."""
    met: dict[frozenset[int], int] = {}
    for table in tables:
        humans = [seat for seat in table if seat is not None]
        for first, second in itertools.combinations(humans, 2):
            key = pair(first, second)
            met[key] = met.get(key, 0) + 1
    return met


def rematches(table: Sequence[int], met: Mapping[frozenset[int], int]) -> int:
    """How many pairs at the table have met before."""
    return sum(met.get(pair(a, b), 0) > 0 for a, b in itertools.combinations(table, 2))


def swiss_tables(
    ranked: Sequence[int],
    seats: int,
    met: Mapping[frozenset[int], int],
    byes: Mapping[int, int],
) -> list[Table]:
    """The tables of a Swiss round for players in ranking order (best first): the seating of
    least cost (rematches, then earlier meetings, then the bye's place, then rank gaps), each
    table best-ranked first, the tables in ranking order of their best player, the bye last."""
    costs = round_costs(ranked, met)
    if seats == MIN_TABLE:
        takers: list[int] = []
        if needs_bye(len(ranked), seats):
            fewest = min(byes.get(player, 0) for player in ranked)
            takers = [i for i, player in enumerate(ranked) if byes.get(player, 0) == fewest]
        pairs, lonely = matched_pairs(costs, len(ranked), takers)
        tables: list[Table] = [(ranked[a], ranked[b]) for a, b in pairs]
        return tables + ([] if lonely is None else [(ranked[lonely], None)])
    places = swiss_search.seat(costs, table_sizes(len(ranked), seats))
    return [tuple(ranked[place] for place in table) for table in places]


def without(tables: Sequence[Table], out: Collection[int]) -> list[Table]:
    """A round's tables once the players in `out` withdrew: each of their seats is an AI's
    (as a bye's opponent is), and a table left with no person is not played."""
    seated = [tuple(None if seat in out else seat for seat in table) for table in tables]
    return [table for table in seated if any(seat is not None for seat in table)]


def round_robin_schedule(
    players: Sequence[int], seats: int, *, search: bool = True
) -> list[list[Table]]:
    """Every round of a round-robin of `players` (in seeding order) at tables of `seats`.
    At 3 or 4 seats, without `search`, the first greedy schedule alone (`_covering`): the one
    a tournament started without a stored schedule was begun with, so it keeps it."""
    if len(players) < MIN_TABLE:
        return []
    if seats == MIN_TABLE:
        return _circle(players)
    first = _covering(players, seats, itertools.repeat(list(players)), look_ahead=True)
    return _shortest_covering(players, seats, first) if search else first


def _circle(players: Sequence[int]) -> list[list[Table]]:
    """The circle method: one player stays, the others turn one place a round; with an odd
    count a bye (an AI seat) takes the empty place."""
    ring: list[Seat] = list(players)
    if len(ring) % 2:
        ring.append(None)
    count = len(ring)
    rounds: list[list[Table]] = []
    for _ in range(count - 1):
        tables: list[Table] = []
        for index in range(count // 2):
            first, second = ring[index], ring[count - 1 - index]
            if first is None:
                first, second = second, first
            tables.append((first, second))
        tables.sort(key=lambda table: table[1] is None)  # the bye's table last
        rounds.append(tables)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


ROUND_ROBIN_TRIES = 64
"""The most greedy schedules tried for a round-robin of 3 or 4 seats, for up to 20 players; fewer
above, as each costs more with the player count (about its cube), and at least 4."""


def _shortest_covering(
    players: Sequence[int], seats: int, first: list[list[Table]]
) -> list[list[Table]]:
    """The schedule of fewest rounds among `first` and greedy schedules that break ties in
    other orders, each drawn anew for every round by a generator seeded with the try's number
    (so every process works out the same). The tries stop early at the floor: a player meets
    at most `seats` - 1 new people a round."""
    floor = math.ceil((len(players) - 1) / (seats - 1))
    tries = max(4, min(ROUND_ROBIN_TRIES, int(ROUND_ROBIN_TRIES * (20 / len(players)) ** 3)))
    best = first
    for attempt in range(tries):
        if len(best) <= floor:
            break
        draw = random.Random(attempt)
        orders = (draw.sample(players, len(players)) for _ in itertools.count())
        candidate = _covering(players, seats, orders, look_ahead=False)
        if len(candidate) < len(best):
            best = candidate
    return best


def _covering(
    players: Sequence[int], seats: int, orders: Iterator[Sequence[int]], *, look_ahead: bool
) -> list[list[Table]]:
    """Rounds of tables that seat every pair together at least once, each round filled
    greedily with the pairs still to meet, its ties broken by the next of `orders`."""
    to_meet = {player: set(players) - {player} for player in players}
    rounds: list[list[Table]] = []
    while any(to_meet.values()):
        order = {player: index for index, player in enumerate(next(orders))}
        tables = _covering_round(players, seats, order, to_meet, look_ahead=look_ahead)
        for table in tables:
            for first, second in itertools.combinations(table, 2):
                if first is not None and second is not None:
                    to_meet[first].discard(second)
                    to_meet[second].discard(first)
        rounds.append(tables)
    return rounds


def _covering_round(
    players: Sequence[int],
    seats: int,
    order: Mapping[int, int],
    to_meet: Mapping[int, set[int]],
    *,
    look_ahead: bool,
) -> list[Table]:
    """One round of `_covering` (`to_meet`: whom each player has still to meet): each table
    begins with the player who has the most still to meet among the unseated, and takes in
    turn whoever meets the most new people at it; ties go to whoever has the most left to
    meet among the unseated (with `look_ahead`), then to the first in `order`. Each round
    meets someone new: its first table's first player has someone left to meet."""
    remaining = set(players)
    tables: list[Table] = []
    for size in table_sizes(len(players), seats):
        first = max(remaining, key=lambda p: (len(to_meet[p] & remaining), -order[p]))
        table = [first]
        remaining.discard(first)
        while len(table) < size:
            chosen = max(
                remaining,
                key=lambda p: (
                    len(to_meet[p].intersection(table)),
                    len(to_meet[p] & remaining) if look_ahead else 0,
                    -order[p],
                ),
            )
            table.append(chosen)
            remaining.discard(chosen)
        tables.append(tuple(table))
    return tables


# fmt: off
ROUND_ROBIN_ROUNDS: dict[int, tuple[int, ...]] = {
    3: (
        1, 1, 3, 3, 4, 5, 4, 4, 7, 6, 7, 8, 9, 8, 10, 10, 11, 12, 12, 12, 14, 14, 14, 16, 16, 16,
        17, 18, 18, 19, 19, 20, 21, 21, 22, 22, 23, 23, 25, 25, 25, 26, 26, 27, 27, 28, 29, 29, 29,
        30, 31, 31, 32, 33, 33, 33, 34, 34, 35, 36, 36, 37, 38,
    ),
    4: (
        1, 1, 1, 3, 4, 3, 3, 4, 4, 5, 5, 7, 6, 5, 5, 8, 8, 9, 9, 10, 10, 10, 11, 12, 12, 12, 13,
        14, 14, 14, 13, 15, 16, 16, 16, 17, 17, 17, 17, 19, 19, 19, 19, 20, 20, 21, 21, 22, 21, 22,
        22, 23, 23, 24, 24, 25, 25, 25, 25, 26, 26, 27, 21,
    ),
}
# fmt: on
"""How many rounds `round_robin_schedule` takes at 3 and 4 seats for 2, 3, ... 64 players.
That depends on the number of players alone: every tie is broken by a player's place in the
seeding or in an order drawn by place, never by who they are. Worked out once, here, as the
sign-up says it at every Join and Leave, on the event loop, where the search for the schedule
of 64 players would hold every game for a few tenths of a second."""


def round_robin_rounds(players: int, seats: int) -> int:
    """How many rounds a round-robin of `players` at tables of `seats` takes, before its
    seeding is drawn (none under two players)."""
    if players < MIN_TABLE:
        return 0
    if seats == MIN_TABLE:
        return players if players % 2 else players - 1
    known = ROUND_ROBIN_ROUNDS.get(seats, ())
    if players - MIN_TABLE < len(known):
        return known[players - MIN_TABLE]
    return len(round_robin_schedule(range(players), seats))


def swiss_rounds(players: int, seats: int) -> int:
    """The default number of Swiss rounds: enough for one player to stand out from the rest
    (log base `seats` of the player count, at least 1)."""
    if players <= 1:
        return 1
    return max(1, math.ceil(math.log(players) / math.log(seats) - 1e-9))
