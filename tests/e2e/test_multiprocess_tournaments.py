"""A tournament run by two real bot processes on one PostgreSQL database, through SIGKILLs.

A fake Discord with two shards; the tournament's server is on shard 0, so process 0 answers
every command and click, while process 1 takes its part through what any process does for a
tournament: a start's catch-up (`TournamentDisplay.resume`: a round left to pair, tables left
to set up, an end left to store and announce), claiming tables, and redrawing the standings.
A Swiss tournament of four at 2-seat tables over three rounds, each round's games ended by
resignations sent at once:

- round 1: process 0 dies at its crash point `tournament.round_over` (bot/crashpoints.py) as the
  round ends, before pairing round 2; process 1, restarted, pairs round 2 and sets its tables up
  (threads, welcomes, games) before process 0 is back;
- round 2: each process is killed with SIGKILL at a random moment (a fixed seed) as the round
  ends, and started again;
- round 3: process 0 dies at the same crash point as the last game ends, before the end is
  stored (process 1, armed too, dies there if its catch-up finds the round over first); both
  processes, started again at once, race over the end (storing it, announcing the winner,
  drawing the final standings) in their catch-ups.

Then, read back through the bot's storage: each round paired once with one thread and one game
a table, no rematch, every game over; the ratings equal a rebuild from the results (each game
applied once); exactly one winner announcement; and the standings message, which both processes
drew, ends on the picture of what is stored (its pixels equal those of the standings drawn
afresh from the database).

The fake applies Discord's per-route limits (5 edits of a channel's messages per 5 s), and
each process knows only its own use of them: the standings are redrawn by the process holding
the tournament's server (another takes over only if that one has not drawn them in time), so
no request is answered 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import pytest
import pytest_asyncio
from PIL import Image

from bot.presentation.tournaments import STANDINGS_NAME, standings_post
from bot.services import GameService
from bot.services.ratings import RatingService
from bot.services.tournament_views import TournamentStatus, TournamentView
from bot.services.tournaments import TournamentService
from bot.storage import Database, GameStore, open_database
from bot.storage.ratings import RatingStore
from bot.storage.tournaments import TableRow, TournamentStore
from render.standings import render_standings
from tests.e2e.fakecord import FakeDiscord, FakeMessage, FakeUser
from tests.e2e.multiprocess import Cluster
from tests.e2e.players import is_final
from tests.e2e.tournaments import Scene, turn_message
from tests.polling import until

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SHARDS = 2
PLAYERS = 4
ROUNDS = 3
TABLES = PLAYERS // 2
SEED = 20_261_128
WAIT_SECONDS = 60.0
"""Bound of each wait (a restart takes a few seconds, a busy machine more)."""
NAME = "Twin cup"
CRASH_VAR = "MARRAKECH_CRASH_AT"
RATING_COLUMNS = ("guild_id", "user_id", "ai_level", "mu", "sigma", "games")
RATINGS = (
    f"SELECT {', '.join(RATING_COLUMNS)} FROM ratings "
    "ORDER BY guild_id, user_id IS NULL, user_id, ai_level"
)


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(bot_name="Marrakech", shard_count=SHARDS) as server:
        yield server


class Stored:
    """The tournament as the bot stored it, read through bot.storage."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.store = TournamentStore(database)
        games = GameService(GameStore(database), owner="test")
        self.service = TournamentService(self.store, games)

    async def tournament_id(self) -> int:
        async with self.database.reading() as conn:
            return int(await conn.fetchval("SELECT id FROM tournaments"))

    async def tables(self, round_no: int) -> list[TableRow]:
        tables = await self.store.tables(await self.tournament_id())
        return [table for table in tables if table.round == round_no]

    async def view(self) -> TournamentView:
        return await self.service.look(await self.tournament_id())


async def round_ready(fake: FakeDiscord, stored: Stored, round_no: int) -> list[TableRow]:
    """Wait until each table of the round has its thread and its game's message there."""
    found: list[TableRow] = []

    async def ready() -> bool:
        tables = await stored.tables(round_no)
        if len(tables) != TABLES or any(t.thread_id is None or t.game_id is None for t in tables):
            return False
        threads = [fake.world.channels.get(t.thread_id or 0) for t in tables]
        if not all(thread and turn_message(fake, thread) for thread in threads):
            return False
        found[:] = tables
        return True

    await until(ready, f"round {round_no} set up", timeout=WAIT_SECONDS)
    return found


async def game_over(stored: Stored, game_id: int) -> bool:
    async with stored.database.reading() as conn:
        status = await conn.fetchval("SELECT status FROM games WHERE id = $1", game_id)
    return bool(status == "over")


async def resign(
    fake: FakeDiscord, cluster: Cluster, stored: Stored, player: FakeUser, table: TableRow
) -> None:
    """`player` resigns the table's game: `/marrakech resign` and Resign on the question, again
    (once process 0, which answers this server, is back) until the game is stored as over."""
    assert table.thread_id is not None
    assert table.game_id is not None
    thread = fake.world.channels[table.thread_id]
    while not await game_over(stored, table.game_id):
        await until(lambda: answering(fake, cluster), "process 0 up", timeout=WAIT_SECONDS)
        with contextlib.suppress(TimeoutError):
            asking = await fake.slash(player, thread, "marrakech", "resign")
            question = await asking.answer(timeout=5)
            button = next((b for b in question.buttons() if b.label == "Resign"), None)
            if button is not None and button.custom_id is not None:
                await (await fake.click(player, question, button.custom_id)).answer(timeout=5)


def answering(fake: FakeDiscord, cluster: Cluster) -> bool:
    """Process 0 runs and holds its shard (a command sent now reaches it)."""
    session = fake.shard_session(0)
    return cluster.alive(0) and session is not None and session.connected


async def play_round(
    fake: FakeDiscord,
    cluster: Cluster,
    scene: Scene,
    stored: Stored,
    round_no: int,
    *meanwhile: Awaitable[None],
) -> list[frozenset[int | None]]:
    """Once the round is set up, a player of each table resigns, all at once, while
    `meanwhile` runs; the round's tables, as sets of seats."""
    tables = await round_ready(fake, stored, round_no)
    resigned = (
        resign(fake, cluster, stored, scene.people[table.seats[0] or 0], table) for table in tables
    )
    await asyncio.gather(*resigned, *meanwhile)
    return [frozenset(table.seats) for table in tables]


async def kill_at_random(cluster: Cluster, index: int, rng: random.Random) -> None:
    """SIGKILL process `index` after a random pause, then start it again after another."""
    await asyncio.sleep(rng.uniform(0.0, 1.0))
    await cluster.kill(index)
    await asyncio.sleep(rng.uniform(0.0, 0.5))
    await cluster.start(index)


async def restart(cluster: Cluster, index: int) -> None:
    await cluster.kill(index)
    await cluster.start(index)


async def ratings(database: Database) -> list[tuple[object, ...]]:
    async with database.reading() as conn:
        rows = await conn.fetch(RATINGS)
    return [tuple(row[column] for column in RATING_COLUMNS) for row in rows]


def announces(message: FakeMessage) -> bool:
    """The winner's announcement (or the winners', a first place shared)."""
    return f"**{NAME}**! [The final standings](" in message.content


def pixels(png: bytes) -> tuple[tuple[int, int], bytes]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size, image.convert("RGBA").tobytes()


async def test_two_processes_run_a_tournament_through_random_kills(
    fake: FakeDiscord, postgres_url: str, tmp_path: Path
) -> None:
    database = postgres_url
    scene = Scene(fake, PLAYERS, shard=0)
    cluster = Cluster(fake, database, tmp_path, processes=SHARDS)
    rng = random.Random(SEED)
    db: Database | None = None
    try:
        crasher = cluster.processes[0]
        crasher.env[CRASH_VAR] = "tournament.round_over:2"  # passed at the start, after round 1
        await cluster.start_all()
        db = await open_database(database)
        stored = Stored(db)
        message = await scene.open(name=NAME, format="swiss", seats=2, rounds=ROUNDS)
        pairs: list[frozenset[int | None]] = []

        # Round 1: process 0 dies as it ends, before pairing round 2; process 1, restarted,
        # pairs round 2 and sets its tables up, before process 0 is back.
        pairs += await play_round(fake, cluster, scene, stored, 1)
        await cluster.crashed(0)
        del crasher.env[CRASH_VAR]
        await restart(cluster, 1)
        await round_ready(fake, stored, 2)
        await cluster.start(0)

        # Round 2: each process killed at a random moment as it ends, and started again.
        pairs += await play_round(
            fake,
            cluster,
            scene,
            stored,
            2,
            *(kill_at_random(cluster, index, random.Random(rng.random())) for index in (0, 1)),
        )

        # Round 3: process 0 dies as its last game ends, before the end is stored; both
        # processes, started at once, race over the end in their catch-ups. Process 1 is
        # armed too: its catch-up after a start may run late enough to find the round over
        # first, and would then end the tournament itself (it dies there instead).
        await round_ready(fake, stored, 3)
        for process in cluster.processes:
            process.env[CRASH_VAR] = "tournament.round_over:1"
        await restart(cluster, 0)
        await restart(cluster, 1)
        pairs += await play_round(fake, cluster, scene, stored, 3)
        await cluster.crashed(0)
        for process in cluster.processes:
            del process.env[CRASH_VAR]
        await cluster.kill(1)
        await cluster.start_together((0, 1))

        async def over() -> bool:
            return (await stored.view()).status is TournamentStatus.OVER

        await until(over, "the tournament's end", timeout=WAIT_SECONDS)

        async def rated() -> bool:
            async with stored.database.reading() as conn:
                row = await conn.fetchrow(
                    "SELECT sum(games) AS games, sum(applied) AS applied FROM rating_guilds"
                )
            return row is not None and row["games"] == row["applied"] == ROUNDS * TABLES

        await until(rated, "every game applied to the ratings", timeout=WAIT_SECONDS)
        await fake.wait_for_message(scene.channel, announces, timeout=WAIT_SECONDS)
        view = await stored.view()
        expected = standings_post(view)
        assert expected.picture is not None
        drawn = pixels(render_standings(expected.picture))

        def final_picture() -> bool:
            shown = fake.world.messages[message.id]
            files = [a for a in shown.attachments if a.filename == STANDINGS_NAME]
            return bool(files) and pixels(files[0].data) == drawn

        await fake.wait_until(final_picture, timeout=WAIT_SECONDS, what="the final standings")
        await fake.wait_until(
            lambda: all(
                any(is_final(m) for m in fake.messages(thread))
                for thread in fake.threads(scene.channel)
            ),
            timeout=WAIT_SECONDS,
            what="every game's end shown in its thread",
        )
    finally:
        await cluster.close()
    try:
        # Both processes are stopped: what Discord shows now is what they left.
        assert fake.rest.limits.enabled, "Discord's per-route limits applied"
        refused = [
            f"{r.method} {r.path}"
            for r in fake.invalid_requests
            if r.fault is None and not r.inherited
        ]
        assert not refused, f"answered 429: {refused}"
        announced = [m for m in fake.messages(scene.channel) if announces(m)]
        assert len(announced) == 1, "the winner is announced once"
        final = fake.world.messages[message.id]
        (embed,) = final.embeds
        assert (embed["title"], embed["description"]) == (
            expected.embed.title,
            expected.embed.description,
        ), "the standings end on the text of what is stored"
        (picture,) = [a for a in final.attachments if a.filename == STANDINGS_NAME]
        assert pixels(picture.data) == drawn, "the standings end on the picture of what is stored"

        tables = [table for r in range(1, ROUNDS + 1) for table in await stored.tables(r)]
        assert len(tables) == ROUNDS * TABLES
        assert len({t.game_id for t in tables}) == len(tables), "one game a table"
        assert {t.game_status for t in tables} == {"over"}
        assert len(pairs) == len(set(pairs)), "no rematch"
        threads = fake.threads(scene.channel)
        assert sorted(t.id for t in threads) == sorted(t.thread_id or 0 for t in tables), (
            "one thread a table: " + ", ".join(t.name for t in threads)
        )
        async with db.reading() as conn:
            assert await conn.fetchval("SELECT count(*) FROM games") == len(tables)
            assert await conn.fetchval("SELECT count(*) FROM tournament_rounds") == ROUNDS
        applied = await ratings(db)
        await RatingService(RatingStore(db)).rebuild()
        assert await ratings(db) == applied, "each game applied once, in order"
        assert applied, "the tournament's games were rated"
    finally:
        if db is not None:
            await db.close()
    print(
        f"\n{cluster.kills} kills; {len(cluster.errors_logged())} ERROR lines in the logs; "
        f"{len(fake.invalid_requests)} requests refused"
    )
