"""What a click costs the database, in round trips (tests/round_trips.py), on each back end.

`play_and_count` plays a whole game between two people, or a person and an AI seat, with a
turn limit (so every turn sets a turn clock), through the bot's own client on the fake Discord
API, in process
(tests/bot/edge/test_edge.py). For each click on a game button it counts every round trip from
the click's arrival until everything the click set off is done: the handler's checks, the
commit, what the display reads and writes (the message it records, the next turn it posts, the
final message and its record), the turn's direct message, and a pass of the turn clock's
scheduler (`run_due`, then `seconds_to_sleep`, as it runs when woken) for each time the click
woke it (with an AI seat, the pass that plays the AI's turn; counted apart as well). The
scheduler's own task is stopped for the count, so that its passes land in the click that set
them off.

Run as a command, it prints what a click costs in both kinds of game on SQLite and on
PostgreSQL (a scratch database on the server of tests/postgres.py):

    python -m tests.bot.click_cost
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.edge.inflight import HANDLERS
from bot.storage.away import AWAY_CHANNEL
from bot.storage.database import Backend
from bot.storage.game_rows import SCHEDULE_CHANNEL
from bot.storage.postgres import PostgresDatabase
from tests.bot.edge.test_edge import Edge, running_edge
from tests.e2e.fakecord.interaction_payloads import component_data
from tests.e2e.fakecord.interactions import MESSAGE_COMPONENT
from tests.e2e.players import live_decisions, pick
from tests.polling import until
from tests.postgres import scratch_database
from tests.round_trips import counting

TURN_LIMIT = 3600
"""Seconds per turn: every turn sets a reminder and a deadline, none falls due during the game."""


@dataclass(frozen=True, slots=True)
class Click:
    """One click on a game button and the round trips it cost."""

    action: str
    ends_turn: bool
    ends_game: bool
    round_trips: int
    """All of them, the scheduler's passes included."""
    wakes: int
    """Times the click woke the turn clock's scheduler (each cost a pass, counted in)."""
    scheduler_round_trips: int = 0
    """Those of the scheduler's passes (with an AI seat: the AI's turn the click handed over)."""

    @property
    def kind(self) -> str:
        if self.ends_game:
            return "the last move"
        if self.ends_turn:
            return "a move that ends the turn"
        return "a move within the turn"


async def play_and_count(edge: Edge, against: str | None = None) -> list[Click]:
    """Play a game to its end between the edge's host and guest, or (`against`: an AI level)
    between the host and an AI seat; what each click cost. On PostgreSQL the game begins once
    the bot listens to the other processes' changes: a listening connection that opens later
    drops what the bot holds of people's time away, and a click would read it again."""
    await listening(edge)
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, turn_limit=TURN_LIMIT).answer()
    if against is None:
        await edge.click(edge.guest, lobby, "Join").response()
    else:
        await edge.click(edge.host, lobby, f"Add AI: {against}").response()
    await edge.click(edge.host, lobby, "Start").response()
    await edge.fake.wait_until(
        lambda: live_decisions(edge.fake, edge.channel), what="the host's first decision"
    )
    await settled(edge)
    scheduler = edge.bot.scheduler
    await scheduler.stop()  # its passes are run below, in the click that woke it
    wakes = [0]

    def woken() -> None:
        wakes[0] += 1

    edge.service.turns.on_schedule_change(woken)
    await scheduler.run_due()  # the pass the scheduler runs when it starts
    await scheduler.seconds_to_sleep()
    wakes[0] = 0
    users = {user.id: user for user in (edge.host, edge.guest)}
    clicks: list[Click] = []
    with counting(edge.bot.store.database) as trips:
        while decisions := live_decisions(edge.fake, edge.channel):
            message, _ = decisions[-1]
            decision = pick(message, len(clicks))
            view = await edge.service.play.look(decision.game_id)
            mover = users[view.user_to_move or 0]
            data = component_data(message, decision.custom_id, None, validate=True)
            trips.count = 0  # reading whose turn it is was no part of the click
            handle = edge.dispatch(
                edge.fake.interaction_from_payload(
                    MESSAGE_COMPONENT, mover, edge.channel, data, message=message
                )
            )
            await handle.response()
            await settled(edge)
            before_passes = trips.count
            passes = 0
            while wakes[0]:
                wakes[0] -= 1
                passes += 1
                await scheduler.run_due()
                await scheduler.seconds_to_sleep()
                await settled(edge)
            cost = trips.count
            after = await edge.service.play.look(decision.game_id)
            assert after.seq > view.seq, f"the click on {decision.custom_id} was not applied"
            assert after.state is not None
            clicks.append(
                Click(
                    decision.action,
                    ends_turn=len(after.turn_starts) > len(view.turn_starts),
                    ends_game=after.state.is_over,
                    round_trips=cost,
                    wakes=passes,
                    scheduler_round_trips=cost - before_passes,
                )
            )
    return clicks


async def listening(edge: Edge) -> None:
    """Wait until the bot listens on PostgreSQL for the turn clocks' and time away's changes
    (at once on SQLite, which has no other processes to listen to)."""
    database = edge.bot.store.database
    if isinstance(database, PostgresDatabase):
        channels = {SCHEDULE_CHANNEL, AWAY_CHANNEL}
        await until(lambda: channels <= database.listening, "the listening connections")


async def join_round_trips(edge: Edge) -> int:
    """What the guest's Join on a new lobby costs, the lobby's edit included (with the note
    beside each person's name: how reliably they play, bot.services.reliability)."""
    lobby = await edge.slash(edge.host, "marrakech", "new", seats=2, turn_limit=TURN_LIMIT).answer()
    await settled(edge)
    with counting(edge.bot.store.database) as trips:
        await edge.click(edge.guest, lobby, "Join").response()
        await settled(edge)
    return trips.count


async def settled(edge: Edge) -> None:
    """Wait until every handler has returned and the background work it started is done."""
    assert await HANDLERS.drained(10.0), "a handler is still running"
    if edge.bot.turn_messages is not None:
        await edge.bot.turn_messages.idle()
    if edge.bot.watchers is not None:
        await edge.bot.watchers.idle()
    if edge.bot.accuracy is not None:  # a game's end sets off the judging for the stats
        await asyncio.wait_for(edge.bot.accuracy.idle(), 60)


@asynccontextmanager
async def edge_on(backend: Backend, folder: Path) -> AsyncIterator[Edge]:
    """The in-process bot on a fresh database of the back end."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        if backend == "sqlite":
            async with running_edge(folder, monkeypatch) as edge:
                yield edge
            return
        async with (
            scratch_database() as url,
            running_edge(folder, monkeypatch, database_target=url) as edge,
        ):
            yield edge


def summary(clicks: list[Click]) -> str:
    """The costs of a game's clicks, by kind, then over all of them."""
    lines = []
    kinds = sorted({click.kind for click in clicks})
    for kind in [*kinds, "every click"]:
        chosen = [c for c in clicks if kind in (c.kind, "every click")]
        costs = [click.round_trips for click in chosen]
        line = (
            f"  {kind}: {len(chosen)} clicks, round trips mean {statistics.mean(costs):.1f}, "
            f"most {max(costs)}, least {min(costs)}; scheduler passes "
            f"{sum(click.wakes for click in chosen)}"
        )
        passes = [click.scheduler_round_trips for click in chosen if click.wakes]
        if passes:
            line += f" (their round trips mean {statistics.mean(passes):.1f}, most {max(passes)})"
        lines.append(line)
    return "\n".join(lines)


GAMES = (
    (None, "two people"),
    ("easy", "a person against the easy AI (each pass of the scheduler plays the AI's turn)"),
)


async def measure() -> None:
    for backend in ("sqlite", "postgres"):
        for against, players in GAMES:
            with tempfile.TemporaryDirectory(prefix="marrakech-clicks-") as folder:
                async with edge_on(backend, Path(folder)) as edge:
                    clicks = await play_and_count(edge, against)
            print(f"{backend}, {players}, a turn limit of {TURN_LIMIT} s:")
            print(summary(clicks))
            sys.stdout.flush()
        with tempfile.TemporaryDirectory(prefix="marrakech-clicks-") as folder:
            async with edge_on(backend, Path(folder)) as edge:
                print(f"{backend}, a Join on a lobby: {await join_round_trips(edge)} round trips")


def main(argv: Sequence[str] = ()) -> int:
    """The command: `--help` says what it measures; no other option."""
    argparse.ArgumentParser(
        prog="python -m tests.bot.click_cost",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    ).parse_args(argv)
    asyncio.run(measure())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
