"""Seats handed to substitutes, on both back ends: the seat keeps, through several hand-overs,
the person the game rates for it (the first who left), a seat is handed over only in a running
game, from the person who holds it, and to a newcomer with no hint used (the host's with the
hosting), the one who left still counts as seated, a request is closed once and its message
replaced only while it is the one expected, and a start closes only the requests of games that
ended."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.storage import (
    Database,
    EndReason,
    GameStatus,
    GameStore,
    NewAction,
    NewGame,
    SeatControl,
    StaleSeqError,
    open_database,
)
from bot.storage.substitutes import SubstituteStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
T1 = datetime(2026, 1, 2, tzinfo=UTC)
HOST, BOB, CAROL, DAVE = 100, 200, 300, 400


async def running(store: GameStore, channel: int = 10) -> int:
    game = await store.create(
        NewGame(1, channel, HOST, 2, "standard", 600, "ab" * 16, "cd" * 32, host_name="Host"), T0
    )
    seats = await store.add_seat(game.id, BOB, T0, "Bob")
    await store.start(game.id, [seat.key for seat in seats], {}, "p0", T0)
    return game.id


async def test_a_seat_handed_over_twice_is_still_rated_for_the_first_who_left(
    db: Database,
) -> None:
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    game_id = await running(games)
    await substitutes.hand_over(game_id, 0, 1, BOB, CAROL, "Carol", 0, None, T1)
    await substitutes.hand_over(game_id, 0, 1, CAROL, DAVE, "Dave", 1, None, T1)
    seat = (await games.seats(game_id))[1]
    assert (seat.user_id, seat.display_name) == (DAVE, "Dave")
    assert (seat.stands_in_for, seat.left_with_out) == (BOB, 0)


async def test_a_second_hand_over_of_a_seat_from_the_same_read_changes_nothing(
    db: Database,
) -> None:
    """A hand-over moves no seq, so two made from the same read (two moderators, or two
    processes) are told apart by the seat's person: the second fails with StaleSeqError and
    the seat stays the first newcomer's."""
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    game_id = await running(games)
    await substitutes.hand_over(game_id, 0, 1, BOB, CAROL, "Carol", 0, None, T1)
    # Unguarded by the seat's person, Dave would take the seat Carol was just told is hers.
    with pytest.raises(StaleSeqError):
        await substitutes.hand_over(game_id, 0, 1, BOB, DAVE, "Dave", 0, None, T1)
    seat = (await games.seats(game_id))[1]
    assert (seat.user_id, seat.display_name, seat.stands_in_for) == (CAROL, "Carol", BOB)


async def test_everyone_who_handed_a_seat_on_counts_as_seated_in_the_game(db: Database) -> None:
    """A seat's row names only its holder and its first leaver: Carol, who played the seat
    between Bob and Dave, counts as seated all the same, in this game only."""
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    game_id = await running(games)
    other_game = await running(games, channel=11)
    await substitutes.hand_over(game_id, 0, 1, BOB, CAROL, "Carol", 0, None, T1)
    await substitutes.hand_over(game_id, 0, 1, CAROL, DAVE, "Dave", 0, None, T1)
    seated = {user: await substitutes.ever_seated(game_id, user) for user in (BOB, CAROL, DAVE)}
    assert seated == {BOB: True, CAROL: True, DAVE: True}
    assert not await substitutes.ever_seated(other_game, CAROL)


PEOPLE_WHO_HANDED_A_SEAT_ON_VERSION = 32
"""The migration that keeps everyone who handed a seat of a game on (0032)."""


async def test_the_people_who_handed_a_seat_on_before_it_was_kept_are_found_in_the_log(
    database_target: str,
) -> None:
    """Games handed over before the table existed: the seat's first leaver, and a substitute
    who handed it on after a move of theirs, count as seated once the database is migrated."""
    database = await open_database(
        database_target, schema_version=PEOPLE_WHO_HANDED_A_SEAT_ON_VERSION - 1
    )
    try:
        games = GameStore(database)
        game_id = await running(games)
        await games.append_actions(game_id, 0, [NewAction("L", HOST)], {}, T1)
        async with database.transaction() as conn:  # Bob, then Carol, then Dave
            await conn.execute(
                "UPDATE seats SET user_id = $1, stands_in_for = $2, left_with_out = 0 "
                "WHERE game_id = $3 AND seat = 1",
                CAROL,
                BOB,
                game_id,
            )
        game = await games.get(game_id)
        assert game is not None
        await games.append_actions(game_id, game.seq, [NewAction("L", CAROL)], {}, T1)
        async with database.transaction() as conn:
            await conn.execute(
                "UPDATE seats SET user_id = $1 WHERE game_id = $2 AND seat = 1", DAVE, game_id
            )
    finally:
        await database.close()
    database = await open_database(database_target)
    try:
        substitutes = SubstituteStore(database)
        seated = {user: await substitutes.ever_seated(game_id, user) for user in (BOB, CAROL)}
        assert seated == {BOB: True, CAROL: True}
        assert not await substitutes.ever_seated(game_id, 500)
    finally:
        await database.close()


async def test_a_request_is_closed_once(db: Database) -> None:
    substitutes = SubstituteStore(db)
    game_id = await running(GameStore(db))
    request = await substitutes.open_request(game_id, BOB, CAROL, None, HOST, (BOB,), T0, T1)
    assert await substitutes.close_request(request.id, "done")
    assert not await substitutes.close_request(request.id, "refused")
    closed = await substitutes.request(request.id)
    assert closed is not None
    assert closed.status == "done"


async def test_a_request_s_message_is_replaced_only_while_it_is_the_one_expected(
    db: Database,
) -> None:
    """Two messages posted for one request at once (the host's answer, and the request posted
    again as the people it waits for changed): the one that finds another remembered first
    changes nothing, so exactly one message answers for the request."""
    substitutes = SubstituteStore(db)
    game_id = await running(GameStore(db))
    request = await substitutes.open_request(game_id, BOB, CAROL, None, HOST, (BOB,), T0, T1)
    assert await substitutes.replace_request_message(request.id, 7, (BOB,), None)
    assert not await substitutes.replace_request_message(request.id, 8, (), None)
    assert not await substitutes.replace_request_message(request.id, 8, (), 6)
    assert await substitutes.replace_request_message(request.id, 9, (), 7)
    stored = await substitutes.request(request.id)
    assert stored is not None
    assert (stored.message_id, stored.waiting_for) == (9, ())


async def test_a_start_closes_only_the_requests_of_games_that_no_longer_run(
    db: Database,
) -> None:
    """Closing the open requests of every ended game (as a start does) leaves open a running
    game's request: it may still be carried out."""
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    ended = await running(games)
    still = await running(games, channel=11)
    gone = await substitutes.open_request(ended, BOB, CAROL, None, HOST, (BOB,), T0, T1)
    kept = await substitutes.open_request(still, BOB, CAROL, None, HOST, (BOB,), T0, T1)
    await games.end(ended, GameStatus.ABORTED, EndReason.ABORTED_BY_HOST, HOST, T1)
    closed = await substitutes.close_requests_of_ended_games()
    assert [request.id for request in closed] == [gone.id]
    still_open = await substitutes.request(kept.id)
    assert still_open is not None
    assert still_open.status == "open"


async def test_a_seat_of_a_game_no_longer_running_is_not_handed_over(db: Database) -> None:
    """A hand-over at the game's seq fails with StaleSeqError, and changes no seat, once the
    game was aborted."""
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    game_id = await running(games)
    await games.end(game_id, GameStatus.ABORTED, EndReason.ABORTED_BY_HOST, HOST, T1)
    with pytest.raises(StaleSeqError):
        await substitutes.hand_over(game_id, 0, 1, BOB, CAROL, "Carol", 0, None, T1)
    assert [seat.user_id for seat in await games.seats(game_id)] == [HOST, BOB]


async def test_the_newcomer_to_a_seat_starts_with_no_hint_used(db: Database) -> None:
    """The hints the person who left used are not counted against the substitute: with an
    allowance of one, the substitute still has their hint."""
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    game_id = await running(games)
    assert await games.take_hint(game_id, BOB, 1) == 1
    await substitutes.hand_over(game_id, 0, 1, BOB, CAROL, "Carol", 0, None, T1)
    assert await games.take_hint(game_id, CAROL, 1) == 1


async def test_the_newcomer_to_a_seat_starts_with_no_timeouts_and_plays_it_themself(
    db: Database,
) -> None:
    """A seat the AI had taken over after timeouts comes to its substitute with no timeout
    counted and the AI no longer playing it."""
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    game_id = await running(games)
    moved = await games.append_actions(
        game_id, 0, [NewAction("S", None)], "p1", T0, controls=[SeatControl(1, 2, True)]
    )
    before = (await games.seats(game_id))[1]
    assert (before.timeouts, before.autoplay) == (2, True)
    await substitutes.hand_over(game_id, moved.seq, 1, BOB, CAROL, "Carol", 0, None, T1)
    seat = (await games.seats(game_id))[1]
    assert (seat.user_id, seat.timeouts, seat.autoplay) == (CAROL, 0, False)


async def test_a_resigned_seat_is_not_handed_over(db: Database) -> None:
    """A hand-over of a seat its person resigned fails with StaleSeqError and changes
    nothing."""
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    game_id = await running(games)
    moved = await games.append_actions(
        game_id, 0, [NewAction(None, BOB, resigned_seat=1)], "p1", T0
    )
    with pytest.raises(StaleSeqError):
        await substitutes.hand_over(game_id, moved.seq, 1, BOB, CAROL, "Carol", 0, None, T1)
    seat = (await games.seats(game_id))[1]
    assert (seat.user_id, seat.resigned) == (BOB, True)


async def test_the_host_who_hands_their_seat_over_hands_the_hosting_with_it(
    db: Database,
) -> None:
    """Another seat's hand-over leaves the host as they are; the host's own makes the newcomer
    host, so the one who left cannot end the game."""
    games = GameStore(db)
    substitutes = SubstituteStore(db)
    game_id = await running(games)
    after_bob = await substitutes.hand_over(game_id, 0, 1, BOB, CAROL, "Carol", 0, None, T1)
    assert after_bob.host_id == HOST
    after_host = await substitutes.hand_over(game_id, 0, 0, HOST, DAVE, "Dave", 0, None, T1)
    assert after_host.host_id == DAVE
    stored = await games.get(game_id)
    assert stored is not None
    assert stored.host_id == DAVE


async def test_one_who_handed_their_seat_on_was_seated_in_the_game(db: Database) -> None:
    """The person who holds a seat and the one who held it and handed it on were both seated
    (neither can come in as a substitute); someone else was not."""
    substitutes = SubstituteStore(db)
    game_id = await running(GameStore(db))
    await substitutes.hand_over(game_id, 0, 1, BOB, CAROL, "Carol", 0, None, T1)
    assert await substitutes.ever_seated(game_id, CAROL) is True
    assert await substitutes.ever_seated(game_id, BOB) is True, "held it and handed it on"
    assert await substitutes.ever_seated(game_id, DAVE) is False
