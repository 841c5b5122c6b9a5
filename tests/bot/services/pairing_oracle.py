"""Oracles for the Swiss pairing, computed another way than bot.services.pairing does.

- `least_cost`: the least cost of a round over every seating, by a dynamic program over the sets
  of players already seated (small events: up to about 12 players). The cost is the one
  docs/tournaments.md defines, in its order: rematches (pairs at one table who met before), then
  the earlier meetings of those pairs, then (2 seats, odd count) how far above the lowest-ranked
  of the players with the fewest byes the bye sits, then the sum of the squared rank gaps of
  the pairs at each table.
- `fewest_rematches_two_seats`: the fewest rematches a 2-seat round can have, at any size, from
  the largest matching of the "have not met" graph, whose size is half the rank of its Tutte
  matrix (filled with random numbers modulo a large prime; a wrong answer needs a random root of
  a nonzero polynomial, which has a chance below n / 2**61).
- `simulate`: a Swiss event with random game results, giving each round's inputs to a check.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Mapping, Sequence

from bot.services import pairing
from bot.services.pairing import Table

Key = tuple[int, int, int, int]
"""(rematches, their earlier meetings, the bye's place above the lowest it may go, rank gaps)."""
PRIME = 2**61 - 1


def met_count(met: Mapping[frozenset[int], int], first: int, second: int) -> int:
    return met.get(frozenset((first, second)), 0)


def seating_key(
    tables: Sequence[Table],
    ranked: Sequence[int],
    met: Mapping[frozenset[int], int],
    byes: Mapping[int, int],
) -> Key:
    """The cost of a seating, as docs/tournaments.md defines it."""
    place = {player: index for index, player in enumerate(ranked)}
    repeat = earlier = gaps = bye_place = 0
    for table in tables:
        humans = [seat for seat in table if seat is not None]
        if len(humans) < len(table):
            (lonely,) = humans
            fewest = min(byes.get(player, 0) for player in ranked)
            bye_place = sum(
                byes.get(player, 0) == fewest and place[player] > place[lonely] for player in ranked
            )
        for first, second in itertools.combinations(humans, 2):
            times = met_count(met, first, second)
            repeat += times > 0
            earlier += times
            gaps += (place[first] - place[second]) ** 2
    return (repeat, earlier, bye_place, gaps)


def least_cost(
    ranked: Sequence[int],
    seats: int,
    met: Mapping[frozenset[int], int],
    byes: Mapping[int, int],
) -> Key:
    """The least `seating_key` of any seating of the round (every legal bye, every partition of
    the others into tables of the sizes `pairing.table_sizes` gives)."""
    count = len(ranked)
    if count % 2 and seats == pairing.MIN_TABLE:
        fewest = min(byes.get(player, 0) for player in ranked)
        eligible = [player for player in ranked if byes.get(player, 0) == fewest]
        keys = []
        for above, lonely in enumerate(reversed(eligible)):
            rest = [player for player in ranked if player != lonely]
            repeat, earlier, _, gaps = _least_partition(rest, ranked, seats, met)
            keys.append((repeat, earlier, above, gaps))
        return min(keys)
    return _least_partition(list(ranked), ranked, seats, met)


def _least_partition(
    players: Sequence[int], ranked: Sequence[int], seats: int, met: Mapping[frozenset[int], int]
) -> Key:
    place = {player: index for index, player in enumerate(ranked)}
    sizes = pairing.table_sizes(len(players), seats)
    big, small = max(sizes), min(sizes)
    bigs = sizes.count(big) if big != small else len(sizes)
    full = (1 << len(players)) - 1

    def cost(members: Sequence[int]) -> Key:
        repeat = earlier = gaps = 0
        for first, second in itertools.combinations(members, 2):
            times = met_count(met, players[first], players[second])
            repeat += times > 0
            earlier += times
            gaps += (place[players[first]] - place[players[second]]) ** 2
        return (repeat, earlier, 0, gaps)

    @functools.cache
    def best(seated: int, bigs_left: int) -> Key | None:
        if seated == full:
            return (0, 0, 0, 0) if bigs_left == 0 else None
        free = [index for index in range(len(players)) if not seated >> index & 1]
        first, others = free[0], free[1:]
        found: Key | None = None
        options = [(big, bigs_left - 1)] if bigs_left else []
        if small != big:
            options.append((small, bigs_left))
        for size, left in options:
            for companions in itertools.combinations(others, size - 1):
                members = (first, *companions)
                mask = seated
                for index in members:
                    mask |= 1 << index
                rest = best(mask, left)
                if rest is None:
                    continue
                here = cost(members)
                total: Key = (
                    here[0] + rest[0],
                    here[1] + rest[1],
                    0,
                    here[3] + rest[3],
                )
                if found is None or total < found:
                    found = total
        return found

    answer = best(0, bigs)
    assert answer is not None
    return answer


def fewest_rematches_two_seats(
    ranked: Sequence[int], met: Mapping[frozenset[int], int], byes: Mapping[int, int]
) -> int:
    """The fewest rematches of any 2-seat round of `ranked`, the bye (odd count) going to one
    of the players with the fewest byes: the tables less the largest matching of the graph of
    pairs who have not met (plus, with a bye, a vertex joined to every player who may take it)."""
    players = list(ranked)
    edges = [
        (first, second)
        for first, second in itertools.combinations(range(len(players)), 2)
        if met_count(met, players[first], players[second]) == 0
    ]
    vertices = len(players)
    if vertices % 2:
        fewest = min(byes.get(player, 0) for player in players)
        edges += [
            (index, vertices)
            for index, player in enumerate(players)
            if byes.get(player, 0) == fewest
        ]
        vertices += 1
    return vertices // 2 - _tutte_rank(vertices, edges) // 2


def _tutte_rank(vertices: int, edges: Sequence[tuple[int, int]]) -> int:
    rng = random.Random(vertices * 1_000_003 + len(edges))
    matrix = [[0] * vertices for _ in range(vertices)]
    for first, second in edges:
        value = rng.randrange(1, PRIME)
        matrix[first][second] = value
        matrix[second][first] = PRIME - value
    rank = 0
    for column in range(vertices):
        pivot = next((row for row in range(rank, vertices) if matrix[row][column]), None)
        if pivot is None:
            continue
        matrix[rank], matrix[pivot] = matrix[pivot], matrix[rank]
        inverse = pow(matrix[rank][column], PRIME - 2, PRIME)
        top = matrix[rank]
        for row in range(rank + 1, vertices):
            factor = matrix[row][column] * inverse % PRIME
            if factor:
                current = matrix[row]
                for index in range(column, vertices):
                    current[index] = (current[index] - factor * top[index]) % PRIME
        rank += 1
    return rank


Check = Callable[
    [Sequence[int], Mapping[frozenset[int], int], Mapping[int, int], list[Table]], None
]


Pair = Callable[[Sequence[int], int, Mapping[frozenset[int], int], Mapping[int, int]], list[Table]]


def simulate(
    players: int,
    seats: int,
    rounds: int,
    seed: int,
    check: Check,
    pair: Pair = pairing.swiss_tables,
) -> None:
    """Play a Swiss event of `players` for `rounds` rounds at random: each round is paired by
    `pair` (`pairing.swiss_tables`) from the standings (points; the seeding breaks ties), then
    handed to `check(ranked, met, byes, tables)`, then given random results."""
    rng = random.Random(seed)
    seeding = rng.sample(range(1000, 1000 + 10 * players), players)
    points = dict.fromkeys(seeding, 0.0)
    history: list[Table] = []
    byes: dict[int, int] = {}
    for _ in range(rounds):
        ranked = sorted(seeding, key=lambda player: -points[player])
        met = pairing.meetings(history)
        tables = pair(ranked, seats, met, byes)
        check(ranked, met, dict(byes), tables)
        for table in tables:
            order = list(table)
            rng.shuffle(order)
            for below, seat in enumerate(reversed(order)):
                if seat is not None:
                    points[seat] += below
                    if None in table:
                        byes[seat] = byes.get(seat, 0) + 1
        history.extend(tables)


def rematch_free_exists(
    ranked: Sequence[int], seats: int, met: Mapping[frozenset[int], int], budget: int
) -> bool | None:
    """Whether some seating of the round (3 or 4 seats) has no rematch: True with one found,
    False when the search ran out of seatings, None when it ran out of `budget` (tables tried).
    The tables are filled one at a time, each opened by the player not yet seated who has the
    fewest such players left not met, with players not met."""
    sizes = pairing.table_sizes(len(ranked), seats)
    tried = 0

    def fresh(members: Sequence[int]) -> bool:
        return all(met_count(met, a, b) == 0 for a, b in itertools.combinations(members, 2))

    def fill(left: Sequence[int], sizes_left: tuple[int, ...]) -> bool:
        nonlocal tried
        if not left:
            return True
        fresh_to = {
            player: [
                other for other in left if other != player and not met_count(met, player, other)
            ]
            for player in left
        }
        opener = min(left, key=lambda player: len(fresh_to[player]))
        for size in sorted(set(sizes_left)):
            rest = list(sizes_left)
            rest.remove(size)
            for others in itertools.combinations(fresh_to[opener], size - 1):
                tried += 1
                if tried > budget:
                    raise TimeoutError
                table = (opener, *others)
                if fresh(table) and fill([p for p in left if p not in table], tuple(rest)):
                    return True
        return False

    try:
        return fill(list(ranked), tuple(sizes))
    except TimeoutError:
        return None
