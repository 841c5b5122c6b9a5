"""The discord.py client: intents, shards, the command tree, the game buttons, the heartbeat,
and answers to the interactions no handler of ours takes.

The client is sharded: one websocket per shard it holds, all in this process. By default it
holds every shard, as many as Discord recommends (one for most bots); given a shard count and
ids, it holds only those, so that several processes can share the bot's guilds.

The heartbeat runs under the bot's supervisor (bot.supervisor) and survives a disk that
refuses its writes: the first failure is logged, the next beats try again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any, Protocol

import discord
import yarl
from discord.gateway import DiscordWebSocket

from bot.edge.buttons import (
    DYNAMIC_ITEMS,
    ButtonHandler,
    DrillButtonHandler,
    SeatButtonHandler,
    TournamentButtonHandler,
    WatchButtonHandler,
    dispatchable,
)
from bot.edge.incidents import DISCORD, SERVER_ERRORS
from bot.edge.inflight import HANDLERS
from bot.edge.pacing import GlobalPace, share_of
from bot.edge.sync import KeyValues, sync_commands
from bot.edge.translator import CatalogueTranslator
from bot.supervisor import DownTasks, Supervisor
from bot.workers.pool import WorkerPool

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL_SECONDS = 30.0
INTENTS = discord.Intents(guilds=True)
"""Only guilds (channels, threads, roles: what permission checks read). Interactions need no
intent; messages, reactions, typing and the privileged intents are never used, and every event
not asked for is one the bot does not have to decode under load."""
SHUTDOWN_GRACE_SECONDS = 5.0
"""How long a stop waits for the interactions being handled to finish."""


class Heartbeat(DownTasks, Protocol):
    """The heartbeat file the client beats while the gateway is up (bot.runtime.health, which
    the composition root passes in)."""

    def beat(self) -> None: ...


class ClientHooks(Protocol):
    """What the composition root runs around the gateway connection."""

    async def before_connect(self) -> None:
        """Runs once the commands are synced, before the gateway connects (REST only)."""

    async def stopping(self) -> None:
        """Runs first when the client closes."""


class InteractionHandler(ButtonHandler, Protocol):
    """Who answers the interactions no command or button of ours takes."""

    async def unknown_button(self, interaction: discord.Interaction[Any]) -> None: ...

    async def command_failed(
        self,
        interaction: discord.Interaction[Any],
        error: discord.app_commands.AppCommandError,
    ) -> None: ...


class MarrakechClient(discord.AutoShardedClient):
    """A sharded gateway client that needs no privileged intents and mentions nobody by default.

    It knows the Discord side only: the composition root (bot.runtime.composition) builds the
    services and handlers and hands them over with `attach` before the client starts."""

    buttons: InteractionHandler
    """Takes the buttons' clicks (the DynamicItems of bot.edge.buttons call it), unknown ids
    and command errors."""
    tournaments: TournamentButtonHandler
    drills: DrillButtonHandler
    seats: SeatButtonHandler
    watchers: WatchButtonHandler
    """Takes the clicks on tournament buttons."""

    def __init__(
        self,
        *,
        heartbeat: Heartbeat,
        store: KeyValues,
        dev_guilds: tuple[int, ...] = (),
        gateway_from_api: bool = False,
        workers: WorkerPool | None = None,
        shard_count: int | None = None,
        shard_ids: tuple[int, ...] | None = None,
        supervisor: Supervisor | None = None,
    ) -> None:
        """`store` keeps the synced commands' hash; `workers` start with the client (their owner
        closes them). `shard_count` and `shard_ids` pick the shards this process holds (None:
        all of them, as many as Discord recommends; ids need the count). The heartbeat runs
        under `supervisor` (default: one of the client's own), which the client stops when it
        closes. The requests made with the bot token keep to this process's share of Discord's
        global limit (bot.edge.pacing)."""
        self.pace = GlobalPace(share_of(shard_count, shard_ids))
        trace = self.pace.trace()
        SERVER_ERRORS.watch(trace)
        self.discord_availability = DISCORD.renew()
        if shard_ids is None:
            super().__init__(
                intents=INTENTS,
                allowed_mentions=discord.AllowedMentions.none(),
                shard_count=shard_count,
                http_trace=trace,
            )
        else:
            super().__init__(
                intents=INTENTS,
                allowed_mentions=discord.AllowedMentions.none(),
                shard_count=shard_count,
                shard_ids=list(shard_ids),
                http_trace=trace,
            )
        self.tree = discord.app_commands.CommandTree(self)
        self.tree.error(self._on_command_error)
        self._workers = workers
        self._store = store
        self._dev_guilds = dev_guilds
        self._heartbeat = heartbeat
        self._beat_failing = False
        self._tasks = supervisor if supervisor is not None else Supervisor(heartbeat)
        self._warm_up: asyncio.Task[None] | None = None
        self._gateway_from_api = gateway_from_api
        self._lifecycle: ClientHooks | None = None

    def attach(
        self,
        *,
        buttons: InteractionHandler,
        hooks: ClientHooks,
        commands: Iterable[discord.app_commands.Group],
        tournaments: TournamentButtonHandler | None = None,
        drills: DrillButtonHandler | None = None,
        seats: SeatButtonHandler | None = None,
        watchers: WatchButtonHandler | None = None,
    ) -> None:
        """Hand over the handlers, the start/stop hooks and the command groups."""
        self.buttons = buttons
        if tournaments is not None:
            self.tournaments = tournaments
        if drills is not None:
            self.drills = drills
        if seats is not None:
            self.seats = seats
        if watchers is not None:
            self.watchers = watchers
        self._lifecycle = hooks
        for group in commands:
            self.tree.add_command(group)

    async def setup_hook(self) -> None:
        if self._gateway_from_api:
            await self._use_gateway_of_api()
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self._workers is not None:
            # Workers start while the gateway connects (a quick restart matters more than the
            # first picture; a click that comes first simply waits for its worker).
            self._warm_up = asyncio.create_task(self._workers.start(), name="workers-start")
        await self.tree.set_translator(CatalogueTranslator())
        await sync_commands(self.tree, self._store, self._dev_guilds)
        if self._lifecycle is not None:
            await self._lifecycle.before_connect()
        self._tasks.start("heartbeat", self._beat_forever)

    async def _use_gateway_of_api(self) -> None:
        """Pointed at another API (a local fake): connect to the gateway it names, asking once.
        `GET /gateway/bot` has a tight limit of its own (a few calls in 5 s for the whole bot),
        so its recommended shard count is kept for discord.py, which would ask again, and a
        process given its shard count asks `GET /gateway` instead, which has no such limit."""
        if self.shard_count is None:
            self.shard_count, url, _ = await self.http.get_bot_gateway()
        else:
            found = await self.http.request(discord.http.Route("GET", "/gateway"))
            url = found["url"]
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)

    async def on_connect(self) -> None:
        await self._beat()

    async def on_shard_ready(self, shard_id: int) -> None:
        log.info("shard %s of %s ready", shard_id, self.shard_count)

    async def on_ready(self) -> None:
        log.info("connected as %s (id %s)", self.user, self.user.id if self.user else "?")
        await self._beat()

    async def on_interaction(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Note each interaction at DEBUG (its id, kind, user and button id or command name;
        never its token, which discord.py's own DEBUG lines would write), then answer clicks no
        button of ours will take (forged ids, buttons no longer on the message): discord.py
        drops those silently, and every interaction deserves an answer."""
        data: dict[str, object] = dict(interaction.data or {})
        custom_id = data.get("custom_id")
        log.debug(
            "interaction %s (%s) from user %s: %s",
            interaction.id,
            interaction.type.name,
            interaction.user.id,
            custom_id if custom_id is not None else data.get("name"),
        )
        if interaction.type is not discord.InteractionType.component:
            return
        kind = data.get("component_type")
        if isinstance(custom_id, str) and dispatchable(interaction.message, custom_id, kind):
            return
        await self.buttons.unknown_button(interaction)

    async def _on_command_error(
        self,
        interaction: discord.Interaction[discord.Client],
        error: discord.app_commands.AppCommandError,
    ) -> None:
        await self.buttons.command_failed(interaction, error)

    async def _beat_forever(self) -> None:
        """Beat every 30 s while the gateway is up (a stale file means trouble)."""
        while not self.is_closed():
            await asyncio.sleep(HEARTBEAT_INTERVAL_SECONDS)
            if self.gateway_open():
                await self._beat()

    async def _beat(self) -> None:
        """Record that the gateway is up. A write the disk refuses (full) is logged once; the
        beat is kept in memory, and the next write of the file (the loop's tick, every few
        seconds) carries it once there is room."""
        try:
            await asyncio.to_thread(self._heartbeat.beat)
        except OSError as error:
            if not self._beat_failing:
                log.warning("cannot write the heartbeat file (%s); trying again", error)
            self._beat_failing = True
            return
        if self._beat_failing:
            log.info("the heartbeat file is written again")
        self._beat_failing = False

    def gateway_open(self) -> bool:
        """Whether every shard this process holds has its websocket open (one down is enough
        to make the bot deaf to that shard's guilds)."""
        shards = self.shards
        expected = self.shard_ids if self.shard_ids is not None else range(self.shard_count or 1)
        return bool(shards) and all(
            shard_id in shards and not shards[shard_id].is_closed() for shard_id in expected
        )

    async def close(self) -> None:
        if self._warm_up is not None:
            self._warm_up.cancel()
        if self._lifecycle is not None:
            await self._lifecycle.stopping()
        await self._tasks.stop()
        if not await HANDLERS.drained(SHUTDOWN_GRACE_SECONDS):
            log.warning("closing with %s interactions still being handled", HANDLERS.count)
        await super().close()
