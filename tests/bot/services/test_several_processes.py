"""Several bot processes on one database (each back end): each process is a GameService with
a database connection (pool) of its own, as two processes would have. A process that fell
behind accepts the next legitimate click, and learns the hints used in the other; a message
recorded late, after the other moved the game on, leaves no older game in memory; each piece
of due work is claimed by one process, and taken over when its claim runs out; another
shard's due work (a display to repair included) is left to its own process for 5 s; a
reminder goes out once however the processes race; a start-up catch-up is done by the process
that claims the game; an AI turn whose seat was taken back or handed over in the other process
meanwhile is not played, nor is a paused game ended as abandoned once a person took a seat
back. Time only moves when a test moves it; nothing sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from bot.services import DueKind, DueWork, GameService, GameStatus, GameView, TurnReason
from bot.services.deadlines import DISPLAY_PATIENCE_SECONDS
from bot.services.errors import StaleBoardError
from bot.services.loader import CLAIM_LEASE_SECONDS
from bot.services.substitutes import Handover
from bot.storage import Database, GameStore, open_database
from bot.storage.game_rows import GameRow, ShardSet
from tests.bot.services.test_async_play import (
    BOB,
    CHANNEL,
    FAST_AI,
    GUILD,
    HOST,
    LIMIT,
    ManualClock,
    Table,
    human_vs_ai,
    humans,
    make_table,
    play_turn,
    seeds,
    two_humans,
)
from tests.bot.services.test_pause import at_the_ai_s_turn_in_their_seat, time_out_three_times
from tests.bot.services.test_service import DAVE, choose, started, step


@pytest.fixture
async def other_database(database_target: str) -> AsyncIterator[Database]:
    """A second connection (pool) to the test's database: another process's."""
    db = await open_database(database_target)
    yield db
    await db.close()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def first(database: Database, clock: ManualClock) -> Table:
    return make_table(database, clock)


@pytest.fixture
def second(other_database: Database, clock: ManualClock) -> Table:
    return make_table(other_database, clock)


# --- the cache is checked against the database ----------------------------------------------


async def test_a_process_that_fell_behind_accepts_the_next_move(
    database: Database, other_database: Database
) -> None:
    one = GameService(GameStore(database), seeds=seeds, ai_budget=FAST_AI)
    two = GameService(GameStore(other_database), seeds=seeds, ai_budget=FAST_AI)
    view = await started(one)
    assert (await two.play.look(view.id)).seq == view.seq  # both hold it in memory
    for _ in range(6):  # the processes take turns at handling clicks
        view = await step(one, view)
        view = await step(two, view)
    assert (await one.play.look(view.id)).state == view.state


async def test_a_seat_taken_back_elsewhere_is_seen(first: Table, second: Table) -> None:
    """A change to the seats alone (no move, same clock) reaches the other process's copy."""
    view = await two_humans(first)
    sleeper = view.user_to_move
    assert sleeper is not None
    for _ in range(3):  # three timeouts in a row hand the seat to the AI
        first.clock.advance(LIMIT)
        while await first.scheduler.run_due():
            pass
        view = await first.service.play.look(view.id)
        other = view.user_to_move
        if other != sleeper and other is not None:
            while view.user_to_move == other:
                view = await first.service.play.act(view.id, other, view.seq, choose(view))
            await first.show(view)
    before = await second.service.play.look(view.id)
    seat = before.seat_of(sleeper)
    away = before.player_at(seat)
    assert away is not None
    assert away.autoplay
    await first.service.play.rejoin(view.id, sleeper)
    after = await second.service.play.look(view.id)
    back = after.player_at(seat)
    assert back is not None
    assert not back.autoplay


async def test_a_message_recorded_elsewhere_is_seen(first: Table, second: Table) -> None:
    view = await two_humans(first)
    await second.service.play.look(view.id)
    await first.service.play.set_board_message(view.id, 4242, view.seq)
    assert (await second.service.play.look(view.id)).game.board_message_id == 4242


async def test_a_message_recorded_after_another_process_moved_the_game_on_shows_its_move(
    first: Table, second: Table
) -> None:
    """A slow post lands after the other process moved the game on: recording its message must
    not put the newer row on the older game in memory (a click at the current seq would be
    played on the old position)."""
    view = await two_humans(first)
    assert (await second.service.play.look(view.id)).seq == view.seq  # both hold it
    mover = view.user_to_move
    assert mover is not None
    moved = await second.service.play.act(view.id, mover, view.seq, choose(view))
    assert moved.seq > view.seq
    await first.service.play.set_board_message(view.id, 4242, view.seq)
    seen = await first.service.play.look(view.id)
    assert seen.seq == moved.seq
    assert seen.state == moved.state, "the game as the other process left it"


async def test_hints_used_in_one_process_are_known_to_another_holding_the_game(
    first: Table, second: Table
) -> None:
    """The hints used live with the seats, not in the game's row: taking them moves the
    game's `rev`, so the other process's copy is read again (a turn it posts offers no Hint to
    a person with none left), and the process that took them keeps its own copy."""
    view = await first.service.lobby.create_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=HOST,
        seats=2,
        turn_limit_seconds=LIMIT,
        coach=True,
    )
    await first.service.lobby.join(view.id, BOB)
    view = await first.service.lobby.start(view.id, HOST)
    mover = view.user_to_move
    assert mover is not None

    def hints_used(view: GameView) -> int:
        player = view.player_at(view.seat_of(mover))
        assert player is not None
        return player.hints_used

    assert hints_used(await second.service.play.look(view.id)) == 0  # held in memory there
    hints = first.service.hints
    while await hints.take(view.id, mover) is not None:
        pass  # every hint used, in the first process
    seen = await second.service.play.look(view.id)
    assert hints_used(seen) == hints.allowance
    mine = first.service.loader.in_memory(view.id)
    assert mine is not None
    assert (await first.service.play.look(view.id)).players == seen.players
    assert first.service.loader.in_memory(view.id) is mine, "its own copy kept, not rebuilt"


async def test_due_work_plays_the_game_another_process_moved_since_it_was_cached(
    first: Table, second: Table
) -> None:
    """Due work checks the cached game against the row its claim returned: a process holding
    an older copy plays the timeout on the game as the other process left it."""
    view = await two_humans(first)
    assert (await second.service.play.look(view.id)).seq == view.seq  # both hold it in memory
    mover = view.user_to_move
    assert mover is not None
    moved = await second.service.play.act(view.id, mover, view.seq, choose(view))
    await second.show(moved)
    first.clock.advance(LIMIT * 2)
    while await first.scheduler.run_due():
        pass
    assert first.turns, "the process holding the older copy played the timeout"
    assert all(turn.view.seq > moved.seq for turn in first.turns)
    assert (await first.service.play.look(view.id)).seq > moved.seq


async def test_due_work_sees_a_seat_taken_back_in_another_process_since_it_was_cached(
    first: Table, second: Table
) -> None:
    """Bob's seat, which the AI plays after his timeouts, is in the first process's memory
    when he takes it back in the second (no move: only the seats and the clock change). The
    first process's turn clock reminds Bob of his turn, then plays it, once it runs out, as
    his first timeout in a row, not as the AI's seat."""
    view = await two_humans(first)
    view = await at_the_ai_s_turn_in_their_seat(first, view, BOB)
    assert (await first.service.play.look(view.id)).seq == view.seq  # in the first's memory
    await second.service.play.rejoin(view.id, BOB)
    first.clock.advance(LIMIT / 2)
    while await first.scheduler.run_due():
        pass
    assert [reminder.user_id for reminder in first.reminders[-1:]] == [BOB]
    first.clock.advance(LIMIT / 2)
    while await first.scheduler.run_due():
        pass
    assert [(turn.user_id, turn.reason) for turn in first.turns[-1:]] == [(BOB, TurnReason.TIMEOUT)]
    seat = view.seat_of(BOB)
    bob = (await first.service.play.look(view.id)).player_at(seat)
    assert bob is not None
    assert (bob.autoplay, bob.timeouts) == (False, 1)


# --- an AI turn meets a change of its seat made elsewhere ----------------------------------


async def test_a_seat_taken_back_while_another_process_s_ai_plays_its_turn_stays_taken_back(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The AI plays Bob's seat after three timeouts, and its turn is due: the second process's
    AI plays it while, in the first, Bob types `/marrakech rejoin` and is told he has his seat
    back. A rejoin moves no seq, yet the AI's move, read before it, is refused (as a move
    another process made first: nothing is told), and the turn waits for Bob."""
    view = await two_humans(first)
    view = await at_the_ai_s_turn_in_their_seat(first, view, BOB)
    seat = view.seat_of(BOB)
    handed = view.player_at(seat)
    assert handed is not None
    assert handed.autoplay
    store = second.service.loader.store
    append = store.append_actions
    rejoined: list[GameView] = []

    async def taken_back_meanwhile(*args: Any, **kwargs: Any) -> GameRow:
        rejoined.append(await first.service.play.rejoin(view.id, BOB))  # while the AI thinks
        return await append(*args, **kwargs)

    monkeypatch.setattr(store, "append_actions", taken_back_meanwhile)
    with pytest.raises(StaleBoardError):
        await second.service.turns.play_due(view.id, view.seq)
    assert rejoined, "Bob was told he has his seat back"
    after = await first.service.play.look(view.id)
    assert after.seq == view.seq, "the AI's move was not logged"
    assert await first.service.play.rejoins_not_shown(view.id) == [BOB]
    await its_turn_waits_for(first, after, seat, BOB)


async def test_a_rejoin_whose_write_follows_another_process_s_ai_move_takes_the_seat_back(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other way round: Bob's rejoin reads the game, then the second process's AI plays
    his seat's turn, then the rejoin writes. The seat is still the AI's to give back, so Bob
    is told he has it, never an error, and the next turn of his seat waits for him."""
    view = await two_humans(first)
    view = await at_the_ai_s_turn_in_their_seat(first, view, BOB)
    seat = view.seat_of(BOB)
    store = first.service.loader.store
    set_clock = store.set_clock
    played: list[object] = []

    async def ai_moved_meanwhile(*args: Any, **kwargs: Any) -> GameRow:
        if not played:
            played.append(await second.service.turns.play_due(view.id, view.seq))
        return await set_clock(*args, **kwargs)

    monkeypatch.setattr(store, "set_clock", ai_moved_meanwhile)
    rejoined = await first.service.play.rejoin(view.id, BOB)
    assert len(played) == 1
    assert played[0] is not None, "the other process's AI played the turn"
    assert rejoined.seq > view.seq
    (bob,) = [p for p in rejoined.players if p.user_id == BOB]
    assert (bob.autoplay, bob.timeouts) == (False, 0)
    after = await first.service.play.look(view.id)
    assert after.player_at(seat) == bob


async def test_coming_back_while_another_process_moves_the_game_on_restarts_the_clock(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player to move in a game of three is away; they type `/marrakech back` in the
    first process, which reads the game, then another player resigns out of turn in the
    second before the clock is written. Coming back is never an error: the turn, still
    theirs, gets its clock back with the time it had left."""
    view = await humans(first, (HOST, BOB, DAVE))
    mover = view.user_to_move
    assert mover is not None
    leaver = next(user for user in (HOST, BOB, DAVE) if user != mover)
    first.clock.advance(100)
    await first.service.away.go_away(GUILD, mover, 2)
    first.clock.advance(3600)
    store = first.service.loader.store
    set_clock = store.set_clock
    resigned: list[GameView] = []

    async def resigned_meanwhile(*args: Any, **kwargs: Any) -> GameRow:
        if not resigned:
            resigned.append(await second.service.play.resign(view.id, leaver))
        return await set_clock(*args, **kwargs)

    monkeypatch.setattr(store, "set_clock", resigned_meanwhile)
    resumed = await first.service.away.come_back(GUILD, mover)
    assert len(resigned) == 1
    assert resigned[0].seq > view.seq, "the resignation moved the game on"
    assert [(game.game_id, game.left) for game in resumed] == [
        (view.id, timedelta(seconds=LIMIT - 100))
    ]
    row = await GameStore(first.database).get(view.id)
    assert row is not None
    assert row.due_at == first.clock.now + timedelta(seconds=LIMIT - 100)


async def moved_while_its_clock_is_set(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch, seconds: float
) -> tuple[GameView, list[GameView]]:
    """A game of two whose mover went away 100 s into their turn, `seconds` later, its stored
    moment due; the first process's next write of its clock finds that the mover played
    meanwhile in the second. The game, and (once written) the game as the second left it."""
    view = await two_humans(first)
    mover = view.user_to_move
    assert mover is not None
    first.clock.advance(100)
    await first.service.away.go_away(GUILD, mover, 2)
    first.clock.advance(seconds)
    store = first.service.loader.store
    set_clock = store.set_clock
    moved: list[GameView] = []

    async def played_meanwhile(*args: Any, **kwargs: Any) -> GameRow:
        if not moved:
            moved.append(await second.service.play.act(view.id, mover, view.seq, choose(view)))
        return await set_clock(*args, **kwargs)

    monkeypatch.setattr(store, "set_clock", played_meanwhile)
    return view, moved


async def test_a_timeout_checked_as_another_process_plays_the_turn_is_left_to_that_move(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn's stored end falls due while its player is away, so the first process sets
    its clock later; meanwhile the player, back at the table, moved in the second. The due
    work is refused as done by another (as play_due says), and the game is as the move left
    it: no AI move, no error."""
    view, moved = await moved_while_its_clock_is_set(first, second, monkeypatch, LIMIT)
    with pytest.raises(StaleBoardError):
        await first.service.turns.play_due(view.id, view.seq)
    (played,) = moved
    after = await first.service.play.look(view.id)
    assert (after.seq, after.state) == (played.seq, played.state)


async def test_a_reminder_checked_as_another_process_plays_the_turn_is_not_sent(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same with the turn's reminder: the game moved on, so there is none to send."""
    view, moved = await moved_while_its_clock_is_set(first, second, monkeypatch, LIMIT / 2)
    assert await first.service.turns.remind(view.id, view.seq) is None
    (played,) = moved
    assert (await first.service.play.look(view.id)).seq == played.seq


async def handed_to_dave_while_the_ai_plays(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch, view: GameView, leaving: int
) -> GameView:
    """Hand `leaving`'s seat to Dave in the first process while the second's AI plays the turn
    of `view`; the AI's move is refused. The game after, as the first process reads it."""
    store = second.service.loader.store
    append = store.append_actions
    handed: list[Handover] = []

    async def handed_over_meanwhile(*args: Any, **kwargs: Any) -> GameRow:
        done = await first.service.substitutes.substitute(
            view.id, leaving, DAVE, None, in_bot=False
        )
        handed.append(done)
        return await append(*args, **kwargs)

    monkeypatch.setattr(store, "append_actions", handed_over_meanwhile)
    with pytest.raises(StaleBoardError):
        await second.service.turns.play_due(view.id, view.seq)
    assert handed, "the seat was handed over"
    after = await first.service.play.look(view.id)
    assert after.seq == view.seq, "the AI's move was not logged"
    return after


async def its_turn_waits_for(first: Table, view: GameView, seat: int | None, user: int) -> None:
    """`seat`, whose turn it is in `view`, is `user`'s, a person playing it with no timeouts
    and a fresh clock, and `user` plays it."""
    assert seat is not None
    holder = view.player_at(seat)
    assert holder is not None
    assert (holder.user_id, holder.autoplay, holder.timeouts) == (user, False, 0)
    row = await GameStore(first.database).get(view.id)
    assert row is not None
    assert row.due_at == first.clock.now + timedelta(seconds=LIMIT), "the turn, its clock anew"
    played = await play_turn(first, view, user)
    assert played.user_to_move != user


async def test_a_seat_handed_over_while_another_process_s_ai_plays_its_turn_is_the_newcomer_s(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same with a hand-over, which moves no seq either: a moderator hands the seat the AI
    plays for Bob to Dave in the first process while the second's AI plays its turn. The AI's
    move is refused, and Dave's turn waits for him."""
    view = await two_humans(first)
    view = await at_the_ai_s_turn_in_their_seat(first, view, BOB)
    seat = view.seat_of(BOB)
    after = await handed_to_dave_while_the_ai_plays(first, second, monkeypatch, view, BOB)
    await its_turn_waits_for(first, after, seat, DAVE)


async def test_a_seat_handed_over_while_another_process_plays_its_timed_out_turn_is_the_newcomer_s(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same with a seat whose person's time just ran out, not yet handed to the AI: Dave
    comes in as its person held it (no timeouts, a person playing), so only who holds it tells
    the change. The AI's move is refused; it neither plays Dave's first turn nor counts a
    timeout against him, and Dave's turn waits for him."""
    view = await two_humans(first)
    mover = view.user_to_move
    assert mover is not None
    seat = view.seat_of(mover)
    first.clock.advance(LIMIT)  # the mover's time ran out: the AI's turn for them is due
    after = await handed_to_dave_while_the_ai_plays(first, second, monkeypatch, view, mover)
    await its_turn_waits_for(first, after, seat, DAVE)


async def test_a_host_s_request_for_a_seat_the_ai_plays_is_carried_out_as_the_ai_moves_elsewhere(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a duel the AI plays Bob's seat after his timeouts, so the host's request to hand it to
    Dave needs nobody's agreement. The second process's AI plays Bob's turn between the request's
    read of the game and its hand-over: read again, the seat goes to Dave all the same, the host
    is answered with the hand-over, and the request is stored as done (none is left done though
    no seat changed hands)."""
    view = await two_humans(first)
    view = await at_the_ai_s_turn_in_their_seat(first, view, BOB)
    seat = view.seat_of(BOB)
    store = first.service.substitutes._store
    hand_over = store.hand_over
    played: list[object] = []

    async def ai_moved_meanwhile(*args: Any, **kwargs: Any) -> GameRow:
        if not played:
            played.append(await second.service.turns.play_due(view.id, view.seq))
        return await hand_over(*args, **kwargs)

    monkeypatch.setattr(store, "hand_over", ai_moved_meanwhile)
    asked = await first.service.substitutes.ask(view.id, HOST, BOB, DAVE, None, in_bot=False)
    assert played, "the AI played Bob's turn meanwhile"
    assert played[0] is not None, "the AI played Bob's turn meanwhile"
    assert asked.handover is not None
    after = await first.service.play.look(view.id)
    assert after.seq > view.seq, "the AI's move stands"
    assert after.seat_of(DAVE) == seat
    async with first.database.reading() as conn:
        rows = await conn.fetch("SELECT status FROM seat_requests WHERE game_id = $1", view.id)
    assert [str(row[0]) for row in rows].count("done") == 1, rows


async def test_a_paused_game_whose_seat_is_taken_back_while_another_process_abandons_it_goes_on(
    first: Table, second: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The AI plays every seat, so the game waits for a rejoin; its wait is over, and the second
    process ends it as abandoned while, in the first, the host takes their seat back and is
    told so. The end is refused, and the game goes on."""
    view = await human_vs_ai(first, "easy", limit=LIMIT)
    view = await time_out_three_times(first, view, HOST)
    assert view.paused_until is not None
    first.clock.advance((view.paused_until - first.clock.now).total_seconds())
    store = second.service.loader.store
    end = store.end
    rejoined: list[GameView] = []

    async def taken_back_meanwhile(*args: Any, **kwargs: Any) -> GameRow:
        rejoined.append(await first.service.play.rejoin(view.id, HOST))
        return await end(*args, **kwargs)

    monkeypatch.setattr(store, "end", taken_back_meanwhile)
    with pytest.raises(StaleBoardError):
        await second.service.turns.play_due(view.id, view.seq)
    assert rejoined, "the host was told they have their seat back"
    after = await first.service.play.look(view.id)
    assert after.status is GameStatus.RUNNING
    assert after.paused_until is None
    host = after.player_at(after.seat_of(HOST))
    assert host is not None
    assert not host.autoplay


# --- due work is claimed once ----------------------------------------------------------------


async def test_an_ai_turn_is_claimed_by_one_process(first: Table, second: Table) -> None:
    view = await human_vs_ai(first, "easy")
    if not view.ai_to_move:
        view = await first.service.play.act(view.id, mover(view), view.seq, choose(view))
        view = await first.service.play.act(view.id, mover(view), view.seq, choose(view))
        await first.show(view)
    assert view.ai_to_move
    due = await first.service.turns.due_work()
    assert due == [DueWork(view.id, view.seq, DueKind.PLAY)]
    assert await second.service.turns.due_work() == [], "the first process holds it"
    assert await second.scheduler.run_due() == 0
    assert await second.scheduler.seconds_to_sleep() == CLAIM_LEASE_SECONDS, (
        "the other process looks again when the claim runs out"
    )
    await first.service.turns.release(due[0])
    assert await second.service.turns.due_work() == due, "released: anyone may take it"


async def test_work_of_a_process_that_died_is_taken_over_when_its_claim_runs_out(
    first: Table, second: Table
) -> None:
    view = await two_humans(first)
    mover = view.user_to_move
    first.clock.advance(LIMIT)
    (work,) = await first.service.turns.due_work()
    assert work.kind is DueKind.PLAY
    # the first process is killed here, before doing it: its claim is never released
    assert await second.scheduler.run_due() == 0
    second.clock.advance(CLAIM_LEASE_SECONDS - 1)
    assert await second.scheduler.run_due() == 0
    second.clock.advance(1)
    assert await second.scheduler.run_due() == 1
    assert [(turn.user_id, turn.view.seq > view.seq) for turn in second.turns] == [(mover, True)]
    assert first.turns == []


async def test_a_claim_holds_for_sixty_seconds(first: Table, second: Table) -> None:
    view = await two_humans(first)
    first.clock.advance(LIMIT)
    (work,) = await first.service.turns.due_work()
    assert work.kind is DueKind.PLAY
    # the first process is killed here, before doing it: its claim is never released
    second.clock.advance(59)
    assert await second.scheduler.run_due() == 0
    second.clock.advance(1)
    assert await second.scheduler.run_due() == 1
    assert [turn.view.seq > view.seq for turn in second.turns] == [True]


async def test_both_processes_running_their_schedulers_play_each_turn_once(
    first: Table, second: Table
) -> None:
    view = await human_vs_ai(first, "easy", "easy")
    for _ in range(20):
        done = await asyncio.gather(first.scheduler.run_due(), second.scheduler.run_due())
        if list(done) == [0, 0]:
            break
    turns = first.turns + second.turns
    assert turns, "the AI played"
    seqs = [turn.view.seq for turn in turns]
    assert len(seqs) == len(set(seqs)), "no turn played twice"
    final = await first.service.play.look(view.id)
    assert final.user_to_move == HOST or final.status is not GameStatus.RUNNING


def shard_zero_of_two(database: Database, clock: ManualClock) -> GameService:
    """The services of a process holding shard 0 of 2, on `clock`."""
    return GameService(
        GameStore(database),
        clock=clock,
        seeds=seeds,
        ai_budget=FAST_AI,
        owner="shard-0",
        shards=ShardSet(2, (0,)),
    )


async def test_another_shard_s_due_work_is_left_to_its_own_process_for_five_seconds(
    database: Database,
) -> None:
    """A process holding shard 0 of 2 runs a game of a server on shard 1 (its own process
    posts and edits in that channel, within the rate limits it knows): the game's due
    reminder is that process's first, and taken here only once it is 5 s overdue: this
    process plans to look then, not before (looking sooner would find nothing to take, and
    look again at once, until then)."""
    clock = ManualClock()
    mine = shard_zero_of_two(database, clock)
    their_guild = 1 << 22  # (guild_id >> 22) % 2 == 1
    view = await mine.lobby.create_lobby(
        guild_id=their_guild, channel_id=730, host_id=HOST, seats=2, turn_limit_seconds=LIMIT
    )
    await mine.lobby.join(view.id, BOB)
    view = await mine.lobby.start(view.id, HOST)
    await mine.play.set_board_message(view.id, 5000, view.seq)  # shown
    taken_at = clock() + timedelta(seconds=LIMIT / 2 + 5)
    assert await mine.turns.next_due() == taken_at
    clock.advance(LIMIT / 2)  # the reminder is due now
    assert await mine.turns.due_work() == [], "its own shard's process has it first"
    assert await mine.turns.next_due() == taken_at, "nothing to look at before"
    clock.advance(4)
    assert await mine.turns.due_work() == [], "4 s overdue: still its own process's"
    clock.advance(1)
    work = await mine.turns.due_work()
    assert [piece.game_id for piece in work] == [view.id], "5 s overdue: taken over"


async def test_another_shard_s_display_to_repair_is_left_to_its_own_process_for_five_seconds(
    database: Database,
) -> None:
    """A game of a server on shard 1 of 2 whose first turn never showed (its post failed):
    showing it is due work of its own, posted in that channel, so a process holding shard 0
    leaves it to the shard's own process for 5 s after the display's patience ran out, and
    plans to look then, not before."""
    clock = ManualClock()
    mine = shard_zero_of_two(database, clock)
    view = await mine.lobby.create_lobby(
        guild_id=1 << 22, channel_id=730, host_id=HOST, seats=2, turn_limit_seconds=LIMIT
    )
    await mine.lobby.join(view.id, BOB)
    started_at = clock()
    view = await mine.lobby.start(view.id, HOST)  # never shown
    patience = timedelta(seconds=DISPLAY_PATIENCE_SECONDS)
    assert await mine.turns.next_due() == started_at + patience + timedelta(seconds=5)
    clock.advance(DISPLAY_PATIENCE_SECONDS)
    assert await mine.turns.due_work() == [], "its own shard's process has it first"
    clock.advance(4)
    assert await mine.turns.due_work() == [], "4 s overdue: still its own process's"
    clock.advance(1)
    work = await mine.turns.due_work()
    assert [(piece.game_id, piece.kind) for piece in work] == [(view.id, DueKind.SHOW)]


# --- a reminder goes out once ----------------------------------------------------------------


async def test_two_processes_racing_send_one_reminder(first: Table, second: Table) -> None:
    view = await two_humans(first)
    await second.service.play.look(view.id)  # both hold the game in memory
    first.clock.advance(LIMIT / 2)
    sent = await asyncio.gather(
        first.service.turns.remind(view.id, view.seq),
        second.service.turns.remind(view.id, view.seq),
    )
    assert sum(reminder is not None for reminder in sent) == 1
    assert await first.service.turns.remind(view.id, view.seq) is None
    assert await second.service.turns.remind(view.id, view.seq) is None


# --- start-up catch-up ----------------------------------------------------------------------


async def test_a_game_behind_on_display_is_caught_up_by_one_process(
    first: Table, second: Table
) -> None:
    view = await two_humans(first)
    mover = view.user_to_move
    assert mover is not None
    view = await first.service.play.act(view.id, mover, view.seq, choose(view))  # never shown
    behind = await asyncio.gather(
        first.service.play.behind_on_display(), second.service.play.behind_on_display()
    )
    assert sorted(len(views) for views in behind) == [0, 1]
    (caught,) = behind[0] or behind[1]
    assert isinstance(caught, GameView)
    assert caught.seq == view.seq


async def test_a_lobby_due_to_lead_to_its_first_turn_is_caught_up_by_one_process(
    first: Table, second: Table
) -> None:
    """A started game's lobby whose edit to lead to its first turn Discord refused: of two
    processes starting together, one leads it there."""
    lobby = await first.service.lobby.create_lobby(
        guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, seats=2, turn_limit_seconds=LIMIT
    )
    await first.service.play.set_board_message(lobby.id, 600, lobby.seq, lobby=True)
    await first.service.lobby.join(lobby.id, BOB)
    view = await first.service.lobby.start(lobby.id, HOST)
    await first.service.play.set_board_message(view.id, 601, view.seq, lobby_linked=False)
    behind = await asyncio.gather(
        first.service.play.lobbies_behind(), second.service.play.lobbies_behind()
    )
    assert sorted(len(lobbies) for lobbies in behind) == [0, 1]
    ((caught, message_id),) = behind[0] or behind[1]
    assert (caught.id, message_id) == (view.id, 601)


def mover(view: GameView) -> int:
    user = view.user_to_move
    assert user is not None
    return user
