"""PlayerGamesService: a player's open games with whose turn each is, the direct message due
when their turn begins, with who paid them and whom they paid since their previous turn, and
the one when they are next."""

from __future__ import annotations

import engine
from bot.presentation.player_games import up_next_text
from bot.services import GameService, GameStatus
from bot.services.loaded import payments_since_last_turn
from bot.services.player_games import PlayerGamesService, next_seat
from bot.storage import Database
from bot.storage.players import PlayerStore
from engine import Color
from engine.events import Event
from tests.bot.services.test_async_play import Table, two_humans
from tests.bot.services.test_async_play import table as table
from tests.bot.services.test_pause import at_the_ai_s_turn_in_their_seat
from tests.bot.services.test_service import BOB, CAROL, CHANNEL, HOST, service_on, started, step

GUILD = 9


def players_of(service: GameService, database: Database) -> PlayerGamesService:
    return PlayerGamesService(service.loader, PlayerStore(database))


def paid(payer: int, payee: int, dirhams: int) -> engine.TaxPaid:
    return engine.TaxPaid(payer, payee, dirhams, dirhams, Color.RED, frozenset({1}))


def test_payments_count_from_the_seat_s_previous_turn_to_its_new_one() -> None:
    events: list[Event] = [
        engine.TurnStarted(0, 1),
        paid(0, 1, 9),  # before seat 0's previous turn: not counted
        engine.TurnStarted(0, 2),
        paid(0, 2, 2),  # seat 0 paid seat 2 on its own turn
        engine.TurnStarted(1, 3),
        paid(1, 0, 3),
        paid(1, 0, 0),  # nothing paid: not mentioned
        engine.TurnStarted(2, 4),
        paid(2, 0, 1),
        paid(2, 1, 4),  # between others: not seat 0's business
        engine.TurnStarted(1, 5),
        paid(1, 0, 2),
        engine.TurnStarted(0, 6),
    ]
    assert payments_since_last_turn(events, 0) == (((1, 5), (2, 1)), ((2, 2),))
    assert payments_since_last_turn(events[:3], 0) == ((), ((1, 9),))
    assert payments_since_last_turn(events[:2], 0) == ((), ()), "a first turn"
    assert payments_since_last_turn(events, 3) == ((), ())


async def test_open_games_list_lobbies_and_running_games_with_whose_turn(
    database: Database,
) -> None:
    service = service_on(database)
    players = players_of(service, database)
    view = await started(service, (HOST, BOB))
    lobby = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=777, host_id=BOB, seats=2, variant="standard"
    )
    await service.lobby.create_lobby(
        guild_id=GUILD + 1, channel_id=778, host_id=BOB, seats=2, variant="standard"
    )
    games = await players.open_games(GUILD, BOB)
    assert [(game.game_id, game.lobby) for game in games] == [(view.id, False), (lobby.id, True)]
    running = games[0]
    assert running.to_play is not None
    assert running.to_play.user_id == view.user_to_move
    assert games[1].to_play is None
    assert await players.open_games(GUILD, CAROL) == []

    await service.play.resign(view.id, HOST)  # two players: the game is over
    assert [game.game_id for game in await players.open_games(GUILD, HOST)] == []


async def test_a_game_the_person_resigned_from_is_not_among_their_open_games(
    database: Database,
) -> None:
    """A game of three goes on after one resigns: it stays among the others' open games, and
    leaves the open games of the one who resigned."""
    service = service_on(database)
    players = players_of(service, database)
    view = await started(service, (HOST, BOB, CAROL))
    assert [game.game_id for game in await players.open_games(GUILD, CAROL)] == [view.id]
    view = await service.play.resign(view.id, CAROL)
    assert view.status is GameStatus.RUNNING, "two players still in: the game goes on"
    assert await players.open_games(GUILD, CAROL) == []
    for user in (HOST, BOB):
        assert [game.game_id for game in await players.open_games(GUILD, user)] == [view.id]


async def test_a_turn_notice_is_due_only_to_an_opted_in_human_on_the_current_turn(
    database: Database,
) -> None:
    service = service_on(database)
    players = players_of(service, database)
    view = await started(service, (HOST, BOB, CAROL))
    mover = view.user_to_move
    assert mover is not None
    assert await players.turn_notice(view.id, view.seq, 42) is None, "not opted in"
    assert await players.set_turn_dms(mover, True)
    assert not await players.set_turn_dms(mover, True), "already on"
    notice = await players.turn_notice(view.id, view.seq, 42)
    assert notice is not None
    assert (notice.user_id, notice.message_id, notice.channel_id) == (
        mover,
        42,
        view.game.channel_id,
    )
    assert (notice.paid_to_you, notice.you_paid) == ((), ())
    assert await players.turn_notice(view.id, view.seq - 1, 42) is None, "an older message"
    assert await players.turn_dms_refused(mover)
    assert not await players.turn_dms_refused(mover), "told once"
    assert await players.turn_notice(view.id, view.seq, 42) is None


async def test_turn_notices_sum_what_the_log_paid_since_each_player_s_previous_turn(
    database: Database,
) -> None:
    service = service_on(database)
    players = players_of(service, database)
    users = (HOST, BOB, CAROL)
    for user in users:
        await players.set_turn_dms(user, True)
    view = await started(service, users)
    events: list[engine.events.Event] = list(view.turn_events)
    mentioned = 0
    for _ in range(120):
        before = view.state.turn if view.state is not None else None
        view = await step(service, view)
        events.extend(view.events)
        if view.status is not GameStatus.RUNNING:
            break
        assert view.state is not None
        if view.state.turn == before:
            continue
        notice = await players.turn_notice(view.id, view.seq, 1)
        assert notice is not None
        expected = payments_since_last_turn(events, notice.seat)
        assert (notice.paid_to_you, notice.you_paid) == expected
        mentioned += bool(expected[0] or expected[1])
    assert mentioned, "some payments were seen"


async def test_when_i_am_next_tells_the_person_after_a_person_s_turn_begins(
    database: Database,
) -> None:
    service = service_on(database)
    players = players_of(service, database)
    view = await started(service, (HOST, BOB, CAROL))
    state = view.state
    assert state is not None
    assert state.to_move is not None
    mover, after = view.user_to_move, view.user_at(next_seat(state) or 0)
    assert after is not None
    assert after != mover
    assert await players.turn_notices(view.id, view.seq, 42) == (None, None), "none asked"
    await players.set_notify(after, "next")
    notice, up_next = await players.turn_notices(view.id, view.seq, 42)
    assert notice is None, "the mover asked for nothing"
    assert up_next is not None
    assert (up_next.user_id, up_next.message_id, up_next.game_id) == (after, 42, view.id)
    assert "You are next in game" in up_next_text(up_next)
    await players.set_notify(after, "on")
    assert await players.turn_notices(view.id, view.seq, 42) == (None, None)


async def test_turning_direct_messages_off_stops_the_up_next_notice_too(
    database: Database,
) -> None:
    """`off` stops "you are next" as well as "your turn", and so does the bot turning a
    person's direct messages off once Discord refused one."""
    service = service_on(database)
    players = players_of(service, database)
    view = await started(service, (HOST, BOB, CAROL))
    state = view.state
    assert state is not None
    after = view.user_at(next_seat(state) or 0)
    assert after is not None
    await players.set_notify(after, "next")
    _, up_next = await players.turn_notices(view.id, view.seq, 42)
    assert up_next is not None
    assert up_next.user_id == after
    await players.set_notify(after, "off")
    assert await players.turn_notices(view.id, view.seq, 42) == (None, None)
    await players.set_notify(after, "next")
    assert await players.turn_dms_refused(after)
    assert await players.turn_notices(view.id, view.seq, 42) == (None, None), "turned off"


async def test_the_person_told_they_are_next_is_the_one_who_plays_next(
    database: Database,
) -> None:
    """At each turn of a whole game, "you are next" goes to the person whose turn follows. In
    the last round a seat that laid all its rugs takes no more turns (R9): its person is never
    told they are next, and after the last turn no one is."""
    service = service_on(database)
    players = players_of(service, database)
    view = await started(service, (HOST, BOB, CAROL))
    for user in (HOST, BOB, CAROL):
        await players.set_notify(user, "next")
    told: int | None = None
    turn, skipped = 0, 0
    while view.status is GameStatus.RUNNING:
        state = view.state
        assert state is not None
        if state.turn != turn:  # a turn begins
            if turn:
                assert told == view.user_to_move, (state.turn, told, view.user_to_move)
            _, up_next = await players.turn_notices(view.id, view.seq, 42)
            told = None if up_next is None else up_next.user_id
            turn = state.turn
            skipped += any(
                not state.is_eliminated(seat) and not state.rugs_in_hand(seat)
                for seat in range(state.players)
            )
        view = await step(service, view)
    assert told is None, "the last turn: no one is next"
    assert skipped, "the game reached a seat with no rugs left"


async def test_direct_messages_are_in_the_language_the_person_asked_for_them_in(
    database: Database,
) -> None:
    """A Ukrainian member on a French server asks for direct messages in Ukrainian: they come
    in Ukrainian; a choice made before the language was kept comes in the game's."""
    service = service_on(database)
    players = players_of(service, database)
    view = await started(service, (HOST, BOB, CAROL))
    state = view.state
    assert state is not None
    mover, after = view.user_to_move, view.user_at(next_seat(state) or 0)
    assert mover is not None
    assert after is not None
    await players.set_notify(mover, "on", "uk")
    await players.set_notify(after, "next", "fr")
    notice, up_next = await players.turn_notices(view.id, view.seq, 42)
    assert notice is not None
    assert up_next is not None
    assert (notice.locale, up_next.locale) == ("uk", "fr")
    await players.set_notify(mover, "on")
    notice, _ = await players.turn_notices(view.id, view.seq, 42)
    assert notice is not None
    assert notice.locale == view.game.locale, "no language given: the game's"


async def test_no_up_next_notice_after_a_seat_the_ai_took_over(table: Table) -> None:
    # After three timeouts the AI plays the seat at once: no "you are next" for the person
    # after it, and no "your turn" for the seat's own person.
    view = await at_the_ai_s_turn_in_their_seat(table, await two_humans(table), BOB)
    players = PlayerGamesService(table.service.loader, PlayerStore(table.database))
    await players.set_notify(HOST, "next")
    await players.set_notify(BOB, "on")
    assert await players.turn_notices(view.id, view.seq, 42) == (None, None)


async def test_no_up_next_notice_after_an_ai_seated_in_the_lobby(database: Database) -> None:
    # An AI seated in the lobby plays its turn at once: the person after it, who asked to be
    # told when they are next, is not told (their own turn's message follows).
    service = service_on(database)
    players = players_of(service, database)
    lobby = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, seats=3, variant="standard"
    )
    await service.lobby.join(lobby.id, BOB)
    await service.lobby.add_ai(lobby.id, HOST, "easy")
    view = await service.lobby.start(lobby.id, HOST)
    for user in (HOST, BOB):
        await players.set_notify(user, "next")
    while not view.ai_to_move:
        view = await step(service, view)
    state = view.state
    assert state is not None
    assert view.user_at(next_seat(state) or 0) in {HOST, BOB}, "a person plays after the AI"
    assert await players.turn_notices(view.id, view.seq, 42) == (None, None)


async def test_a_person_whose_seat_the_ai_plays_is_not_told_they_are_next(table: Table) -> None:
    # After three timeouts the AI plays Bob's seat at once: Bob, who asked to be told when he
    # is next, does not play next and is not told so.
    view = await at_the_ai_s_turn_in_their_seat(table, await two_humans(table), BOB)
    await table.scheduler.run_due()  # the AI plays Bob's seat
    view = await table.service.play.look(view.id)
    assert view.user_to_move == HOST
    assert not view.ai_to_move
    players = PlayerGamesService(table.service.loader, PlayerStore(table.database))
    await players.set_notify(BOB, "next")
    assert await players.turn_notices(view.id, view.seq, 42) == (None, None)
