"""What keeps several processes on one database apart, on both back ends: claims on games' due
work (taken once, given back, taken over once their lease runs out), the guarded mark of a
reminder sent, the seats' `rev`, and (PostgreSQL) the notification that wakes the other
processes' schedulers when one commits a change to the schedule."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.runtime.scheduler import Scheduler
from bot.services import GameService
from bot.services.views import DueWork
from bot.storage import (
    Database,
    GameStore,
    NewGame,
    NextMoments,
    ShardSet,
    TurnClock,
    open_database,
)
from bot.storage.database import Backend
from bot.storage.game_rows import SCHEDULE_CHANNEL
from tests.polling import until

T0 = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
T1 = datetime(2026, 1, 1, 0, 1, tzinfo=UTC)
T2 = datetime(2026, 1, 1, 0, 2, tzinfo=UTC)
T3 = datetime(2026, 1, 1, 0, 3, tzinfo=UTC)
LONG_AGO = datetime(2025, 1, 1, tzinfo=UTC)
WAIT_SECONDS = 30.0
"""How long a test waits at most for a notification (it comes at once; this is no timing)."""


def lobby(channel_id: int, guild_id: int = 1) -> NewGame:
    return NewGame(
        guild_id=guild_id,
        channel_id=channel_id,
        host_id=100,
        seats_wanted=2,
        variant="standard",
        turn_limit_seconds=600,
        seed="ab" * 16,
        seed_sha256="cd" * 32,
    )


async def due_game(store: GameStore, channel_id: int, clock: TurnClock, guild_id: int = 1) -> int:
    """A running game shown up to date, with `clock`, on server `guild_id`."""
    game = await store.create(lobby(channel_id, guild_id), T0)
    seats = await store.add_ai_seat(game.id, "easy", T0)
    await store.start(game.id, [seat.key for seat in seats], {}, {}, T0, clock)
    assert await store.set_board_message(game.id, 1000 + game.id, 0)
    return game.id


@pytest.fixture
async def other_db(database_target: str) -> AsyncIterator[Database]:
    """A second connection (pool) to the test's database: another process's."""
    database = await open_database(database_target)
    yield database
    await database.close()


async def test_due_work_is_claimed_by_one_owner_until_released(db: Database) -> None:
    store = GameStore(db)
    played = await due_game(store, 10, TurnClock(T0, None, T0))
    reminded = await due_game(store, 11, TurnClock(T0, T1, T3))
    later = await due_game(store, 12, TurnClock(T0, T3, T3))
    claimed = await store.claim_due(T1, LONG_AGO, "a", T2, 10)
    assert [game.id for game in claimed] == [played, reminded]
    assert await store.claim_due(T1, LONG_AGO, "b", T2, 10) == []
    assert [g.id for g in await store.claim_due(T1, LONG_AGO, "a", T2, 10)] == [played, reminded]
    assert await store.next_due(T1, "b") == T3, "b leaves a's games out"
    assert await store.next_due(T1, "a") == T0
    assert await store.next_lease_end(T1, "b") == T2
    assert await store.next_lease_end(T1, "a") is None
    assert await store.next_moments(T1, "b") == NextMoments(T3, None, T2), "in one statement"
    assert await store.next_moments(T1, "a") == NextMoments(T0, None, None)
    await store.release_claim(played, "b")  # not b's to release
    assert await store.claim_due(T1, LONG_AGO, "b", T2, 10) == []
    await store.release_claim(played, "a")
    assert [game.id for game in await store.claim_due(T1, LONG_AGO, "b", T2, 10)] == [played]
    assert later not in [game.id for game in await store.claim_due(T2, LONG_AGO, "c", T3, 10)]


async def test_a_games_due_work_is_its_own_shards_process_first(db: Database) -> None:
    """Of two processes holding shard 0 and shard 1 of 2, each claims its own servers' due
    work at once, and the other's only once it is overdue by the grace given; each plans its
    next look at its own games' work and at the others' apart."""
    store = GameStore(db)
    ours, theirs = (
        due_game(store, 10 + shard, TurnClock(T0, None, T1), shard << 22) for shard in (0, 1)
    )
    ours_id, theirs_id = await ours, await theirs
    first, second = ShardSet(2, (0,)), ShardSet(2, (1,))
    assert await store.next_moments(T0, "a", first) == NextMoments(T1, None, None, T1)
    assert [g.id for g in await store.claim_due(T2, LONG_AGO, "a", T3, 10, first, T0)] == [
        ours_id
    ], "not yet overdue by the grace: the other shard's game waits for its own process"
    assert [g.id for g in await store.claim_due(T2, LONG_AGO, "b", T3, 10, second, T0)] == [
        theirs_id
    ]
    await store.release_claim(theirs_id, "b")
    claimed = await store.claim_due(T2, LONG_AGO, "a", T3, 10, first, T1)
    assert [g.id for g in claimed] == [ours_id, theirs_id], "overdue by the grace: taken over"


async def test_a_games_display_to_repair_is_its_own_shards_process_first(db: Database) -> None:
    """Of two processes holding shard 0 and shard 1 of 2, each claims its own servers'
    changes never shown once the display's patience ran out (`changed_by`), and the other's
    only that much later again as the due work's grace (`others_by`); each plans its next look
    at its own games' changes and at the others' apart."""
    store = GameStore(db)
    ids = []
    for shard in (0, 1):  # started at T1, never shown
        game = await store.create(lobby(20 + shard, shard << 22), T0)
        seats = await store.add_ai_seat(game.id, "easy", T0)
        await store.start(game.id, [seat.key for seat in seats], {}, {}, T1, TurnClock())
        ids.append(game.id)
    ours_id, theirs_id = ids
    first, second = ShardSet(2, (0,)), ShardSet(2, (1,))
    # The display's patience ran out just now (changed_by = T1); the grace is T2 - T1.
    assert [g.id for g in await store.claim_due(T2, T1, "a", T3, 10, first, T1)] == [ours_id], (
        "not yet overdue by the grace: the other shard's game waits for its own process"
    )
    assert [g.id for g in await store.claim_due(T2, T1, "b", T3, 10, second, T1)] == [theirs_id]
    await store.release_claim(theirs_id, "b")
    claimed = await store.claim_due(T3, T2, "a", T3, 10, first, T2)
    assert [g.id for g in claimed] == [ours_id, theirs_id], "overdue by the grace: taken over"
    assert await store.next_moments(T1, "a", first) == NextMoments(
        None, T1, None, unshown_elsewhere=T1
    )


async def test_a_claim_whose_lease_ran_out_is_taken_over(db: Database) -> None:
    store = GameStore(db)
    game_id = await due_game(store, 10, TurnClock(T0, None, T0))
    assert [game.id for game in await store.claim_due(T0, LONG_AGO, "dead", T1, 10)] == [game_id]
    assert await store.claim_due(T0, LONG_AGO, "alive", T2, 10) == []
    assert not await store.claim(game_id, T0, "alive", T2)
    assert [game.id for game in await store.claim_due(T1, LONG_AGO, "alive", T2, 10)] == [game_id]
    assert await store.claim(game_id, T1, "alive", T3), "its own claim, renewed"
    assert not await store.claim(game_id, T2, "dead", T3)


async def test_a_limit_bounds_one_claim_and_unshown_games_are_claimed(db: Database) -> None:
    store = GameStore(db)
    ids = [await due_game(store, 10 + n, TurnClock(T0, None, T0)) for n in range(3)]
    unshown = await store.create(lobby(20), T0)
    seats = await store.add_ai_seat(unshown.id, "easy", T0)
    await store.start(unshown.id, [seat.key for seat in seats], {}, {}, T0, TurnClock())
    first = await store.claim_due(T1, T0, "a", T2, 2)
    second = await store.claim_due(T1, T0, "b", T2, 10)
    assert [game.id for game in first] == ids[:2]
    assert [game.id for game in second] == [ids[2], unshown.id]
    assert second[1].board_message_seq != second[1].seq


async def test_a_game_changed_after_changed_by_is_left_to_its_writer(db: Database) -> None:
    """A started game not yet shown is claimed to be shown only once its last change was made
    by `changed_by`: a change made since is still being shown by the process that made it."""
    store = GameStore(db)
    unshown = await store.create(lobby(20), T0)
    seats = await store.add_ai_seat(unshown.id, "easy", T0)
    await store.start(unshown.id, [seat.key for seat in seats], {}, {}, T1, TurnClock())
    assert await store.claim_due(T2, T0, "a", T3, 10) == []
    assert [game.id for game in await store.claim_due(T2, T1, "a", T3, 10)] == [unshown.id]


async def test_racing_claims_from_two_connections_share_nothing(
    db: Database, other_db: Database
) -> None:
    store, other = GameStore(db), GameStore(other_db)
    ids = [await due_game(store, 10 + n, TurnClock(T0, None, T0)) for n in range(12)]
    for _ in range(3):
        results = await asyncio.gather(
            *((store if n % 2 else other).claim_due(T1, LONG_AGO, f"p{n}", T2, 3) for n in range(6))
        )
        taken = [game.id for games in results for game in games]
        assert len(taken) == len(set(taken)), "no game claimed twice"
        assert sorted(taken) == ids
        for n, games in enumerate(results):
            for game in games:
                await (store if n % 2 else other).release_claim(game.id, f"p{n}")


async def test_a_reminder_is_marked_sent_once(db: Database, other_db: Database) -> None:
    store, other = GameStore(db), GameStore(other_db)
    game_id = await due_game(store, 10, TurnClock(T0, T1, T3))
    marked = await asyncio.gather(store.mark_reminded(game_id, 0), other.mark_reminded(game_id, 0))
    assert sum(game is not None for game in marked) == 1
    (game,) = [game for game in marked if game is not None]
    assert game.remind_at is None
    assert game.due_at == T3
    assert await store.mark_reminded(game_id, 0) is None
    fresh = await due_game(store, 11, TurnClock(T0, T1, T3))
    assert await store.mark_reminded(fresh, 5) is None, "the game is not at that seq"


async def test_seat_changes_move_the_rev(db: Database) -> None:
    store = GameStore(db)
    game = await store.create(lobby(10), T0)
    assert game.rev == 0
    await store.add_seat(game.id, 200, T0)
    joined = await store.get(game.id)
    assert joined is not None
    assert joined.rev == 1
    snapshot = await store.snapshot(game.id)
    assert snapshot is not None
    assert snapshot[0] == joined
    assert [seat.user_id for seat in snapshot[1]] == [100, 200]
    assert snapshot[2] == []
    assert await store.snapshot(game.id + 1) is None


# --- waking the other processes (PostgreSQL) -------------------------------------------------


@pytest.fixture
def listening_connections(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The connections opened from now on by `listen`, each as it is opened (the test's
    databases are open already, and their pools open theirs otherwise)."""
    opened: list[Any] = []
    connect = asyncpg.connect

    async def recording(*args: Any, **kwargs: Any) -> Any:
        connection = await connect(*args, **kwargs)
        opened.append(connection)
        return connection

    monkeypatch.setattr(asyncpg, "connect", recording)
    return opened


@pytest.mark.parametrize("backend", ["postgres"])
async def test_a_change_committed_by_one_process_wakes_the_others_scheduler(
    backend: Backend, db: Database, other_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite serves one process only; PostgreSQL tells every listening process. The other
    process's scheduler runs as the bot runs it, waiting to be woken (its game is due a year
    after its clock's time), and each look it takes at the due work is counted. This process
    holds a claim on the game from before the other listens, and gives it up last."""
    store, other = GameStore(db), GameStore(other_db)
    game_id = await due_game(store, 10, TurnClock(T0, T1, T3))
    assert await store.claim(game_id, LONG_AGO, "this process", T3)
    service = GameService(other, clock=lambda: LONG_AGO)
    looks = 0
    due_work = service.turns.due_work

    async def counted() -> list[DueWork]:
        nonlocal looks
        looks += 1
        return await due_work()

    async def handle(_work: object) -> None:
        raise AssertionError("nothing is run here")

    monkeypatch.setattr(service.turns, "due_work", counted)
    scheduler = Scheduler(service.turns, handle, service.loader.clock)
    scheduler.start()
    listening: asyncio.Task[None] | None = None
    try:
        await until(lambda: looks == 1, "the scheduler's first look")
        listening = asyncio.create_task(other.listen(scheduler.wake))  # as the bot wires it
        await until(lambda: looks == 2, "a look once the listener listens")
        await store.set_clock(game_id, 0, TurnClock(T0, T2, T3))
        await until(lambda: looks == 3, "a look after the other process changed the clock")
        assert await store.mark_reminded(game_id, 0) is not None
        await until(lambda: looks == 4, "a look after the other process sent the reminder")
        await store.release_claim(game_id, "this process")
        await until(lambda: looks == 5, "a look after the other process gave its claim up")
    finally:
        if listening is not None:
            listening.cancel()
            await asyncio.wait({listening})
        await scheduler.stop()


@pytest.mark.parametrize("backend", ["postgres"])
async def test_a_process_is_not_woken_by_its_own_changes(
    backend: Backend, db: Database, other_db: Database, listening_connections: list[Any]
) -> None:
    """It knows them already (bot.services.turn_clock): hearing them would only cost it a look
    at the database. Notifications reach the listening connection in the order of their
    commits, and each one's callbacks are queued together: once the last of three changes
    (its own, then two of the other process's) has reached the connection, every callback of
    the three has run, and the other process's two changes alone were passed on."""
    store, other = GameStore(db), GameStore(other_db)
    game_id = await due_game(store, 10, TurnClock(T0, T1, T3))
    heard: list[str] = []
    delivered: list[int] = []
    woken = asyncio.Event()

    def wake() -> None:
        heard.append("a change")
        woken.set()

    listening = asyncio.create_task(store.listen(wake))
    try:
        await asyncio.wait_for(woken.wait(), WAIT_SECONDS)  # told once it listens
        heard.clear()
        (connection,) = listening_connections
        await connection.add_listener(
            SCHEDULE_CHANNEL, lambda _connection, pid, _channel, _payload: delivered.append(pid)
        )
        await store.set_clock(game_id, 0, TurnClock(T0, T2, T3))  # this process's own change
        await other.set_clock(game_id, 0, TurnClock(T0, T1, T3))
        await other.set_clock(game_id, 0, TurnClock(T0, T2, T3))
        await until(lambda: len(delivered) == 3, "the three changes to reach the listener")
        assert heard == ["a change"] * 2, "the other process's changes alone"
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening


@pytest.mark.parametrize("backend", ["sqlite"])
async def test_listening_on_sqlite_does_nothing(backend: Backend, db: Database) -> None:
    """One process serves an SQLite file and knows its own changes: `listen` returns at once
    without calling back, and leaves nothing listening that a change would call."""
    store = GameStore(db)
    heard: list[str] = []
    await asyncio.wait_for(store.listen(lambda: heard.append("a change")), WAIT_SECONDS)
    assert heard == [], "called back on listening"
    game_id = await due_game(store, 10, TurnClock(T0, T1, T3))
    await store.set_clock(game_id, 0, TurnClock(T0, T2, T3))
    assert await store.mark_reminded(game_id, 0) is not None
    await asyncio.sleep(0)  # a callback the changes scheduled would run here
    assert heard == [], "called back on a change"


async def test_claims_left_by_a_run_that_stopped_are_dropped(db: Database) -> None:
    store = GameStore(db)
    game_id = await due_game(store, 10, TurnClock(T0, None, T0))
    assert await store.claim(game_id, T0, "stopped", T3)
    assert await store.drop_claims() == 1
    assert await store.claim(game_id, T0, "started", T3)
