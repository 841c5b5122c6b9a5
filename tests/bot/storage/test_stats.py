"""Stats count what the final message says: an eliminated seat's game and loss, not its score.
The history lists the newest games newest first, lobbies left out, names every winner of a
shared win and the substitute who won a seat for someone; a member's games finished for someone
come newest first. A player's favourite colour is the one they played most. Each reads the
server's own games only. The places stored before migration 0030 are numbered as the final
message numbers them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bot.storage import Database, GameRow, GameStore, NewGame, StatsStore, open_database
from bot.storage.games import ResultRow
from bot.storage.stats import PendingGame, SeatAccuracy

NOW = datetime(2026, 1, 1, tzinfo=UTC)
GUILD = 1


async def finished_game(
    db: Database, channel_id: int, results: list[ResultRow], guild_id: int = GUILD
) -> int:
    """A game over on the server, with `results`; its id."""
    store = GameStore(db)
    game = await lobby(db, channel_id, guild_id)
    async with db.transaction() as conn:
        await conn.execute("UPDATE games SET status = 'over' WHERE id = $1", game.id)
    await store.add_results(game.id, results)
    return game.id


async def lobby(db: Database, channel_id: int, guild_id: int = GUILD) -> GameRow:
    """A 2-seat lobby of host 100 in the channel, waiting for its players."""
    return await GameStore(db).create(
        NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=100,
            seats_wanted=2,
            variant="standard",
            turn_limit_seconds=None,
            seed="ab" * 16,
            seed_sha256="cd" * 32,
        ),
        NOW,
    )


def row(seat: int, user_id: int, score: int, place: int, eliminated: bool = False) -> ResultRow:
    return ResultRow(seat, user_id, None, "red", score, score, place, place == 1, eliminated)


async def test_an_eliminated_seat_counts_its_game_and_loss_but_not_its_score(db: Database) -> None:
    await finished_game(db, 10, [row(0, 100, 30, 1), row(1, 200, 25, 2)])
    await finished_game(db, 11, [row(0, 100, 40, 2, eliminated=True), row(1, 200, 20, 1)])
    stats = StatsStore(db)
    mine = await stats.player(GUILD, 100)
    assert (mine.games, mine.wins) == (2, 1)
    assert mine.average_score == 30.0, "the 40 of a seat out of the game is not counted"
    assert mine.best_score == 30
    assert (await stats.player(GUILD, 200)).average_score == 22.5


async def test_a_player_only_ever_out_has_games_and_no_score(db: Database) -> None:
    await finished_game(db, 10, [row(0, 100, 12, 2, eliminated=True), row(1, 200, 20, 1)])
    stats = StatsStore(db)
    mine = await stats.player(GUILD, 100)
    assert (mine.games, mine.wins, mine.average_score, mine.best_score) == (1, 0, None, None)


async def test_the_history_names_the_substitute_whose_seat_won(db: Database) -> None:
    """Seat 1 won, played to its end by 300 for 200, who left it: the results count it for 200
    as out (rated behind 100), and the history names 300 as its winner."""
    host, left, substitute = 100, 200, 300
    await finished_game(
        db,
        10,
        [
            ResultRow(0, host, None, "red", 20, 10, 2, False, rated_place=1),
            ResultRow(
                1,
                left,
                None,
                "blue",
                40,
                20,
                2,
                False,
                True,
                rated_place=2,
                finished_by=substitute,
                finished_place=1,
            ),
        ],
    )
    (game,) = await StatsStore(db).history(GUILD)
    # Read without the substitute, the win would go to the one who left, whose stats lose it.
    assert game.winner_ids == (substitute,)
    assert game.winner_levels == (None,)


@pytest.mark.parametrize(
    ("second", "winner_ids", "winner_levels"),
    [
        (ResultRow(1, 200, None, "blue", 30, 30, 1, True), (100, 200), (None, None)),
        (ResultRow(1, None, "hard", "blue", 30, 30, 1, True), (100, None), (None, "hard")),
    ],
    ids=["two people", "a person and an AI"],
)
async def test_the_history_names_every_winner_of_a_shared_win(
    db: Database,
    second: ResultRow,
    winner_ids: tuple[int | None, ...],
    winner_levels: tuple[str | None, ...],
) -> None:
    """Seats 0 and 1 tie for first place (equal dirhams and rugs): both won, and the history
    names both, in seat order, the third seat not."""
    await finished_game(db, 10, [row(0, 100, 30, 1), second, row(2, 300, 20, 3)])
    (game,) = await StatsStore(db).history(GUILD)
    assert game.winner_ids == winner_ids
    assert game.winner_levels == winner_levels


async def test_the_history_lists_the_newest_games_newest_first(db: Database) -> None:
    """Twelve games over, in turn in channels 10 and 11: the server's history is its newest
    ten, newest first, and a channel's its own newest, newest first."""
    made = [
        await finished_game(db, 10 + n % 2, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
        for n in range(12)
    ]
    stats = StatsStore(db)
    server = [game.game_id for game in await stats.history(GUILD, None, 10)]
    assert server == made[::-1][:10]
    channel = [game.game_id for game in await stats.history(GUILD, 10, 3)]
    assert channel == made[0::2][::-1][:3]


async def test_a_lobby_is_in_no_history(db: Database) -> None:
    """A lobby still waiting for its players is no game played yet: neither the server's
    history nor its channel's lists it."""
    over = await finished_game(db, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    await lobby(db, 11)
    stats = StatsStore(db)
    assert [game.game_id for game in await stats.history(GUILD, None, 10)] == [over]
    assert await stats.history(GUILD, 11, 10) == []


async def test_the_server_s_history_lists_none_of_another_server_s_games(db: Database) -> None:
    """`/marrakech history server:` is the whole server's: another server's game numbers and
    winners never show in it."""
    here = await finished_game(db, 10, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    elsewhere = await finished_game(db, 20, [row(0, 300, 30, 1), row(1, 400, 20, 2)], GUILD + 1)
    stats = StatsStore(db)
    assert [game.game_id for game in await stats.history(GUILD, None, 10)] == [here]
    assert [game.game_id for game in await stats.history(GUILD + 1, None, 10)] == [elsewhere]


async def test_the_games_finished_for_someone_are_the_newest_first(db: Database) -> None:
    """A member's games played to their end in a seat someone else left: the newest `limit`,
    newest first, each with the seat's place and the one who left it."""
    host, left, substitute = 100, 200, 300
    games = []
    for channel, place in ((10, 1), (11, 2), (12, 1)):
        left_seat = row(1, left, 40, 2, eliminated=True)
        finished = replace(left_seat, rated_place=2, finished_by=substitute, finished_place=place)
        games.append(await finished_game(db, channel, [row(0, host, 20, 2), finished]))
    oldest, middle, newest = games
    assert oldest < middle < newest
    assert await StatsStore(db).finished_for(GUILD, substitute, 2) == [
        (newest, 1, left),
        (middle, 2, left),
    ]


async def test_the_games_finished_for_someone_are_this_server_s(db: Database) -> None:
    """A member's stats on one server list none of the games they finished for someone on
    another: its game numbers and people are that server's."""
    host, left, substitute = 100, 200, 300
    games = []
    for guild in (GUILD, GUILD + 1):
        left_seat = row(1, left, 40, 2, eliminated=True)
        finished = replace(left_seat, rated_place=2, finished_by=substitute, finished_place=1)
        games.append(await finished_game(db, 10, [row(0, host, 20, 2), finished], guild))
    here, elsewhere = games
    stats = StatsStore(db)
    assert await stats.finished_for(GUILD, substitute, 5) == [(here, 1, left)]
    assert await stats.finished_for(GUILD + 1, substitute, 5) == [(elsewhere, 1, left)]


async def test_the_favourite_colour_is_the_one_played_most_on_a_tie_the_newest(
    db: Database,
) -> None:
    # With one game each, "most" and "least" played are the same colour: it takes two.
    stats = StatsStore(db)
    await finished_game(db, 10, [row(0, 100, 30, 1), row(1, 200, 25, 2)])  # red
    await finished_game(db, 11, [replace(row(0, 100, 30, 1), color="blue"), row(1, 200, 25, 2)])
    assert (await stats.player(GUILD, 100)).favourite_color == "blue", "a tie: the newest game's"
    await finished_game(db, 12, [row(0, 100, 30, 1), row(1, 200, 25, 2)])  # red again
    assert (await stats.player(GUILD, 100)).favourite_color == "red", "red twice, blue once"


async def test_the_favourite_colour_is_this_server_s(db: Database) -> None:
    """Red played twice on another server does not outweigh blue played once on this one."""
    blue = replace(row(0, 100, 30, 1), color="blue")
    await finished_game(db, 10, [blue, row(1, 200, 25, 2)])
    for channel in (11, 12):
        await finished_game(db, channel, [row(0, 100, 30, 1), row(1, 200, 25, 2)], GUILD + 1)
    stats = StatsStore(db)
    assert (await stats.player(GUILD, 100)).favourite_color == "blue"
    assert (await stats.player(GUILD + 1, 100)).favourite_color == "red"


async def test_accuracy_is_written_once_and_read_newest_first(db: Database) -> None:
    """The oldest game is the best and the middle one the worst, so only the games' order
    gives the newest first."""
    for channel in range(3):
        await finished_game(db, channel, [row(0, 100, 30, 1), row(1, 200, 25, 2)])
    stats = StatsStore(db)
    pending = await stats.without_accuracy(10, 1000)
    assert [game.people for game in pending] == [((0, 100), (1, 200))] * 3
    newest, middle, oldest = (game.game_id for game in pending)
    assert newest > middle > oldest, "the newest game is judged first"
    for game_id, value in ((oldest, 90.0), (middle, 60.0), (newest, 70.5)):
        assert await stats.add_accuracy(game_id, [SeatAccuracy(0, 100, value)]) == 1
    again = [SeatAccuracy(0, 100, 1.0), SeatAccuracy(1, 200, 50.0)]
    assert await stats.add_accuracy(newest, again) == 1, "a seat written keeps its value"
    assert await stats.recent_accuracy(GUILD, 100, 20) == [70.5, 60.0, 90.0]
    assert await stats.recent_accuracy(GUILD, 100, 2) == [70.5, 60.0], "the newest two"
    assert await stats.recent_accuracy(GUILD, 200, 20) == [50.0]
    assert await stats.recent_accuracy(GUILD + 1, 100, 20) == [], "another server's stats"
    assert await stats.without_accuracy(10, 1000) == []


async def test_only_the_newest_finished_games_are_looked_among(db: Database) -> None:
    for channel in range(3):
        await finished_game(db, channel, [row(0, 100, 30, 1)])
    stats = StatsStore(db)
    everything = await stats.without_accuracy(10, 1000)
    assert await stats.without_accuracy(10, 2) == everything[:2]
    await stats.add_accuracy(everything[0].game_id, [SeatAccuracy(0, 100, 80.0)])
    assert await stats.without_accuracy(10, 2) == everything[1:2], "the window counts it"


async def test_each_person_s_newest_games_are_found_however_old(db: Database) -> None:
    for channel in range(2):
        await finished_game(db, channel, [row(0, 100, 30, 1)])
    for channel in range(2, 5):
        await finished_game(db, channel, [row(0, 200, 30, 1)])
    stats = StatsStore(db)
    everything = await stats.without_accuracy(10, 1000)  # 200's three games, then 100's two
    assert 100 not in {p for g in await stats.without_accuracy(10, 3) for _, p in g.people}
    shown = await stats.shown_without_accuracy(10, 2)
    assert shown == [*everything[:2], *everything[3:]], "each person's newest two, newest first"
    assert await stats.shown_without_accuracy(3, 2) == shown[:3]
    await stats.add_accuracy(everything[3].game_id, [SeatAccuracy(0, 100, 80.0)])
    assert await stats.shown_without_accuracy(10, 1) == everything[:1], (
        "100's newest game is judged; the one before is not among their newest"
    )


async def test_a_game_that_gave_a_person_no_value_leaves_room_for_an_older_one(
    db: Database,
) -> None:
    """100's newest game gave them nothing to count (no choice of their own): their stats reach
    back past it, so the look finds the game before it, however old; 200, who had a value in
    that game, keeps it among their newest."""
    older = await finished_game(db, 1, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    newest = await finished_game(db, 2, [row(0, 100, 30, 1), row(1, 200, 20, 2)])
    stats = StatsStore(db)
    nothing = [SeatAccuracy(0, 100, None), SeatAccuracy(1, 200, 64.0)]
    assert await stats.add_accuracy(newest, nothing) == 2
    shown = await stats.shown_without_accuracy(10, 1)
    assert [game.game_id for game in shown] == [older]


async def test_a_person_s_newest_games_are_found_on_each_server(db: Database) -> None:
    """Each server's stats show the person's newest games there, however many newer ones they
    played on another server: the look finds the games of both."""
    first = [await finished_game(db, channel, [row(0, 100, 30, 1)]) for channel in (1, 2)]
    other = [
        await finished_game(db, channel, [row(0, 100, 30, 1)], guild_id=GUILD + 1)
        for channel in (3, 4)
    ]
    shown = await StatsStore(db).shown_without_accuracy(10, 2)
    assert [game.game_id for game in shown] == [*reversed(other), *reversed(first)]


async def test_a_seat_with_nothing_to_count_is_judged_but_never_read(db: Database) -> None:
    await finished_game(db, 10, [row(0, 100, 30, 1), row(1, 200, 25, 2)])
    stats = StatsStore(db)
    (game,) = await stats.without_accuracy(10, 1000)
    nothing = [SeatAccuracy(0, 100, None), SeatAccuracy(1, 200, 64.0)]
    assert await stats.add_accuracy(game.game_id, nothing) == 2
    assert await stats.without_accuracy(10, 1000) == [], "judged: never judged again"
    assert await stats.recent_accuracy(GUILD, 100, 20) == []
    assert await stats.recent_accuracy(GUILD, 200, 20) == [64.0]


async def test_games_without_people_or_not_over_are_never_judged(db: Database) -> None:
    await finished_game(db, 10, [ResultRow(0, None, "hard", "red", 30, 30, 1, True, False)])
    await lobby(db, 11)
    assert await StatsStore(db).without_accuracy(10, 1000) == []


async def accuracy_written_at(database_target: str, version: int) -> PendingGame:
    """A new database at schema `version` holding a finished game of people 100 and 200 with
    an accuracy of 96 written for person 100's seat, as a bot of that schema wrote it; the
    game."""
    old = await open_database(database_target, schema_version=version)
    try:
        await finished_game(old, 10, [row(0, 100, 30, 1), row(1, 200, 25, 2)])
        (game,) = await StatsStore(old).without_accuracy(10, 1000)
        async with old.transaction() as conn:
            await conn.execute(
                "INSERT INTO seat_accuracy (game_id, seat, user_id, accuracy) "
                "VALUES ($1, 0, 100, 96.0)",
                game.game_id,
            )
    finally:
        await old.close()
    return game


async def test_migration_0029_drops_the_accuracy_of_the_earlier_formula(
    database_target: str,
) -> None:
    """The figures written before the accuracy became the share of the stake kept are dropped,
    so the stats' job writes them again and no average mixes the two formulas."""
    game = await accuracy_written_at(database_target, 28)
    database = await open_database(database_target)
    try:
        stats = StatsStore(database)
        assert await stats.recent_accuracy(GUILD, 100, 20) == []
        assert await stats.without_accuracy(10, 1000) == [game], "to be written again"
    finally:
        await database.close()


OWN_DECISIONS_VERSION = 31
"""The migration after which a person's accuracy counts their own decisions (0031)."""


async def test_accuracy_written_over_whole_seats_is_dropped_and_a_seat_holds_each_person_s(
    database_target: str,
) -> None:
    """The figures written over a whole seat (its substitute's decisions and the AI's turns
    for its person included) are dropped, so the stats' job writes them again; a seat then
    keeps a row for each person who played it."""
    game = await accuracy_written_at(database_target, OWN_DECISIONS_VERSION - 1)
    database = await open_database(database_target)
    try:
        stats = StatsStore(database)
        assert await stats.recent_accuracy(GUILD, 100, 20) == []
        assert await stats.without_accuracy(10, 1000) == [game], "to be written again"
        left, finished = SeatAccuracy(0, 100, 70.0), SeatAccuracy(0, 300, 80.0)
        assert await stats.add_accuracy(game.game_id, [left, finished]) == 2
        assert await stats.recent_accuracy(GUILD, 100, 20) == [70.0]
        assert await stats.recent_accuracy(GUILD, 300, 20) == [80.0]
    finally:
        await database.close()


PLACES_COUNT_EVERYONE_ABOVE_VERSION = 30
"""The migration that numbers a place after a shared one counting everyone above it (0030)."""


def placed(
    seat: int, place: int, rated: int | None = None, *, finished: int | None = None
) -> ResultRow:
    """Seat `seat` of person 100 + seat at `place` (rated at `rated`); with `finished`, handed
    over: finished at that place by person 300 + seat."""
    result = ResultRow(seat, 100 + seat, None, "red", 10, 5, place, place == 1, rated_place=rated)
    if finished is None:
        return result
    return replace(
        result, won=False, eliminated=True, finished_by=300 + seat, finished_place=finished
    )


async def test_places_already_stored_are_renumbered_counting_everyone_above(
    database_target: str,
) -> None:
    """The places stored before it, numbered without a gap after a shared one (1, 1, 2), are
    numbered as the final message numbers them (1, 1, 3): the results' places, rated places and
    places finished for someone, and the places of the rating changes the stats show."""
    games = {
        "shared first": ([placed(0, 1), placed(1, 1), placed(2, 2), placed(3, 3)], [1, 1, 3, 4]),
        "shared second": ([placed(0, 1), placed(1, 2), placed(2, 2), placed(3, 3)], [1, 2, 2, 4]),
        "no shared place": ([placed(0, 2), placed(1, 1), placed(2, 3)], [2, 1, 3]),
    }
    # Seats 0 and 1 shared first; seat 2 finished third for the person who left it with nobody
    # out, rated behind seat 3.
    handed_over = [placed(0, 1, 1), placed(1, 1, 1), placed(2, 3, 3, finished=2), placed(3, 3, 2)]
    # Seat 1 won for the person who left it, rated behind seat 0: nothing shared, nothing moves.
    won_for = [placed(0, 2, 1), placed(1, 2, 2, finished=1)]
    old = await open_database(
        database_target, schema_version=PLACES_COUNT_EVERYONE_ABOVE_VERSION - 1
    )
    try:
        written = {name: rows for name, (rows, _) in games.items()}
        written |= {"handed over": handed_over, "won for": won_for}
        ids = {
            name: await finished_game(old, channel, rows)
            for channel, (name, rows) in enumerate(written.items())
        }
        async with old.transaction() as conn:
            for number, game_id in enumerate(ids.values(), start=1):
                await conn.execute(
                    "INSERT INTO rating_changes (game_id, seat, guild_id, number, user_id, "
                    "ai_level, place, mu_before, sigma_before, mu_after, sigma_after, games) "
                    "SELECT game_id, seat, $1, $2, user_id, NULL, coalesce(rated_place, place), "
                    "25, 8, 25, 8, 1 FROM results WHERE game_id = $3",
                    GUILD,
                    number,
                    game_id,
                )
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        stored: dict[str, list[tuple[object, ...]]] = {}
        async with database.reading() as conn:
            for name, game_id in ids.items():
                rows = await conn.fetch(
                    "SELECT r.place, r.rated_place, r.finished_place, c.place "
                    "FROM results r JOIN rating_changes c "
                    "ON c.game_id = r.game_id AND c.seat = r.seat "
                    "WHERE r.game_id = $1 ORDER BY r.seat",
                    game_id,
                )
                stored[name] = [(row[0], row[1], row[2], row[3]) for row in rows]
        for name, (_, places) in games.items():
            assert stored[name] == [(place, None, None, place) for place in places], name
        assert stored["handed over"] == [
            (1, 1, None, 1),
            (1, 1, None, 1),
            (4, 4, 3, 4),
            (4, 3, None, 3),
        ]
        assert stored["won for"] == [(2, 1, None, 1), (2, 2, 1, 2)]
        finished_for = await StatsStore(database).finished_for(GUILD, 302, 5)
        assert finished_for == [(ids["handed over"], 3, 102)], "the seat's own place, third"
    finally:
        await database.close()
