"""Tests of bot.runtime.composition: the bot as `build_bot` wires it and its start runs it."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot import supervisor as supervision
from bot.edge import delivery
from bot.edge import display as display_module
from bot.edge.display import CHANNEL_WINDOW_SECONDS
from bot.edge.inflight import HANDLERS
from bot.runtime import outage
from bot.runtime.composition import Bot, build_bot, claim_owner
from bot.runtime.health import Heartbeat
from bot.runtime.scheduler import Scheduler
from bot.services.accuracy import AccuracyRecorder
from bot.services.away import HeldNotice
from bot.services.catch_ups import CatchUp
from bot.services.tournaments import TournamentService
from bot.services.views import DueKind, DueWork
from bot.storage import GameStore, TurnClock, open_database
from bot.storage.database import Backend, DatabaseUnavailableError
from bot.storage.games import ShardSet
from bot.storage.values import time_to_column
from tests.bot.edge.test_edge import (
    Edge,
    clock_moving_waits,
    edge,
    on_the_gateway,
    running_edge,
    whole_turn_unshown,
)
from tests.bot.edge.test_edge_faults import Outage, shown
from tests.bot.edge.test_notices import (
    filled_by_the_last_run,
    press,
    refused_by_limits,
    timed_out_unshown,
)
from tests.bot.storage.test_claims import LONG_AGO, T0, T1, T3, due_game
from tests.e2e.fakecord import FakeChannel, permissions
from tests.e2e.fakecord.model import FakeMessage
from tests.e2e.fakecord.threads import is_system
from tests.polling import WAIT_SECONDS, until
from tests.postgres import backend, database_target, postgres_server, postgres_url

__all__ = ["backend", "database_target", "edge", "postgres_server", "postgres_url"]


async def test_the_turn_clock_runs_under_the_supervisor_which_starts_it_again_when_it_dies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run as a task of its own, a turn clock that died would stay dead, unseen by the
    heartbeat: timeouts, reminders and AI turns would stop for the rest of the run."""
    monkeypatch.setattr(supervision, "RESTART_SECONDS", 0.0)
    runs: list[asyncio.Task[Any]] = []
    """The task each run of the turn clock runs in."""

    async def dies_once(self: Scheduler) -> None:
        task = asyncio.current_task()
        assert task is not None
        runs.append(task)
        if len(runs) == 1:
            raise RuntimeError("the turn clock died")
        await asyncio.Event().wait()

    monkeypatch.setattr(Scheduler, "run_forever", dies_once)
    async with running_edge(tmp_path, monkeypatch):  # its login runs the bot's start
        # The task the first run died in goes on only if something keeps it running.
        await until(
            lambda: len(runs) > 1 or (len(runs) == 1 and runs[0].done()),
            "the turn clock started again, or its task ended",
        )
        assert len(runs) == 2, "the turn clock that died was not started again"


PARTS = ("client", "service", "display", "handlers", "scheduler", "store", "supervisor", "watch")
"""The parts a Bot cannot be built without."""


def bot_of(**parts: Any) -> Bot:
    """A Bot of the parts a test gives (fakes of the slices it uses); the others are None."""
    given: dict[str, Any] = dict.fromkeys(PARTS) | parts
    return Bot(**given)


class Reminders:
    """The slice of TurnClockService a due reminder goes through, with the claims it released."""

    def __init__(self) -> None:
        self.released: list[DueWork] = []

    async def remind(self, game_id: int, seq: int) -> str:
        return f"remind game {game_id}"

    async def release(self, work: DueWork) -> None:
        self.released.append(work)


class Channel:
    """The slice of GameDisplay a reminder is sent through: Discord takes it, or refuses it."""

    def __init__(self, *, refuses: bool) -> None:
        self.refuses = refuses

    async def wait_out_last_run(self, game_id: int) -> None:
        pass

    async def send_reminder(self, reminder: str) -> None:
        if self.refuses:
            raise RuntimeError("Discord said no")


@pytest.mark.parametrize("refuses", [False, True])
async def test_due_work_gives_up_its_claim_when_done_and_when_it_failed(refuses: bool) -> None:
    """A claim kept after a failure would hold the game back from the scheduler's retry in
    another process until its lease ran out."""
    turns = Reminders()
    bot = bot_of(service=SimpleNamespace(turns=turns), display=Channel(refuses=refuses))
    work = DueWork(game_id=7, seq=12, kind=DueKind.REMIND)
    if refuses:
        with pytest.raises(RuntimeError, match="Discord said no"):
            await bot.do_due_work(work)
    else:
        await bot.do_due_work(work)
    assert turns.released == [work]


def warnings_and_worse(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the bot logged at WARNING or above."""
    return [r for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING]


async def a_timed_game(edge: Edge, channel: FakeChannel | None = None) -> None:
    """Game 1, a game of two with a turn limit of 300 s, started in `channel` (the edge's own
    by default) and shown; the turn clock is stopped: the test runs its pass."""
    await edge.bot.scheduler.stop()
    where = channel or edge.channel
    lobby = await (
        edge.slash(edge.host, "marrakech", "new", channel=where, seats=2, turn_limit=300)
    ).answer()
    await press(edge, edge.guest, lobby, "join")
    await press(edge, edge.host, lobby, "start")
    await edge.fake.wait_for_message(where, lambda m: bool(m.pinged_user_ids))
    assert await HANDLERS.drained(30.0), "the start is still being shown"


async def game_due(edge: Edge, kind: DueKind) -> None:
    """Game 1, a game of two with a turn limit, is due `kind`: its first turn ran out of time
    (PLAY), or the AI's move for it is stored and was never shown (SHOW). The turn clock is
    stopped: the test runs its pass."""
    if kind is DueKind.SHOW:
        await timed_out_unshown(edge, 0)
        assert await HANDLERS.drained(30.0), "the start is still being shown"
        when = "updated_at"  # it waited past the display's patience
    else:
        await a_timed_game(edge)
        when = "due_at"
    async with edge.store.database.transaction() as conn:
        await conn.execute(
            f"UPDATE games SET {when} = $1, rev = rev + 1 WHERE id = 1", time_to_column(LONG_AGO)
        )


async def a_pass_with_old_clicks(
    edge: Edge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> int:
    """The turn clock's pass, its log caught, the players' clicks too old to answer through;
    the display's retries it leaves are cancelled: the work it handled."""
    monkeypatch.setattr(delivery, "TOKEN_USE_SECONDS", 0)
    display = edge.bot.display
    try:
        with caplog.at_level(logging.INFO):
            return await edge.bot.scheduler.run_due()
    finally:
        for task in display._retrying.values():
            task.cancel()


@pytest.mark.invalid_requests(403)
@pytest.mark.parametrize("kind", [DueKind.SHOW, DueKind.PLAY], ids=["show", "play"])
async def test_due_work_in_a_channel_the_bot_may_not_post_in_is_one_warning_and_left_to_the_display(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
    kind: DueKind,
) -> None:
    """The channel of a game now refuses the bot Send Messages when the turn clock shows the
    game: the pass is one WARNING line naming the game and the permissions, no traceback (as
    the turn clock's retry would log at each try), and the display shows the game again by
    itself once it may."""
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        await game_due(edge, kind)
        edge.fake.deny_bot(edge.channel, permissions.SEND_MESSAGES)
        monkeypatch.setattr(delivery, "TOKEN_USE_SECONDS", 0)  # the players' clicks are old
        display = edge.bot.display
        try:
            with caplog.at_level(logging.INFO):
                handled = await edge.bot.scheduler.run_due()
            assert 1 in display._retrying, "the game is left to the display's retry"
        finally:
            for task in display._retrying.values():
                task.cancel()
    (line,) = warnings_and_worse(caplog)
    assert (line.name, line.levelno) == ("bot.runtime.composition", logging.WARNING)
    assert line.exc_info is None, "no traceback"
    assert line.getMessage().startswith(f"game 1: {kind.value} not shown: the channel refuses")
    assert "Send Messages" in line.getMessage()
    assert handled == 1, "the turn clock leaves the game to the display, not to its retries"


async def reminder_due(edge: Edge) -> None:
    """Game 1, a game of two with a turn limit, is due its reminder; the turn clock is stopped:
    the test runs its pass."""
    await a_timed_game(edge)
    async with edge.store.database.transaction() as conn:
        await conn.execute(
            "UPDATE games SET remind_at = $1, rev = rev + 1 WHERE id = 1", time_to_column(LONG_AGO)
        )


@pytest.mark.invalid_requests(403)
async def test_a_reminder_in_a_channel_that_refuses_the_bot_is_one_warning_naming_what_it_lacks(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """As for every post of a game: one WARNING line naming the game and the permissions, no
    traceback; the reminder is not sent again (at most once: the turn's message pings)."""
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        await reminder_due(edge)
        edge.fake.deny_bot(edge.channel, permissions.SEND_MESSAGES)
        handled = await a_pass_with_old_clicks(edge, monkeypatch, caplog)
    (line,) = warnings_and_worse(caplog)
    assert (line.name, line.levelno) == ("bot.runtime.composition", logging.WARNING)
    assert line.exc_info is None, "no traceback"
    assert line.getMessage().startswith("game 1: remind not shown: the channel refuses")
    assert "Send Messages" in line.getMessage()
    assert handled == 1


async def test_a_reminder_discord_does_not_take_in_time_holds_the_turn_clock_no_longer(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The turn clock's pass waits for a reminder's post no longer than for any post of a game
    (DISCORD_TIMEOUT_SECONDS, shortened here), then goes on: the game's own line is a DEBUG
    one under the one WARNING saying Discord is failing, no traceback."""
    monkeypatch.setattr(display_module, "DISCORD_TIMEOUT_SECONDS", 0.2)
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        await reminder_due(edge)
        monkeypatch.setattr(delivery, "TOKEN_USE_SECONDS", 0)
        edge.fake.faults.hang("POST", rf"/channels/{edge.channel.id}/messages")
        try:
            with caplog.at_level(logging.DEBUG, logger="bot"):
                handled = await asyncio.wait_for(edge.bot.scheduler.run_due(), WAIT_SECONDS)
                await until(lambda: bool(warnings_and_worse(caplog)), "the outage's line")
        finally:
            edge.fake.faults.release_hangs(apply=False)
    (outage,) = warnings_and_worse(caplog)
    assert outage.getMessage().startswith("Discord is failing ("), outage.getMessage()
    assert "did not answer in time); " in outage.getMessage(), outage.getMessage()
    (line,) = [r for r in caplog.records if "its reminder was not posted" in r.getMessage()]
    assert line.levelno == logging.DEBUG
    assert line.exc_info is None, "no traceback"
    said = line.getMessage()
    assert said.startswith("game 1: its reminder was not posted ("), said
    assert said.endswith("did not answer in time)"), said
    assert handled == 1


@pytest.mark.invalid_requests(403)
@pytest.mark.parametrize(
    ("denied", "named"),
    [
        (permissions.ATTACH_FILES, "Attach Files"),
        (permissions.SEND_MESSAGES, "Send Messages"),
    ],
    ids=["attach_files", "send_messages"],
)
async def test_due_work_in_a_channel_that_denies_the_bot_one_permission_names_that_one_alone(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
    denied: int,
    named: str,
) -> None:
    """The one warning names what the channel's moderators must grant, as the client's cache
    knows it: not every permission a game needs, and not the Embed Links and Attach Files that
    Discord takes away with Send Messages (granting Send Messages gives them back)."""
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        await game_due(edge, DueKind.SHOW)
        async with on_the_gateway(edge, monkeypatch):
            edge.fake.deny_bot(edge.channel, denied)

            def cache_knows() -> bool:
                channel = edge.client.get_channel(edge.channel.id)
                return isinstance(channel, discord.TextChannel) and not (
                    channel.permissions_for(channel.guild.me).value & denied
                )

            await until(cache_knows, f"the client's cache knowing the channel denies {named}")
            await a_pass_with_old_clicks(edge, monkeypatch, caplog)
    (line,) = warnings_and_worse(caplog)
    assert line.getMessage().endswith(f"the channel refuses the bot (it needs {named} there)"), (
        line.getMessage()
    )


@pytest.mark.invalid_requests(403)
async def test_due_work_in_a_thread_whose_channel_denies_send_messages_in_threads_names_that_alone(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """In a thread, what Discord takes Embed Links and Attach Files away with is Send Messages
    in Threads (the channel's Send Messages still allowed): the one warning names that one
    alone, all a moderator has to grant, not the two it takes away."""
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        thread = edge.fake.add_thread(edge.channel, "side game")
        await a_timed_game(edge, thread)
        await whole_turn_unshown(edge, 1)
        async with edge.store.database.transaction() as conn:  # past the display's patience
            await conn.execute(
                "UPDATE games SET updated_at = $1, rev = rev + 1 WHERE id = 1",
                time_to_column(LONG_AGO),
            )
        async with on_the_gateway(edge, monkeypatch):
            edge.fake.deny_bot(edge.channel, permissions.SEND_MESSAGES_IN_THREADS)

            def cache_knows() -> bool:
                known = edge.client.get_channel(thread.id)
                return isinstance(known, discord.Thread) and not (
                    known.permissions_for(known.guild.me).send_messages_in_threads
                )

            await until(cache_knows, "the client's cache knowing the thread denies the bot")
            await a_pass_with_old_clicks(edge, monkeypatch, caplog)
    (line,) = warnings_and_worse(caplog)
    said = line.getMessage()
    assert said.startswith("game 1: show not shown: the channel refuses"), said
    assert said.endswith("the channel refuses the bot (it needs Send Messages in Threads there)"), (
        said
    )


async def test_an_automatic_turn_whose_display_an_outage_cut_off_is_shown_once_the_database_is_back(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """The turn clock's pass plays a turn that ran out of time (the AI's move for the person is
    stored, the next turn posted), and the database goes before its message is recorded: the
    pass fails with the outage, and the game is left to the display's retry, which shows it as
    soon as the database is back (the turn clock's own look at a game never shown waits
    DISPLAY_PATIENCE_SECONDS, a minute)."""
    monkeypatch.setattr(outage, "PROBE_SECONDS", 0.001)
    monkeypatch.setattr(outage, "PROBE_MAX_SECONDS", 0.01)
    monkeypatch.setattr(outage, "STEADY_SECONDS", 0.01)
    monkeypatch.setattr(display_module, "REDISPLAY_DELAYS_SECONDS", (0.0, 3600.0, 3600.0))
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        await game_due(edge, DueKind.PLAY)
        before = await edge.store.get(1)
        assert before is not None
        away = Outage(edge, monkeypatch)
        retrying = edge.bot.display._retrying
        try:
            away.fail("set_board_message")
            with pytest.raises(DatabaseUnavailableError):
                await edge.bot.scheduler.run_due()
            after = await edge.store.get(1)
            assert after is not None
            assert after.seq > before.seq, "the AI's move for the person is stored"
            assert not await shown(edge), "its message is not recorded"
            retry = retrying.get(1)
            assert retry is not None, "the game is left to the display's retry"
            away.end()
            await until(retry.done, "the display's retry, once the database is back")
            assert retry.exception() is None
            assert await shown(edge)
        finally:
            for task in list(retrying.values()):
                task.cancel()


@pytest.mark.invalid_requests(403)
async def test_a_start_goes_on_though_a_game_behind_is_in_a_channel_the_bot_may_not_post_in(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The whole start of a new run, as `python -m bot` runs it (login runs setup_hook, which
    runs before_connect), on a database where a game fell behind in a channel that now refuses
    the bot Send Messages: it completes, telling the game in one WARNING line, no traceback,
    where a failed start would meet the same game at every restart."""
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        await timed_out_unshown(edge, 0)  # the AI's move is stored, the next turn not posted
        edge.fake.deny_bot(edge.channel, permissions.SEND_MESSAGES)
        await edge.client.close()  # the last run stopped
        seconds = CHANNEL_WINDOW_SECONDS + 1  # it started again a window later
        later = edge.service.loader.clock() + timedelta(seconds=seconds)
        edge.fake.shift_clock(seconds)
        bot = build_bot(
            edge.store.database, heartbeat=Heartbeat(tmp_path / "heartbeat-2"), clock=lambda: later
        )
        try:
            with caplog.at_level(logging.INFO):
                await bot.client.login("fake-token")  # setup_hook: the commands, before_connect
            assert 1 in bot.display._retrying, "the game is left to the display's retry"
        finally:
            for task in bot.display._retrying.values():
                task.cancel()
            await bot.client.close()
    (line,) = warnings_and_worse(caplog)
    assert (line.name, line.levelno) == ("bot.edge.display", logging.WARNING)
    assert line.exc_info is None, "no traceback"
    assert line.getMessage().startswith("could not bring game 1's message up to date: ")
    assert "Send Messages" in line.getMessage()


def test_processes_on_one_host_holding_other_shards_are_other_claim_owners() -> None:
    """Each would take the other's claims at once, as its own, instead of waiting for their
    lease; a process restarted with the same shards takes back its own."""
    host = socket.gethostname()
    first = claim_owner(ShardSet(4, (0, 1)))
    second = claim_owner(ShardSet(4, (2, 3)))
    assert first != second
    assert first == claim_owner(ShardSet(4, (0, 1)))
    assert first.startswith(f"{host}:")
    assert second.startswith(f"{host}:")
    assert claim_owner(None) == f"{host}:shards-all"


async def test_processes_holding_other_shards_keep_their_own_record_of_a_start_s_catch_up(
    tmp_path: Path,
) -> None:
    """Two processes on one database, holding shards 0-1 and 2-3 of 4: the catch-up of games
    one's start records is not the other's, whose next start would otherwise wait for reads
    made in channels it never serves; a process restarted with the same shards reads its own."""
    database = await open_database(tmp_path / "catch-ups.sqlite3")
    try:
        first, second = (
            build_bot(database, heartbeat=Heartbeat(tmp_path / name), shards=shards).service
            for name, shards in (("first", ShardSet(4, (0, 1))), ("second", ShardSet(4, (2, 3))))
        )
        now = datetime.now(UTC)
        await first.catch_ups.record(CatchUp(now))
        await second.catch_ups.record(CatchUp(now, now))
        again = build_bot(
            database, heartbeat=Heartbeat(tmp_path / "again"), shards=ShardSet(4, (0, 1))
        ).service
        assert await again.catch_ups.last() == CatchUp(now), "its own, never ended"
        assert await second.catch_ups.last() == CatchUp(now, now)
        alone = build_bot(database, heartbeat=Heartbeat(tmp_path / "alone")).service
        assert await alone.catch_ups.last() is None, "a process holding every shard"
    finally:
        await database.close()


async def nothing(*_: object) -> int:
    return 0


async def test_a_start_drops_the_claims_left_on_sqlite_only(
    database_target: str, backend: Backend
) -> None:
    """SQLite serves one process: the claims left at its start are those of a run that
    stopped. On PostgreSQL they may be another running process's, and stay its own."""
    database = await open_database(database_target)
    try:
        store = GameStore(database)
        game_id = await due_game(store, 10, TurnClock(T0, None, T0))
        assert await store.claim(game_id, T0, "another process", T3)
        bot = bot_of(
            service=SimpleNamespace(
                play=SimpleNamespace(backfill_results=nothing),
                ratings=SimpleNamespace(catch_up=nothing),
            ),
            display=SimpleNamespace(resume_displays=nothing),
            scheduler=SimpleNamespace(start=lambda supervisor: None),
            store=store,
            supervisor=SimpleNamespace(start=lambda name, run: None),
            watch=SimpleNamespace(run=nothing),
        )
        await bot.before_connect()
        taken = await store.claim_due(T1, LONG_AGO, "this process", T3, 10)
        if backend == "sqlite":
            assert [game.id for game in taken] == [game_id], "a stopped run's claim is dropped"
        else:
            assert taken == [], "another running process's claim stays its own"
    finally:
        await database.close()


async def test_a_start_on_postgresql_listens_for_quiet_hours_and_time_away_changed_elsewhere() -> (
    None
):
    """docs/async.md: quiet hours and time away are read again when another process changes
    them, which PostgreSQL tells each process by a NOTIFY: the start runs that listener under
    the supervisor, beside the one that wakes the turn clock."""
    started: dict[str, Callable[[], Awaitable[None]]] = {}
    listened: list[object] = []

    async def listen(callback: object) -> None:
        listened.append(callback)

    def wake() -> None:
        pass

    def changed_elsewhere() -> None:
        pass

    bot = bot_of(
        service=SimpleNamespace(
            play=SimpleNamespace(backfill_results=nothing),
            ratings=SimpleNamespace(catch_up=nothing),
            away=SimpleNamespace(
                store=SimpleNamespace(listen_away=listen), changed_elsewhere=changed_elsewhere
            ),
        ),
        display=SimpleNamespace(resume_displays=nothing),
        scheduler=SimpleNamespace(start=lambda supervisor: None, wake=wake),
        store=SimpleNamespace(database=SimpleNamespace(backend="postgres"), listen=listen),
        supervisor=SimpleNamespace(start=started.__setitem__),
        watch=SimpleNamespace(run=nothing),
    )
    await bot.before_connect()
    for name, run in started.items():
        if name != "database-watch":
            await run()  # each listener, as the supervisor runs it
    assert wake in listened
    assert changed_elsewhere in listened, f"tasks started: {sorted(started)}"


async def held_message_failed(edge: Edge) -> FakeChannel:
    """The guest's turn in game 7 was held for their quiet hours, which are over: the bot's
    pass claims the notice and sends it by direct message, which Discord fails (a 503), and the
    pass raises. The guest's direct messages, where nothing arrived. The turn clock is stopped:
    the test runs its passes."""
    await edge.bot.scheduler.stop()
    channel = edge.channel
    assert channel.guild is not None
    now = edge.service.loader.clock()
    notice = HeldNotice(edge.guest.id, channel.guild.id, channel.id, 7, 12, "turn", "en-US", now)
    await edge.service.away.hold(notice)
    (work,) = await releases_due(edge)
    dm = edge.fake.dm_channel(edge.guest)
    edge.fake.faults.server_error("POST", f"/channels/{dm.id}/messages", status=503)
    with pytest.raises(discord.HTTPException):
        await edge.bot.do_due_work(work)
    assert edge.fake.messages(dm) == []
    return dm


async def releases_due(edge: Edge) -> list[DueWork]:
    """What a pass of the turn clock claims of the held notices due now: it looks, then
    claims."""
    turns = edge.service.turns
    await turns.next_due()
    return [work for work in await turns.due_work() if work.kind is DueKind.RELEASE]


async def test_what_quiet_hours_held_is_marked_sent_only_once_its_message_went(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """docs/reliability.md: stored, claimed, sent, then marked sent. A direct message Discord
    failed leaves the notice unsent: the next pass sends it."""
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        dm = await held_message_failed(edge)
        again = await releases_due(edge)
        assert len(again) == 1, "marked sent though its message never went"
        await edge.bot.do_due_work(again[0])
        assert len(edge.fake.messages(dm)) == 1
        assert await releases_due(edge) == [], "sent once"


async def test_what_quiet_hours_held_whose_message_discord_failed_is_one_line_naming_the_person(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    request: pytest.FixtureRequest,
) -> None:
    """The turn clock's pass whose direct message Discord failed (a 503): the log says so in
    one line naming the person it was for and what Discord answered, without a traceback
    (Discord's fault, tried again by a later pass; a DEBUG line, the outage's WARNING telling
    it once), and names no game: the work is a person's, not a game's."""
    async with running_edge(tmp_path, monkeypatch, test=request.node) as edge:
        await edge.bot.scheduler.stop()
        channel = edge.channel
        assert channel.guild is not None
        now = edge.service.loader.clock()
        notice = HeldNotice(
            edge.guest.id, channel.guild.id, channel.id, 7, 12, "turn", "en-US", now
        )
        await edge.service.away.hold(notice)
        dm = edge.fake.dm_channel(edge.guest)
        edge.fake.faults.server_error("POST", f"/channels/{dm.id}/messages", status=503)
        with caplog.at_level(logging.DEBUG, logger="bot.runtime.scheduler"):
            await edge.bot.scheduler.seconds_to_sleep()
            await edge.bot.scheduler.run_due()

    (record,) = [r for r in caplog.records if r.name == "bot.runtime.scheduler"]
    assert record.levelno == logging.DEBUG
    assert record.exc_info is None, "one line, no traceback"
    said = record.getMessage()
    assert f"user {edge.guest.id}" in said, said
    assert "503 Service Unavailable" in said, said
    assert "game" not in said, said


async def test_what_quiet_hours_held_whose_message_failed_is_given_back_at_once(
    database_target: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """The pass whose direct message Discord failed gives its claim back: another process
    sends the notice at its next pass, not once the claim's lease ran out a minute later."""
    async with running_edge(
        tmp_path, monkeypatch, database_target=database_target, test=request.node
    ) as edge:
        await held_message_failed(edge)
        later = edge.service.loader.clock() + timedelta(seconds=1)
        lease = later + timedelta(seconds=60)
        taken = await edge.service.away.store.claim_held(later, "another process", lease)
        assert [notice.seq for notice in taken] == [12], "still claimed by the pass that failed"


async def test_the_start_looks_for_the_finished_games_whose_accuracy_the_stats_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/coach.md: the games that ended while the bot was down, or before a crash let it
    write their accuracy, are judged from the start on, with no game closing in this run: the
    start runs the stats' job, whose first pass looks for them."""
    looked: list[AccuracyRecorder] = []

    async def catch_up(self: AccuracyRecorder) -> int:
        looked.append(self)
        return 0

    monkeypatch.setattr(AccuracyRecorder, "catch_up", catch_up)
    async with running_edge(tmp_path, monkeypatch) as edge:  # its login runs the bot's start
        job = edge.bot.accuracy
        assert job is not None
        await until(lambda: looked == [job], "the stats' job looking for games to judge")


def gateway_ready(edge: Edge, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gateway, which these tests do not open, is ready."""

    async def ready() -> None:
        pass

    monkeypatch.setattr(edge.client, "wait_until_ready", ready)


async def cup_of_two(edge: Edge) -> FakeMessage:
    """A Swiss tournament's sign-up, opened by the moderator, that the host and the guest
    joined."""
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    for user in (edge.host, edge.guest):
        await edge.click(user, signup, "Join").response()
    return signup


async def table_set_up(service: TournamentService) -> bool:
    """Whether the first tournament's only table has its thread and its game."""
    (table,) = (await service.look(1)).tables
    return table.thread_id is not None and table.game_id is not None


async def test_a_start_sets_up_the_tables_of_a_round_the_last_run_paired_and_left(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/tournaments.md: the run that paired the tournament's first round was killed before
    it set the round's table up (no thread, no game); the next start sets it up, though its
    catch-up has no round left to pair."""
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    clock_moving_waits(edge, monkeypatch)  # the start's wait for the channel's window
    await cup_of_two(edge)
    service = tournaments._service
    paired = await service.start(1, edge.moderator.id, moderator=True)  # shown by nothing
    assert paired.paired == 1
    (table,) = (await service.look(1)).tables
    assert (table.thread_id, table.game_id) == (None, None)

    gateway_ready(edge, monkeypatch)
    await edge.bot.before_connect()  # the next start

    await until(lambda: table_set_up(service), "the table's thread and game")
    (table,) = (await service.look(1)).tables
    assert table.thread_id is not None
    thread = edge.fake.world.channels[table.thread_id]
    await edge.fake.wait_for_message(thread, lambda m: bool(m.pinged_user_ids))  # its first turn


async def test_a_start_sets_up_and_draws_a_tournament_once_the_last_run_s_window_is_over(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run paired the tournament's first round and was killed before it set its table
    up, having read the tournament channel's history and edited its messages as much as
    Discord's window takes (5 of each in 5 s: a round's tables set up, the standings redrawn).
    The start's catch-up waits out that window before it works in the channel with the bot
    token, so that Discord refuses none of it (a 429 counts toward its ban on invalid
    requests): the table is set up, Discord's "started a thread" notice deleted and the
    standings drawn."""
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    signup = await cup_of_two(edge)
    assert await HANDLERS.drained(30.0), "a click's handler is still running"
    service = tournaments._service
    assert (await service.start(1, edge.moderator.id, moderator=True)).paired == 1
    channel = f"/channels/{edge.channel.id}/messages"
    filled_by_the_last_run(edge, ("GET", channel), ("PATCH", f"{channel}/{signup.id}"))
    waits = clock_moving_waits(edge, monkeypatch)

    gateway_ready(edge, monkeypatch)
    await edge.bot.before_connect()  # the next start

    await until(lambda: table_set_up(service), "the table's thread and game")
    await until(
        lambda: "round 1" in edge.fake.world.messages[signup.id].embed_text(),
        "the standings drawn",
    )
    notices = [m for m in edge.fake.messages(edge.channel) if is_system(m)]
    assert notices == [], "Discord's notice of the table's thread is deleted"
    assert refused_by_limits(edge) == []
    assert 0 < sum(waits) <= CHANNEL_WINDOW_SECONDS, "waited for the rest of the window"


async def test_a_tournament_begun_after_the_start_waits_for_no_window(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last run can have used no window of a tournament that did not exist yet: one opened
    and started right after a start sets its tables up and draws its standings at once, where
    one from before the start waits the window out."""
    tournaments = edge.bot.tournaments
    assert tournaments is not None
    waits = clock_moving_waits(edge, monkeypatch)

    gateway_ready(edge, monkeypatch)
    await edge.bot.before_connect()  # the start
    restarted = edge.bot.display._restarted_at
    assert restarted is not None
    monkeypatch.setattr(edge.bot.display, "_clock", lambda: restarted)  # within the window
    signup = await cup_of_two(edge)
    await edge.click(edge.moderator, signup, "Start").response()
    assert await HANDLERS.drained(30.0), "a click's handler is still running"

    await until(lambda: table_set_up(tournaments._service), "the table's thread and game")
    await until(
        lambda: "round 1" in edge.fake.world.messages[signup.id].embed_text(),
        "the standings drawn",
    )
    assert waits == [], "the tournament begun after the start"
