"""The ratings' tables on both back ends: the end of a rated game numbers it in its server's
order, the guarded writes refuse a writer that fell behind, skills come back bit for bit, the
reads order the leaderboard and count the record against each AI level, the casual flag is
kept, migration 0010 queues the games finished before it in the order they ended, and migration
0035 leaves the results posted before it as they are."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.services.ratings import RatingService
from bot.storage import (
    Database,
    GameStatus,
    GameStore,
    NewAction,
    NewGame,
    ResultRow,
    open_database,
)
from bot.storage.ratings import ChangeRow, RatingRow, RatingStore, queue_rated_game
from bot.storage.values import time_to_column

GUILD, OTHER = 1, 2
T0 = datetime(2026, 1, 1, tzinfo=UTC)
BIG = 1_234_567_890_123_456_789  # Discord ids need all 64 bits
AWKWARD = (27.635389493140497, 8.06590141354368, 1e-300, 0.1 + 0.2)
"""Floats whose every bit must survive the round trip."""


def lobby(channel_id: int, guild_id: int | None = GUILD, *, casual: bool = False) -> NewGame:
    return NewGame(
        guild_id=guild_id,
        channel_id=channel_id,
        host_id=100,
        seats_wanted=2,
        variant="standard",
        turn_limit_seconds=None,
        seed="ab" * 16,
        seed_sha256="cd" * 32,
        casual=casual,
    )


def results(*seats: tuple[int | None, str | None, int]) -> list[ResultRow]:
    """Result rows from (user_id, ai_level, place), one per seat in order."""
    return [
        ResultRow(seat, user, level, "red", 10, 5, place, place == 1)
        for seat, (user, level, place) in enumerate(seats)
    ]


async def finished(
    store: GameStore,
    channel_id: int,
    rows: list[ResultRow],
    *,
    guild_id: int | None = GUILD,
    rated: bool = True,
    at: datetime = T0,
) -> int:
    """A game started and ended in one append (its log is not a real game's: the stores do
    not replay it), rated in its server unless `rated` is False."""
    store_game = await store.create(lobby(channel_id, guild_id), at)
    seats = await store.add_seat(store_game.id, 200, at)
    await store.start(store_game.id, [seat.key for seat in seats], {}, "p0", at)
    await store.append_actions(
        store_game.id,
        0,
        [NewAction("S", 100)],
        "end",
        at,
        status=GameStatus.OVER,
        results=rows,
        rated_in=guild_id if rated else None,
    )
    return store_game.id


def change(game_id: int, seat: int, number: int, user: int | None, level: str | None) -> ChangeRow:
    mu, sigma, *_ = AWKWARD
    return ChangeRow(game_id, seat, number, user, level, seat + 1, 25.0, 8.3, mu, sigma, 1)


async def test_the_end_of_a_rated_game_numbers_it_in_its_server(db: Database) -> None:
    store, ratings = GameStore(db), RatingStore(db)
    first = await finished(store, 10, results((100, None, 1), (200, None, 2)))
    elsewhere = await finished(store, 11, results((100, None, 2), (200, None, 1)), guild_id=OTHER)
    casual = await finished(store, 12, results((100, None, 1), (200, None, 2)), rated=False)
    second = await finished(store, 13, results((100, None, 1), (None, "hard", 2)))
    assert await ratings.behind() == [GUILD, OTHER]
    assert await ratings.applied_count(GUILD) == (2, 0)
    pending = await ratings.pending(GUILD)
    assert [(game.number, game.game_id) for game in pending.games] == [(1, first), (2, second)]
    assert [seat.player for seat in pending.games[1].seats] == [(100, None), (None, "hard")]
    assert pending.ratings == ()
    assert casual not in {game.game_id for game in (await ratings.everything(GUILD)).games}
    assert [g.game_id for g in (await ratings.pending(OTHER)).games] == [elsewhere]


async def test_writes_are_guarded_by_how_many_games_the_ratings_include(db: Database) -> None:
    store, ratings = GameStore(db), RatingStore(db)
    game = await finished(store, 10, results((BIG, None, 1), (None, "easy", 2)))
    changes = [change(game, 0, 1, BIG, None), change(game, 1, 1, None, "easy")]
    rows = [RatingRow(BIG, None, *AWKWARD[:2], 1), RatingRow(None, "easy", *AWKWARD[2:], 1)]
    assert not await ratings.apply(GUILD, 5, changes, rows), "it fell behind: nothing written"
    assert await ratings.of_game(game) == []
    assert await ratings.apply(GUILD, 0, changes, rows)
    assert not await ratings.apply(GUILD, 0, changes, rows), "the same games never twice"
    assert await ratings.applied_count(GUILD) == (1, 1)
    assert await ratings.of_game(game) == changes, "every bit of every float kept"
    assert await ratings.rating(GUILD, BIG) == rows[0]
    assert await ratings.references(GUILD) == [rows[1]]
    assert (await ratings.pending(GUILD)).games == ()
    assert await ratings.apply(GUILD, 1, [], []), "nothing to write is no conflict"
    assert not await ratings.replace(GUILD, 0, [], [])
    assert await ratings.replace(GUILD, 1, [], [])
    assert await ratings.of_game(game) == []
    assert await ratings.rating(GUILD, BIG) is None
    assert await ratings.applied_count(GUILD) == (1, 0), "the order itself is kept"


async def test_a_later_game_updates_its_players_and_adds_the_new_ones(db: Database) -> None:
    store, ratings = GameStore(db), RatingStore(db)
    one = await finished(store, 10, results((100, None, 1), (200, None, 2)))
    await ratings.apply(
        GUILD,
        0,
        [change(one, 0, 1, 100, None), change(one, 1, 1, 200, None)],
        [RatingRow(100, None, 26.0, 8.0, 1), RatingRow(200, None, 24.0, 8.0, 1)],
    )
    two = await finished(store, 11, results((300, None, 1), (100, None, 2)))
    pending = await ratings.pending(GUILD)
    assert [(row.user_id, row.games) for row in pending.ratings] == [(100, 1)]
    await ratings.apply(
        GUILD,
        1,
        [change(two, 0, 2, 300, None), change(two, 1, 2, 100, None)],
        [RatingRow(300, None, 27.0, 7.9, 1), RatingRow(100, None, 25.5, 7.5, 2)],
    )
    assert await ratings.rating(GUILD, 100) == RatingRow(100, None, 25.5, 7.5, 2)
    assert await ratings.rating(GUILD, 300) == RatingRow(300, None, 27.0, 7.9, 1)
    history = await ratings.history(GUILD, 100)
    assert [(row.game_id, seats) for row, seats in history] == [(one, 2), (two, 2)]


async def test_a_person_s_history_follows_the_order_their_games_ended(db: Database) -> None:
    """A game opened first and ended second comes second: the chart of the stats draws the
    history in this order, and its last point is the rating now."""
    store, ratings = GameStore(db), RatingStore(db)
    opened_first = await store.create(lobby(10), T0)
    seats = await store.add_seat(opened_first.id, 200, T0)
    await store.start(opened_first.id, [seat.key for seat in seats], {}, "p0", T0)
    ended_first = await finished(store, 11, results((100, None, 1), (200, None, 2)))
    await store.append_actions(
        opened_first.id,
        0,
        [NewAction("S", 100)],
        "end",
        T0,
        status=GameStatus.OVER,
        results=results((100, None, 2), (200, None, 1)),
        rated_in=GUILD,
    )
    pending = await ratings.pending(GUILD)
    assert [game.game_id for game in pending.games] == [ended_first, opened_first.id]
    changes = [
        change(ended_first, 0, 1, 100, None),
        change(ended_first, 1, 1, 200, None),
        change(opened_first.id, 0, 2, 100, None),
        change(opened_first.id, 1, 2, 200, None),
    ]
    players = [RatingRow(100, None, 25.0, 7.0, 2), RatingRow(200, None, 25.0, 7.0, 2)]
    assert await ratings.apply(GUILD, 0, changes, players)
    history = await ratings.history(GUILD, 100)
    assert [(row.game_id, row.number) for row, _ in history] == [
        (ended_first, 1),
        (opened_first.id, 2),
    ]


async def test_the_leaderboard_puts_settled_players_first_then_the_provisional(
    db: Database,
) -> None:
    store, ratings = GameStore(db), RatingStore(db)
    game = await finished(store, 10, results((100, None, 1), (200, None, 2)))
    players = [
        RatingRow(100, None, 20.0, 2.0, 12),  # settled, estimate 14
        RatingRow(200, None, 40.0, 8.0, 3),  # provisional, estimate 16: still after
        RatingRow(300, None, 30.0, 3.0, 10),  # settled, estimate 21
        RatingRow(400, None, 25.0, 8.0, 1),  # provisional, estimate 1
        RatingRow(None, "medium", 30.0, 2.0, 40),
    ]
    changes = [change(game, 0, 1, 100, None), change(game, 1, 1, 200, None)]
    assert await ratings.apply(GUILD, 0, changes, players)
    board = await ratings.leaderboard(GUILD, settled=10, limit=10)
    assert [row.user_id for row in board] == [300, 100, 200, 400]
    assert [row.user_id for row in await ratings.leaderboard(GUILD, 10, 3)] == [300, 100, 200]
    assert [row.ai_level for row in await ratings.references(GUILD)] == ["medium"]
    assert await ratings.leaderboard(OTHER, 10, 10) == []


async def test_the_leaderboard_ranks_by_the_points_it_shows_not_by_mu(db: Database) -> None:
    """The points shown are 1500 + 25 * (mu - 3 * sigma): a high mu with a wide sigma shows fewer
    points than a lower mu known closely, and ranks after it, settled or provisional. Ranked by
    mu, the board would list players out of the order of the points it prints."""
    store, ratings = GameStore(db), RatingStore(db)
    game = await finished(store, 10, results((100, None, 1), (300, None, 2)))
    players = [
        RatingRow(100, None, 30.0, 4.0, 12),  # settled, points 1,950
        RatingRow(300, None, 25.0, 1.0, 12),  # settled, points 2,050
        RatingRow(200, None, 40.0, 8.0, 3),  # provisional, points 1,900
        RatingRow(400, None, 30.0, 2.0, 3),  # provisional, points 2,100
    ]
    changes = [change(game, 0, 1, 100, None), change(game, 1, 1, 300, None)]
    assert await ratings.apply(GUILD, 0, changes, players)
    board = await ratings.leaderboard(GUILD, settled=10, limit=10)
    assert [row.user_id for row in board] == [300, 100, 400, 200]


async def test_the_record_against_each_ai_level_counts_every_ai_seat_met(db: Database) -> None:
    store, ratings = GameStore(db), RatingStore(db)
    await finished(store, 10, results((100, None, 1), (None, "easy", 2), (None, "easy", 3)))
    await finished(store, 11, results((None, "hard", 1), (100, None, 2), (None, "easy", 2)))
    await finished(store, 12, results((100, None, 1), (None, "hard", 2)), rated=False)
    await finished(store, 13, results((100, None, 2), (None, "hard", 1)), guild_id=OTHER)
    records = await ratings.ai_records(GUILD, 100)
    assert [(r.ai_level, r.ahead, r.level, r.behind) for r in records] == [
        ("easy", 2, 1, 0),
        ("hard", 1, 0, 1),
    ], "casual games count in the record; other servers do not"


async def test_a_person_who_handed_their_seat_over_lost_to_the_ai_still_in_after_them(
    db: Database,
) -> None:
    """Counted as out when they left, the person who handed their seat to a substitute is
    behind an AI that went out later, though the seat itself finished ahead of it: a loss in
    their record against the AI, as their rated place says, not a tie of two scales."""
    store, ratings = GameStore(db), RatingStore(db)
    # On the board: 300's seat (finished by 400) first, 100 second, the easy AI third (out).
    # Rated: 100 first, the AI second, 300 (left with nobody out) third.
    left, stayed, ai = results((300, None, 3), (100, None, 2), (None, "easy", 3))
    rows = [
        replace(left, rated_place=3, won=False, eliminated=True, finished_by=400, finished_place=1),
        replace(stayed, rated_place=1),
        replace(ai, rated_place=2, eliminated=True),
    ]
    await finished(store, 10, rows)
    assert [
        (r.ai_level, r.ahead, r.level, r.behind) for r in await ratings.ai_records(GUILD, 300)
    ] == [("easy", 0, 0, 1)]


async def test_the_casual_flag_is_kept_with_the_game(db: Database) -> None:
    store = GameStore(db)
    casual = await store.create(lobby(10, casual=True), T0)
    rated = await store.create(lobby(11), T0)
    assert casual.casual
    assert not rated.casual
    fetched = await store.get(casual.id)
    assert fetched is not None
    assert fetched.casual


async def old_finished_game(
    db: Database, channel_id: int, guild_id: int, ended: datetime, rows: list[ResultRow]
) -> int:
    """A finished game as a bot of schema version 9 stored it (its own columns only)."""
    async with db.transaction() as conn:
        game_id = await conn.fetchval(
            "INSERT INTO games (guild_id, channel_id, host_id, status, seats_wanted, variant, "
            "seed, seed_sha256, created_at, updated_at) "
            "VALUES ($1, $2, 100, 'over', 2, 'standard', 'ab', 'cd', $3, $4) RETURNING id",
            guild_id,
            channel_id,
            time_to_column(T0),
            time_to_column(ended),
        )
        for row in rows:
            await conn.execute(
                "INSERT INTO results (game_id, seat, user_id, ai_level, color, score, dirhams, "
                "place, won) VALUES ($1, $2, $3, $4, 'red', 1, 1, $5, $6)",
                game_id,
                row.seat,
                row.user_id,
                row.ai_level,
                row.place,
                int(row.won),
            )
    return int(game_id)


async def test_migration_0010_queues_the_games_finished_before_it(database_target: str) -> None:
    people = results((100, None, 1), (200, None, 2))
    old = await open_database(database_target, schema_version=9)
    try:
        late = await old_finished_game(old, 10, GUILD, T0 + timedelta(minutes=30), people)
        early = await old_finished_game(old, 11, GUILD, T0 + timedelta(minutes=10), people)
        await old_finished_game(old, 12, OTHER, T0 + timedelta(minutes=20), people)
        machines = results((None, "easy", 1), (None, "hard", 2))
        await old_finished_game(old, 13, GUILD, T0, machines)  # no person in it: not rated
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        ratings = RatingStore(database)
        pending = await ratings.pending(GUILD)
        assert [game.game_id for game in pending.games] == [early, late], "in the order they ended"
        assert await ratings.behind() == [GUILD, OTHER]
        assert await RatingService(ratings).catch_up() == 3
        assert await ratings.behind() == []
        rating = await ratings.rating(GUILD, 100)
        assert rating is not None
        assert rating.games == 2
    finally:
        await database.close()


async def test_results_posted_before_migration_0035_are_not_shown_again(
    database_target: str,
) -> None:
    """Before version 35 a finished game's `end_shown` said nothing: a rated game's result
    posted with its ratings, or the result of one applied since, is not edited again after
    the upgrade."""
    old = await open_database(database_target, schema_version=35 - 1)
    try:
        people = results((100, None, 1), (200, None, 2))
        game_id = await old_finished_game(old, 10, GUILD, T0, people)
        async with old.transaction() as conn:
            await queue_rated_game(conn, GUILD, game_id)
            await conn.execute(
                "UPDATE games SET board_message_id = 501, board_message_seq = seq WHERE id = $1",
                game_id,
            )
        assert await RatingService(RatingStore(old)).catch_up() == 1
        assert [game.id for game in await GameStore(old).behind_on_display()] == [game_id]
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        assert await GameStore(database).behind_on_display() == []
    finally:
        await database.close()
