"""The Swiss pairing against oracles that compute the optimum another way
(tests/bot/services/pairing_oracle.py), over seeded events with random results:

- up to 12 players at 2, 3 and 4 seats, the default number of rounds and 8: every round costs
  the least any seating of it can (so it takes no avoidable rematch);
- odd 2-seat rounds of 3 to 9 players, pairs met up to three times, some byes had: the least
  cost, the rules weighed in their order (fewer earlier meetings before the bye's place);
- 2-seat events of 16 to 64 players over 20 rounds: no avoidable rematch (Tutte-matrix oracle);
- bigger events at 3 and 4 seats: no exchange of two players between tables lowers the cost.

`python -m tests.bot.services.pairing_bench` runs the same checks with more seeds and times them.

The events run with the coverage tracer paused (tests/tracing.py): their searches, the
pairing's and the oracles', would take three times as long under it, and the pairing's lines
are measured by its own tests (tests/bot/services/test_pairing.py).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import cast

import pytest

from bot.services import pairing
from bot.services.pairing import Table
from tests.bot.services import pairing_oracle as oracle
from tests.tracing import untraced

SEEDS = 3
"""Seeded events per size in the default run (the benchmark plays 50)."""


def seated_once(ranked: Sequence[int], seats: int, tables: Sequence[Table]) -> None:
    humans = [seat for table in tables for seat in table if seat is not None]
    assert sorted(humans) == sorted(ranked), tables
    sizes = sorted((len(table) for table in tables if None not in table), reverse=True)
    assert sizes == pairing.table_sizes(len(ranked) - (None in humans), seats)


@pytest.mark.slow
@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("players", range(3, 13))
def test_every_round_of_a_small_event_costs_the_least_it_can(players: int, seats: int) -> None:
    def check(
        ranked: Sequence[int],
        met: Mapping[frozenset[int], int],
        byes: Mapping[int, int],
        tables: list[Table],
    ) -> None:
        seated_once(ranked, seats, tables)
        got = oracle.seating_key(tables, ranked, met, byes)
        best = oracle.least_cost(ranked, seats, met, byes)
        assert got[0] == best[0], f"{got[0]} rematches where {best[0]} would do: {tables}"
        assert got == best, tables

    for rounds in sorted({pairing.swiss_rounds(players, seats), 8}):
        for seed in range(SEEDS):
            with untraced():
                oracle.simulate(players, seats, rounds, seed, check)


def test_an_odd_two_seat_round_costs_the_least_it_can_whatever_the_counts_and_byes() -> None:
    # 400 rounds of 3, 5, 7 or 9 players, each pair met 0 to 3 times, each player had a bye or
    # not, so that a pair met less often and a bye further down pull different ways.
    for seed in range(400):
        rng = random.Random(seed)
        ranked = list(range(1, rng.choice((3, 5, 7, 9)) + 1))
        met = {
            pairing.pair(a, b): times
            for a, b in itertools.combinations(ranked, 2)
            if (times := rng.choice((0, 0, 1, 1, 2, 3)))
        }
        byes = {player: rng.choice((0, 0, 1)) for player in ranked}
        tables = pairing.swiss_tables(ranked, 2, met, byes)
        seated_once(ranked, 2, tables)
        got = oracle.seating_key(tables, ranked, met, byes)
        assert got == oracle.least_cost(ranked, 2, met, byes), (seed, tables)


@pytest.mark.slow
@pytest.mark.parametrize("players", [16, 33, 64])
def test_a_long_two_seat_event_takes_no_avoidable_rematch(players: int) -> None:
    def check(
        ranked: Sequence[int],
        met: Mapping[frozenset[int], int],
        byes: Mapping[int, int],
        tables: list[Table],
    ) -> None:
        seated_once(ranked, 2, tables)
        taken = sum(
            met.get(frozenset(cast(tuple[int, int], table)), 0) > 0
            for table in tables
            if None not in table
        )
        assert taken == oracle.fewest_rematches_two_seats(ranked, met, byes), tables

    with untraced():
        oracle.simulate(players, 2, 20, players, check)


@pytest.mark.slow
@pytest.mark.parametrize(("players", "seats"), [(13, 4), (17, 3), (30, 4), (40, 3), (64, 4)])
def test_no_exchange_of_two_players_lowers_the_cost_of_a_big_round(
    players: int, seats: int
) -> None:
    def check(
        ranked: Sequence[int],
        met: Mapping[frozenset[int], int],
        byes: Mapping[int, int],
        tables: list[Table],
    ) -> None:
        seated_once(ranked, seats, tables)
        assert all(pairing.MIN_TABLE <= len(table) <= seats for table in tables)
        for first, second in itertools.combinations(range(len(tables)), 2):
            before = oracle.seating_key([tables[first], tables[second]], ranked, met, byes)
            for one, other in itertools.product(tables[first], tables[second]):
                swapped = [
                    tuple(other if seat == one else seat for seat in tables[first]),
                    tuple(one if seat == other else seat for seat in tables[second]),
                ]
                after = oracle.seating_key(swapped, ranked, met, byes)
                assert after >= before, f"{one} and {other} exchanged: {after} < {before}"

    with untraced():
        oracle.simulate(players, seats, 20, players, check)
