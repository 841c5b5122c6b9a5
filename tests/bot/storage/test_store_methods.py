"""Every public method of the stores, on both back ends, with the answers the services rely on:
seats by key, the turn clock and what is due, what is not yet shown, the end of a game with its
results, guild settings and the stats over finished games; and games stopped early under an
older schema stay shown once it is upgraded."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.storage import (
    Database,
    EndReason,
    GameStatus,
    GameStore,
    GuildStore,
    NewAction,
    NewGame,
    NextMoments,
    ResultRow,
    SeatControl,
    StaleSeqError,
    StatsStore,
    TurnClock,
    open_database,
)

GUILD = 1
T0 = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
T1 = datetime(2026, 1, 1, 0, 1, tzinfo=UTC)
T2 = datetime(2026, 1, 1, 0, 2, tzinfo=UTC)
T3 = datetime(2026, 1, 1, 0, 3, tzinfo=UTC)
BIG = 1_234_567_890_123_456_789  # Discord ids need all 64 bits


def lobby(channel_id: int, host_id: int = 100) -> NewGame:
    return NewGame(
        guild_id=GUILD,
        channel_id=channel_id,
        host_id=host_id,
        seats_wanted=3,
        variant="rotate-after",
        turn_limit_seconds=600,
        seed="ab" * 16,
        seed_sha256="cd" * 32,
        locale="fr",
        host_name="Host",
    )


async def started(store: GameStore, channel_id: int, clock: TurnClock | None = None) -> int:
    game = await store.create(lobby(channel_id), T0)
    seats = await store.add_seat(game.id, BIG, T0, "Big")
    await store.start(game.id, [seat.key for seat in seats], {}, "p0", T0, clock)
    return game.id


async def test_lobby_seats_by_key_and_by_user(db: Database) -> None:
    store = GameStore(db)
    game = await store.create(lobby(10), T0)
    assert (game.status, game.locale, game.variant, game.turn_limit_seconds) == (
        GameStatus.LOBBY,
        "fr",
        "rotate-after",
        600,
    )
    await store.add_seat(game.id, BIG, T1, "Big")
    seats = await store.add_ai_seat(game.id, "hard", T2)
    assert [(s.user_id, s.ai_level, s.display_name, s.seat) for s in seats] == [
        (100, None, "Host", None),
        (BIG, None, "Big", None),
        (None, "hard", None, None),
    ]
    assert len({seat.key for seat in seats}) == 3
    seats = await store.remove_seat_row(game.id, seats[2].key, T2)
    seats = await store.remove_seat(game.id, BIG, T3)
    assert [seat.user_id for seat in seats] == [100]
    changed = await store.get(game.id)
    assert changed is not None
    assert (changed.updated_at, changed.board_message_seq) == (T3, None)
    assert [g.id for g in await store.behind_on_display()] == [game.id]
    assert await store.set_board_message(game.id, BIG, 0)
    shown = await store.get(game.id)
    assert shown is not None
    assert (shown.board_message_id, shown.lobby_message_id) == (BIG, BIG)
    assert await store.behind_on_display() == []
    assert await store.open_games_of(GUILD, 100) == [shown]


async def test_start_puts_seats_in_order_and_a_second_start_is_stale(db: Database) -> None:
    store = GameStore(db)
    game = await store.create(lobby(10), T0)
    seats = await store.add_ai_seat(game.id, "easy", T0)
    keys = [seat.key for seat in reversed(seats)]
    running = await store.start(game.id, keys, {"players": 2}, "p0", T1, TurnClock(T1, T2, T3))
    assert (running.status, running.config, running.position, running.seq) == (
        GameStatus.RUNNING,
        {"players": 2},
        "p0",
        0,
    )
    assert (running.turn_started_at, running.remind_at, running.due_at) == (T1, T2, T3)
    assert [(s.seat, s.ai_level) for s in await store.seats(game.id)] == [(0, "easy"), (1, None)]
    with pytest.raises(StaleSeqError):
        await store.start(game.id, keys, {}, "p0", T1)


async def test_a_clock_set_for_a_turn_already_played_is_refused(db: Database) -> None:
    """A turn clock computed at seq 0 is stale once a move took the game to seq 1: it is
    refused and the new turn's clock stays as the move set it."""
    store = GameStore(db)
    game_id = await started(store, 13, TurnClock(T0, T1, T2))
    moved = await store.append_actions(
        game_id, 0, [NewAction("move", BIG)], "p1", T1, clock=TurnClock(T1, T2, T3)
    )
    assert moved.seq == 1
    with pytest.raises(StaleSeqError):
        await store.set_clock(game_id, 0, TurnClock(T0, None, T1), [SeatControl(0, 1, True)])
    after = await store.get(game_id)
    assert after is not None
    assert (after.turn_started_at, after.remind_at, after.due_at) == (T1, T2, T3)
    assert [(s.timeouts, s.autoplay) for s in await store.seats(game_id)] == [(0, False)] * 2


async def test_a_move_that_leaves_the_clock_unchanged_keeps_it(db: Database) -> None:
    """Appended without a clock, a move keeps the turn's start, reminder and automatic move."""
    store = GameStore(db)
    game_id = await started(store, 14, TurnClock(T0, T1, T2))
    moved = await store.append_actions(game_id, 0, [NewAction("S", BIG)], "p1", T1)
    assert (moved.seq, moved.turn_started_at, moved.remind_at, moved.due_at) == (1, T0, T1, T2)


async def test_a_seat_taken_back_from_the_ai_is_told_once(db: Database) -> None:
    """The write that stops the AI playing a seat marks its return as not yet told, so a
    display that catches up tells it, and of two that tell it one only marks it told."""
    store = GameStore(db)
    game_id = await started(store, 15, TurnClock(T0, T1, T2))
    await store.set_clock(game_id, 0, TurnClock(T0, T1, T2), [SeatControl(0, 3, True)])
    assert await store.rejoins_not_shown(game_id) == []
    await store.set_clock(game_id, 0, TurnClock(T0, T1, T2), [SeatControl(0, 0, False)])
    (first, _) = await store.seats(game_id)
    assert await store.rejoins_not_shown(game_id) == [first.user_id]
    assert await store.mark_rejoin_shown(game_id, first.user_id or 0)
    assert not await store.mark_rejoin_shown(game_id, first.user_id or 0)
    assert await store.rejoins_not_shown(game_id) == []


async def test_a_game_s_end_is_marked_shown_once(db: Database) -> None:
    """The write that stops a game early leaves its end not yet shown, so a display that
    catches up tells it; of two that tell it, one only marks it shown."""
    store = GameStore(db)
    game_id = await started(store, 16, TurnClock(T0, T1, T2))
    await store.end(game_id, GameStatus.ABORTED, EndReason.ABORTED_BY_HOST, 100, T1)
    assert await store.end_not_shown(game_id)
    assert await store.mark_end_shown(game_id)
    assert not await store.mark_end_shown(game_id)
    assert not await store.end_not_shown(game_id)


async def test_the_clock_decides_what_is_due_and_when(db: Database) -> None:
    store = GameStore(db)
    reminded = await started(store, 10, TurnClock(T0, T1, T3))
    moved = await started(store, 11, TurnClock(T0, None, T2))
    unshown = await started(store, 12, TurnClock(T0, T0, T0))
    for game_id in (reminded, moved):
        assert await store.set_board_message(game_id, 1000 + game_id, 0)
    assert await store.next_due() == T1
    assert await store.due(T0) == []
    assert [game.id for game in await store.due(T2)] == [reminded, moved]
    assert [game.id for game in await store.due(T3)] == [reminded, moved]
    after = await store.set_clock(reminded, 0, TurnClock(T0, None, T3), [SeatControl(0, 2, True)])
    assert (after.remind_at, after.due_at) == (None, T3)
    first, _ = await store.seats(reminded)
    assert (first.timeouts, first.autoplay) == (2, True)
    assert [game.id for game in await store.due(T2)] == [moved]
    assert await store.next_due() == T2
    with pytest.raises(StaleSeqError):
        await store.set_clock(reminded, 5, TurnClock())
    assert [game.id for game in await store.unshown(T0)] == [unshown]
    assert await store.unshown(datetime(2025, 12, 31, tzinfo=UTC)) == []
    assert await store.oldest_unshown() == T0
    assert await store.next_moments(T0, "me") == NextMoments(T2, T0, None)
    await store.set_reminder_message(moved, BIG)
    reminder = await store.get(moved)
    assert reminder is not None
    assert reminder.reminder_message_id == BIG
    await store.set_reminder_message(moved, None)
    await store.set_nudge_message(moved, BIG)
    nudge = await store.get(moved)
    assert nudge is not None
    assert (nudge.reminder_message_id, nudge.nudge_message_id) == (None, BIG)
    await store.set_nudge_message(moved, None)
    cleared = await store.get(moved)
    assert cleared is not None
    assert cleared.nudge_message_id is None


async def test_a_finished_game_keeps_its_results_for_the_stats(db: Database) -> None:
    store = GameStore(db)
    game_id = await started(store, 10, TurnClock(T0, T1, T2))
    results = [
        ResultRow(0, 100, None, "red", 30, 12, 1, True),
        ResultRow(1, BIG, None, "blue", 20, 8, 2, False),
    ]
    over = await store.append_actions(
        game_id,
        0,
        [NewAction("S", 100), NewAction(None, BIG, 1)],
        "end",
        T3,
        status=GameStatus.OVER,
        results=results,
    )
    assert (over.status, over.seq, over.end_reason) == (GameStatus.OVER, 2, EndReason.FINISHED)
    assert (over.turn_started_at, over.remind_at, over.due_at) == (None, None, None)
    assert [seat.resigned for seat in await store.seats(game_id)] == [False, True]
    assert await store.last_over_in_channel(10) == over
    assert await store.open_in_channel(10) is None
    assert await store.finished_without_results() == []
    with pytest.raises(StaleSeqError):
        await store.end(game_id, GameStatus.ABORTED, EndReason.ABORTED_BY_HOST, 100, T3)

    stats = StatsStore(db)
    winner = await stats.player(GUILD, 100)
    assert (winner.games, winner.wins, winner.average_score, winner.best_score) == (1, 1, 30.0, 30)
    assert winner.favourite_color == "red"
    loser = await stats.player(GUILD, BIG)
    assert (loser.games, loser.wins, loser.average_score) == (1, 0, 20.0)
    (history,) = await stats.history(GUILD)
    assert (history.game_id, history.status, history.seats, history.winner_ids) == (
        game_id,
        "over",
        2,
        (100,),
    )
    assert await stats.history(GUILD, channel_id=10) == [history]
    assert await stats.history(GUILD, channel_id=11) == []
    empty = await stats.player(GUILD, 555)
    assert (empty.games, empty.wins, empty.favourite_color) == (0, 0, None)


async def test_the_last_game_over_in_a_channel_is_its_newest_one(db: Database) -> None:
    """What `/marrakech board` shows after the end: the channel's latest finished game."""
    store = GameStore(db)
    ended = []
    for _ in range(2):
        game_id = await started(store, 10)
        await store.append_actions(
            game_id, 0, [NewAction("S", 100)], "end", T1, status=GameStatus.OVER
        )
        ended.append(game_id)
    last = await store.last_over_in_channel(10)
    assert last is not None
    assert last.id == ended[-1]


async def test_results_can_be_added_to_a_game_that_ended_without(db: Database) -> None:
    store = GameStore(db)
    game_id = await started(store, 10)
    await store.append_actions(game_id, 0, [NewAction("S", 100)], "end", T1, status=GameStatus.OVER)
    assert await store.finished_without_results() == [game_id]
    await store.add_results(game_id, [ResultRow(0, 100, None, "red", 1, 1, 1, True)])
    assert await store.finished_without_results() == []


async def test_guild_settings_and_allowed_channels(db: Database) -> None:
    guilds = GuildStore(db)
    assert (await guilds.get(BIG)).channel_ids == ()
    set_limit = await guilds.set_turn_limit(BIG, 3600, T0)
    assert (set_limit.turn_limit_seconds, set_limit.variant) == (3600, None)
    set_variant = await guilds.set_variant(BIG, "rotate-after", T1)
    assert (set_variant.turn_limit_seconds, set_variant.variant) == (3600, "rotate-after")
    assert (await guilds.set_turn_limit(BIG, None, T1)).variant == "rotate-after", "kept"
    await guilds.allow_channel(BIG, BIG + 1)
    await guilds.allow_channel(BIG, BIG + 1)
    allowed = await guilds.allow_channel(BIG, 5)
    assert allowed.channel_ids == (5, BIG + 1)
    settings = await guilds.get(BIG)
    assert (settings.turn_limit_seconds, settings.variant, settings.channel_ids) == (
        None,
        "rotate-after",
        (5, BIG + 1),
    )
    removed = await guilds.remove_channel(BIG, 5)
    assert removed is not None
    assert removed.channel_ids == (BIG + 1,)
    assert await guilds.remove_channel(BIG, 5) is None
    assert (await guilds.get(BIG)).channel_ids == (BIG + 1,)


async def test_removing_a_channel_leaves_other_servers_lists_alone(db: Database) -> None:
    """Taking a channel off one server's list leaves it on another server's list; a server
    that never listed it answers None."""
    guilds = GuildStore(db)
    await guilds.allow_channel(BIG, 5)
    await guilds.allow_channel(GUILD, 5)
    assert await guilds.remove_channel(GUILD + 1, 5) is None
    removed = await guilds.remove_channel(GUILD, 5)
    assert removed is not None
    assert removed.channel_ids == ()
    assert (await guilds.get(BIG)).channel_ids == (5,)


END_SHOWN_VERSION = 13
"""The migration that keeps whether a game's early end is shown (0013)."""


async def test_games_stopped_early_before_migration_0013_are_not_told_again(
    database_target: str,
) -> None:
    """A game aborted or abandoned before version 13, its end shown then, is not behind on
    display once the database is upgraded: no catch-up tells its end a second time."""
    old = await open_database(database_target, schema_version=END_SHOWN_VERSION - 1)
    try:
        async with old.transaction() as conn:
            for channel_id, reason in ((10, EndReason.ABORTED_BY_HOST), (11, EndReason.ABANDONED)):
                await conn.execute(
                    "INSERT INTO games (guild_id, channel_id, host_id, status, seats_wanted, "
                    "variant, seed, seed_sha256, seq, board_message_id, board_message_seq, "
                    "end_reason, created_at, updated_at) "
                    "VALUES ($1, $2, 100, 'aborted', 2, 'standard', 's', 'h', 4, 501, 4, $3, "
                    "$4, $4)",
                    GUILD,
                    channel_id,
                    reason.value,
                    "2026-01-01T00:00:00.000+00:00",
                )
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        assert await GameStore(database).behind_on_display() == []
    finally:
        await database.close()
