"""The pairing of tournament rounds (bot.services.pairing): table sizes, Swiss score groups
and rematches, rotating byes, and round-robin schedules that seat every pair together."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from bot.services import pairing, swiss_search
from bot.services.pairing import Table
from bot.services.swiss_cost import round_costs
from bot.services.tournaments import MAX_PLAYERS


def seated(table: Table) -> tuple[int, ...]:
    """A table of a round these tests know seats no AI: its seats are all user ids."""
    return cast(tuple[int, ...], table)


@pytest.mark.parametrize(
    ("players", "seats", "sizes"),
    [
        (2, 2, [2]),
        (5, 2, [2, 2]),
        (6, 2, [2, 2, 2]),
        (4, 4, [4]),
        (5, 4, [3, 2]),
        (7, 4, [4, 3]),
        (9, 4, [3, 3, 3]),
        (7, 3, [3, 2, 2]),
        (2, 4, [2]),
        (1, 3, []),
    ],
)
def test_tables_are_as_few_and_as_even_as_the_seats_allow(
    players: int, seats: int, sizes: list[int]
) -> None:
    assert pairing.table_sizes(players, seats) == sizes
    assert all(pairing.MIN_TABLE <= size <= seats for size in sizes)


def test_a_swiss_round_seats_players_by_score_group() -> None:
    ranked = [11, 12, 13, 14, 15, 16]
    assert pairing.swiss_tables(ranked, 2, {}, {}) == [(11, 12), (13, 14), (15, 16)]
    assert pairing.swiss_tables(ranked, 3, {}, {}) == [(11, 12, 13), (14, 15, 16)]


def test_a_swiss_round_takes_the_next_player_down_rather_than_a_rematch() -> None:
    met = pairing.meetings([(11, 12), (13, 14)])
    assert pairing.swiss_tables([11, 12, 13, 14], 2, met, {}) == [(11, 13), (12, 14)]


def test_a_swiss_round_seats_further_down_when_the_nearest_leaves_a_rematch() -> None:
    # 11 with 13, whom it has not met, would leave 12 and 14, who met: 11 plays 14.
    met = pairing.meetings([(11, 12), (13, 14), (12, 14)])
    tables = pairing.swiss_tables([11, 12, 13, 14], 2, met, {})
    assert tables == [(11, 14), (12, 13)]
    assert sum(pairing.rematches(seated(table), met) for table in tables) == 0


def test_the_best_ranked_player_may_sit_at_the_smaller_table() -> None:
    # 1 has met 2, 3 and 4: at the table of 3 it would meet two of them again; at the table of
    # 2, with 5, nobody.
    met = pairing.meetings([(1, 2), (1, 3), (1, 4)])
    tables = pairing.swiss_tables([1, 2, 3, 4, 5], 4, met, {})
    assert sum(pairing.rematches(seated(table), met) for table in tables) == 0, tables
    assert tables == [(1, 5), (2, 3, 4)]


def test_of_two_equal_seatings_the_best_ranked_player_takes_the_better_opponent() -> None:
    # Both seatings avoid every rematch with rank gaps whose squares add up to 9.
    met = pairing.meetings([(3, 4), (2, 6), (1, 4)])
    assert pairing.swiss_tables([1, 2, 3, 4, 5, 6], 2, met, {}) == [(1, 2), (3, 5), (4, 6)]
    met = pairing.meetings([(3, 4), (2, 6), (1, 4), (1, 2)])
    assert pairing.swiss_tables([1, 2, 3, 4, 5, 6], 2, met, {}) == [(1, 3), (2, 4), (5, 6)]


def test_of_two_equal_seatings_at_three_seats_the_search_s_first_wins() -> None:
    """Five who have not met, at a table of 3 and one of 2: the top three at the 3 and the
    others at the 2, or the top two at the 2 and the others at the 3, cost the same (rank gaps
    whose squares add up to 7). The search seats the best-ranked player at the biggest table
    first, so the first of those is the one taken, by every process."""
    assert pairing.swiss_tables([1, 2, 3, 4, 5], 3, {}, {}) == [(1, 2, 3), (4, 5)]


def test_a_swiss_round_is_the_same_whatever_order_the_meetings_come_in() -> None:
    rng = random.Random(7)
    players = list(range(1, 31))
    history = [tuple(rng.sample(players, 3)) for _ in range(60)]
    met = pairing.meetings(history)
    backwards = dict(reversed(list(met.items())))
    for seats in (2, 3, 4):
        first = pairing.swiss_tables(players, seats, met, {})
        assert pairing.swiss_tables(players, seats, backwards, {}) == first
        assert pairing.swiss_tables(players, seats, dict(sorted(met.items(), key=str)), {}) == first


def all_pairings(players: list[int]) -> Iterator[list[tuple[int, int]]]:
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for index, other in enumerate(rest):
        for tail in all_pairings(rest[:index] + rest[index + 1 :]):
            yield [(first, other), *tail]


@pytest.mark.parametrize("seed", range(40))
def test_a_swiss_round_has_no_rematch_when_one_can_be_avoided(seed: int) -> None:
    rng = random.Random(seed)
    players = list(range(1, 9))
    history: list[Table] = []
    for _ in range(rng.randrange(2, 6)):  # some earlier rounds, paired at random
        shuffled = players[:]
        rng.shuffle(shuffled)
        history.extend((shuffled[i], shuffled[i + 1]) for i in range(0, 8, 2))
    met = pairing.meetings(history)
    ranked = players[:]
    rng.shuffle(ranked)
    tables = pairing.swiss_tables(ranked, 2, met, {})
    assert sorted(seat for table in tables for seat in table if seat is not None) == players
    assert sum(pairing.rematches(seated(table), met) for table in tables) == fewest(ranked, met)


def fewest(ranked: list[int], met: dict[frozenset[int], int]) -> int:
    """The fewest rematches any seating of `ranked` in pairs has."""
    return min(
        sum(pairing.rematches(table, met) for table in candidate)
        for candidate in all_pairings(ranked)
    )


def test_one_rematch_of_a_pair_met_often_beats_two_of_pairs_met_once() -> None:
    # 1 and 2 met three times; each other pair but 3-4 met once. Pairing 1-2 again is one
    # rematch; any other seating is two, however rarely their pairs met.
    met = {pairing.pair(1, 2): 3} | {
        pairing.pair(a, b): 1 for a, b in ((1, 3), (2, 4), (1, 4), (2, 3))
    }
    tables = pairing.swiss_tables([1, 2, 3, 4], 2, met, {})
    assert sorted(sorted(seated(table)) for table in tables) == [[1, 2], [3, 4]]


def test_of_seatings_with_as_many_rematches_the_one_whose_pairs_met_less_often_wins() -> None:
    # Every pair of 1..4 met, so every seating has two rematches. 1 and 2 met three times:
    # 1-2 with 3-4 adds up to four earlier meetings, 1-3 with 2-4 and 1-4 with 2-3 to two each,
    # of which 1-3 with 2-4 has the smaller rank gaps.
    met = {pairing.pair(1, 2): 3} | {
        pairing.pair(a, b): 1 for a, b in ((3, 4), (1, 3), (2, 4), (1, 4), (2, 3))
    }
    assert pairing.swiss_tables([1, 2, 3, 4], 2, met, {}) == [(1, 3), (2, 4)]


@pytest.mark.parametrize("seed", range(60))
def test_a_swiss_round_has_as_few_rematches_as_any_seating_whatever_the_counts(
    seed: int,
) -> None:
    # 4, 6 or 8 players, most of whose pairs met once, some three times and some never: the
    # count of rematches comes before how often the pairs met.
    rng = random.Random(seed)
    players = list(range(1, 5 + 2 * (seed % 3)))
    met = {
        pairing.pair(a, b): times
        for a, b in itertools.combinations(players, 2)
        if (times := rng.choice((0, 1, 1, 3)))
    }
    ranked = players[:]
    rng.shuffle(ranked)
    tables = pairing.swiss_tables(ranked, 2, met, {})
    assert sum(pairing.rematches(seated(table), met) for table in tables) == fewest(ranked, met)


def met_at_random(
    players: list[int], density: float, rng: random.Random
) -> dict[frozenset[int], int]:
    """Each pair of `players` met once with probability `density`, else never."""
    return {
        pairing.pair(a, b): 1
        for a, b in itertools.combinations(players, 2)
        if rng.random() < density
    }


def rematches_of(tables: list[Table], met: dict[frozenset[int], int]) -> int:
    return sum(pairing.rematches(seated(table), met) for table in tables)


def by_exchanges_alone(players: list[int], seats: int, met: dict[frozenset[int], int]) -> int:
    """The rematches left by the exchanges of two players from the tables in ranking order."""
    costs = round_costs(players, met)
    descent = swiss_search.Descent(costs, pairing.table_sizes(len(players), seats))
    descent.descend()
    return costs.rematches(descent.total())


@pytest.mark.parametrize(
    ("count", "density", "seed"),
    [
        *((14, 0.5, seed) for seed in (2, 5, 11, 30, 35)),
        (28, 0.5, 5),
        (32, 0.5, 5),
        (40, 0.6, 2),
        (40, 0.6, 4),
    ],
)
def test_a_round_too_big_for_the_exhaustive_search_finds_a_seating_without_rematch(
    count: int, density: float, seed: int
) -> None:
    # Players at 4 seats, half or more of all pairs met before: a seating without a rematch
    # exists (for these cases), which exchanges and the tabu search alone do not reach. Up to 40
    # players it is found within the depth-first search's 20,000 sets of companions.
    players = list(range(1, count + 1))
    assert len(players) > swiss_search.EXACT_PLAYERS
    met = met_at_random(players, density, random.Random(seed))
    tables = pairing.swiss_tables(players, 4, met, {})
    assert sorted(seat for table in tables for seat in seated(table)) == players
    assert rematches_of(tables, met) == 0


@pytest.mark.parametrize(
    ("count", "seats", "density", "seed"),
    [(17, 3, 0.6, 1), (20, 4, 0.5, 1), (30, 4, 0.6, 3), (40, 4, 0.6, 3)],
)
def test_a_big_round_with_no_rematch_free_seating_found_has_fewer_rematches_than_exchanges_leave(
    count: int, seats: int, density: float, seed: int
) -> None:
    """Where the depth-first search finds no seating without a rematch, the tabu search finds
    one with fewer rematches than the exchanges alone leave (for these cases)."""
    players = list(range(1, count + 1))
    met = met_at_random(players, density, random.Random(seed))
    costs = round_costs(players, met)
    assert swiss_search.rematch_free(costs, pairing.table_sizes(count, seats)) is None
    tables = pairing.swiss_tables(players, seats, met, {})
    assert sorted(seat for table in tables for seat in seated(table)) == players
    assert rematches_of(tables, met) < by_exchanges_alone(players, seats, met)


@pytest.mark.parametrize("count", [14, 17, 20, 24, 30, 40])
def test_a_big_round_never_has_more_rematches_than_the_exchanges_alone_leave(count: int) -> None:
    """The tabu search keeps the cheapest seating it saw, never one worse than where it began:
    over rounds at 3 and 4 seats with 40 to 60 % of the pairs met."""
    players = list(range(1, count + 1))
    for seats, density, seed in itertools.product((3, 4), (0.4, 0.5, 0.6), range(10)):
        met = met_at_random(players, density, random.Random(seed))
        tables = pairing.swiss_tables(players, seats, met, {})
        got, alone = rematches_of(tables, met), by_exchanges_alone(players, seats, met)
        assert got <= alone, f"{seats} seats, {density}, seed {seed}: {got} > {alone}"


@pytest.mark.parametrize(("count", "seats"), [(14, 3), (17, 3), (20, 4), (33, 4)])
def test_a_big_round_lists_each_table_best_ranked_first_and_the_tables_by_their_best_player(
    count: int, seats: int
) -> None:
    """Above 12 players the exchanges move players between tables; the round is still listed
    as every other is: each table's best-ranked player first, the tables in ranking order of
    their best players (table 1 holds the leader)."""
    rng = random.Random(count)
    ranked = rng.sample(range(100, 100 + 3 * count), count)
    place = {player: index for index, player in enumerate(ranked)}
    met = met_at_random(ranked, 0.5, rng)
    tables = [
        [place[seat] for seat in seated(table)]
        for table in pairing.swiss_tables(ranked, seats, met, {})
    ]
    assert all(table == sorted(table) for table in tables), tables
    assert [table[0] for table in tables] == sorted(table[0] for table in tables), tables


def test_the_bye_goes_to_the_lowest_ranked_and_rotates() -> None:
    ranked = [11, 12, 13, 14, 15]
    byes: dict[int, int] = {}
    given = []
    for _ in range(5):
        tables = pairing.swiss_tables(ranked, 2, {}, byes)
        (bye,) = [table for table in tables if None in table]
        assert tables[-1] == bye, "the bye's table comes last"
        player = bye[0]
        assert player is not None
        given.append(player)
        byes[player] = byes.get(player, 0) + 1
    assert given == [15, 14, 13, 12, 11]


def test_the_bye_goes_where_it_avoids_a_rematch_among_those_with_the_fewest() -> None:
    # 3, the lowest-ranked, taking the bye would leave 1 and 2, who met: 2 takes it instead (of
    # 1 and 2, whose byes both leave no rematch, the lower-ranked).
    met = pairing.meetings([(1, 2)])
    assert pairing.swiss_tables([1, 2, 3], 2, met, {}) == [(1, 3), (2, None)]
    # 5, 4 and 3 have had a bye: 2 or 1 takes this one. 2's would leave 1 to play 3, 4 or 5,
    # all met; 1's leaves 2, 3, 4 and 5, who pair without a rematch (4 and 5 met).
    met = pairing.meetings([(1, 3), (1, 4), (1, 5), (4, 5)])
    byes = {3: 1, 4: 1, 5: 1}
    tables = pairing.swiss_tables([1, 2, 3, 4, 5], 2, met, byes)
    assert tables == [(2, 4), (3, 5), (1, None)]


def test_the_bye_goes_as_far_up_the_ranking_as_it_must_to_avoid_a_rematch() -> None:
    # 1, 2 and 3 have met each other. 5's or 4's bye leaves two of them to play each other;
    # 3's leaves no rematch (nor do 2's and 1's): 3, the lowest-ranked of those, takes it, two
    # places above the lowest-ranked player.
    met = pairing.meetings([(1, 2), (1, 3), (2, 3)])
    tables = pairing.swiss_tables([1, 2, 3, 4, 5], 2, met, {})
    assert tables == [(1, 4), (2, 5), (3, None)]
    humans = [[seat for seat in table if seat is not None] for table in tables]
    assert sum(pairing.rematches(table, met) for table in humans) == 0


def test_the_rotation_of_byes_wins_over_a_rematch() -> None:
    # 1 and 2 have had their bye: 3 takes this one, though 1 and 2 met.
    met = pairing.meetings([(1, 2)])
    assert pairing.swiss_tables([1, 2, 3], 2, met, {1: 1, 2: 1}) == [(1, 2), (3, None)]


def test_fewer_earlier_meetings_come_before_the_bye_going_to_the_lowest_ranked() -> None:
    # 1 and 2 met twice, 1 and 3 three times, 2 and 3 once: every seating has a rematch. 2-3
    # adds up to one earlier meeting, with the bye for 1, two places above the lowest-ranked;
    # 1-2 would leave the bye to 3 but add up to two.
    met = {pairing.pair(1, 2): 2, pairing.pair(1, 3): 3, pairing.pair(2, 3): 1}
    assert pairing.swiss_tables([1, 2, 3], 2, met, {}) == [(2, 3), (1, None)]


def test_a_round_robin_of_two_seats_meets_every_pair_once() -> None:
    for count in (2, 3, 4, 5, 6, 7, 8):
        players = list(range(100, 100 + count))
        rounds = pairing.round_robin_schedule(players, 2)
        assert len(rounds) == (count - 1 if count % 2 == 0 else count)
        met = pairing.meetings(table for tables in rounds for table in tables)
        assert set(met) == {frozenset(p) for p in itertools.combinations(players, 2)}
        assert set(met.values()) == {1}
        byes: dict[int, int] = {}
        for tables in rounds:
            seated = [seat for table in tables for seat in table if seat is not None]
            assert sorted(seated) == players, "everyone plays every round"
            for table in tables:
                if None in table:
                    assert table[1] is None
                    player = table[0]
                    assert player is not None
                    byes[player] = byes.get(player, 0) + 1
        assert byes == (dict.fromkeys(players, 1) if count % 2 else {})


@pytest.mark.parametrize("count", [3, 5, 7, 9])
def test_a_two_seat_round_robin_lists_the_bye_s_table_last_in_every_round(count: int) -> None:
    """The player with the bye plays at a table of their own listed last: its number comes
    after every table of two players, in the standings and in the threads' names."""
    players = list(range(100, 100 + count))
    for number, tables in enumerate(pairing.round_robin_schedule(players, 2), start=1):
        *others, last = tables
        assert last[1] is None, f"round {number}: {tables}"
        assert all(None not in table for table in others), f"round {number}: {tables}"


@pytest.mark.parametrize(("count", "seats"), [(4, 4), (5, 4), (6, 3), (7, 3), (8, 4), (9, 3)])
def test_a_round_robin_of_bigger_tables_seats_every_pair_together(count: int, seats: int) -> None:
    players = list(range(1, count + 1))
    rounds = pairing.round_robin_schedule(players, seats)
    met = pairing.meetings(table for tables in rounds for table in tables)
    assert set(met) == {frozenset(p) for p in itertools.combinations(players, 2)}
    for tables in rounds:
        assert sorted(seat for table in tables for seat in seated(table)) == players
        assert all(pairing.MIN_TABLE <= len(table) <= seats for table in tables)
    assert pairing.round_robin_schedule(players, seats) == rounds, "the same every time"


@pytest.mark.parametrize(
    ("count", "seats"), [(5, 4), (6, 3), (7, 3), (7, 4), (8, 3), (8, 4), (9, 3), (13, 4)]
)
def test_a_round_robin_table_begins_with_who_has_most_to_meet_and_takes_who_meets_most_new(
    count: int, seats: int
) -> None:
    players = list(range(1, count + 1))
    to_meet = {pairing.pair(a, b) for a, b in itertools.combinations(players, 2)}

    def new_to(player: int, among: list[int]) -> int:
        """How many of `among` `player` has still to meet."""
        return sum(pairing.pair(player, other) in to_meet for other in among if other != player)

    for tables in pairing.round_robin_schedule(players, seats):
        unseated = players[:]
        for table in map(seated, tables):
            first, *others = table
            assert new_to(first, unseated) == max(new_to(p, unseated) for p in unseated), table
            unseated.remove(first)
            at_table = [first]
            for player in others:
                most = max(new_to(p, at_table) for p in unseated)
                assert new_to(player, at_table) == most, table
                unseated.remove(player)
                at_table.append(player)
        for table in map(seated, tables):
            to_meet -= {pairing.pair(a, b) for a, b in itertools.combinations(table, 2)}
    assert not to_meet, "every pair met"


@pytest.mark.parametrize(
    ("count", "seats", "rounds"),
    [(5, 3, 3), (7, 3, 5), (9, 3, 4), (15, 3, 8), (9, 4, 4), (10, 4, 4), (15, 4, 5), (16, 4, 5)],
)
def test_a_round_robin_of_bigger_tables_is_over_in_few_rounds(
    count: int, seats: int, rounds: int
) -> None:
    """A round of a tournament played over days may take one: 9 players at 4 seats meet in 4
    rounds, where filling each round greedily in seeding order alone takes 7."""
    players = list(range(1, count + 1))
    schedule = pairing.round_robin_schedule(players, seats)
    assert len(schedule) == rounds
    met = pairing.meetings(table for tables in schedule for table in tables)
    assert set(met) == {frozenset(p) for p in itertools.combinations(players, 2)}


@pytest.mark.parametrize("seats", [3, 4])
def test_a_round_robin_never_takes_more_rounds_than_its_first_greedy_schedule(seats: int) -> None:
    for count in range(3, 25):
        players = list(range(1, count + 1))
        first = pairing.round_robin_schedule(players, seats, search=False)
        schedule = pairing.round_robin_schedule(players, seats)
        assert math.ceil((count - 1) / (seats - 1)) <= len(schedule) <= len(first), count


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_round_robin_takes_the_rounds_its_player_count_says(seats: int) -> None:
    """The sign-up tells how many rounds a round-robin takes before the seeding is drawn:
    whoever the players are and in whatever order, their schedule takes as many rounds as
    `round_robin_rounds` says for their number."""
    for count in range(2, 17):
        players = random.Random(count).sample(range(1, 10**18), count)
        schedule = pairing.round_robin_schedule(players, seats)
        assert len(schedule) == pairing.round_robin_rounds(count, seats), count


@pytest.mark.slow
@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("count", range(17, MAX_PLAYERS + 1))
def test_a_big_round_robin_takes_the_rounds_its_player_count_says(count: int, seats: int) -> None:
    players = random.Random(count).sample(range(1, 10**18), count)
    schedule = pairing.round_robin_schedule(players, seats)
    assert len(schedule) == pairing.round_robin_rounds(count, seats)


def test_the_rounds_of_a_round_robin_of_fewer_than_two_are_none() -> None:
    assert [pairing.round_robin_rounds(count, 3) for count in (0, 1)] == [0, 0]
    assert pairing.round_robin_rounds(4, 4) == 1


def test_four_players_at_four_seats_play_one_round() -> None:
    assert pairing.round_robin_schedule([1, 2, 3, 4], 4) == [[(1, 2, 3, 4)]]


@pytest.mark.parametrize(
    ("players", "seats", "rounds"), [(2, 2, 1), (5, 2, 3), (8, 2, 3), (9, 2, 4), (16, 4, 2)]
)
def test_the_default_number_of_swiss_rounds(players: int, seats: int, rounds: int) -> None:
    assert pairing.swiss_rounds(players, seats) == rounds


def test_the_rounds_docs_tournaments_md_gives_are_those_the_schedules_take() -> None:
    """The page's table of round-robin lengths, which players read before they sign up, is
    what the schedules take."""
    page = (Path(__file__).parents[3] / "docs" / "tournaments.md").read_text(encoding="utf-8")
    rows = {
        cells[0]: cells[1:]
        for line in page.splitlines()
        if line.startswith(("| players |", "| rounds at "))
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }
    counts = [int(cell) for cell in rows["players"]]
    for seats in (3, 4):
        shown = [int(cell) for cell in rows[f"rounds at {seats} seats"]]
        taken = [len(pairing.round_robin_schedule(list(range(count)), seats)) for count in counts]
        assert shown == taken, seats
