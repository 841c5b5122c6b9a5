"""The bot's runtime: build the client from settings, run it until a signal, return an exit code."""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path

import discord

from bot.edge.client import MarrakechClient
from bot.edge.sync import DevGuildRefusedError
from bot.runtime import early_signals
from bot.runtime.composition import Bot, build_bot
from bot.runtime.database_errors import opening_failure, reason
from bot.runtime.health import Heartbeat
from bot.runtime.loop_lag import LoopLagProbe
from bot.runtime.settings import DEV_GUILDS_VAR, SHARD_COUNT_VAR, SHARD_IDS_VAR, Settings
from bot.runtime.test_hooks import TestHooks
from bot.services import dice
from bot.services.clock import Clock, OffsetClock, system_clock
from bot.storage import Database, StorageError, open_database
from bot.workers.pool import WorkerPool

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_BAD_SETTINGS = 2
EXIT_LOGIN_FAILED = 3
EXIT_CRASHED = 1
EXIT_UNREACHABLE = 4
SHARD_CLOSE_CODES = {4010: "invalid shard", 4011: "sharding required"}
"""The gateway's close codes for shard settings Discord refuses."""
STOP_GRACE_SECONDS = 2.0
"""How long the gateway task may take to end once the client is closed. discord.py's sharded
client does not wake from a reconnect's back-off when it is closed (after a long outage of
Discord that back-off lasts minutes): past this, the task is cancelled."""


def run(settings: Settings, hooks: TestHooks | None = None) -> int:
    """Run the bot until SIGTERM/SIGINT or a fatal error; return the process exit code.
    `hooks` are the end-to-end tests' (a fake Discord, a shifted clock); None for a real bot."""
    hooks = hooks or TestHooks()
    # The bot never joins voice: no warning at every start about voice libraries it lacks.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    if hooks.api_base_url:
        discord.http.Route.BASE = hooks.api_base_url
    try:
        return asyncio.run(_serve(settings, hooks))
    except KeyboardInterrupt:
        return EXIT_OK


async def _serve(settings: Settings, hooks: TestHooks) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in early_signals.STOP_SIGNALS:
        loop.add_signal_handler(signum, stop.set)
    clock: Clock = system_clock
    offset_clock = None
    if hooks.clock_file is not None:
        offset_clock = OffsetClock(hooks.clock_file)
        clock = offset_clock
        log.warning("testing only: the clock is shifted by %.0f s", offset_clock.reload())
    heartbeat = Heartbeat(settings.heartbeat_path)
    loop_lag = LoopLagProbe(liveness=heartbeat.tick)
    loop_lag.start()  # before anything else, so a loop blocked at start-up shows too
    # Before the database opens (an upgrade's migrations may take long): SIGUSR2's default
    # action would kill the bot.
    for signum in early_signals.REPORT_SIGNALS:
        loop.add_signal_handler(signum, loop_lag.log_summary)
    # The signals that came while the bot loaded, now that the loop handles those to come.
    for kept in early_signals.take():
        if kept in early_signals.STOP_SIGNALS:
            stop.set()
        else:
            loop_lag.log_summary()
    if stop.is_set():
        log.info("stop signal received while starting, closing")
        await loop_lag.stop()
        return EXIT_OK
    try:
        database = await _open_unless_stopped(settings.database.target, stop)
    except Exception as error:
        code = opening_failure(error)
        if code is None:
            raise
        log.error("cannot open the database %r: %s", settings.database, reason(error))
        await loop_lag.stop()
        return code
    if database is None:
        await loop_lag.stop()
        return EXIT_OK
    workers = WorkerPool()
    try:
        bot = build_bot(
            database,
            heartbeat=heartbeat,
            clock=clock,
            workers=workers,
            seeds=hooks.seeds() or dice.new_seed,
            dev_guilds=settings.dev_guilds,
            gateway_from_api=hooks.api_base_url is not None,
            shards=settings.shards,
        )
        client = bot.client
        if offset_clock is not None:
            loop.add_signal_handler(signal.SIGUSR1, _shift_clock, offset_clock, bot)
        return await _run_client(client, settings.token, stop)
    finally:
        await workers.close()
        await database.close()
        await loop_lag.stop()  # logs the run's lag figures


async def _open_unless_stopped(target: str | Path, stop: asyncio.Event) -> Database | None:
    """The database opened, or None when a stop signal comes first. Opening may take longer
    than a supervisor waits before it kills (`docker stop`: 10 s): an upgrade's migrations on
    a large SQLite file, or a PostgreSQL database whose migrations another process applies
    meanwhile. So a stop cancels it: each migration is one transaction, the one under way is
    rolled back, and the next start applies it."""
    opening = asyncio.create_task(open_database(target), name="open-database")
    stopper = asyncio.create_task(stop.wait(), name="stop-signal")
    try:
        await asyncio.wait({opening, stopper}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        opening.cancel()
        raise
    finally:
        stopper.cancel()
    if opening.done():  # a stop that came meanwhile is acted on by the run
        return opening.result()
    log.info("stop signal received while the database was opening, closing")
    opening.cancel()
    (outcome,) = await asyncio.gather(opening, return_exceptions=True)
    if isinstance(outcome, Database):  # it opened before the cancellation reached it
        await outcome.close()
    return None


def _shift_clock(clock: OffsetClock, bot: Bot) -> None:
    """Testing only: read the clock offset again and look at the turn clocks anew."""
    log.info("testing only: the clock is now shifted by %.0f s", clock.reload())
    bot.scheduler.wake()


async def _run_client(client: MarrakechClient, token: str, stop: asyncio.Event) -> int:
    async with client:
        runner = asyncio.create_task(client.start(token), name="gateway")
        stopper = asyncio.create_task(stop.wait(), name="stop-signal")
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if stopper in done:
            log.info("stop signal received, closing")
            await client.close()
            _, pending = await asyncio.wait({runner}, timeout=STOP_GRACE_SECONDS)
            for task in pending:  # asleep in a reconnect's back-off: nothing left to close
                task.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            return EXIT_OK
        stopper.cancel()
        error = runner.exception()
        if isinstance(error, discord.LoginFailure):
            log.error("Discord refused the token: %s", error)
            return EXIT_LOGIN_FAILED
        if isinstance(error, discord.ConnectionClosed) and error.code in SHARD_CLOSE_CODES:
            log.error(
                "Discord refused shard %s (close code %s, %s): check %s and %s",
                error.shard_id,
                error.code,
                SHARD_CLOSE_CODES[error.code],
                SHARD_COUNT_VAR,
                SHARD_IDS_VAR,
            )
            return EXIT_BAD_SETTINGS
        if isinstance(error, DevGuildRefusedError):
            log.error(
                "%s: check %s (the bot must be in each of its servers, invited with the "
                "applications.commands scope)",
                error,
                DEV_GUILDS_VAR,
            )
            return EXIT_BAD_SETTINGS
        if isinstance(error, (OSError, discord.GatewayNotFound)):
            # Connection errors (aiohttp's are OSErrors) say all there is in one line.
            log.error("cannot reach Discord (check the network and DNS): %s", error)
            return EXIT_UNREACHABLE
        if isinstance(error, StorageError):  # a write of the start (setup_hook) failed
            log.error("the database failed while the bot was starting: %s", reason(error))
            return opening_failure(error) or EXIT_CRASHED
        if error is not None:
            log.error("the gateway connection failed", exc_info=error)
            return EXIT_CRASHED
        return EXIT_OK
