"""When a change in this process wakes the turn clock's scheduler (each back end): only when it
brings work sooner than the scheduler planned to look (its last `next_due`). A move between
people, and the message that shows it, wake it for nothing; a move that hands the turn to an
AI wakes it at once; a game that starts wakes it for its first message (shown by the catch-up
if it never shows); a change due before the planned look wakes it at that moment, also when a
wake-up is set already for a later one; a notice held for the end of someone's quiet hours
wakes it then, also while it sleeps until woken, and sooner than one held already."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from bot.services import GameStatus, turn_clock
from bot.storage import Database
from bot.storage.away import HeldNotice
from bot.storage.game_rows import ALL_SHARDS, NextMoments, ShardSet
from tests.bot.services.test_async_play import (
    BOB,
    CHANNEL,
    GUILD,
    HOST,
    LIMIT,
    ManualClock,
    Table,
    human_vs_ai,
    make_table,
    play_turn,
    two_humans,
)
from tests.bot.services.test_service import choose

WAIT_SECONDS = 30.0
"""How long a test waits at most for a wake-up due in 0.05 s (this is no timing)."""


@pytest.fixture
def table(database: Database) -> Table:
    return make_table(database, ManualClock())


class Wakes:
    """Counts the times the turn clock service wakes the scheduler; `woken` is set by each."""

    def __init__(self, table: Table) -> None:
        self.count = 0
        self.woken = asyncio.Event()
        table.service.turns.on_schedule_change(self.wake)

    def wake(self) -> None:
        self.count += 1
        self.woken.set()


def wake_up_set(table: Table) -> datetime | None:
    """When the turn clock service will wake the scheduler by itself (None: only if a change
    asks it to)."""
    return table.service.turns._timer_at


async def test_moves_between_people_and_their_messages_wake_it_for_nothing(table: Table) -> None:
    """Not now, and not later either: a move sets a wake-up for its catch-up, a minute away,
    and the message that shows it takes it back."""
    view = await two_humans(table)
    wakes = Wakes(table)
    assert await table.scheduler.seconds_to_sleep() == LIMIT / 2, "the first reminder"
    for _ in range(4):
        table.clock.advance(10)
        mover = view.user_to_move
        assert mover is not None
        # a move within the turn, shown on its message; then the rest of the turn, the next
        view = await table.service.play.act(view.id, mover, view.seq, choose(view))
        assert wake_up_set(table) is not None, "not shown yet: looked after if it never is"
        await table.show(view)
        assert wake_up_set(table) is None, "shown: nothing left to wake it for"
        view = await play_turn(table, view, mover)
        assert wake_up_set(table) is None
    assert wakes.count == 0
    assert await table.scheduler.seconds_to_sleep() == LIMIT / 2, "the newest turn's reminder"


async def test_a_move_that_hands_the_turn_to_an_ai_wakes_it_at_once(table: Table) -> None:
    view = await human_vs_ai(table, "easy")
    await table.scheduler.run_due()  # the AI's turn first, if it has the first one
    view = await table.service.play.look(view.id)
    assert view.user_to_move == HOST
    wakes = Wakes(table)
    await table.scheduler.seconds_to_sleep()
    view = await play_turn(table, view, HOST)
    assert view.status is GameStatus.RUNNING
    assert view.ai_to_move
    assert wakes.count >= 1
    assert await table.scheduler.run_due() == 1, "the AI's turn"


async def test_a_game_that_starts_wakes_it_for_its_first_message(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A started game's first message is looked after if it never shows: due once the wait for
    # it ends (a minute), at once here.
    monkeypatch.setattr(turn_clock, "_DISPLAY_PATIENCE", timedelta(0))
    lobby = await table.service.lobby.create_lobby(
        guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, seats=2, turn_limit_seconds=LIMIT
    )
    await table.service.lobby.join(lobby.id, BOB)
    assert await table.scheduler.seconds_to_sleep() is None, "nothing to do: asleep until woken"
    wakes = Wakes(table)
    await table.service.lobby.start(lobby.id, HOST)
    assert wakes.count == 1
    assert await table.scheduler.seconds_to_sleep() == 0, "the first message to show"


async def test_a_change_due_before_the_planned_look_wakes_it_then(table: Table) -> None:
    view = await two_humans(table, limit=3600)
    wakes = Wakes(table)
    await table.scheduler.seconds_to_sleep()  # planned: the reminder, half an hour away
    game = await table.service.loader.store.get(view.id)
    assert game is not None
    soon = table.clock() + timedelta(seconds=0.05)
    table.service.loader.schedule_changed(replace(game, remind_at=soon))
    assert wakes.count == 0, "not at once"
    await asyncio.wait_for(wakes.woken.wait(), WAIT_SECONDS)
    assert wakes.count == 1


async def test_a_change_due_sooner_than_a_wake_up_already_set_wakes_it_sooner(
    table: Table,
) -> None:
    """A first change sets a wake-up for 20 minutes ahead, still before the planned look; a
    second, due in 0.05 s, wakes it then, not at the first one's moment."""
    view = await two_humans(table, limit=3600)
    wakes = Wakes(table)
    await table.scheduler.seconds_to_sleep()  # planned: the reminder, half an hour away
    game = await table.service.loader.store.get(view.id)
    assert game is not None
    later = table.clock() + timedelta(minutes=20)
    table.service.loader.schedule_changed(replace(game, remind_at=later))
    soon = table.clock() + timedelta(seconds=0.05)
    table.service.loader.schedule_changed(replace(game, remind_at=soon))
    assert wakes.count == 0, "not at once"
    await asyncio.wait_for(wakes.woken.wait(), WAIT_SECONDS)
    assert wakes.count == 1


async def test_a_notice_held_while_it_sleeps_until_woken_wakes_it_at_the_notice_s_release(
    table: Table,
) -> None:
    """Nothing planned (no game has work scheduled), a ping is held for the end of someone's
    quiet hours: the scheduler is woken then, so what was held goes as the hours end."""
    assert await table.scheduler.seconds_to_sleep() is None, "nothing to do: asleep until woken"
    wakes = Wakes(table)
    release = table.clock() + timedelta(seconds=0.05)  # their quiet hours end
    await table.service.away.hold(HeldNotice(HOST, GUILD, CHANNEL, 1, 3, "turn", "en", release))
    assert wakes.count == 0, "not at once"
    await asyncio.wait_for(wakes.woken.wait(), WAIT_SECONDS)
    assert wakes.count == 1


async def test_a_notice_held_for_sooner_than_one_held_already_wakes_it_sooner(
    table: Table,
) -> None:
    """A first notice is held for quiet hours that end in 20 minutes; a second, for someone
    whose hours end in 0.05 s, wakes the scheduler then, not at the first one's release."""
    assert await table.scheduler.seconds_to_sleep() is None, "nothing to do: asleep until woken"
    wakes = Wakes(table)
    later = table.clock() + timedelta(minutes=20)
    await table.service.away.hold(HeldNotice(HOST, GUILD, CHANNEL, 1, 3, "turn", "en", later))
    soon = table.clock() + timedelta(seconds=0.05)
    await table.service.away.hold(HeldNotice(BOB, GUILD, CHANNEL, 2, 3, "turn", "en", soon))
    assert wakes.count == 0, "not at once"
    await asyncio.wait_for(wakes.woken.wait(), WAIT_SECONDS)
    assert wakes.count == 1


async def test_a_change_made_while_it_reads_when_to_look_next_is_looked_at_in_time(
    table: Table,
) -> None:
    """A change due in 5 minutes is made while the turn clock reads the database for its next
    look (the read misses it, and no timer is set for it once the look is planned): the
    scheduler still sleeps no longer than until the change is due."""
    view = await two_humans(table, limit=3600)
    await table.scheduler.seconds_to_sleep()  # planned: the reminder, half an hour away
    store = table.service.turns._store
    read = store.next_moments
    reading, go_on = asyncio.Event(), asyncio.Event()

    async def held(now: datetime, owner: str, shards: ShardSet = ALL_SHARDS) -> NextMoments:
        found = await read(now, owner, shards)  # read before the change below
        reading.set()
        await go_on.wait()
        return found

    store.next_moments = held  # type: ignore[method-assign]
    looking = asyncio.create_task(table.scheduler.seconds_to_sleep())
    await reading.wait()
    game = await table.service.loader.store.get(view.id)
    assert game is not None
    table.service.loader.schedule_changed(
        replace(game, remind_at=table.clock() + timedelta(minutes=5))
    )
    go_on.set()
    sleep = await looking
    assert sleep is not None
    assert sleep <= 5 * 60, f"asleep for {sleep} s, the change due in 300 s"
