"""GameService on a real database (each back end): lobby rules, whole games, concurrency,
restarts, dice."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest

import engine
from bot.services import ROLL, EndReason, GameService, GameStatus, GameView, dice, records
from bot.services.errors import (
    AlreadySeatedError,
    BadOptionError,
    ChannelHasGameError,
    GameDamagedError,
    GameNotFoundError,
    GameNotRunningError,
    HostCannotLeaveError,
    HostOnlyError,
    IllegalMoveError,
    LobbyClosedError,
    LobbyFullError,
    NoGameHereError,
    NotEnoughPlayersError,
    NotSeatedError,
    NotYourTurnError,
    StaleBoardError,
)
from bot.storage import ActionRow, Database, GameStore, open_database
from tests.bot.services.conftest import FreshTargets
from tests.races import Race
from tests.round_trips import counting

HOST, BOB, CAROL, DAVE = 1001, 1002, 1003, 1004
CHANNEL = 500
SEED = "0123456789abcdef" * 2


def fixed_clock() -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC)


def seeds(*values: str) -> Iterator[str]:
    yield from values
    while True:
        yield "ff" * 16


def service_on(database: Database, *seed_values: str) -> GameService:
    source = seeds(*seed_values or (SEED,))
    return GameService(GameStore(database), clock=fixed_clock, seeds=lambda: next(source))


@pytest.fixture
def service(database: Database) -> GameService:
    return service_on(database)


async def started(
    service: GameService,
    users: tuple[int, ...] = (HOST, BOB, CAROL),
    *,
    variant: str = "standard",
    channel: int = CHANNEL,
) -> GameView:
    view = await service.lobby.create_lobby(
        guild_id=9, channel_id=channel, host_id=users[0], seats=len(users), variant=variant
    )
    for user in users[1:]:
        await service.lobby.join(view.id, user)
    return await service.lobby.start(view.id, users[0])


def choose(view: GameView) -> str:
    """A deterministic player: turn right on even turns, the last legal placement, rotate left."""
    state = view.state
    assert state is not None
    if state.phase is engine.Phase.ORIENT:
        return "R" if state.turn % 2 == 0 else "S"
    if state.phase is engine.Phase.ROLL:
        return ROLL
    if state.phase is engine.Phase.PLACE:
        return engine.legal_actions(state)[-1]
    return "L"


async def step(service: GameService, view: GameView) -> GameView:
    user = view.user_to_move
    assert user is not None
    return await service.play.act(view.id, user, view.seq, choose(view))


async def play_out(service: GameService, view: GameView, limit: int = 1000) -> GameView:
    for _ in range(limit):
        if view.status is not GameStatus.RUNNING:
            return view
        view = await step(service, view)
    raise AssertionError("the game did not end")


# --- lobby -----------------------------------------------------------------------------------


async def test_new_lobby_seats_the_host_and_a_second_new_points_at_it(
    service: GameService,
) -> None:
    view = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=3)
    assert view.status is GameStatus.LOBBY
    assert [player.user_id for player in view.players] == [HOST]
    assert view.game.seed_sha256 == hashlib.sha256(SEED.encode()).hexdigest()
    assert not hasattr(view.game, "seed"), "the seed stays secret until the game is over"
    with pytest.raises(ChannelHasGameError) as raised:
        await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=BOB)
    assert raised.value.game_id == view.id
    assert (raised.value.lobby, raised.value.seated) == (True, False), "Bob may join it"
    with pytest.raises(ChannelHasGameError) as raised:
        await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST)
    assert (raised.value.lobby, raised.value.seated) == (True, True), "nothing for the host to join"
    assert await service.open_game_id(CHANNEL) == view.id
    with pytest.raises(NoGameHereError):
        await service.open_game_id(CHANNEL + 1)


async def test_a_second_new_beside_a_running_game_points_at_its_message_and_offers_no_join(
    service: GameService,
) -> None:
    """A game being played is not one waiting for players: the refusal points at the message
    showing it and does not say to join there."""
    view = await started(service)
    await service.play.set_board_message(view.id, 777, view.seq)
    with pytest.raises(ChannelHasGameError) as raised:
        await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=DAVE)
    assert (raised.value.game_id, raised.value.channel_id, raised.value.message_id) == (
        view.id,
        CHANNEL,
        777,
    )
    assert raised.value.lobby is False


@pytest.mark.parametrize(
    ("option", "kwargs"),
    [
        ("seats", {"seats": 5}),
        ("seats", {"seats": 1}),
        ("variant", {"variant": "chaos"}),
        ("turn_limit", {"turn_limit_seconds": 10}),
    ],
)
async def test_bad_lobby_options_are_refused(
    service: GameService, option: str, kwargs: dict[str, Any]
) -> None:
    with pytest.raises(BadOptionError) as raised:
        await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, **kwargs)
    assert raised.value.option == option


async def test_join_leave_and_the_lobby_rules(service: GameService) -> None:
    view = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=2)
    with pytest.raises(NotEnoughPlayersError):
        await service.lobby.start(view.id, HOST)
    view = await service.lobby.join(view.id, BOB)
    assert [player.user_id for player in view.players] == [HOST, BOB]
    with pytest.raises(AlreadySeatedError):
        await service.lobby.join(view.id, BOB)
    with pytest.raises(LobbyFullError):
        await service.lobby.join(view.id, CAROL)
    with pytest.raises(HostCannotLeaveError):
        await service.lobby.leave(view.id, HOST)
    with pytest.raises(NotSeatedError):
        await service.lobby.leave(view.id, CAROL)
    with pytest.raises(HostOnlyError):
        await service.lobby.start(view.id, BOB)
    view = await service.lobby.leave(view.id, BOB)
    assert [player.user_id for player in view.players] == [HOST]
    await service.lobby.join(view.id, CAROL)
    view = await service.lobby.start(view.id, HOST)
    assert view.status is GameStatus.RUNNING
    assert sorted(cast(int, player.seat) for player in view.players) == [0, 1]  # all seated
    with pytest.raises(LobbyClosedError):
        await service.lobby.join(view.id, DAVE)


async def test_cancel_is_for_the_host_and_keeps_the_game(service: GameService) -> None:
    view = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST)
    await service.lobby.join(view.id, BOB)
    with pytest.raises(HostOnlyError):
        await service.lobby.cancel(view.id, BOB)
    view = await service.lobby.cancel(view.id, HOST)
    assert view.status is GameStatus.ABORTED
    assert view.game.end_reason == "cancelled"
    with pytest.raises(NoGameHereError):
        await service.open_game_id(CHANNEL)
    again = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=BOB)
    assert again.id != view.id


async def test_the_seed_decides_seats_and_deal(database: Database) -> None:
    """Two games started from one seed get the same seats and the same deal; a game started
    from another seed is dealt other piles."""
    first = await started(service_on(database, "aa" * 16), (HOST, BOB), channel=1)
    second = await started(service_on(database, "aa" * 16), (HOST, BOB), channel=2)
    other = await started(service_on(database, "bb" * 16), (HOST, BOB), channel=3)
    assert first.state is not None
    assert second.state is not None
    assert other.state is not None
    assert first.state.config == second.state.config
    assert first.players == second.players
    assert first.state.config.piles is not None  # 2 players: shuffled piles
    assert other.state.config.piles != first.state.config.piles, "another seed, another deal"


# --- play ------------------------------------------------------------------------------------


async def test_a_whole_standard_game_ends_and_its_record_replays(service: GameService) -> None:
    """The record of a finished game replays to its end and carries the extras engine/README.md
    lists: the seed and why the game stopped, and when it began in UTC with milliseconds."""
    view = await started(service)
    final = await play_out(service, view)
    assert final.status is GameStatus.OVER
    assert final.state is not None
    assert final.state.outcome is not None
    assert any(isinstance(event, engine.GameEnded) for event in final.events)
    record = await service.play.record(final.id)
    assert record["started_at"] == "2026-01-01T00:00:00.000+00:00"
    assert record["end_reason"] == "finished"
    assert record["seed"] == SEED
    assert record["seed_sha256"] == hashlib.sha256(record["seed"].encode()).hexdigest()
    replayed = engine.replay_record(engine.record_from_json(record))
    assert engine.to_position(replayed) == engine.to_position(final.state)
    assert final.seq == len(record["actions"])


async def test_orienting_rolls_at_once_and_shows_the_turn(service: GameService) -> None:
    view = await started(service)
    mover = view.user_to_move
    assert mover is not None
    after = await service.play.act(view.id, mover, view.seq, "L")
    assert after.seq == 2
    kinds = [type(event) for event in after.events]
    assert kinds[:3] == [engine.AssamTurned, engine.DieRolled, engine.AssamMoved]
    assert after.state is not None
    assert after.state.phase is engine.Phase.PLACE
    assert after.turn_events == after.events


async def test_a_record_s_game_id_is_the_game_s_number(service: GameService) -> None:
    """engine/README.md: the `game_id` extra is the game's number as an integer, the one
    `/marrakech replay game:` takes."""
    view = await started(service)
    record = await service.play.record(view.id)
    assert type(record["game_id"]) is int
    assert record["game_id"] == view.id


async def test_the_running_record_hides_the_seed(service: GameService) -> None:
    view = await started(service)
    record = await service.play.record(view.id)
    assert "seed" not in record
    assert "end_reason" not in record
    assert record["seed_sha256"] == view.game.seed_sha256


async def test_variant_asks_for_the_roll_then_placement_then_rotation(
    service: GameService,
) -> None:
    view = await started(service, variant="rotate-after")
    mover = view.user_to_move
    assert mover is not None
    assert view.state is not None
    with pytest.raises(IllegalMoveError):
        await service.play.act(view.id, mover, view.seq, "L")
    view = await service.play.act(view.id, mover, view.seq, ROLL)
    assert view.state is not None
    assert view.state.phase is engine.Phase.PLACE
    view = await service.play.act(view.id, mover, view.seq, engine.legal_actions(view.state)[0])
    assert view.state is not None
    assert view.state.phase is engine.Phase.ROTATE
    view = await service.play.act(view.id, mover, view.seq, "R")
    assert view.turn_changed
    assert view.user_to_move != mover
    assert view.state is not None
    assert view.state.phase is engine.Phase.ROLL, "waits for a click"
    final = await play_out(service, view)
    assert final.status is GameStatus.OVER


async def test_a_die_face_the_mover_names_in_the_variant_is_refused_and_the_seed_rolls(
    service: GameService,
) -> None:
    """A turn of rotate-after begins with the roll: a click naming a face (`D1` to `D4`, which
    only a forged button id carries) changes nothing, and the roll asked for is the seed's."""
    view = await started(service, variant="rotate-after")
    mover = view.user_to_move
    assert mover is not None
    assert view.state is not None
    assert view.state.phase is engine.Phase.ROLL
    for face in engine.legal_actions(view.state):
        with pytest.raises(IllegalMoveError):
            await service.play.act(view.id, mover, view.seq, face)
    assert (await service.play.look(view.id)).seq == view.seq, "a face was applied"
    seeded = dice.roll(SEED, view.seq + 1, engine.chance_outcomes(view.state))
    rolled = await service.play.act(view.id, mover, view.seq, ROLL)
    assert rolled.state is not None
    assert rolled.state.history[-1] == seeded


async def test_only_the_mover_acts_and_only_legal_moves(service: GameService) -> None:
    view = await started(service)
    mover = view.user_to_move
    other = next(p.user_id for p in view.players if p.user_id != mover)
    assert mover is not None
    assert other is not None
    with pytest.raises(NotYourTurnError) as raised:
        await service.play.act(view.id, other, view.seq, "S")
    assert raised.value.to_move_user == mover
    with pytest.raises(NotSeatedError):
        await service.play.act(view.id, DAVE, view.seq, "S")
    with pytest.raises(IllegalMoveError, match="roll"):
        await service.play.act(view.id, mover, view.seq, "D3")
    with pytest.raises(IllegalMoveError):
        await service.play.act(view.id, mover, view.seq, ROLL)
    assert (await service.play.look(view.id)).seq == view.seq


async def test_a_click_on_an_old_seq_is_stale(service: GameService) -> None:
    view = await started(service)
    mover = view.user_to_move
    assert mover is not None
    await service.play.set_board_message(view.id, 777, view.seq)
    moved = await service.play.act(view.id, mover, view.seq, "S")
    with pytest.raises(StaleBoardError) as raised:
        await service.play.act(view.id, mover, view.seq, "S")
    assert raised.value.message_id is None, "777 shows the old board: no link to it"
    assert raised.value.channel_id == CHANNEL
    await service.play.set_board_message(view.id, 888, moved.seq)  # the current board shown
    with pytest.raises(StaleBoardError) as raised:
        await service.play.act(view.id, mover, view.seq, "S")
    assert raised.value.message_id == 888


async def test_a_games_channel_is_known_from_memory(database: Database) -> None:
    """What a click checks first: a game never changes channel, so the database is not asked
    while the game is in memory."""
    service = service_on(database)
    view = await started(service)
    with counting(database) as trips:
        assert await service.play.channel_of(view.id) == CHANNEL
    assert trips.count == 0
    elsewhere = service_on(database)  # a process that never loaded the game
    assert await elsewhere.play.channel_of(view.id) == CHANNEL
    with pytest.raises(GameNotFoundError):
        await elsewhere.play.channel_of(view.id + 1)


async def test_many_simultaneous_clicks_apply_once(service: GameService) -> None:
    view = await started(service)
    mover = view.user_to_move
    assert mover is not None
    results = await asyncio.gather(
        *(service.play.act(view.id, mover, view.seq, "S") for _ in range(8)), return_exceptions=True
    )
    applied = [result for result in results if isinstance(result, GameView)]
    assert len(applied) == 1
    assert all(isinstance(result, StaleBoardError) for result in results if result not in applied)
    record = await service.play.record(view.id)
    assert record["actions"][0] == "S"
    assert len(record["actions"]) == 2


async def test_two_processes_on_one_database_never_apply_twice(
    database: Database, database_target: str
) -> None:
    first = service_on(database)
    view = await started(first)
    other_db = await open_database(database_target)
    try:
        second = service_on(other_db)
        mover = view.user_to_move
        assert mover is not None
        await second.play.look(view.id)  # both have the game in memory at the same seq
        results = await asyncio.gather(
            first.play.act(view.id, mover, view.seq, "S"),
            second.play.act(view.id, mover, view.seq, "L"),
            return_exceptions=True,
        )
        assert sum(isinstance(result, GameView) for result in results) == 1
        assert sum(isinstance(result, StaleBoardError) for result in results) == 1
        assert len(await GameStore(other_db).actions(view.id)) == 2
        # the loser forgot its stale copy: it now sees the winner's move
        assert (await second.play.look(view.id)).seq == 2
    finally:
        await other_db.close()


async def test_a_move_read_before_an_abort_in_another_process_is_refused_and_the_abort_stands(
    database: Database, database_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second process has read the game for a move; the host's abort in the first lands
    before the move is written. An abort moves no seq, but the aborted game is no longer
    running: the move is stale, nothing of it is logged, and the game stays aborted."""
    first = service_on(database)
    view = await started(first)
    mover = view.user_to_move
    assert mover is not None
    other_db = await open_database(database_target)
    try:
        second = service_on(other_db)
        store = second.loader.store
        append = store.append_actions

        async def aborted_meanwhile(*args: Any, **kwargs: Any) -> Any:
            await first.play.abort(view.id, HOST)
            return await append(*args, **kwargs)

        monkeypatch.setattr(store, "append_actions", aborted_meanwhile)
        with pytest.raises(StaleBoardError):
            await second.play.act(view.id, mover, view.seq, "S")
        row = await GameStore(database).get(view.id)
        assert row is not None
        assert (row.status, row.end_reason, row.seq) == (
            GameStatus.ABORTED,
            EndReason.ABORTED_BY_HOST,
            view.seq,
        )
        assert await GameStore(database).actions(view.id) == []
        assert (await second.play.look(view.id)).status is GameStatus.ABORTED
    finally:
        await other_db.close()


async def test_a_restart_continues_with_the_same_rolls(
    database_target: str, fresh_targets: FreshTargets
) -> None:
    reference_db = await open_database(await fresh_targets.new())
    reference = service_on(reference_db)
    expected = await play_out(reference, await started(reference))
    expected_record = await reference.play.record(expected.id)
    await reference_db.close()

    db = await open_database(database_target)
    service = service_on(db)
    view = await started(service)
    for _ in range(17):
        view = await step(service, view)
    await db.close()

    db = await open_database(database_target)
    restarted = service_on(db)
    resumed = await restarted.play.look(view.id)
    assert resumed.seq == view.seq
    assert resumed.state == view.state
    assert resumed.turn_events == view.turn_events
    assert resumed.previous_turn_events == view.previous_turn_events
    final = await play_out(restarted, resumed)
    assert (await restarted.play.record(final.id))["actions"] == expected_record["actions"]
    await db.close()


async def test_a_damaged_snapshot_is_ignored_for_the_log(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    service = service_on(database)
    view = await step(service, await started(service))
    async with database.transaction() as conn:
        await conn.execute("UPDATE games SET position = '{}' WHERE id = $1", view.id)
    fresh = service_on(database)
    assert (await fresh.play.look(view.id)).state == view.state
    assert "snapshot differs" in caplog.text


async def test_a_snapshot_without_the_order_seats_went_out_in_is_not_damaged(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """A stored position written without its optional `eliminated_order` (engine/README.md)
    is the same snapshot: loading the game finds nothing wrong with it."""
    service = service_on(database)
    view = await step(service, await started(service, (HOST, BOB, CAROL, DAVE)))
    await service.play.resign(view.id, CAROL)
    view = await service.play.resign(view.id, BOB)
    assert view.status is GameStatus.RUNNING
    async with database.transaction() as conn:
        stored = json.loads(
            await conn.fetchval("SELECT position FROM games WHERE id = $1", view.id)
        )
        assert "eliminated_order" in stored
        del stored["eliminated_order"]
        await conn.execute(
            "UPDATE games SET position = $1 WHERE id = $2", json.dumps(stored), view.id
        )
    fresh = service_on(database)
    assert (await fresh.play.look(view.id)).state == view.state
    assert "snapshot differs" not in caplog.text


async def test_a_damaged_game_is_reported_once_a_run_however_often_it_is_used(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    """A damaged game is never kept in memory, so each use loads it again and finds the damage
    again: its moderators are told, and the reason logged, once in a run."""
    service = service_on(database)
    view = await started(service)
    for _ in range(4):
        view = await step(service, view)
    async with database.transaction() as conn:
        await conn.execute("DELETE FROM actions WHERE game_id = $1 AND seq = 2", view.id)

    run = service_on(database)  # a new run, which finds it damaged
    reported: list[int] = []
    run.on_damage(lambda damage: reported.append(damage.game_id))
    with caplog.at_level(logging.ERROR):
        for _ in range(3):  # three clicks on it, say
            with pytest.raises(GameDamagedError):
                await run.play.look(view.id)
    assert reported == [view.id]
    assert [r.levelname for r in caplog.records if r.levelno >= logging.ERROR] == ["ERROR"]


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE games SET config = NULL WHERE id = $1",
        "DELETE FROM seats WHERE game_id = $1 AND seat = 1",
    ],
    ids=["its config lost", "a seat lost"],
)
async def test_a_running_game_that_lost_its_config_or_a_seat_is_damaged(
    database: Database, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/reliability.md, Damaged data: a running game without its config cannot be replayed
    (it is no lobby), and one without a seat's row would go on without that player; both are
    damage its players, its moderators and the log are told of, like a log that lost an
    entry."""
    service = service_on(database)
    view = await started(service, (HOST, BOB, CAROL))
    for _ in range(4):
        view = await step(service, view)
    async with database.transaction() as conn:
        await conn.execute(damage, view.id)

    run = service_on(database)  # a new run, which finds it damaged
    reported: list[int] = []
    run.on_damage(lambda found: reported.append(found.game_id))
    with caplog.at_level(logging.ERROR), pytest.raises(GameDamagedError):
        await run.play.look(view.id)
    assert reported == [view.id]
    assert [r.levelname for r in caplog.records if r.levelno >= logging.ERROR] == ["ERROR"]


async def test_start_up_skips_a_damaged_game_behind_on_display_and_catches_up_the_others(
    database: Database,
) -> None:
    """docs/reliability.md, Damaged data: "No other game is affected, and start-up skips it".
    Both games' messages are behind when a new run starts; the damaged one is reported and
    left out, the sound one is caught up at its seq."""
    service = service_on(database)
    damaged = await started(service, (HOST, BOB), channel=CHANNEL + 1)
    for _ in range(4):
        damaged = await step(service, damaged)
    sound = await step(service, await started(service, (CAROL, DAVE), channel=CHANNEL + 2))
    async with database.transaction() as conn:  # a log that lost an entry
        await conn.execute("DELETE FROM actions WHERE game_id = $1 AND seq = 2", damaged.id)

    run = service_on(database)  # a new run, whose start-up catches up both
    reported: list[int] = []
    run.on_damage(lambda damage: reported.append(damage.game_id))
    views = await run.play.behind_on_display()

    assert [(view.id, view.seq) for view in views] == [(sound.id, sound.seq)]
    assert reported == [damaged.id]


@pytest.mark.parametrize(
    "config",
    ["{}", "[]", '"x"', '{"br'],
    ids=["keys lost", "a list", "a string", "unreadable"],
)
async def test_a_game_whose_config_is_damaged_is_reported_and_start_up_catches_up_the_others(
    database: Database, config: str
) -> None:
    """docs/reliability.md, Damaged data: a config that lost its keys, is no JSON object or
    cannot be read does not replay, whatever error its reading raises: the game is damaged like
    one whose log has a gap, and start-up catches up the other games all the same."""
    service = service_on(database)
    damaged = await started(service, (HOST, BOB), channel=CHANNEL + 1)
    for _ in range(4):
        damaged = await step(service, damaged)
    sound = await step(service, await started(service, (CAROL, DAVE), channel=CHANNEL + 2))
    async with database.transaction() as conn:
        await conn.execute("UPDATE games SET config = $1 WHERE id = $2", config, damaged.id)

    run = service_on(database)  # a new run, whose start-up catches up both
    reported: list[int] = []
    run.on_damage(lambda damage: reported.append(damage.game_id))
    views = await run.play.behind_on_display()
    with pytest.raises(GameDamagedError):
        await run.play.look(damaged.id)

    assert [(view.id, view.seq) for view in views] == [(sound.id, sound.seq)]
    assert reported == [damaged.id]


async def test_a_moderator_can_still_abort_a_damaged_game(database: Database) -> None:
    """docs/reliability.md, Damaged data: a game whose log lost an entry cannot be played, but
    a moderator's abort is asked and done all the same, and frees its channel."""
    service = service_on(database)
    view = await started(service, (HOST, BOB))
    for _ in range(4):
        view = await step(service, view)
    async with database.transaction() as conn:  # a log that lost an entry
        await conn.execute("DELETE FROM actions WHERE game_id = $1 AND seq = 2", view.id)

    run = service_on(database)  # a new run, which finds it damaged
    with pytest.raises(GameDamagedError):
        await run.play.look(view.id)
    await run.play.check_abort(view.id, DAVE, moderator=True)
    aborted = await run.play.abort(view.id, DAVE, moderator=True)
    assert aborted.status is GameStatus.ABORTED
    assert (aborted.game.end_reason, aborted.game.ended_by) == ("aborted-by-moderator", DAVE)
    with pytest.raises(NoGameHereError):
        await run.open_game_id(CHANNEL)


# --- the stored config -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", list(engine.Variant))
def test_the_stored_config_is_the_record_before_the_first_action(
    players: int, variant: engine.Variant
) -> None:
    config = engine.deal(players, variant, dice.setup_rng(f"seed{players}"))
    stored = records.config_json(config)
    as_record = engine.record_from_json(stored)
    assert as_record.config == config
    assert as_record.actions == ()
    assert records.game_record(stored, []).config == config


def old_config_form(config: engine.GameConfig) -> str:
    """A game's config as the bot stored it before it took the record's form."""
    piles = None
    if config.piles is not None:
        piles = [[color.value for color in pile] for pile in config.piles]
    return json.dumps(
        {
            "players": config.players,
            "variant": config.variant.value,
            "first_player": config.first_player,
            "piles": piles,
        }
    )


@pytest.mark.parametrize("variant", ["standard", "rotate-after"])
@pytest.mark.parametrize("users", [(HOST, BOB), (HOST, BOB, CAROL)])
async def test_a_game_stored_with_the_old_config_form_loads_and_plays_on(
    database: Database, users: tuple[int, ...], variant: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A database written before keeps its games: the old config form is read as the record
    header it holds, its variant and the resignations in the log included."""
    service = service_on(database)
    view = await started(service, users, variant=variant)
    for _ in range(5):
        view = await step(service, view)
    if len(users) == 3:
        assert view.state is not None
        assert view.state.to_move is not None
        quitter = view.user_at((view.state.to_move + 1) % 3)
        assert quitter is not None
        view = await service.play.resign(view.id, quitter)
    view = await step(service, view)
    assert view.state is not None
    async with database.transaction() as conn:
        await conn.execute(
            "UPDATE games SET config = $1 WHERE id = $2",
            old_config_form(view.state.config),
            view.id,
        )
    fresh = service_on(database)
    loaded = await fresh.play.look(view.id)
    assert loaded.state == view.state
    assert loaded.turn_events == view.turn_events
    assert "damaged" not in caplog.text
    assert "snapshot" not in caplog.text
    final = await play_out(fresh, loaded)
    assert final.status is GameStatus.OVER


async def test_two_resignations_in_a_row_load_in_the_order_they_fell(database: Database) -> None:
    """The seat after the mover resigns, then the mover: loaded again, the mover's turn passes
    straight on, as it did (the other order would hand it to the first quitter in between)."""
    service = service_on(database)
    view = await started(service, (HOST, BOB, CAROL, DAVE))
    assert view.state is not None
    assert view.state.to_move is not None
    mover = view.state.to_move
    if mover == 3:  # the seat after the mover must be the higher one
        view = await step(service, await step(service, await step(service, view)))
        assert view.state is not None
        assert view.state.to_move is not None
        mover = view.state.to_move
    for seat in (mover + 1, mover):
        user = view.user_at(seat)
        assert user is not None
        view = await service.play.resign(view.id, user)
    loaded = await service_on(database).play.look(view.id)
    assert loaded.state == view.state
    assert loaded.turn_events == view.turn_events


def test_a_log_entry_that_is_neither_an_action_nor_a_resignation_does_not_make_a_record() -> None:
    config = records.config_json(engine.deal(3, engine.Variant.STANDARD, first_player=0))
    entry = ActionRow(1, None, None, None, fixed_clock())
    with pytest.raises(ValueError, match="neither an action nor a resignation"):
        records.game_record(config, [entry])


# --- leaving a game --------------------------------------------------------------------------


async def test_resign_out_of_turn_makes_rugs_neutral_and_play_goes_on(
    service: GameService,
) -> None:
    view = await started(service)
    for _ in range(6):
        view = await step(service, view)
    state = view.state
    assert state is not None
    assert state.to_move is not None
    quitter_seat = (state.to_move + 1) % 3
    quitter = view.user_at(quitter_seat)
    assert quitter is not None
    after = await service.play.resign(view.id, quitter)
    assert after.state is not None
    assert after.state.is_eliminated(quitter_seat)
    assert after.seq == view.seq + 1
    assert after.user_to_move == view.user_to_move
    eliminated = [e for e in after.events if isinstance(e, engine.PlayerEliminated)]
    assert eliminated
    assert eliminated[0].resigned
    with pytest.raises(NotSeatedError):
        await service.play.resign(view.id, quitter)
    final = await play_out(service, after)
    record = await service.play.record(final.id)
    assert record["resignations"] == [[view.seq, quitter_seat]]
    assert engine.replay_record(engine.record_from_json(record)) == final.state


async def test_a_player_who_resigned_is_refused_as_not_playing_and_changes_nothing(
    service: GameService,
) -> None:
    """They resigned out of turn, so the game goes on without them: a move of theirs is
    refused as from someone not playing, not as out of turn."""
    view = await started(service)
    mover = view.user_to_move
    assert mover is not None
    quitter = next(p.user_id for p in view.players if p.user_id != mover)
    assert quitter is not None
    view = await service.play.resign(view.id, quitter)
    assert (view.status, view.user_to_move) == (GameStatus.RUNNING, mover)
    with pytest.raises(NotSeatedError):
        await service.play.act(view.id, quitter, view.seq, "S")
    assert (await service.play.look(view.id)).seq == view.seq


async def test_a_resignation_at_the_moment_of_a_move_is_applied_after_it(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player confirms Resign out of turn as the mover clicks: one waits for the other
    under the game's lock, so both are applied (a resignation is never refused because the
    board moved on meanwhile) and the log holds both."""
    view = await started(service)
    mover = view.user_to_move
    assert mover is not None
    quitter = next(p.user_id for p in view.players if p.user_id != mover)
    assert quitter is not None
    race = Race()
    store = service.loader.store
    monkeypatch.setattr(service.loader, "locked", race.lock(service.loader.locked))
    monkeypatch.setattr(store, "append_actions", race.write(store.append_actions))
    moved, resigned = await asyncio.gather(
        race.run(service.play.act(view.id, mover, view.seq, "S")),
        race.run(service.play.resign(view.id, quitter)),
        return_exceptions=True,
    )
    assert isinstance(moved, GameView), moved
    assert isinstance(resigned, GameView), resigned
    after = await service.play.look(view.id)
    assert after.seq == resigned.seq == moved.seq + 1, "the resignation follows the move"
    quitter_seat = next(p.seat for p in view.players if p.user_id == quitter)
    assert after.state is not None
    assert quitter_seat is not None
    assert after.state.is_eliminated(quitter_seat)
    record = await service.play.record(view.id)
    assert record["resignations"] == [[moved.seq, quitter_seat]]


async def test_resign_of_the_mover_passes_the_turn_and_two_players_end(
    service: GameService,
) -> None:
    view = await started(service, (HOST, BOB))
    mover = view.user_to_move
    assert mover is not None
    after = await service.play.resign(view.id, mover)
    assert after.status is GameStatus.OVER
    assert after.state is not None
    assert after.state.outcome is not None
    assert after.state.outcome.reason == "last-player-standing"
    with pytest.raises(GameNotRunningError):
        await service.play.resign(view.id, mover)


async def test_abort_is_for_the_host_or_a_moderator(service: GameService) -> None:
    view = await started(service)
    with pytest.raises(HostOnlyError):
        await service.play.abort(view.id, BOB)
    aborted = await service.play.abort(view.id, BOB, moderator=True)
    assert aborted.status is GameStatus.ABORTED
    assert aborted.game.end_reason == "aborted-by-moderator"
    assert aborted.game.ended_by == BOB
    with pytest.raises(GameNotRunningError):
        await service.play.act(view.id, view.user_to_move or 0, view.seq, "S")
    with pytest.raises(GameNotRunningError):
        await service.play.abort(view.id, HOST)
    record = await service.play.record(view.id)
    assert record["seed"] == SEED
    assert record["end_reason"] == "aborted-by-moderator"


async def test_games_behind_on_display_are_found(service: GameService) -> None:
    view = await started(service)
    assert [v.id for v in await service.play.behind_on_display()] == [view.id]
    await service.play.set_board_message(view.id, 42, view.seq)
    assert await service.play.behind_on_display() == []
    view = await step(service, view)
    assert [v.seq for v in await service.play.behind_on_display()] == [view.seq]
    await service.play.set_board_message(view.id, 43, view.seq)
    final = await play_out(service, view)
    assert [v.status for v in await service.play.behind_on_display()] == [GameStatus.OVER]
    # the result, with its ratings, as the display records it
    await service.play.set_board_message(final.id, 44, final.seq, end_shown=True)
    assert await service.play.behind_on_display() == []


# --- dice ------------------------------------------------------------------------------------


def rolling_state() -> engine.GameState:
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    state, _ = engine.apply(state, "S")
    return state


def test_rolls_depend_only_on_seed_and_position_with_exact_weights() -> None:
    outcomes = engine.chance_outcomes(
        engine.new_game(engine.deal(3, "standard", first_player=0))._replace(
            phase=engine.Phase.ROLL
        )
    )
    draws = [dice.roll("seed", position, outcomes) for position in range(1, 6001)]
    assert draws == [dice.roll("seed", position, outcomes) for position in range(1, 6001)]
    counts = {face: draws.count(face) for face in ("D1", "D2", "D3", "D4")}
    assert 800 < counts["D1"] < 1200
    assert 800 < counts["D4"] < 1200
    assert 1800 < counts["D2"] < 2200
    assert 1800 < counts["D3"] < 2200
    assert draws != [dice.roll("other", position, outcomes) for position in range(1, 6001)]


@pytest.mark.parametrize("variant", ["standard", "rotate-after"])
async def test_every_roll_is_the_one_its_revealed_seed_gives_at_its_position(
    service: GameService, variant: str
) -> None:
    final = await play_out(service, await started(service, variant=variant))
    data = await service.play.record(final.id)
    assert data["seed"] == SEED
    record = engine.record_from_json(data)
    state = engine.new_game(record.config)
    rolls = 0
    for position, action in enumerate(record.actions, start=1):
        if engine.current_player(state) == engine.CHANCE:
            expected = dice.roll(SEED, position, engine.chance_outcomes(state))
            assert action == expected, f"the roll at {position} is not the seed's"
            rolls += 1
        state, _ = engine.apply(state, action)
    assert rolls > 0


ROLLS_HERE = (
    "import json; import engine; from bot.services import dice;"
    "from tests.bot.services.test_service import rolling_state;"
    "outcomes = engine.chance_outcomes(rolling_state());"
    "print(json.dumps([[dice.roll('seed', p, outcomes), dice.ai_seed('seed', p)]"
    " for p in range(1, 41)]))"
)
"""The rolls and AI seeds of positions 1 to 40 of seed "seed", as JSON, from a fresh interpreter."""


def test_rolls_and_ai_seeds_are_the_same_in_a_fresh_interpreter(repo_root: Path) -> None:
    outcomes = engine.chance_outcomes(rolling_state())
    here = [[dice.roll("seed", p, outcomes), dice.ai_seed("seed", p)] for p in range(1, 41)]
    for hash_seed in ("1", "2"):  # other processes salt str hashes otherwise
        there = subprocess.run(
            [sys.executable, "-c", ROLLS_HERE],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            check=True,
            cwd=repo_root,
        ).stdout
        assert json.loads(there) == here, f"PYTHONHASHSEED={hash_seed}"


def test_the_commitment_is_the_seed_sha256() -> None:
    seed = dice.new_seed()
    assert len(seed) == 32
    assert dice.commitment(seed) == hashlib.sha256(seed.encode()).hexdigest()


def test_a_secret_seed_owes_nothing_to_python_s_random_module() -> None:
    """A game's seed comes from the operating system's secret source, not from Python's
    `random`: its state can be worked out from the seeds that finished games reveal, and would
    give away the seeds, so every roll, of the games still running. With `random` put back to
    one state before each, two new seeds still differ."""
    kept = random.getstate()
    try:
        random.seed(12)
        first = dice.new_seed()
        random.seed(12)
        second = dice.new_seed()
    finally:
        random.setstate(kept)
    assert first != second


def test_a_known_seed_gives_these_rolls() -> None:
    """The rolls are written out, not worked out with `dice`: other tools replay a game from its
    seed, so they must not move, and they come from the secret seed alone, never from the
    commitment the lobby shows, which would let anyone know the dice in advance (R13)."""
    outcomes = engine.chance_outcomes(rolling_state())
    rolls = [dice.roll("seed", position, outcomes) for position in range(1, 13)]
    assert rolls == ["D4", "D4", "D2", "D3", "D3", "D1", "D1", "D3", "D2", "D3", "D2", "D4"]


def test_a_known_seed_gives_these_ai_seeds() -> None:
    """The AI seeds are written out, not worked out with `dice`: other tools replay a game's AI
    choices from its seed, so they must not move, and they come from the secret seed alone,
    never from the commitment the lobby shows, which would let anyone predict the AI."""
    assert [dice.ai_seed("seed", position) for position in range(1, 4)] == [
        12095277812946174017,
        4316806279115659536,
        7272675599348988144,
    ]


async def test_a_two_player_game_from_a_known_seed_seats_and_deals_these_piles(
    service: GameService,
) -> None:
    """The seats, the first player and the top of both piles are written out, not worked out
    with `dice`: other tools replay a game from its seed, so they must not move, and they come
    from the secret seed alone, never from the commitment the lobby shows, which would give
    away both hidden piles before the first move (R2, R13)."""
    view = await started(service, (HOST, BOB))
    state = view.state
    assert state is not None
    assert state.config.piles is not None
    assert [(player.user_id, player.seat) for player in view.players] == [(BOB, 0), (HOST, 1)]
    assert state.config.first_player == 0
    assert [[color.value for color in pile[:8]] for pile in state.config.piles] == [
        ["red", "red", "blue", "red", "blue", "red", "blue", "red"],
        ["yellow", "brown", "brown", "brown", "brown", "brown", "yellow", "yellow"],
    ]
