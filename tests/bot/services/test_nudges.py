"""Nudges through the services on a real database (each back end): a player pings the person
the game waits for, once per NUDGE_HOURS per game, and the refusals that change nothing
(yourself, too soon with when it will be possible, a game waiting for no one or for a seat the
AI took over, a person who cannot be pinged now, someone not playing)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from bot.services.errors import GameNotRunningError, NotSeatedError
from bot.services.nudges import NUDGE_HOURS
from bot.services.seat_errors import NudgeError, Unreachable
from tests.bot.services.test_async_play import (
    BOB,
    CAROL,
    GUILD,
    HOST,
    Table,
    human_vs_ai,
    play_turn,
    two_humans,
)
from tests.bot.services.test_async_play import table as table  # the fixture
from tests.bot.services.test_pause import time_out_three_times
from tests.bot.services.test_ratings import DAVE, opened
from tests.bot.services.test_service import play_out


async def test_a_player_nudges_the_one_the_game_waits_for_once_per_period(table: Table) -> None:
    service = table.service
    view = await opened(service, (HOST, BOB, CAROL), channel=800)
    waited = view.user_to_move
    assert waited is not None
    others = [user for user in (HOST, BOB, CAROL) if user != waited]
    with pytest.raises(NudgeError) as refused:
        await service.nudges.nudge(view.id, waited)
    assert refused.value.code == "yourself"
    with pytest.raises(NotSeatedError):
        await service.nudges.nudge(view.id, DAVE)

    nudge = await service.nudges.nudge(view.id, others[0])
    assert (nudge.user_id, nudge.by, nudge.channel_id) == (waited, others[0], 800)
    table.clock.advance(60)
    with pytest.raises(NudgeError) as too_soon:
        await service.nudges.nudge(view.id, others[1])
    assert too_soon.value.code == "too_soon", "once per period per game, whoever nudges"
    assert too_soon.value.until == table.clock.now - timedelta(seconds=60) + timedelta(
        hours=NUDGE_HOURS
    )
    table.clock.advance(NUDGE_HOURS * 3600 - 60)
    assert (await service.nudges.nudge(view.id, others[1])).by == others[1]


async def test_a_game_is_nudged_at_most_once_every_four_hours(table: Table) -> None:
    """The period docs/async.md and the README give: four hours, whoever nudges."""
    service = table.service
    view = await opened(service, (HOST, BOB, CAROL), channel=801)
    waited = view.user_to_move
    first, second = [user for user in (HOST, BOB, CAROL) if user != waited]
    nudged_at = table.clock.now
    await service.nudges.nudge(view.id, first)
    table.clock.now = nudged_at + timedelta(hours=4, seconds=-1)
    with pytest.raises(NudgeError) as too_soon:
        await service.nudges.nudge(view.id, second)
    assert too_soon.value.until == nudged_at + timedelta(hours=4)
    table.clock.now = nudged_at + timedelta(hours=4)
    assert (await service.nudges.nudge(view.id, second)).by == second


async def test_no_nudge_while_the_game_waits_for_no_person_or_is_over(table: Table) -> None:
    service = table.service
    view = await human_vs_ai(table, "easy")
    if view.user_to_move == HOST:
        view = await play_turn(table, view, HOST)
    assert view.user_to_move is None, "the AI's turn: it plays at once, no one to nudge"
    with pytest.raises(NudgeError) as refused:
        await service.nudges.nudge(view.id, HOST)
    assert refused.value.code == "nobody"
    finished = await opened(service, (BOB, CAROL), channel=801)
    finished = await play_out(service, finished)
    with pytest.raises(GameNotRunningError):
        await service.nudges.nudge(finished.id, BOB)


async def test_a_person_who_cannot_be_pinged_now_is_not_nudged_and_it_says_why(
    table: Table,
) -> None:
    service = table.service
    until = datetime(2026, 3, 2, 8, 0).astimezone()
    asked: list[tuple[int | None, int]] = []

    async def asleep(guild_id: int | None, user_id: int) -> Unreachable | None:
        asked.append((guild_id, user_id))
        return Unreachable("quiet", until)

    service.nudges.reachable = asleep
    view = await opened(service, (HOST, BOB), channel=802)
    waited = view.user_to_move
    other = BOB if waited == HOST else HOST
    with pytest.raises(NudgeError) as refused:
        await service.nudges.nudge(view.id, other)
    assert refused.value.code == "unreachable"
    assert refused.value.until == until
    assert refused.value.why == Unreachable("quiet", until)
    assert asked == [(GUILD, waited)]

    async def awake(guild_id: int | None, user_id: int) -> Unreachable | None:
        return None

    service.nudges.reachable = awake
    assert (await service.nudges.nudge(view.id, other)).user_id == waited, "nothing was taken"


async def test_no_nudge_for_a_seat_the_ai_took_over(table: Table) -> None:
    service = table.service
    view = await two_humans(table)
    view = await time_out_three_times(table, view, BOB)
    while view.user_to_move != BOB:  # the seat's own turn: the AI plays it, no person
        mover = view.user_to_move
        assert mover is not None
        view = await play_turn(table, view, mover)
    with pytest.raises(NudgeError) as refused:
        await service.nudges.nudge(view.id, HOST)
    assert refused.value.code == "nobody"


async def test_a_player_who_resigned_cannot_nudge_and_leaves_the_nudge_to_those_still_in(
    table: Table,
) -> None:
    """They resigned out of turn, so the game goes on without them: their nudge is refused as
    from someone not playing, pings no one and is not counted."""
    service = table.service
    view = await opened(service, (HOST, BOB, CAROL), channel=803)
    waited = view.user_to_move
    gone, still_in = [user for user in (HOST, BOB, CAROL) if user != waited]
    view = await service.play.resign(view.id, gone)
    assert view.user_to_move == waited
    with pytest.raises(NotSeatedError):
        await service.nudges.nudge(view.id, gone)
    nudge = await service.nudges.nudge(view.id, still_in)
    assert (nudge.user_id, nudge.by) == (waited, still_in), "the refused nudge was not counted"
