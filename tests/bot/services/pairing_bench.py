"""`python -m tests.bot.services.pairing_bench`: the quality and the speed of the Swiss pairing
(bot/services/pairing.py) over seeded events with random results, checked against the oracles
of tests/bot/services/pairing_oracle.py.

- Small events: 3 to 12 players at 2, 3 and 4 seats, the default number of rounds and 8,
  `--seeds` events each: every round against the least cost of any seating of it (a dynamic
  program over every seating). Counts the rematches taken, the avoidable ones (taken beyond the
  fewest any seating has) and the rounds not of least cost (all three rules' order included).
- Big events: `--sizes` players over 20 rounds, `--big-seeds` events each: the rematches taken,
  the first round that took one, and the avoidable ones: at 2 seats against the fewest any
  seating has (Tutte-matrix oracle); at 3 and 4 seats, where no exact oracle is fast enough,
  the rematches of the rounds where a search of up to FREE_BUDGET tables found a seating
  without any ("undecided": the rounds where it found none and had not tried them all).
- The CPU time of pairing one round of the biggest size, per seat count: median and slowest
  over every round of its events; and of a round of that size where nearly every pair has met
  (90%, 95% and 100% of the pairs, drawn from a seeded generator), a worst case for the search.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bot.services import pairing
from bot.services.pairing import Table
from tests.bot.services import pairing_oracle as oracle

SEATS = (2, 3, 4)
FREE_BUDGET = 1_000_000
"""The most tables the search for a rematch-free seating (3 or 4 seats) tries per round."""


def taken(tables: Sequence[Table], met: Mapping[frozenset[int], int]) -> int:
    """The rematches of a seating (AI seats left out)."""
    return sum(
        pairing.rematches([seat for seat in table if seat is not None], met) for table in tables
    )


@dataclass
class Tally:
    """What the rounds of one seat count came to."""

    seats: int
    rounds: int = 0
    rematches: int = 0
    avoidable: int = 0
    worse: int = 0
    undecided: int = 0
    """Rounds with a rematch where the search for a rematch-free seating ran out of budget."""
    event_round: int = 0
    event_took_one: bool = False
    first: list[int] = field(default_factory=list)
    """The first round that took a rematch, per event that took one."""
    spent: list[float] = field(default_factory=list)
    """The CPU seconds of each round paired through `timed`."""

    def new_event(self) -> None:
        self.event_round = 0
        self.event_took_one = False

    def least_cost(
        self,
        ranked: Sequence[int],
        met: Mapping[frozenset[int], int],
        byes: Mapping[int, int],
        tables: list[Table],
    ) -> None:
        """Count a round against the least cost of any seating of it."""
        got = oracle.seating_key(tables, ranked, met, byes)
        best = oracle.least_cost(ranked, self.seats, met, byes)
        self.rounds += 1
        self.rematches += got[0]
        self.avoidable += got[0] - best[0]
        self.worse += got != best

    def fewest_rematches(
        self,
        ranked: Sequence[int],
        met: Mapping[frozenset[int], int],
        byes: Mapping[int, int],
        tables: list[Table],
    ) -> None:
        """Count a round's rematches (at 2 seats, against the fewest any seating has)."""
        self.event_round += 1
        count = taken(tables, met)
        self.rematches += count
        if count and not self.event_took_one:
            self.first.append(self.event_round)
            self.event_took_one = True
        if self.seats == pairing.MIN_TABLE:
            self.avoidable += count - oracle.fewest_rematches_two_seats(ranked, met, byes)
        elif count:
            free = oracle.rematch_free_exists(ranked, self.seats, met, FREE_BUDGET)
            self.avoidable += count if free else 0
            self.undecided += free is None

    def timed(
        self,
        ranked: Sequence[int],
        seats: int,
        met: Mapping[frozenset[int], int],
        byes: Mapping[int, int],
    ) -> list[Table]:
        """`pairing.swiss_tables`, its CPU time noted."""
        started = time.process_time()
        tables = pairing.swiss_tables(ranked, seats, met, byes)
        self.spent.append(time.process_time() - started)
        return tables


def small_events(seeds: int) -> None:
    print(f"small events: 3-12 players, default and 8 rounds, {seeds} seeds each")
    print("seats  rounds  rematches  avoidable  not least-cost  seconds")
    for seats in SEATS:
        tally = Tally(seats)
        started = time.perf_counter()
        for players in range(3, 13):
            for rounds in sorted({pairing.swiss_rounds(players, seats), 8}):
                for seed in range(seeds):
                    oracle.simulate(players, seats, rounds, seed, tally.least_cost)
        print(
            f"{seats:5}  {tally.rounds:6}  {tally.rematches:9}  {tally.avoidable:9}"
            f"  {tally.worse:14}  {time.perf_counter() - started:7.1f}"
        )


def big_events(sizes: Sequence[int], seeds: int) -> dict[int, list[float]]:
    """Print the rematches of the big events; the CPU seconds of each round of the biggest."""
    print(f"big events: 20 rounds, {seeds} seeds each")
    print("seats  players  rematches  avoidable  undecided  first round with one")
    timings: dict[int, list[float]] = {}
    for seats in SEATS:
        for players in sizes:
            tally = Tally(seats)
            for seed in range(seeds):
                tally.new_event()
                oracle.simulate(
                    players, seats, 20, 1000 + seed, tally.fewest_rematches, tally.timed
                )
            timings[seats] = tally.spent
            rounds = ", ".join(map(str, tally.first)) or "none"
            print(
                f"{seats:5}  {players:7}  {tally.rematches:9}  {tally.avoidable:9}"
                f"  {tally.undecided:9}  {rounds}"
            )
    return timings


def crowded_rounds(players: int) -> None:
    """Print the CPU time of a round where most pairs of `players` have met."""
    print(f"CPU time of a round at {players} players where most pairs met (seconds)")
    ranked = list(range(1, players + 1))
    for share in (0.9, 0.95, 1.0):
        rng = random.Random(players)
        met = {
            frozenset(pair): 1 for pair in itertools.combinations(ranked, 2) if rng.random() < share
        }
        spent = []
        for seats in SEATS:
            started = time.process_time()
            pairing.swiss_tables(ranked, seats, met, {})
            spent.append(f"{seats} seats {time.process_time() - started:.3f}")
        print(f"{share:.0%} met: " + ", ".join(spent))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bot.services.pairing_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seeds", type=int, default=50, help="events per small size")
    parser.add_argument("--big-seeds", type=int, default=3, help="events per big size")
    parser.add_argument("--sizes", default="16,24,32,48,64", help="players of the big events")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    timings = big_events(sizes, args.big_seeds)
    print(f"CPU time per round at {sizes[-1]} players (seconds)")
    for seats, spent in timings.items():
        if spent:
            print(f"{seats} seats: median {statistics.median(spent):.3f}, max {max(spent):.3f}")
        else:
            print(f"{seats} seats: no round timed (--big-seeds 0)")
    crowded_rounds(sizes[-1])
    if args.seeds:
        small_events(args.seeds)


if __name__ == "__main__":
    main()
