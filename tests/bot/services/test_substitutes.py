"""Substitutes through the services on a real database (each back end): a seat handed over by
a moderator or by the host with the others' agreement, the person who left rated and counted
as if they had resigned then, the substitute rated for nothing and shown the game as finished
for someone, a seat the AI took over handed over the same way, a paused game that a person
plays again running on at once, and the refusals that change nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from bot.services import GameStatus, GameView, Player
from bot.services.errors import GameNotRunningError, HostOnlyError
from bot.services.hints import HINTS_PER_GAME
from bot.services.loaded import LoadedGame, rated_places, results_of
from bot.services.seat_errors import SubstituteError
from bot.services.stats import StatsService
from bot.services.substitutes import REQUEST_HOURS, Answer
from bot.storage import Database, GameStore
from bot.storage.game_rows import GameRow
from bot.storage.stats import StatsStore
from tests.bot.services.test_async_play import (
    BOB,
    CAROL,
    GUILD,
    HOST,
    LIMIT,
    Table,
    human_vs_ai,
    humans,
    play_turn,
    run_until_quiet,
)
from tests.bot.services.test_async_play import table as table  # the fixture
from tests.bot.services.test_pause import at_the_ai_s_turn_in_their_seat, time_out_three_times
from tests.bot.services.test_ratings import DAVE, opened
from tests.bot.services.test_results_out import ended
from tests.bot.services.test_service import play_out, service_on, step

ERIN = 1005
FRANK = 1006


async def rated_rows(database: Database, game_id: int) -> dict[int, int]:
    """user id -> the place each person was rated at in the game."""
    async with database.reading() as conn:
        rows = await conn.fetch(
            "SELECT user_id, place FROM rating_changes WHERE game_id = $1 AND user_id IS NOT NULL",
            game_id,
        )
    return {int(row[0]): int(row[1]) for row in rows}


def seat_of(view: GameView, user: int) -> int | None:
    return next((p.seat for p in view.players if p.user_id == user), None)


def test_the_one_who_left_ranks_as_out_at_that_moment() -> None:
    # Seat 2 finished first; its person left while seat 3 was already out and seat 1 was not.
    ranking = [(2,), (0,), (1,), (3,)]
    assert rated_places(ranking, eliminated=(3, 1), left={2: 1}) == {0: 1, 1: 2, 2: 3, 3: 4}
    # Left with nobody out: behind everyone who went out after.
    assert rated_places(ranking, eliminated=(3, 1), left={2: 0}) == {0: 1, 1: 2, 3: 3, 2: 4}
    # Two who left with as many out share their place.
    assert rated_places([(0,), (1,), (2,)], eliminated=(), left={0: 0, 1: 0}) == {
        2: 1,
        0: 2,
        1: 2,
    }


def test_a_place_after_a_shared_one_counts_everyone_above_with_a_substitute_too() -> None:
    """Seats 0 and 1 share first; seat 2 finished third for the person who left it with nobody
    out (rated behind everyone still in, so behind seat 3 too)."""
    ranking = ((0, 1), (2,), (3,))
    assert rated_places(ranking, eliminated=(), left={2: 0}) == {0: 1, 1: 1, 3: 3, 2: 4}
    players = [
        Player(HOST, 0),
        Player(BOB, 1),
        Player(ERIN, 2, stands_in_for=CAROL, left_with_out=0),
        Player(DAVE, 3),
    ]
    rows = results_of(ended(4, ranking), players)
    assert [(r.seat, r.place, r.rated_place) for r in rows] == [
        (0, 1, 1),
        (1, 1, 1),
        (2, 4, 4),
        (3, 4, 3),
    ]
    left = rows[2]
    assert (left.user_id, left.finished_by, left.finished_place) == (CAROL, ERIN, 3)


async def test_a_moderators_substitute_plays_on_and_the_one_who_left_is_rated_as_resigned(
    database: Database,
) -> None:
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL), channel=700)
    for _ in range(6):
        view = await step(service, view)
    bob_seat = seat_of(view, BOB)
    done = await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    assert done.seat == bob_seat
    assert done.in_user_id == DAVE
    view = done.view
    (dave,) = [p for p in view.players if p.user_id == DAVE]
    assert dave.seat == bob_seat
    assert dave.stands_in_for == BOB
    assert dave.name == "Dave"
    assert BOB not in [p.user_id for p in view.players]
    with pytest.raises(SubstituteError) as refused:
        await service.substitutes.substitute(view.id, CAROL, BOB, None, in_bot=False)
    assert refused.value.code == "already_in", "the one who left cannot come back in"
    view = await play_out(service, await service.play.look(view.id))  # Dave plays Bob's seat
    assert view.status is GameStatus.OVER

    rated = await rated_rows(database, view.id)
    assert set(rated) == {HOST, BOB, CAROL}, "the substitute is rated for nothing"
    assert rated[BOB] == 3, "nobody was out when Bob left: he counts as the first out, last"
    assert sorted([rated[HOST], rated[CAROL]]) in ([1, 2], [1, 1])
    assert (await service.ratings.player(GUILD, DAVE)).games == 0
    assert (await service.ratings.player(GUILD, BOB)).games == 1

    stats = StatsService(StatsStore(database))
    bob = await stats.player(GUILD, BOB)
    assert (bob.games, bob.wins) == (1, 0), "Bob's game counts, as a loss"
    dave_stats = await stats.player(GUILD, DAVE)
    assert dave_stats.games == 0
    (finished,) = dave_stats.finished_for
    assert finished.game_id == view.id
    assert finished.for_user_id == BOB
    assert view.state is not None
    assert view.state.outcome is not None
    places = {s: n for n, group in enumerate(view.state.outcome.ranking, 1) for s in group}
    assert finished.place == places[bob_seat]
    bob_reliability, dave_reliability = await stats.reliability(GUILD, [BOB, DAVE])
    assert bob_reliability.substituted_away == 1, "Bob left the game unfinished"
    assert dave_reliability.turns == 0, "the seat's turns are not the substitute's record"


async def test_the_game_record_names_the_substitute_in_the_seat_they_took_over(
    database: Database,
) -> None:
    """`user_ids` in the record (the JSON file of the game) is who holds each seat: the
    substitute, not the person who left it, and nobody (null) for an AI seat."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB), channel=723, ais=("easy",))
    done = await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    (ai_seat,) = [p.seat for p in done.view.players if p.user_id is None]
    holders = {seat_of(view, HOST): HOST, seat_of(view, BOB): DAVE, ai_seat: None}
    record = await service.play.record(view.id)
    assert record["user_ids"] == [holders[seat] for seat in range(3)]


async def test_a_substitute_in_a_coached_game_has_every_hint_of_a_person_of_their_own(
    database: Database,
) -> None:
    """Each person may ask for HINTS_PER_GAME hints a game (docs/coach.md): Bob used all of
    his, and Dave, who takes his seat, has all of his own, in the game as held in memory, as
    read again, and when he asks."""
    service = service_on(database)
    lobby = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=724, host_id=HOST, seats=2, coach=True
    )
    await service.lobby.join(lobby.id, BOB)
    view = await service.lobby.start(lobby.id, HOST)
    for _ in range(HINTS_PER_GAME):
        assert await service.hints.take(view.id, BOB) is not None
    assert await service.hints.take(view.id, BOB) is None, "Bob's hints are used up"
    done = await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    for seen in (done.view, await service_on(database).play.look(view.id)):
        (dave,) = [p for p in seen.players if p.user_id == DAVE]
        assert dave.hints_used == 0
    assert await service.hints.take(view.id, DAVE) == HINTS_PER_GAME - 1


async def test_bad_substitutions_are_refused_and_change_nothing(database: Database) -> None:
    service = service_on(database)
    view = await opened(service, (HOST, BOB), channel=701)
    cases = [
        (BOB, HOST, False, "already_in"),
        (BOB, BOB, False, "already_in"),
        (BOB, DAVE, True, "bot"),
        (DAVE, ERIN, False, "not_in"),
    ]
    for out, came, bot, code in cases:
        with pytest.raises(SubstituteError) as refused:
            await service.substitutes.substitute(view.id, out, came, None, in_bot=bot)
        assert refused.value.code == code
    assert await service.play.look(view.id) == view
    view = await play_out(service, view)
    with pytest.raises(GameNotRunningError):
        await service.substitutes.substitute(view.id, BOB, DAVE, None, in_bot=False)


async def test_a_seat_that_went_out_of_the_game_is_not_handed_over(database: Database) -> None:
    # A seat out of the game is no seat still in it: handed over, its newcomer would be shown
    # as finishing it, and the one who left rated as if they had resigned.
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL), channel=720)
    loaded = service.loader.in_memory(view.id)
    assert loaded is not None
    assert loaded.state is not None
    out = seat_of(view, BOB)
    assert out is not None
    assert out != loaded.state.to_move
    # Bob's seat could not pay (R9): it is out, though he never resigned.
    service.loader.keep(replace(loaded, state=loaded.state._replace(eliminated=(out,))))
    with pytest.raises(SubstituteError) as refused:
        await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    assert refused.value.code == "not_in"
    with pytest.raises(SubstituteError) as refused:
        await service.substitutes.ask(view.id, HOST, BOB, DAVE, "Dave", in_bot=False)
    assert refused.value.code == "not_in"
    seats = await service.loader.store.seats(view.id)
    assert DAVE not in [seat.user_id for seat in seats], "nothing changed"


async def test_the_host_hands_a_seat_over_once_the_others_agree(database: Database) -> None:
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=702)
    with pytest.raises(HostOnlyError):
        await service.substitutes.ask(view.id, BOB, CAROL, ERIN, None, in_bot=False)
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    assert asked.handover is None
    assert set(asked.request.missing) == {CAROL, DAVE}
    with pytest.raises(SubstituteError) as refused:
        await service.substitutes.answer(asked.request.id, BOB, agree=True)
    assert refused.value.code == "not_asked"
    first = await service.substitutes.answer(asked.request.id, CAROL, agree=True)
    assert first.handover is None
    assert first.request.missing == (DAVE,)
    again = await service.substitutes.answer(asked.request.id, CAROL, agree=True)
    assert again.request.missing == (DAVE,), "a second press counts once"
    last = await service.substitutes.answer(asked.request.id, DAVE, agree=True)
    assert last.handover is not None
    assert last.request.status == "done"
    assert seat_of(last.handover.view, ERIN) is not None
    with pytest.raises(SubstituteError) as closed:
        await service.substitutes.answer(asked.request.id, DAVE, agree=True)
    assert closed.value.code == "request_done"


async def test_the_requests_of_a_game_that_ended_are_closed_once_with_their_messages(
    database: Database,
) -> None:
    """A game that ends closes its open requests (each once, whichever process asks first);
    a request of a game still running, or one already answered, stays as it is."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL), channel=707)
    other = await opened(service, (HOST, BOB, CAROL), channel=708)
    asked = await service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    refused = await service.substitutes.ask(view.id, HOST, CAROL, DAVE, None, in_bot=False)
    await service.substitutes.answer(refused.request.id, BOB, agree=False)
    running = await service.substitutes.ask(other.id, HOST, BOB, DAVE, None, in_bot=False)
    assert await service.substitutes.replace_message(
        asked.request.id, 9001, asked.request.waiting_for, None
    )
    assert await service.substitutes.close_for_ended_games() == []

    await service.play.abort(view.id, HOST)
    closed = await service.substitutes.close_for_ended_games(view.id)
    assert [(r.id, r.status, r.message_id) for r in closed] == [(asked.request.id, "failed", 9001)]
    assert await service.substitutes.close_for_ended_games() == [], "closed once"
    assert (await service.substitutes.request(running.request.id)).status == "open"
    assert (await service.substitutes.request(refused.request.id)).status == "refused"


async def test_the_requests_of_a_game_that_ended_on_the_board_are_closed_with_their_messages(
    database: Database,
) -> None:
    """A game played to its end closes its open requests as an aborted one does: its
    request's message is given back to be shown closed, rather than keep Agree and Refuse
    under a finished game."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL), channel=724)
    asked = await service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    assert await service.substitutes.replace_message(
        asked.request.id, 9002, asked.request.waiting_for, None
    )
    view = await play_out(service, view)
    assert view.status is GameStatus.OVER
    closed = await service.substitutes.close_for_ended_games(view.id)
    assert [(r.id, r.status, r.message_id) for r in closed] == [(asked.request.id, "failed", 9002)]
    assert (await service.substitutes.request(asked.request.id)).status == "failed"


async def test_the_host_who_leaves_hands_the_hosting_over_too(database: Database) -> None:
    service = service_on(database)
    view = await opened(service, (HOST, BOB), channel=706)
    done = await service.substitutes.substitute(view.id, HOST, DAVE, None, in_bot=False)
    assert done.view.game.host_id == DAVE
    with pytest.raises(HostOnlyError):
        await service.play.abort(view.id, HOST)  # no way out of a loss by ending the game
    assert (await service.play.look(view.id)).status is GameStatus.RUNNING


async def test_one_refusal_or_the_time_running_out_cancels_a_request(table: Table) -> None:
    service = table.service
    view = await opened(service, (HOST, BOB, CAROL), channel=703)
    asked = await service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    refused = await service.substitutes.answer(asked.request.id, CAROL, agree=False)
    assert refused.request.status == "refused"
    assert refused.handover is None
    assert seat_of(await service.play.look(view.id), DAVE) is None
    asked = await service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    table.clock.advance(REQUEST_HOURS * 3600)
    with pytest.raises(SubstituteError) as late:
        await service.substitutes.answer(asked.request.id, CAROL, agree=True)
    assert late.value.code == "request_expired"
    assert seat_of(await service.play.look(view.id), DAVE) is None


async def test_a_host_s_request_waits_24_hours_for_the_agreements(table: Table) -> None:
    """The time docs/async.md gives a request: 24 hours, then it is cancelled."""
    service = table.service
    view = await opened(service, (HOST, BOB, CAROL), channel=705)
    asked_at = table.clock.now
    asked = await service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    assert asked.request.expires_at == asked_at + timedelta(hours=24)
    table.clock.now = asked_at + timedelta(hours=24)
    with pytest.raises(SubstituteError) as late:
        await service.substitutes.answer(asked.request.id, CAROL, agree=True)
    assert late.value.code == "request_expired"
    assert seat_of(await service.play.look(view.id), DAVE) is None


async def test_a_seat_the_ai_took_over_is_handed_over_and_its_clock_starts_anew(
    table: Table,
) -> None:
    service = table.service
    view = await humans(table, (HOST, BOB), channel=704)
    view = await at_the_ai_s_turn_in_their_seat(table, view, BOB)
    (bob,) = [p for p in view.players if p.user_id == BOB]
    assert bob.autoplay
    games = GameStore(table.database)
    row = await games.get(view.id)
    assert row is not None
    assert row.due_at == table.clock.now
    done = await service.substitutes.substitute(view.id, BOB, DAVE, None, in_bot=False)
    (dave,) = [p for p in done.view.players if p.user_id == DAVE]
    assert not dave.autoplay, "the AI no longer plays the seat"
    assert dave.timeouts == 0
    view = await service.play.look(view.id)
    assert view.user_to_move == DAVE
    assert view.game.turn_limit_seconds == LIMIT
    row = await games.get(view.id)
    assert row is not None
    due_at = row.due_at
    assert due_at == table.clock.now + timedelta(seconds=LIMIT), "Dave's turn, its clock anew"
    table.clock.advance(LIMIT - 1)
    await run_until_quiet(table)
    view = await service.play.look(view.id)
    assert view.user_to_move == DAVE, "the AI no longer plays it: Dave's turn waits for him"
    view = await play_turn(table, view, DAVE)
    assert view.user_to_move != DAVE


async def test_the_newcomer_to_a_seat_on_its_turn_is_reminded_at_half_its_time(
    table: Table,
) -> None:
    """The turn's clock starts anew for the newcomer, its reminder with it: they are new to
    the game, and pinged once half of their time is gone."""
    view = await humans(table, (HOST, BOB), channel=725)
    view = await at_the_ai_s_turn_in_their_seat(table, view, BOB)
    reminded = len(table.reminders)
    done = await table.service.substitutes.substitute(view.id, BOB, DAVE, None, in_bot=False)
    assert done.view.user_to_move == DAVE
    table.clock.advance(LIMIT / 2 - 1)
    await run_until_quiet(table)
    assert table.reminders[reminded:] == [], "not before half the time"
    table.clock.advance(1)
    await run_until_quiet(table)
    assert [r.user_id for r in table.reminders[reminded:]] == [DAVE], "one reminder, Dave's"
    assert table.reminders[-1].deadline == table.clock.now + timedelta(seconds=LIMIT / 2)


async def test_a_seat_handed_over_in_a_paused_game_ends_the_pause_and_the_ai_plays_on_at_once(
    table: Table,
) -> None:
    """The AI plays every seat, so the game waits for a rejoin at an AI seat's turn: a person
    handed the host's seat plays again, so that turn's clock is no longer the pause's, and
    the AI plays it at once."""
    view = await human_vs_ai(table, "easy", limit=LIMIT)
    view = await time_out_three_times(table, view, HOST)
    assert view.paused_until is not None, "the AI plays every seat: the game waits"
    assert view.ai_to_move, "paused at the AI seat's turn"
    assert view.user_to_move is None, "an AI seat, not the host's handed-over one"
    done = await table.service.substitutes.substitute(view.id, HOST, DAVE, None, in_bot=False)
    assert done.view.paused_until is None, "a person plays again: no pause"
    await table.show(done.view)  # the turn's message drawn again for its new player
    row = await GameStore(table.database).get(view.id)
    assert row is not None
    assert row.due_at == table.clock.now, "the AI seat's turn is due at once"
    await run_until_quiet(table)
    view = await table.service.play.look(view.id)
    assert view.status is GameStatus.RUNNING
    assert view.user_to_move == DAVE, "the AI played its turn: Dave's turn now"


async def test_a_hand_over_on_a_game_that_moved_on_elsewhere_is_made_as_the_game_now_stands(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-over reads the game again when another process moved it on: after a move made
    there (before the read, or between the read and the write) the seat is handed over all the
    same; after the seat was handed over there, it is refused as the game now stands, naming
    the person who holds no seat, and the other process's choice stands."""
    one = service_on(database)
    other = service_on(database)
    view = await opened(one, (HOST, BOB), channel=705)
    await other.play.look(view.id)  # the second process has it in memory
    await step(one, view)  # ...and the first moves it on
    done = await other.substitutes.substitute(view.id, BOB, DAVE, None, in_bot=False)
    assert seat_of(done.view, DAVE) is not None, "it reads the game again, then hands over"
    with pytest.raises(SubstituteError):
        await one.substitutes.substitute(view.id, BOB, ERIN, None, in_bot=False)

    load = one.loader.load
    meanwhile: list[Callable[[], Awaitable[object]]] = []
    """What the other process does just after the first has read the game."""

    async def read_then_moved_on(game_id: int, row: GameRow | None = None) -> LoadedGame:
        loaded = await load(game_id, row)
        while meanwhile:
            await meanwhile.pop()()
        return loaded

    monkeypatch.setattr(one.loader, "load", read_then_moved_on)
    before = await other.play.look(view.id)
    meanwhile.append(lambda: step(other, before))
    moved = await one.substitutes.substitute(view.id, DAVE, ERIN, None, in_bot=False)
    assert not meanwhile, "a move was made elsewhere between the read and the write"
    after = await one.play.look(view.id)
    assert after.seq == before.seq + 1, "the move stands"
    assert moved.view.seq == after.seq
    assert seat_of(after, ERIN) == seat_of(before, DAVE), "the seat went to Erin all the same"
    assert seat_of(after, DAVE) is None

    meanwhile.append(lambda: other.substitutes.substitute(view.id, ERIN, CAROL, None, in_bot=False))
    with pytest.raises(SubstituteError) as refused:  # the seat was handed over elsewhere
        await one.substitutes.substitute(view.id, ERIN, FRANK, None, in_bot=False)
    assert refused.value.code == "not_in"
    view = await one.play.look(view.id)
    assert seat_of(view, CAROL) == seat_of(after, ERIN), "the seat is the other process's choice"
    assert seat_of(view, FRANK) is None
    assert seat_of(view, ERIN) is None


async def test_a_host_request_does_not_wait_for_a_player_the_ai_stands_in_for(
    table: Table,
) -> None:
    service = table.service
    view = await humans(table, (HOST, BOB, CAROL, DAVE), channel=707)
    view = await time_out_three_times(table, view, CAROL)
    assert [p.autoplay for p in view.players if p.user_id == CAROL] == [True]
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, None, in_bot=False)
    assert asked.request.waiting_for == (DAVE,), "Carol is away: not asked"
    done = await service.substitutes.answer(asked.request.id, DAVE, agree=True)
    assert done.handover is not None
    assert seat_of(done.handover.view, ERIN) is not None


async def test_a_host_request_does_not_wait_for_a_player_whose_seat_went_out_of_the_game(
    database: Database,
) -> None:
    """A seat that could not pay (R9) is out, though its person never resigned: they no
    longer play the game, so the request neither waits for them nor lets them refuse it."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=726)
    loaded = service.loader.in_memory(view.id)
    assert loaded is not None
    assert loaded.state is not None
    out, still_in = (CAROL, DAVE) if seat_of(view, CAROL) != loaded.state.to_move else (DAVE, CAROL)
    out_seat = seat_of(view, out)
    assert out_seat is not None
    service.loader.keep(replace(loaded, state=loaded.state._replace(eliminated=(out_seat,))))
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    assert asked.request.waiting_for == (still_in,), "the person whose seat is out is not asked"
    with pytest.raises(SubstituteError) as refused:
        await service.substitutes.answer(asked.request.id, out, agree=False)
    assert refused.value.code == "not_asked", "nor can they refuse it"
    done = await service.substitutes.answer(asked.request.id, still_in, agree=True)
    assert done.handover is not None
    assert seat_of(done.handover.view, ERIN) is not None


async def test_a_request_nobody_else_can_agree_to_is_refused_unless_the_ai_plays_the_seat(
    table: Table,
) -> None:
    # In a duel nobody but the host and the person leaving is in the game: the host alone
    # must not push a player who is still playing out of it, rated as resigned.
    service = table.service
    view = await humans(table, (HOST, BOB), channel=709)
    with pytest.raises(SubstituteError) as refused:
        await service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    assert refused.value.code == "nobody_to_agree"
    unchanged = await service.play.look(view.id)
    assert (unchanged.seq, unchanged.players) == (view.seq, view.players), "nothing changed"
    view = await time_out_three_times(table, view, BOB)  # gone: the AI plays the seat
    asked = await service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    assert asked.handover is not None, "a seat the AI plays needs nobody's agreement"
    assert seat_of(asked.handover.view, DAVE) is not None


@pytest.mark.parametrize(("who", "channel"), [(BOB, 710), (HOST, 712)], ids=["leaving", "host"])
async def test_the_person_leaving_and_the_host_may_refuse_but_not_agree(
    database: Database, who: int, channel: int
) -> None:
    """Neither is asked to agree; the person leaving may refuse (they are still here) and the
    host withdraw their request, with Refuse: it is closed as refused, Bob keeping the seat."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL), channel=channel)
    asked = await service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    with pytest.raises(SubstituteError) as not_asked:
        await service.substitutes.answer(asked.request.id, who, agree=True)
    assert not_asked.value.code == "not_asked"
    refused = await service.substitutes.answer(asked.request.id, who, agree=False)
    assert refused.request.status == "refused"
    assert (await service.substitutes.request(asked.request.id)).status == "refused"
    assert seat_of(await service.play.look(view.id), BOB) is not None


async def test_a_request_asks_who_plays_the_game_when_a_button_is_pressed(
    database: Database,
) -> None:
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=711)
    bob_out = await service.substitutes.ask(view.id, HOST, BOB, ERIN, None, in_bot=False)
    carol_out = await service.substitutes.ask(view.id, HOST, CAROL, FRANK, None, in_bot=False)
    assert set(carol_out.request.missing) == {BOB, DAVE}
    await service.substitutes.answer(bob_out.request.id, CAROL, agree=True)
    assert (await service.substitutes.answer(bob_out.request.id, DAVE, agree=True)).handover
    with pytest.raises(SubstituteError) as left:  # Bob left the game: no longer asked
        await service.substitutes.answer(carol_out.request.id, BOB, agree=True)
    assert left.value.code == "not_asked"
    erin = await service.substitutes.answer(carol_out.request.id, ERIN, agree=True)
    assert erin.handover is None, "Erin holds Bob's seat now: asked, and Dave still is"
    assert erin.request.missing == (DAVE,)
    done = await service.substitutes.answer(carol_out.request.id, DAVE, agree=True)
    assert done.handover is not None
    assert seat_of(done.handover.view, FRANK) is not None


async def test_a_seat_handed_over_twice_still_stands_for_the_one_who_left_first(
    database: Database,
) -> None:
    service = service_on(database)
    view = await opened(service, (HOST, BOB), channel=708)
    await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    done = await service.substitutes.substitute(view.id, DAVE, ERIN, "Erin", in_bot=False)
    (erin,) = [p for p in done.view.players if p.user_id == ERIN]
    assert erin.stands_in_for == BOB, "Bob left the seat: he is rated for it, not Dave"
    assert erin.left_with_out == 0
    reread = await service_on(database).play.look(view.id)
    assert [p.stands_in_for for p in reread.players if p.user_id == ERIN] == [BOB], "as stored"


async def test_a_seat_handed_over_again_after_a_resignation_is_rated_for_when_its_first_left(
    database: Database,
) -> None:
    """Bob left with nobody out; Carol resigned after him; then Dave handed the seat on. The
    game, played out by the same process (as it holds it in memory), rates Bob as out when he
    left: behind Carol, who went out after him."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL), channel=727)
    await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    await service.play.resign(view.id, CAROL)
    done = await service.substitutes.substitute(view.id, DAVE, ERIN, "Erin", in_bot=False)
    (erin,) = [p for p in done.view.players if p.user_id == ERIN]
    assert (erin.stands_in_for, erin.left_with_out) == (BOB, 0), "as when Bob left"
    view = await play_out(service, done.view)
    assert view.status is GameStatus.OVER
    rated = await rated_rows(database, view.id)
    assert rated == {HOST: 1, CAROL: 2, BOB: 3}, "Bob out first, Carol after him"


async def test_a_substitute_who_handed_the_seat_on_cannot_come_back_into_the_game(
    database: Database,
) -> None:
    """docs/async.md, Substitutes: a seat is never handed to someone who is or was in the
    game. Dave played Bob's seat between Bob and Erin; the seat's row names only Erin and Bob,
    yet Dave is refused Carol's seat, by the host's request or a moderator, and after a
    restart."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, FRANK), channel=709)
    await service.substitutes.substitute(view.id, BOB, DAVE, "Dave", in_bot=False)
    await service.substitutes.substitute(view.id, DAVE, ERIN, "Erin", in_bot=False)
    view = await service.play.look(view.id)
    for substitutes in (service.substitutes, service_on(database).substitutes):
        with pytest.raises(SubstituteError) as refused:
            await substitutes.substitute(view.id, CAROL, DAVE, "Dave", in_bot=False)
        assert (refused.value.code, refused.value.user_id) == ("already_in", DAVE)
        with pytest.raises(SubstituteError) as refused:
            await substitutes.ask(view.id, HOST, CAROL, DAVE, "Dave", in_bot=False)
        assert (refused.value.code, refused.value.user_id) == ("already_in", DAVE)
    assert await service.play.look(view.id) == view


async def test_a_host_who_resigned_can_no_longer_ask_for_a_seat_to_be_handed_over(
    database: Database,
) -> None:
    """A request whose host resigned is closed (the test above this one): one the host asks
    once out of the game is refused the same way, with nothing opened, rather than opened and
    carried out by the others' agreement."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=723)
    await service.play.resign(view.id, HOST)
    view = await service.play.look(view.id)
    with pytest.raises(SubstituteError) as refused:
        await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    assert refused.value.code == "host_out"
    assert await service.substitutes.after_seats_changed(view.id) == []
    assert await service.play.look(view.id) == view


async def test_open_requests_follow_the_people_a_hand_over_brings_in(database: Database) -> None:
    """A moderator hands an asked player's seat over: the request now waits for who came in
    (its message is to call them); one whose person leaving was handed away is closed. Before
    that, with nobody changed, neither is shown anew."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=712)
    carol_out = await service.substitutes.ask(view.id, HOST, CAROL, FRANK, None, in_bot=False)
    dave_out = await service.substitutes.ask(view.id, HOST, DAVE, 1007, None, in_bot=False)
    assert await service.substitutes.after_seats_changed(view.id) == [], (
        "both wait for whom their messages call: nothing to show anew"
    )
    await service.substitutes.substitute(view.id, DAVE, ERIN, None, in_bot=False)
    changed = {a.request.id: a for a in await service.substitutes.after_seats_changed(view.id)}
    assert set(changed[carol_out.request.id].request.missing) == {BOB, ERIN}
    assert changed[dave_out.request.id].request.status == "failed", "Dave holds no seat now"
    await service.substitutes.answer(carol_out.request.id, BOB, agree=True)
    done = await service.substitutes.answer(carol_out.request.id, ERIN, agree=True)
    assert done.handover is not None


async def test_a_request_everyone_still_asked_agreed_to_is_carried_out_when_the_last_leaves(
    database: Database,
) -> None:
    """Carol agreed, Dave had not; Dave resigns: everyone still asked has agreed, so the seat
    changes hands then, with no press left to make (the request would otherwise wait, asking
    no one, until it runs out)."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=721)
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    assert set(asked.request.missing) == {CAROL, DAVE}
    waiting = await service.substitutes.answer(asked.request.id, CAROL, agree=True)
    assert waiting.handover is None
    await service.play.resign(view.id, DAVE)
    (answer,) = await service.substitutes.after_seats_changed(view.id)
    assert answer.handover is not None, "Carol, the only one still asked, agreed: carried out"
    assert answer.request.status == "done"
    assert (await service.substitutes.request(asked.request.id)).status == "done"
    players = (await service.play.look(view.id)).players
    assert ERIN in [p.user_id for p in players]
    assert BOB not in [p.user_id for p in players]


async def test_a_request_for_a_seat_the_ai_plays_is_carried_out_when_the_last_asked_leaves(
    table: Table,
) -> None:
    """Bob ran out of time three times: the AI plays his seat, he is gone. The host's request
    for it waits for Carol and Dave, who both resign: nobody is left to ask, and, as a request
    with nobody to ask for a seat the AI plays is done at once, the seat changes hands."""
    service = table.service
    view = await humans(table, (HOST, BOB, CAROL, DAVE), channel=728)
    view = await time_out_three_times(table, view, BOB)
    assert [p.autoplay for p in view.players if p.user_id == BOB] == [True]
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    assert set(asked.request.missing) == {CAROL, DAVE}
    await service.play.resign(view.id, CAROL)
    await service.play.resign(view.id, DAVE)
    (answer,) = await service.substitutes.after_seats_changed(view.id)
    assert answer.closed_because is None
    assert answer.handover is not None, "the AI's seat needs nobody's agreement: carried out"
    assert answer.request.status == "done"
    assert (await service.substitutes.request(asked.request.id)).status == "done"
    players = (await service.play.look(view.id)).players
    assert ERIN in [p.user_id for p in players]
    assert BOB not in [p.user_id for p in players]


async def test_a_request_whose_host_resigned_is_closed_saying_so_and_hands_no_seat_over(
    database: Database,
) -> None:
    """The host asks for Bob's seat, then resigns: nobody still playing stands behind the
    request, so it closes as failed, saying the host left, and a later Agree pushes no one
    out (a host alone can never push a player out)."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=722)
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    assert set(asked.request.missing) == {CAROL, DAVE}
    await service.play.resign(view.id, HOST)
    (answer,) = await service.substitutes.after_seats_changed(view.id)
    assert answer.closed_because == "host_left"
    assert answer.handover is None
    assert answer.request.status == "failed"
    assert (await service.substitutes.request(asked.request.id)).status == "failed"
    with pytest.raises(SubstituteError) as closed:
        await service.substitutes.answer(asked.request.id, CAROL, agree=True)
    assert closed.value.code == "request_failed"
    view = await service.play.look(view.id)
    assert seat_of(view, ERIN) is None
    assert seat_of(view, BOB) is not None, "Bob still plays his seat"


async def test_the_last_two_agreements_pressed_at_once_hand_the_seat_over_once(
    database: Database,
) -> None:
    """Carol and Dave, the last two asked, press Agree at the same moment in two processes:
    each sees both agreements, and the guarded close decides which one carries the request
    out. The seat changes hands once, the request is done (for both presses: neither is told
    it still waits), and neither press fails."""
    service = service_on(database)
    other = service_on(database)  # another process
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=702)
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    agreed = 0
    both = asyncio.Event()
    for process in (service, other):
        store = process.substitutes._store
        plain = store.agree

        async def agree(request_id: int, user_id: int, plain: Any = plain) -> None:
            nonlocal agreed
            await plain(request_id, user_id)
            agreed += 1
            if agreed == 2:
                both.set()
            await both.wait()  # each press between its agreement and its read of them

        store.agree = agree  # type: ignore[method-assign]
    results = await asyncio.gather(
        service.substitutes.answer(asked.request.id, CAROL, agree=True),
        other.substitutes.answer(asked.request.id, DAVE, agree=True),
        return_exceptions=True,
    )
    assert not [r for r in results if isinstance(r, BaseException)], results
    answers = [r for r in results if not isinstance(r, BaseException)]
    assert [answer.handover is not None for answer in answers].count(True) == 1, results
    assert [answer.request.status for answer in answers] == ["done", "done"], "none still waits"
    request = await service.substitutes.request(asked.request.id)
    assert request.status == "done"
    assert seat_of(await service.play.look(view.id), ERIN) is not None


async def test_the_last_agreement_pressed_as_the_person_leaving_refuses_is_told_it_was_refused(
    database: Database,
) -> None:
    """Dave, the last one asked, presses Agree as Bob refuses: Bob's Refuse closes the request
    between Dave's agreement and its close. Dave is told the request was refused, never that
    it still waits (for nobody), and Bob keeps his seat."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=702)
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    await service.substitutes.answer(asked.request.id, CAROL, agree=True)
    store = service.substitutes._store
    plain = store.agree
    refused = asyncio.Event()

    async def agree(request_id: int, user_id: int) -> None:
        await plain(request_id, user_id)
        await refused.wait()  # Bob's Refuse lands between Dave's agreement and its close

    store.agree = agree  # type: ignore[method-assign]

    async def refuse() -> Answer:
        try:
            return await service.substitutes.answer(asked.request.id, BOB, agree=False)
        finally:
            refused.set()

    dave, bob = await asyncio.gather(
        service.substitutes.answer(asked.request.id, DAVE, agree=True),
        refuse(),
        return_exceptions=True,
    )
    assert not isinstance(bob, BaseException), bob
    assert bob.request.status == "refused"
    assert isinstance(dave, SubstituteError), dave
    assert dave.code == "request_refused"
    assert (await service.substitutes.request(asked.request.id)).status == "refused"
    assert seat_of(await service.play.look(view.id), ERIN) is None
    assert seat_of(await service.play.look(view.id), BOB) is not None, "Bob keeps his seat"


async def test_the_last_agreement_pressed_as_a_move_is_made_elsewhere_hands_the_seat_over(
    database: Database,
) -> None:
    """Dave, the last one asked, presses Agree in one process while a move is made in another,
    between the hand-over's read of the game and its write. The move leaves Bob's seat to hand
    over: read again, the seat goes to Erin, and the request is done, not failed."""
    service = service_on(database)
    other = service_on(database)  # another process
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=702)
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    await service.substitutes.answer(asked.request.id, CAROL, agree=True)
    store = service.substitutes._store
    plain = store.hand_over
    moved: list[GameView] = []

    async def moved_on_meanwhile(*args: Any, **kwargs: Any) -> GameRow:
        if not moved:  # the other process moves between this read and this write
            moved.append(await step(other, await other.play.look(view.id)))
        return await plain(*args, **kwargs)

    store.hand_over = moved_on_meanwhile  # type: ignore[method-assign]
    last = await service.substitutes.answer(asked.request.id, DAVE, agree=True)
    assert moved, "a move was made between the read and the write"
    assert last.handover is not None
    assert last.request.status == "done"
    after = await service.play.look(view.id)
    assert after.seq == moved[0].seq, "the move stands"
    assert seat_of(after, ERIN) is not None
    assert seat_of(after, BOB) is None
    assert (await service.substitutes.request(asked.request.id)).status == "done"


async def test_a_request_whose_newcomer_came_into_the_game_otherwise_is_closed_saying_so(
    database: Database,
) -> None:
    """The host asks to hand Bob's seat to Erin; before the others agree, a moderator hands
    Dave's seat to Erin. Erin is in the game now, so the request can no longer be carried out:
    it is closed as the seats change, saying Erin came in, rather than posted again asking Erin
    herself to agree; and Bob keeps his seat."""
    service = service_on(database)
    view = await opened(service, (HOST, BOB, CAROL, DAVE), channel=713)
    asked = await service.substitutes.ask(view.id, HOST, BOB, ERIN, "Erin", in_bot=False)
    await service.substitutes.substitute(view.id, DAVE, ERIN, "Erin", in_bot=False)
    (answer,) = await service.substitutes.after_seats_changed(view.id)
    assert answer.request.id == asked.request.id
    assert answer.handover is None
    assert (answer.request.status, answer.closed_because) == ("failed", "came_in")
    assert (await service.substitutes.request(asked.request.id)).status == "failed"
    after = await service.play.look(view.id)
    assert seat_of(after, BOB) == seat_of(view, BOB), "Bob keeps his seat"
