"""Whole Swiss tournaments played at random through `swiss_round`, the pairing the service
stores: each round paired from a snapshot of every table before it, as a process reads it
(finished games with shared places, aborted games, byes against the AI, seats handed to a
substitute), and checked against what docs/tournaments.md promises, worked out here another way:

- every player sits at exactly one table, at tables of the sizes the seats allow;
- the round costs the least any seating of it can (tests/bot/services/pairing_oracle.py), the
  players ranked by the standings (round 1: the seeding), met as every earlier table seated
  them and with the byes every earlier bye table gave; in particular, whenever a seating
  without a rematch exists, the round has no rematch, into the last rounds of long tournaments
  where few fresh pairings remain;
- a bye goes to a player who had the fewest byes, so no one has a second bye while another
  player has none.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from bot.services import pairing
from bot.services.pairing import Table
from bot.services.standings import SeatResult, TableOutcome, ranking, standings
from bot.services.tournaments import swiss_round
from bot.storage.kinds import GameStatus
from bot.storage.tournaments import TableResultRow, TableRow
from tests.bot.services import pairing_oracle as oracle
from tests.bot.services.test_tournaments import swiss_snapshot

EVENTS = 40
"""Random tournaments per table size."""


def places(count: int, rng: random.Random) -> list[int]:
    """A game's places for `count` seats, best first, some of them shared: 1, 1, 3, 4..."""
    scores = sorted((rng.randrange(3) for _ in range(count)), reverse=True)
    return [scores.index(score) + 1 for score in scores]


def played(
    round_no: int, number: int, seats: Table, rng: random.Random
) -> tuple[TableRow, TableOutcome]:
    """Table `number` of the round with a random end: aborted one time in eight (no results),
    else finished with random places (shared ones too), scores and dirhams, each person's seat
    handed to a substitute one time in eight (the standings count no score or dirhams of it).
    The table as the store reads it, and as the standings read it."""
    game_id = 1000 * round_no + number
    if rng.random() < 1 / 8:
        row = TableRow(round_no, number, seats, None, game_id, GameStatus.ABORTED.value)
        return row, TableOutcome(round_no, seats, True)
    order = list(seats)
    rng.shuffle(order)
    stored: list[TableResultRow] = []
    counted: list[SeatResult] = []
    for seat, place in zip(order, places(len(order), rng), strict=True):
        score, dirhams = rng.randrange(20, 90), rng.randrange(0, 40)
        handed_over = seat is not None and rng.random() < 1 / 8
        stored.append(TableResultRow(seat, place, score, dirhams, handed_over))
        counted.append(
            SeatResult(seat, place, 0, 0)
            if handed_over
            else SeatResult(seat, place, score, dirhams)
        )
    row = TableRow(round_no, number, seats, None, game_id, GameStatus.OVER.value, tuple(stored))
    return row, TableOutcome(round_no, seats, True, tuple(counted))


def met_before(tables: Sequence[TableRow]) -> dict[frozenset[int], int]:
    """How often each pair of people shared a table, finished or aborted (AI seats left out)."""
    met: dict[frozenset[int], int] = {}
    for table in tables:
        people = [seat for seat in table.seats if seat is not None]
        for first, second in itertools.combinations(people, 2):
            met[frozenset((first, second))] = met.get(frozenset((first, second)), 0) + 1
    return met


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_random_tournaments_take_no_avoidable_rematch_and_give_no_second_bye_early(
    seats: int,
) -> None:
    for event in range(EVENTS):
        rng = random.Random(100 * seats + event)
        count = rng.randrange(3, 11)
        # The default number of rounds, or as many as the players and more: by then every
        # fresh pairing is used up and rematches can no longer all be avoided.
        rounds = rng.choice((pairing.swiss_rounds(count, seats), count, count + 2))
        seeding = rng.sample(range(1, 500), count)
        tables: list[TableRow] = []
        outcomes: list[TableOutcome] = []
        byes = dict.fromkeys(seeding, 0)
        for round_no in range(1, rounds + 1):
            where = f"event {event} ({count} players), round {round_no}"
            paired = swiss_round(swiss_snapshot(seeding, rounds, tables, seats=seats), round_no)
            ranked = ranking(standings(seeding, outcomes, rounds)) if round_no > 1 else seeding
            met = met_before(tables)
            people = sorted(seat for table in paired for seat in table if seat is not None)
            assert people == sorted(seeding), f"{where}: {paired}"
            sizes = sorted((len(table) for table in paired if None not in table), reverse=True)
            assert sizes == pairing.table_sizes(count, seats), f"{where}: {paired}"
            got = oracle.seating_key(paired, ranked, met, byes)
            best = oracle.least_cost(ranked, seats, met, byes)
            if best[0] == 0:
                assert got[0] == 0, f"{where}: a rematch a seating without one avoids: {paired}"
            assert got == best, f"{where}: {paired}"
            for number, seats_at in enumerate(paired, start=1):
                if None in seats_at:
                    (lonely,) = [seat for seat in seats_at if seat is not None]
                    byes[lonely] += 1
                row, outcome = played(round_no, number, seats_at, rng)
                tables.append(row)
                outcomes.append(outcome)
            assert max(byes.values()) - min(byes.values()) <= 1, f"{where}: {byes}"
