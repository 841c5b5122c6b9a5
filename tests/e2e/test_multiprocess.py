"""Three bot processes, one PostgreSQL database, a fake Discord with three shards, and random
SIGKILLs: no acknowledged move is lost or applied twice, no turn is reminded twice, every AI
turn and timeout is played once, and every finished game's record gives its result's scores.

The games (two seats, a 5-minute turn limit; person against person, or a person against the
easy AI) are spread over guilds on every shard. The test clicks for the people; it moves every
process's clock forward now and then (tests/e2e/shifted_clock.py: SIGUSR1) so that reminders
and timeouts fall due without waiting, and it kills random processes at random moments (a fixed
seed) and starts them again. A second test keeps one process down and checks that the turn
clocks of the games on its shard still run.

The default run is small enough for CI; the full size is a command:

    python -m tests.e2e.test_multiprocess --games 40 --kills 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest
import pytest_asyncio

import engine
from bot.services.loader import CLAIM_LEASE_SECONDS
from bot.storage import Database, open_database
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.multiprocess import (
    Cluster,
    GameLog,
    Ledger,
    ReminderWatch,
    judge,
    stored_games,
    wait_idle,
)
from tests.e2e.players import Decision, decision, offers_decision_at, score_said
from tests.e2e.quiet import final_message, human_turn, open_game
from tests.polling import until
from tests.postgres import create_database, drop_database, postgres_server, scratch_database

pytestmark = pytest.mark.e2e
__all__ = ["postgres_server"]  # the fixture `database` uses

SHARDS = 3
TURN_LIMIT = 300
SEED = 20_261_201


@dataclass
class Table:
    """One game in a channel of its own: one or two people (the other seat an easy AI)."""

    channel: FakeChannel
    shard: int
    people: dict[int, FakeUser]
    lobby: FakeMessage | None = None


def build_world(fake: FakeDiscord, games: int) -> list[Table]:
    """`games` tables over two guilds per shard; every other game is a person against the AI."""
    guilds = [
        (fake.add_guild(f"guild {shard}.{n}", shard=shard), shard)
        for shard in range(fake.shard_count)
        for n in range(2)
    ]
    tables = []
    for number in range(games):
        guild, shard = guilds[number % len(guilds)]
        channel = fake.add_text_channel(guild, f"table-{number}")
        count = 2 if number % 2 == 0 else 1
        people = [fake.add_user(f"p{number}-{seat}") for seat in range(count)]
        for person in people:
            fake.add_member(guild, person)
        tables.append(Table(channel, shard, {p.id: p for p in people}))
    return tables


async def open_tables(fake: FakeDiscord, tables: list[Table]) -> None:
    async def one(table: Table) -> None:
        host, *guests = table.people.values()
        ais = () if guests else ("easy",)
        table.lobby = await open_game(
            fake, table.channel, host, tuple(guests), ais, turn_limit=TURN_LIMIT
        )

    for start in range(0, len(tables), 8):
        await asyncio.gather(*(one(t) for t in tables[start : start + 8]))


def to_click(
    fake: FakeDiscord, table: Table
) -> tuple[FakeMessage, FakeUser, list[Decision]] | None:
    """The newest turn message of the table with live buttons for one of its people: the
    message, the person, and the decisions it offers now."""
    for message in reversed(fake.messages(table.channel)):
        live = [d for b in message.enabled_buttons() if (d := decision(b.custom_id))]
        if not live:
            continue
        movers = [table.people[u] for u in message.pinged_user_ids if u in table.people]
        if len(movers) != 1:
            return None
        newest = max(d.seq for d in live)
        choices = [d for d in live if d.seq == newest]
        return (message, movers[0], choices) if choices else None
    return None


async def play(
    fake: FakeDiscord,
    cluster: Cluster,
    table: Table,
    ledger: Ledger,
    until: float,
    rng: random.Random,
    pauses: tuple[float, float] = (0.02, 0.25),
) -> None:
    """Click for the table's people, with short `pauses`, until the game ends or `until`."""
    process = cluster.process_of_shard(table.shard)
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(*pauses))
        if final_message(fake, table.channel) is not None:
            return
        if not cluster.alive(process):
            continue
        found = to_click(fake, table)
        if found is None:
            continue
        message, person, choices = found
        chosen = rng.choice(choices)
        click = ledger.sent(chosen, person.id)
        handle = await fake.click(person, message, chosen.custom_id, validate=False)
        await ledger.settle(click, handle)
        if click.answered:  # wait until the game shows the outcome (or a process dies)
            with contextlib.suppress(TimeoutError):
                await fake.wait_until(
                    partial(moved_on, fake, table, message, chosen.seq),
                    timeout=5,
                    what="the click's outcome",
                )


def moved_on(fake: FakeDiscord, table: Table, message: FakeMessage, seq: int) -> bool:
    if not offers_decision_at(fake.world.messages[message.id], seq):
        return True
    return final_message(fake, table.channel) is not None


async def finish_games(
    fake: FakeDiscord,
    cluster: Cluster,
    tables: list[Table],
    ledger: Ledger,
    rng: random.Random,
    seconds: float = 240.0,
) -> None:
    """Play `tables` to their end with every process up. Their people first take back any
    seat the AI took after their timeouts (a game no person plays waits for one). Each table
    stops as soon as its game is over: `seconds` is only a bound for a machine that other
    work keeps busy."""
    for table in tables:
        for person in table.people.values():
            await take_seat_back(fake, person, table.channel)
    until = time.monotonic() + seconds
    await asyncio.gather(
        *(
            play(fake, cluster, table, ledger, until, random.Random(rng.random()), (0.0, 0.02))
            for table in tables
        )
    )


REJOIN_TRIES = 5


async def take_seat_back(fake: FakeDiscord, person: FakeUser, channel: FakeChannel) -> None:
    """`/marrakech rejoin` for `person`, asked again while it is not acknowledged in time. The
    processes have just restarted and catch up with every game the kills left behind; a slow
    handler is acknowledged by the bot within 2 s (bot/edge/replies.py), but on a starved
    machine (two test processes, three bots and PostgreSQL on two cores) a process's event
    loop can fall behind Discord's 3 s altogether, which the fake refuses as Discord does; the
    person, told that the application did not respond, asks again. The answer itself may be a
    refusal: the AI may not have taken their seat in this game."""
    for _ in range(REJOIN_TRIES):
        handle = await fake.slash(person, channel, "marrakech", "rejoin")
        await handle.wait_for(lambda h: h.acknowledged or bool(h.refusals))
        if handle.acknowledged:
            return
    raise AssertionError(f"{REJOIN_TRIES} rejoins of {person.name} were all answered too late")


async def chaos(cluster: Cluster, kills: int, rng: random.Random) -> None:
    """`kills` SIGKILLs at random moments, each followed by a restart, shared out among the
    processes; each process is killed on a schedule of its own, so kills of different
    processes overlap (two may be down at once)."""
    processes = len(cluster.processes)
    shares = [kills // processes + (index < kills % processes) for index in range(processes)]
    await asyncio.gather(
        *(
            kill_again_and_again(cluster, index, share, random.Random(rng.random()))
            for index, share in enumerate(shares)
        )
    )


async def kill_again_and_again(
    cluster: Cluster, index: int, kills: int, rng: random.Random
) -> None:
    for _ in range(kills):
        await asyncio.sleep(rng.uniform(0.2, 1.2))
        await cluster.kill(index)
        await asyncio.sleep(rng.uniform(0.0, 0.5))
        await cluster.start(index)


async def ticking(cluster: Cluster, until: float, rng: random.Random) -> None:
    """Move the clocks half a turn limit (and a second) at a time: reminders, then timeouts."""
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(0.8, 2.0))
        await cluster.shift_clock(TURN_LIMIT / 2 + 1)


@dataclass
class Outcome:
    games: dict[int, GameLog]
    finished: int
    report: str


async def run_chaos(
    fake: FakeDiscord,
    database: str,
    scratch: Path,
    *,
    games: int,
    kills: int,
    seconds: float,
    finish: int = 0,
    seed: int = SEED,
) -> Outcome:
    """Open `games` games on three processes, play them under `kills` random SIGKILLs and
    restarts for at most `seconds` (and at least until the kills are done), play `finish` of
    them still running (people against the AI) to their end, then check."""
    tables = build_world(fake, games)
    clock_file = scratch / "clock-offset"
    clock_file.write_text("0", encoding="ascii")
    cluster = Cluster(fake, database, scratch, processes=SHARDS, clock_file=clock_file)
    watch = ReminderWatch(fake)
    ledger = Ledger()
    try:
        began = time.monotonic()
        await cluster.start_all()
        await open_tables(fake, tables)
        opened = time.monotonic()
        rng = random.Random(seed)
        killing = asyncio.create_task(chaos(cluster, kills, random.Random(rng.random())))
        until = time.monotonic() + seconds
        clock = asyncio.create_task(ticking(cluster, until, random.Random(rng.random())))
        players = [
            asyncio.create_task(
                play(fake, cluster, table, ledger, until, random.Random(rng.random()))
            )
            for table in tables
        ]
        await killing
        await asyncio.gather(*players, clock)
        for index in range(len(cluster.processes)):
            if not cluster.alive(index):
                await cluster.start(index)
        running = {
            g.channel_id for g in (await stored_games(database)).values() if g.status == "running"
        }
        against_ai = [t for t in tables if len(t.people) == 1 and t.channel.id in running]
        await finish_games(fake, cluster, against_ai[:finish], ledger, random.Random(rng.random()))
        # Every process finishes what it had in hand (AI turns, timeouts, displays).
        finished_at = time.monotonic()
        await wait_idle(cluster, database)
        played = time.monotonic()
        stored = await stored_games(database)
    finally:
        await cluster.close()
    verdict = judge(ledger, stored)
    finished = check_finished(fake, tables, stored)
    report = (
        f"{games} games, {cluster.kills} kills: started and opened in {opened - began:.1f} s, "
        f"played {played - opened:.1f} s (idle {played - finished_at:.1f} s after the last "
        f"click); {len(ledger.clicks)} clicks sent, "
        f"{verdict.describe()}; {len(watch.reminders)} reminders; {finished} games finished; "
        f"{sum(e.actor_id is None for g in stored.values() for e in g.log)} AI, timeout and "
        f"die entries in the logs"
    )
    problems = []
    if verdict.lost:
        problems.append(f"acknowledged moves lost: {verdict.lost[:5]}")
    if verdict.foreign:
        problems.append(f"human moves nobody clicked (applied twice?): {verdict.foreign[:5]}")
    if watch.duplicates():
        problems.append(f"reminded twice (game, seq): {watch.duplicates()[:5]}")
    errors = cluster.errors_logged()
    report += f"; {len(errors)} ERROR lines in the bots' logs" + "".join(
        f"\n  {e}" for e in errors[:3]
    )
    assert not problems, report + "\n" + "\n".join(problems)
    return Outcome(stored, finished, report)


def check_finished(fake: FakeDiscord, tables: list[Table], stored: dict[int, GameLog]) -> int:
    """Each result's record is the game's stored log and replays to the scores it shows."""
    finished = 0
    by_channel = {game.channel_id: game for game in stored.values()}
    for table in tables:
        final = final_message(fake, table.channel)
        if final is None:
            continue
        finished += 1
        name = next(a.filename for a in final.attachments if a.filename.endswith(".json"))
        record = json.loads(final.file(name))
        game = by_channel[table.channel.id]
        assert game.status == "over", (game.id, game.status)
        assert record["actions"] == [e.notation for e in game.log if e.notation is not None]
        state = engine.replay_record(engine.record_from_json(record))
        assert state.is_over
        text = final.embed_text()
        for seat, score in enumerate(engine.scores(state)):
            user_id = record["user_ids"][seat]
            if user_id is not None and not state.is_eliminated(seat):
                assert score_said(user_id, score) in text, text
    return finished


@pytest_asyncio.fixture
async def database(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """An empty PostgreSQL database of its own (tests/postgres.py), dropped after the test."""
    server: str = request.getfixturevalue("postgres_server")
    url = await create_database(server)
    yield url
    await drop_database(server, url)


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(bot_name="Marrakech", shard_count=SHARDS) as server:
        yield server


async def test_three_processes_share_the_games_through_random_kills(
    fake: FakeDiscord, database: str, tmp_path: Path
) -> None:
    outcome = await run_chaos(fake, database, tmp_path, games=40, kills=30, seconds=20, finish=4)
    print("\n" + outcome.report)
    assert outcome.finished >= 4, "games played to the end, their records checked"


async def test_the_turn_clocks_of_a_dead_process_s_games_keep_running(
    fake: FakeDiscord, database: str, tmp_path: Path
) -> None:
    """Process 2 is killed for good: in the games of shard 2 a person who does not play is
    reminded and then timed out (a move the AI makes for them, in the log), and where the other
    seat is the easy AI's it still plays its own turns (the seat's moves, in the log, whoever
    moves first), all done by the other processes: the logs are read after the kill."""
    tables = [t for t in build_world(fake, 6) if t.shard == 2]
    assert {len(t.people) for t in tables} == {1, 2}, "a game against the AI and one without"
    clock_file = tmp_path / "clock-offset"
    clock_file.write_text("0", encoding="ascii")
    cluster = Cluster(fake, database, tmp_path, processes=SHARDS, clock_file=clock_file)
    try:
        await cluster.start_all()
        await open_tables(fake, tables)
        await cluster.kill(2)
        assert cluster.processes[2].returncode == -signal.SIGKILL, "process 2 is down"
        first = await stored_games(database)
        # what the dead process had claimed (an AI turn to play, say) is free once its lease ends
        await cluster.shift_clock(CLAIM_LEASE_SECONDS + 1)
        await fake.wait_until(
            lambda: all(human_turn(fake, table.channel) for table in tables),
            timeout=30,
            what="every game of shard 2 waiting for its person",
        )
        await cluster.shift_clock(TURN_LIMIT / 2 + 1)
        for table in tables:
            await fake.wait_for_message(
                table.channel, lambda m: "half of your time" in m.content, timeout=20
            )
        await cluster.shift_clock(TURN_LIMIT / 2 + 1)

        def timed_out() -> bool:
            return all(
                any("ran out of time" in m.content for m in fake.messages(table.channel))
                for table in tables
            )

        await fake.wait_until(timed_out, timeout=30, what="a timeout in every game of shard 2")
        games = {
            table.channel.id: next(g for g in first.values() if g.channel_id == table.channel.id)
            for table in tables
        }
        db = await open_database(database)
        try:
            for table in tables:
                if len(table.people) > 1:
                    continue
                before = games[table.channel.id]

                async def ai_moved(game: GameLog = before) -> bool:
                    ai, _ = await moves_since(db, game.id, game.seq)
                    return bool(ai)

                await until(ai_moved, "the easy AI's own move after the kill", timeout=30)
            made = {}
            for table in tables:
                before = games[table.channel.id]
                made[table.channel.id] = await moves_since(db, before.id, before.seq)
        finally:
            await db.close()
        later = await stored_games(database)
        assert not cluster.alive(2), "process 2 stayed down: the others did it all"
    finally:
        await cluster.close()
    for table in tables:
        before = games[table.channel.id]
        assert later[before.id].seq > before.seq
        ai, timeouts = made[table.channel.id]
        assert timeouts, f"a timeout move in {table.channel.name}"
        assert bool(ai) == (len(table.people) == 1), f"the AI's own moves in {table.channel.name}"


async def moves_since(db: Database, game_id: int, seq: int) -> tuple[list[int], list[int]]:
    """The log positions after `seq` of the game's AI seat's own moves (an entry's mover read
    by replaying the log with the engine), and of the moves the AI made for a person who ran
    out of time (the log says so: `ai_for`)."""
    async with db.reading() as conn:
        game = await conn.fetchrow("SELECT config FROM games WHERE id = $1", game_id)
        assert game is not None
        ai_seats = {
            int(seat[0])
            for seat in await conn.fetch(
                "SELECT seat FROM seats WHERE game_id = $1 AND ai_level IS NOT NULL", game_id
            )
        }
        log = await conn.fetch(
            "SELECT seq, notation, ai_for FROM actions WHERE game_id = $1 ORDER BY seq", game_id
        )
    state = engine.new_game(engine.record_from_json(json.loads(str(game[0]))).config)
    ai: list[int] = []
    timeouts: list[int] = []
    for entry in log:
        position = int(entry[0])
        if position > seq:
            if engine.current_player(state) in ai_seats:
                ai.append(position)
            if entry[2] == "timeout":
                timeouts.append(position)
        state, _ = engine.apply(state, str(entry[1]))
    return ai, timeouts


# --- the full size, as a command ----------------------------------------------------------------


async def benchmark(games: int, kills: int, seconds: float, finish: int, seed: int) -> int:
    async with scratch_database() as url:
        with tempfile.TemporaryDirectory(prefix="marrakech-multi-") as scratch:
            async with FakeDiscord(bot_name="Marrakech", shard_count=SHARDS) as fake:
                began = time.monotonic()
                outcome = await run_chaos(
                    fake,
                    url,
                    Path(scratch),
                    games=games,
                    kills=kills,
                    seconds=seconds,
                    finish=finish,
                    seed=seed,
                )
                print(outcome.report)
                print(f"wall time {time.monotonic() - began:.1f} s")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.test_multiprocess")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=40.0, help="least time to play")
    parser.add_argument(
        "--finish", type=int, default=0, help="games played to their end after the kills"
    )
    parser.add_argument("--seed", type=int, default=SEED)
    arguments = parser.parse_args()
    return asyncio.run(
        benchmark(
            arguments.games, arguments.kills, arguments.seconds, arguments.finish, arguments.seed
        )
    )


if __name__ == "__main__":
    sys.exit(main())
