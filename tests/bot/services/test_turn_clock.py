"""The turn clock as a person in a timed game lives it (bot.services.turn_clock): the clock runs
from the moment their turn begins whatever they decide in it, a turn that runs out counts as a
timeout whatever they did in it, and the AI that plays for them (a turn out of time, then the
seat handed over) is the `medium` one. Through the service on a real database (each back end)
with an injected clock; time only moves when a test moves it."""

from __future__ import annotations

from bot.services import TurnReason
from bot.storage.kinds import AiFor
from engine import Phase
from tests.bot.services.test_async_play import (
    BOB,
    HOST,
    LIMIT,
    Table,
    humans,
    play_turn,
    run_until_quiet,
    two_humans,
)
from tests.bot.services.test_async_play import table as table  # the fixture
from tests.bot.services.test_pause import at_the_ai_s_turn_in_their_seat
from tests.bot.services.test_service import choose


async def test_a_decision_made_during_a_turn_does_not_wind_its_clock_back(table: Table) -> None:
    """Turning Assam ten seconds before the end gives the turn no fresh limit and no second
    reminder: it runs out at the moment it was always going to."""
    view = await two_humans(table)
    mover = view.user_to_move
    assert mover is not None
    table.clock.advance(LIMIT - 10)
    await run_until_quiet(table)
    assert [reminder.user_id for reminder in table.reminders] == [mover]
    view = await table.service.play.act(view.id, mover, view.seq, choose(view))
    await table.show(view)
    assert view.user_to_move == mover, "Assam turned: the rest of the turn is still to play"
    table.clock.advance(10)
    await run_until_quiet(table)
    assert [(turn.user_id, turn.reason) for turn in table.turns] == [(mover, TurnReason.TIMEOUT)]
    assert len(table.reminders) == 1, "one reminder per turn"


async def test_three_turns_in_a_row_that_run_out_hand_the_seat_over_though_each_was_begun(
    table: Table,
) -> None:
    """A turn that runs out counts as a timeout whatever its player did in it: one who turns
    Assam and then lets the time run out, three turns in a row, has their seat handed to the
    AI like one who never clicked."""
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    other = BOB if sleeper == HOST else HOST
    for expected in (TurnReason.TIMEOUT, TurnReason.TIMEOUT, TurnReason.HANDED_OVER):
        view = await table.service.play.act(view.id, sleeper, view.seq, choose(view))
        await table.show(view)
        assert view.user_to_move == sleeper, "Assam turned, the rest left to the clock"
        table.clock.advance(LIMIT)
        await run_until_quiet(table)
        assert (table.turns[-1].user_id, table.turns[-1].reason) == (sleeper, expected)
        view = await table.service.play.look(view.id)
        view = await play_turn(table, view, other)
    handed = view.player_at(view.seat_of(sleeper))
    assert handed is not None
    assert handed.autoplay, "the AI plays the seat until they rejoin"


async def test_a_turn_out_of_time_in_rotate_after_is_played_whole_and_counts_once(
    table: Table,
) -> None:
    """Where Assam turns after the rug, the AI that plays a turn out of time plays all of it,
    the turn of Assam after the rug included: one timeout per turn, the next player at their
    roll, and the seat handed over at the third turn in a row, not before."""
    view = await humans(table, (HOST, BOB), variant="rotate-after")
    sleeper = view.user_to_move
    assert sleeper is not None
    other = BOB if sleeper == HOST else HOST
    expected = (TurnReason.TIMEOUT, TurnReason.TIMEOUT, TurnReason.HANDED_OVER)
    for count in range(1, len(expected) + 1):
        table.clock.advance(LIMIT)
        await run_until_quiet(table)
        assert [(turn.user_id, turn.reason) for turn in table.turns] == [
            (sleeper, wanted) for wanted in expected[:count]
        ]
        view = await table.service.play.look(view.id)
        assert view.state is not None
        assert (view.user_to_move, view.state.phase) == (other, Phase.ROLL)
        seat = view.player_at(view.seat_of(sleeper))
        assert seat is not None
        assert (seat.timeouts, seat.autoplay) == (count, count == len(expected))
        view = await play_turn(table, view, other)


async def test_the_count_of_timeouts_goes_back_to_zero_only_at_a_turn_its_player_ended(
    table: Table,
) -> None:
    """A decision made in a turn that then runs out resets nothing; ending a turn oneself
    does."""
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    other = BOB if sleeper == HOST else HOST
    table.clock.advance(LIMIT)
    await run_until_quiet(table)
    view = await play_turn(table, await table.service.play.look(view.id), other)
    view = await table.service.play.act(view.id, sleeper, view.seq, choose(view))
    seat = view.player_at(view.seat_of(sleeper))
    assert seat is not None
    assert seat.timeouts == 1, "a turn begun is not yet a turn played in time"
    view = await play_turn(table, view, sleeper)
    seat = view.player_at(view.seat_of(sleeper))
    assert seat is not None
    assert seat.timeouts == 0, "the turn they ended themselves starts the count again"


async def test_a_seat_handed_to_the_ai_is_played_by_the_medium_ai_counting_each_turn(
    table: Table,
) -> None:
    """The level that plays a turn out of time plays the seat handed over too, and each of its
    turns counts one more in a row, the seat's turns after the hand-over included: the count
    recorded with the moves, and kept on the seat, tells the turn that handed it over (the
    third) from those after it."""
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    view = await at_the_ai_s_turn_in_their_seat(table, view, sleeper)
    await run_until_quiet(table)
    assert [(turn.reason, turn.level) for turn in table.turns] == [
        (TurnReason.TIMEOUT, "medium"),
        (TurnReason.TIMEOUT, "medium"),
        (TurnReason.HANDED_OVER, "medium"),
        (TurnReason.AUTOPLAY, "medium"),
    ]
    recorded = [row.ai_for for row in await table.service.loader.store.actions(view.id)]
    assert list(dict.fromkeys(why for why in recorded if why is not None)) == [
        AiFor(TurnReason.TIMEOUT.value, 1),
        AiFor(TurnReason.TIMEOUT.value, 2),
        AiFor(TurnReason.HANDED_OVER.value, 3),
        AiFor(TurnReason.AUTOPLAY.value, 4),
    ]
    seat = (await table.service.play.look(view.id)).player_at(view.seat_of(sleeper))
    assert seat is not None
    assert (seat.timeouts, seat.autoplay) == (4, True)
