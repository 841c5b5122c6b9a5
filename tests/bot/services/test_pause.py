"""A game no person plays any more pauses at the start of the next round, waits for someone to
take their seat back (`rejoin`), and otherwise ends as abandoned, counted in no one's stats; a
game no person could come back to (every one resigned or out) is played to its end by the AI.
Through the service on a real database (each back end) with an injected clock
(bot.services.pause)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

import engine
from bot.services import (
    Abandoned,
    EndReason,
    GameStatus,
    GameView,
    StatsService,
    TurnReason,
    pause,
)
from bot.services.errors import StaleBoardError
from bot.services.player_games import PlayerGamesService
from bot.services.views import Player
from bot.storage import GameStore, StatsStore
from bot.storage.game_rows import GameRow
from bot.storage.players import PlayerStore
from bot.storage.values import time_to_column
from tests.bot.services.test_async_play import (
    BOB,
    GUILD,
    HOST,
    LIMIT,
    Table,
    human_vs_ai,
    humans,
    play_turn,
    run_until_quiet,
    two_humans,
)
from tests.bot.services.test_async_play import table as table  # the fixture
from tests.races import Race


async def time_out_three_times(table: Table, view: GameView, sleeper: int) -> GameView:
    """Let `sleeper` run out of time three turns in a row (the others play in between)."""
    for _ in range(3):
        await run_until_quiet(table)
        view = await table.service.play.look(view.id)
        while view.user_to_move != sleeper:
            other = view.user_to_move
            assert other is not None
            view = await play_turn(table, view, other)
            await run_until_quiet(table)
            view = await table.service.play.look(view.id)
        table.clock.advance(LIMIT)
        await table.scheduler.run_due()
    await run_until_quiet(table)
    return await table.service.play.look(view.id)


async def at_the_ai_s_turn_in_their_seat(table: Table, view: GameView, sleeper: int) -> GameView:
    """The game once `sleeper` ran out of time three turns in a row and the others played on to
    their seat's next turn, which the AI is to play at once."""
    view = await time_out_three_times(table, view, sleeper)
    while view.user_to_move != sleeper:
        mover = view.user_to_move
        assert mover is not None
        view = await play_turn(table, view, mover)
    return view


def round_begins(view: GameView) -> bool:
    state = view.state
    assert state is not None
    return state.to_move == next(
        seat
        for step in range(state.players)
        if not state.is_eliminated(seat := (state.config.first_player + step) % state.players)
    )


async def abandoned_after(table: Table, view: GameView, seconds: float) -> Abandoned:
    """The paused game `view` waits `seconds` (the AI plays nothing meanwhile), then ends as
    abandoned; how it was told."""
    moves = view.seq
    assert await table.scheduler.run_due() == 0, "a paused game waits: the AI does not play on"
    table.clock.advance(seconds - 1)
    assert await table.scheduler.run_due() == 0, "it waits the whole time"
    assert (await table.service.play.look(view.id)).seq == moves

    table.clock.advance(1)
    assert await table.scheduler.run_due() == 1
    (abandoned,) = table.abandoned
    assert abandoned.view.status is GameStatus.ABORTED
    assert abandoned.view.game.end_reason is EndReason.ABANDONED
    assert abandoned.view.seq == moves, "nothing was played"
    return abandoned


async def test_once_the_ai_plays_every_seat_the_game_pauses_at_the_round(table: Table) -> None:
    view = await human_vs_ai(table, "easy", limit=LIMIT)
    view = await time_out_three_times(table, view, HOST)
    assert view.status is GameStatus.RUNNING
    assert round_begins(view)
    assert view.paused_until == table.clock.now + timedelta(seconds=LIMIT)
    assert view.ai_to_move
    abandoned = await abandoned_after(table, view, LIMIT)
    assert abandoned.view.game.ended_by is None
    stats = StatsService(StatsStore(table.database))
    assert (await stats.player(GUILD, HOST)).games == 0, "an abandoned game counts for no one"
    (past,) = await stats.history(GUILD, None)
    assert past.end_reason == EndReason.ABANDONED


async def test_a_paused_game_without_a_turn_limit_ends_as_abandoned_after_a_day(
    table: Table,
) -> None:
    """No turn limit to wait by: the game waits a day for someone to take a seat back."""
    view = await human_vs_ai(table, "easy")
    await run_until_quiet(table)
    view = await table.service.play.look(view.id)
    assert view.user_to_move == HOST
    # The host's seat is handed to the AI as at a third timeout in a row: a game without a
    # limit has no clock to run out, so the turn is made due as if it had.
    async with table.database.transaction() as conn:
        await conn.execute(
            "UPDATE games SET due_at = $1, rev = rev + 1 WHERE id = $2",
            time_to_column(table.clock.now),
            view.id,
        )
        await conn.execute(
            "UPDATE seats SET timeouts = 2 WHERE game_id = $1 AND user_id = $2", view.id, HOST
        )
    await run_until_quiet(table)
    view = await table.service.play.look(view.id)
    assert view.status is GameStatus.RUNNING
    (host,) = [p for p in view.players if p.user_id == HOST]
    assert host.autoplay, "the AI plays the host's seat"
    assert round_begins(view)
    assert view.paused_until == table.clock.now + timedelta(days=1)
    await abandoned_after(table, view, timedelta(days=1).total_seconds())


async def test_rejoin_resumes_a_paused_game(table: Table) -> None:
    view = await human_vs_ai(table, "easy", limit=LIMIT)
    view = await time_out_three_times(table, view, HOST)
    assert view.paused_until is not None
    view = await table.service.play.rejoin(view.id, HOST)
    assert view.paused_until is None
    if view.user_to_move == HOST:
        assert await table.scheduler.run_due() == 0, "their own turn, on a fresh clock"
        view = await play_turn(table, view, HOST)
    await run_until_quiet(table)
    view = await table.service.play.look(view.id)
    assert view.user_to_move == HOST, "the AI played its turn; the person is called again"
    assert view.paused_until is None
    assert not table.abandoned


async def test_a_seat_taken_back_on_its_own_turn_is_the_person_s_on_a_fresh_clock(
    table: Table,
) -> None:
    # Left on the AI's clock, due now, the turn would be played for them at once, as a timeout.
    service = table.service
    view = await humans(table, (HOST, BOB), channel=740)
    view = await at_the_ai_s_turn_in_their_seat(table, view, BOB)
    games = GameStore(table.database)
    row = await games.get(view.id)
    assert row is not None
    assert row.due_at == table.clock.now, "the AI is to play it now"
    view = await service.play.rejoin(view.id, BOB)
    row = await games.get(view.id)
    assert row is not None
    assert row.due_at == table.clock.now + timedelta(seconds=LIMIT), "Bob's turn, its clock anew"
    seq = view.seq
    await run_until_quiet(table)
    view = await service.play.look(view.id)
    assert (view.seq, view.user_to_move) == (seq, BOB), "nothing played for Bob: his turn waits"
    (bob,) = [p for p in view.players if p.user_id == BOB]
    assert (bob.autoplay, bob.timeouts) == (False, 0)


async def test_a_seat_taken_back_at_the_moment_the_ai_plays_its_turn_is_the_person_s(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob types rejoin just as the AI is to play his seat's turn: one waits for the other
    under the game's lock, so the rejoin is written once, never read before the AI's move
    and written after it. Bob is told he has his seat back, and the AI's turn is played
    before it or dropped after it, never answered with anything else."""
    service = table.service
    view = await humans(table, (HOST, BOB), channel=742)
    view = await at_the_ai_s_turn_in_their_seat(table, view, BOB)
    race = Race()
    store = service.loader.store
    set_clock = race.write(store.set_clock)
    writes: list[int] = []

    async def counted(*args: Any, **kwargs: Any) -> GameRow:
        writes.append(args[0])
        return await set_clock(*args, **kwargs)

    monkeypatch.setattr(service.loader, "locked", race.lock(service.loader.locked))
    monkeypatch.setattr(store, "set_clock", counted)
    monkeypatch.setattr(store, "append_actions", race.write(store.append_actions))
    played, rejoined = await asyncio.gather(
        race.run(service.turns.play_due(view.id, view.seq)),
        race.run(service.play.rejoin(view.id, BOB)),
        return_exceptions=True,
    )
    assert isinstance(rejoined, GameView), rejoined
    assert not isinstance(played, BaseException) or isinstance(played, StaleBoardError), played
    view = await service.play.look(view.id)
    (bob,) = [p for p in view.players if p.user_id == BOB]
    assert (bob.autoplay, bob.timeouts) == (False, 0)
    assert writes == [view.id], "the rejoin was written once"


async def test_a_seat_taken_back_during_another_s_turn_leaves_that_turn_s_clock_alone(
    table: Table,
) -> None:
    """Bob takes his seat back while the host plays, reminded already at half time: the host's
    turn keeps its clock, with no second reminder, and runs out when it always would have."""
    view = await humans(table, (HOST, BOB), channel=741)
    view = await time_out_three_times(table, view, BOB)
    assert view.user_to_move == HOST
    table.clock.advance(LIMIT / 2)
    await run_until_quiet(table)
    assert [reminder.user_id for reminder in table.reminders] == [HOST]
    await table.service.play.rejoin(view.id, BOB)
    table.clock.advance(LIMIT / 2)
    await run_until_quiet(table)
    assert [reminder.user_id for reminder in table.reminders] == [HOST], "reminded once"
    last = table.turns[-1]
    assert (last.user_id, last.reason) == (HOST, TurnReason.TIMEOUT), "out of time on time"


async def test_a_person_still_playing_keeps_the_game_going(table: Table) -> None:
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    view = await time_out_three_times(table, view, sleeper)
    assert view.paused_until is None
    assert view.user_to_move not in (None, sleeper), "the other person is to play"


async def test_with_no_one_left_to_take_a_seat_back_the_ai_plays_the_game_to_its_end(
    table: Table,
) -> None:
    """The only person resigns: no one can come back, so nothing waits and nothing is
    abandoned. The AI seats play on, and the resignation counts as the place it gave."""
    view = await human_vs_ai(table, "easy", "easy")
    view = await table.service.play.resign(view.id, HOST)
    await table.show(view)
    await run_until_quiet(table)
    assert not table.abandoned
    view = await table.service.play.look(view.id)
    assert view.status is GameStatus.OVER
    state = view.state
    assert state is not None
    assert state.outcome is not None
    host_seat = next(player.seat for player in view.players if player.user_id == HOST)
    assert state.outcome.ranking[-1] == (host_seat,), "last: out before every AI seat"
    stats = StatsService(StatsStore(table.database))
    assert (await stats.player(GUILD, HOST)).games == 1, "the game counts"
    rating = await table.service.ratings.player(GUILD, HOST)
    assert rating.games == 1, "and is rated: the resignation is the last place"


async def test_the_last_person_who_could_rejoin_resigning_during_the_pause_lets_the_ai_play_on(
    table: Table,
) -> None:
    """The game waits at the round for the host to take their seat back; the host resigns
    instead, on an AI seat's turn. No one is left to wait for: the AI seats play the game to
    its end at once, rather than after the pause's wait, and nothing is abandoned."""
    view = await human_vs_ai(table, "easy", "easy", limit=LIMIT)
    view = await time_out_three_times(table, view, HOST)
    assert view.paused_until is not None
    assert view.ai_to_move, "the round opens at an AI seat: the resignation leaves it to move"
    moving = view.state.to_move if view.state is not None else None
    view = await table.service.play.resign(view.id, HOST)
    assert view.state is not None
    assert view.state.to_move == moving
    await table.show(view)
    await run_until_quiet(table)  # the clock has not moved
    view = await table.service.play.look(view.id)
    assert view.status is GameStatus.OVER
    assert not table.abandoned


async def test_the_last_person_playing_resigning_at_the_round_pauses_for_the_one_who_can_rejoin(
    table: Table,
) -> None:
    """Bob's seat went to the AI after his timeouts; the host, the last person playing,
    resigns as a round opens at a seat the AI plays. The game waits the turn limit for Bob to
    take his seat back, as any game no person plays does, rather than ending as abandoned at
    once."""
    view = await table.service.lobby.create_lobby(
        guild_id=GUILD, channel_id=743, host_id=HOST, seats=3, turn_limit_seconds=LIMIT
    )
    await table.service.lobby.join(view.id, BOB)
    await table.service.lobby.add_ai(view.id, HOST, "easy")
    view = await table.service.lobby.start(view.id, HOST)
    await table.show(view)
    view = await time_out_three_times(table, view, BOB)
    host_seat = view.seat_of(HOST)
    assert view.state is not None
    while not (round_begins(view) and view.state.to_move != host_seat):
        if view.state.to_move == host_seat:
            view = await play_turn(table, view, HOST)
        else:
            assert await table.scheduler.run_due() == 1, "the AI plays the seat's turn"
            view = await table.service.play.look(view.id)
        assert view.state is not None
    assert view.paused_until is None, "the host still plays"
    view = await table.service.play.resign(view.id, HOST)
    await table.show(view)
    assert view.paused_until == table.clock.now + timedelta(seconds=LIMIT)
    abandoned = await abandoned_after(table, view, LIMIT)
    assert abandoned.view.game.ended_by is None


def test_the_pause_rule() -> None:
    state = engine.new_game(engine.GameConfig(players=3))
    human = Player(1, 0)
    ai_seats = (Player(None, 1, ai_level="easy"), Player(None, 2, ai_level="hard"))
    handed = Player(1, 0, autoplay=True)
    assert state.to_move == 0
    assert not pause.is_paused((human, *ai_seats), state)
    assert pause.is_paused((handed, *ai_seats), state)
    assert pause.may_resume((handed, *ai_seats), state) == (1,)
    resigned = Player(1, 0, resigned=True)
    assert pause.may_resume((resigned, *ai_seats), state) == ()
    assert not pause.is_paused((resigned, *ai_seats), state), "no one to wait for: play on"
    out, _ = engine.resign(state, 0)  # out of the game, as a seat that could not pay is
    assert out.to_move == 1
    assert not pause.is_paused((human, *ai_seats), out), "no one to wait for: play on"
    assert not pause.is_paused((handed, *ai_seats), None), "a lobby never pauses"
    later = state
    while later.to_move == 0:  # seat 0 plays its turn: the round goes on with seat 1
        action = (
            engine.chance_outcomes(later)[0][0]
            if engine.current_player(later) == engine.CHANCE
            else engine.legal_actions(later)[0]
        )
        later, _ = engine.apply(later, action)
    assert not pause.is_paused((handed, *ai_seats), later), "the pause waits for the round's end"


def test_a_seat_the_ai_took_over_that_went_out_holds_nothing_up() -> None:
    # Its person can no longer take it back: were the game to wait for them, it would end
    # abandoned instead of being played to its end by the AI seats.
    state = engine.new_game(engine.GameConfig(players=3))
    handed = Player(1, 0, autoplay=True)
    ai_seats = (Player(None, 1, ai_level="easy"), Player(None, 2, ai_level="hard"))
    out, _ = engine.resign(state, 0)  # seat 0 out of the game, as a seat that could not pay is
    assert out.is_eliminated(0)
    assert out.to_move == 1, "a round begins at the first seat still in"
    assert pause.may_resume((handed, *ai_seats), out) == (), "no seat still in to take back"
    assert not pause.is_paused((handed, *ai_seats), out), "no one to wait for: play on"


def test_with_the_first_player_out_the_round_begins_at_the_next_seat_still_in() -> None:
    # Were the round to begin only at the first player's turn, a game whose first player is out
    # would never pause: the AI would play every seat to the end while its people are away.
    state = engine.new_game(engine.GameConfig(players=3))
    out, _ = engine.resign(state, 0)  # the first player is out of the game
    assert out.to_move == 1
    gone = Player(1, 0, resigned=True)
    handed = Player(2, 1, autoplay=True)  # the AI took this person's seat after their timeouts
    ai_seat = Player(None, 2, ai_level="hard")
    assert pause.may_resume((gone, handed, ai_seat), out) == (2,)
    assert pause.is_paused((gone, handed, ai_seat), out), "the round begins at seat 1: it waits"


def test_a_person_whose_seat_went_out_does_not_keep_the_game_from_pausing() -> None:
    # A person whose seat could not pay plays nothing, though they never resigned: were they
    # counted, the AI would play the other person's seat to the end while they are away.
    state = engine.new_game(engine.GameConfig(players=3))
    out, _ = engine.resign(state, 0)  # seat 0 out of the game, as a seat that could not pay is
    broke = Player(1, 0)  # its person, not resigned
    handed = Player(2, 1, autoplay=True)  # the AI took this person's seat after their timeouts
    ai_seat = Player(None, 2, ai_level="hard")
    assert not pause.played_by_people((broke, handed, ai_seat), out)
    assert pause.is_paused((broke, handed, ai_seat), out), "it waits for the one who can rejoin"


async def test_my_games_says_the_ai_has_my_seat(table: Table) -> None:
    """`/marrakech mygames` of a person whose seat the AI took after their timeouts: the AI
    plays it (they can take it back); not so for the other person."""
    view = await two_humans(table)
    listing = PlayerGamesService(table.service.loader, PlayerStore(table.database))
    view = await time_out_three_times(table, view, HOST)
    (game,) = await listing.open_games(GUILD, HOST)
    assert (game.yours_to_ai, game.paused) == (True, False)
    (other,) = [p.user_id for p in view.players if p.user_id not in (None, HOST)]
    assert not (await listing.open_games(GUILD, other))[0].yours_to_ai


async def test_my_games_says_a_paused_game_waits_for_me(table: Table) -> None:
    view = await human_vs_ai(table, "easy", limit=LIMIT)
    view = await time_out_three_times(table, view, HOST)
    assert view.paused_until is not None
    listing = PlayerGamesService(table.service.loader, PlayerStore(table.database))
    (game,) = await listing.open_games(GUILD, HOST)
    assert (game.yours_to_ai, game.paused) == (True, True)
