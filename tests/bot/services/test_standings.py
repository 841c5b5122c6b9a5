"""A tournament's standings (bot.services.standings): points per place, games that did not
finish, and the tie-breaks in their order (Buchholz, total score, dirhams, then a shared rank)."""

from __future__ import annotations

from bot.services.standings import SeatResult, TableOutcome, half_points, standings, winners

A, B, C, D = 1, 2, 3, 4


def finished(round_no: int, *results: tuple[int | None, int, int, int]) -> TableOutcome:
    """A table played to its end: (user, place, score, dirhams) per seat."""
    return TableOutcome(
        round_no,
        tuple(user for user, *_ in results),
        True,
        tuple(SeatResult(*result) for result in results),
    )


def test_a_two_seat_game_gives_one_point_to_the_winner_and_a_half_each_when_shared() -> None:
    won = (SeatResult(A, 1, 50, 20), SeatResult(B, 2, 40, 10))
    assert (half_points(won, A), half_points(won, B)) == (2, 0)
    shared = (SeatResult(A, 1, 50, 20), SeatResult(B, 1, 50, 20))
    assert (half_points(shared, A), half_points(shared, B)) == (1, 1)


def test_a_bigger_table_gives_a_point_per_opponent_below_and_a_half_per_one_alongside() -> None:
    results = (
        SeatResult(A, 1, 60, 30),
        SeatResult(B, 2, 50, 20),
        SeatResult(C, 2, 50, 20),
        SeatResult(D, 4, 10, 0),
    )
    assert [half_points(results, user) for user in (A, B, C, D)] == [6, 3, 3, 0]


def test_an_ai_opponent_counts_for_points_but_not_in_the_standings() -> None:
    lines = standings([A], [finished(1, (A, 1, 55, 21), (None, 2, 40, 12))], rounds=3)
    (line,) = lines
    assert (line.user_id, line.half_points, line.half_buchholz) == (A, 2, 0)
    assert (line.score, line.dirhams, line.played, line.left) == (55, 21, 1, 2)


def test_a_game_that_did_not_finish_gives_no_points_but_counts_as_met_and_played() -> None:
    aborted = TableOutcome(1, (A, B), True)
    running = TableOutcome(2, (A, C), False)
    won = finished(2, (B, 1, 40, 10), (D, 2, 30, 5))
    lines = {
        line.user_id: line for line in standings([A, B, C, D], [aborted, running, won], rounds=2)
    }
    assert lines[A].half_points == 0
    assert lines[A].half_buchholz == 2, "B, met in the aborted game, counts in A's Buchholz"
    assert (lines[A].played, lines[A].left) == (1, 1)
    assert (lines[C].played, lines[C].left) == (0, 2)


def test_an_opponent_of_a_game_not_yet_played_is_not_met_and_counts_in_no_buchholz() -> None:
    """Round 2 is paired but nothing of it is played: the standings are still round 1's. A
    round's opponents count in Buchholz once their game is closed (docs/tournaments.md: the
    opponents met), not from the pairing, which would move the ranks before anyone played."""
    e, f = 5, 6
    first = [
        finished(1, (A, 1, 50, 20), (B, 2, 40, 10)),
        finished(1, (C, 1, 50, 20), (D, 2, 40, 10)),
        finished(1, (e, 1, 50, 20), (f, 2, 40, 10)),
    ]
    paired = [
        TableOutcome(2, (A, C), False),
        TableOutcome(2, (e, B), False),
        TableOutcome(2, (D, f), False),
    ]
    seeding = [A, B, C, D, e, f]
    before = standings(seeding, first, rounds=3)
    after = standings(seeding, first + paired, rounds=3)
    assert [(line.user_id, line.half_buchholz, line.rank) for line in after] == [
        (line.user_id, line.half_buchholz, line.rank) for line in before
    ]


def test_equal_points_are_ordered_by_buchholz() -> None:
    """B and C have as many points; B met the stronger rivals (Buchholz 3 against 1), while C
    scored more over the event: Buchholz comes first, so B ranks above C."""
    tables = [
        finished(1, (A, 1, 40, 10), (B, 2, 30, 5)),
        finished(1, (C, 1, 45, 10), (D, 2, 35, 6)),
        finished(2, (A, 1, 40, 10), (D, 2, 30, 5)),
        finished(2, (B, 1, 40, 10), (C, 2, 30, 5)),
    ]
    lines = standings([D, C, B, A], tables, rounds=2)
    by_user = {line.user_id: line for line in lines}
    assert [by_user[user].half_points for user in (A, B, C, D)] == [4, 2, 2, 0]
    # Buchholz, in halves: B met A (4) and C (2), C met D (0) and B (2).
    assert [by_user[user].half_buchholz for user in (A, B, C, D)] == [2, 6, 2, 6]
    assert by_user[B].score < by_user[C].score, "the score alone would put C first"
    assert [line.user_id for line in lines] == [A, B, C, D]
    assert [line.rank for line in lines] == [1, 2, 3, 4]


def test_buchholz_counts_an_opponent_s_points_once_per_game_played_together() -> None:
    """B, C and D have a win each. B met A twice and D once, C met D twice and A once: an
    opponent met twice counts twice, so B's Buchholz is above C's and B ranks above C, though
    C scored more. Counted once per opponent, B and C would be equal and C would rank first."""
    tables = [
        finished(1, (A, 1, 40, 10), (B, 2, 30, 5)),
        finished(1, (C, 1, 45, 10), (D, 2, 35, 6)),
        finished(2, (B, 1, 40, 10), (D, 2, 30, 5)),
        finished(2, (A, 1, 40, 10), (C, 2, 35, 6)),
        finished(3, (A, 1, 40, 10), (B, 2, 30, 5)),
        finished(3, (D, 1, 40, 10), (C, 2, 35, 6)),
    ]
    lines = standings([A, B, C, D], tables, rounds=3)
    by_user = {line.user_id: line for line in lines}
    assert [by_user[user].half_points for user in (A, B, C, D)] == [6, 2, 2, 2]
    # In halves: B met A (6) twice and D (2); C met D (2) twice and A (6); D met C twice and B.
    assert [by_user[user].half_buchholz for user in (A, B, C, D)] == [6, 14, 10, 6]
    assert by_user[B].score < by_user[C].score, "the score alone would put C first"
    assert [line.user_id for line in lines] == [A, B, C, D]


def test_equal_points_and_buchholz_are_ordered_by_score_then_dirhams() -> None:
    tables = [
        finished(1, (A, 1, 40, 10), (B, 2, 30, 5)),
        finished(1, (C, 1, 40, 10), (D, 2, 35, 6)),
        finished(2, (A, 1, 40, 10), (C, 2, 30, 6)),
        finished(2, (B, 1, 40, 10), (D, 2, 30, 5)),
    ]
    lines = standings([A, B, C, D], tables, rounds=2)
    by_user = {line.user_id: line for line in lines}
    assert (by_user[B].half_points, by_user[C].half_points) == (2, 2)
    assert by_user[B].half_buchholz == by_user[C].half_buchholz == 4
    assert by_user[B].score == by_user[C].score == 70
    assert (by_user[B].dirhams, by_user[C].dirhams) == (15, 16)
    assert [line.user_id for line in lines] == [A, C, B, D]
    more_score = [*tables[:3], finished(2, (B, 1, 41, 10), (D, 2, 30, 5))]
    ordered = [line.user_id for line in standings([A, B, C, D], more_score, rounds=2)]
    assert ordered == [A, B, C, D]


def test_equal_on_everything_shares_the_rank_and_lists_in_seeding_order() -> None:
    tables = [
        finished(1, (A, 1, 40, 10), (B, 1, 40, 10)),
        finished(1, (C, 1, 40, 10), (D, 1, 40, 10)),
    ]
    lines = standings([D, C, B, A], tables, rounds=1)
    assert [line.user_id for line in lines] == [D, C, B, A]
    assert {line.rank for line in lines} == {1}
    assert winners(lines) == (D, C, B, A)


def test_the_rank_after_a_shared_place_counts_everyone_above() -> None:
    """A and B each beat C and D alike, so A and B share first place and C and D share the
    next: third, after the two above them."""
    tables = [
        finished(1, (A, 1, 40, 10), (C, 2, 30, 5)),
        finished(1, (B, 1, 40, 10), (D, 2, 30, 5)),
    ]
    lines = standings([A, B, C, D], tables, rounds=1)
    assert [(line.user_id, line.rank) for line in lines] == [(A, 1), (B, 1), (C, 3), (D, 3)]
    assert winners(lines) == (A, B)


def test_score_then_dirhams_decide_between_equal_points_and_buchholz() -> None:
    tables = [
        finished(1, (A, 1, 40, 10), (None, 2, 30, 5)),
        finished(1, (B, 1, 45, 8), (None, 2, 30, 5)),
        finished(1, (C, 1, 45, 9), (None, 2, 30, 5)),
    ]
    lines = standings([A, B, C], tables, rounds=1)
    assert [line.user_id for line in lines] == [C, B, A]
    assert [line.rank for line in lines] == [1, 2, 3]
    assert winners(lines) == (C,)


def test_a_worked_example_of_two_rounds_at_three_seats() -> None:
    """Six players at 3-seat tables, worked out by hand from docs/tournaments.md.

    Round 1: A and B share first place ahead of C (1½ each, C 0); D, E, F finish in that
    order (2, 1, 0). Round 2: the game of A, D and F is aborted (no points, but they met);
    C, E, B finish in that order (2, 1, 0). Points: A 1½, B 1½, C 2, D 2, E 2, F 0.
    Buchholz, once per game together, the aborted one included:
    A: B 1½ + C 2 + D 2 + F 0 = 5½;  B: A 1½ + C 2 + C 2 + E 2 = 7½;
    C: A 1½ + B 1½ + B 1½ + E 2 = 6½;  D: E 2 + F 0 + A 1½ + F 0 = 3½;
    E: D 2 + F 0 + B 1½ + C 2 = 5½;  F: D 2 + E 2 + A 1½ + D 2 = 7½.
    Of the three on 2 points, C (6½) comes before E (5½) and D (3½), though E scored most; of
    the two on 1½, B (7½) before A (5½). The aborted game gives A, D and F no score or dirhams,
    and counts as played: each has one game of the three rounds left."""
    e, f = 5, 6
    tables = [
        finished(1, (A, 1, 60, 20), (B, 1, 60, 20), (C, 3, 30, 5)),
        finished(1, (D, 1, 70, 25), (e, 2, 50, 15), (f, 3, 20, 2)),
        TableOutcome(2, (A, D, f), True),
        finished(2, (C, 1, 65, 22), (e, 2, 55, 10), (B, 3, 35, 9)),
    ]
    lines = standings([A, B, C, D, e, f], tables, rounds=3)
    assert [
        (line.rank, line.user_id, line.half_points, line.half_buchholz, line.score, line.dirhams)
        for line in lines
    ] == [
        (1, C, 4, 13, 95, 27),
        (2, e, 4, 11, 105, 25),
        (3, D, 4, 7, 70, 25),
        (4, B, 3, 15, 95, 29),
        (5, A, 3, 11, 60, 20),
        (6, f, 0, 15, 20, 2),
    ]
    assert all((line.played, line.left) == (2, 1) for line in lines)
    assert winners(lines) == (C,)
