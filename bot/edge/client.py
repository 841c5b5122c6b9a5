"""The discord.py client: intents, shards, the command tree, the game buttons, the heartbeat,
and answers to the interactions no handler of ours takes.

The client is sharded: one websocket per shard it holds, all in this process. By default it
holds every shard, as many as Discord recommends (one for most bots); given a shard count and
ids, it holds only those, so that several processes can share the bot's guilds."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any, Protocol

import discord
import yarl
from discord.gateway import DiscordWebSocket

from bot.edge.buttons import DYNAMIC_ITEMS, ButtonHandler, TournamentButtonHandler, dispatchable
from bot.edge.inflight import HANDLERS
from bot.edge.sync import sync_commands
from bot.edge.translator import CatalogueTranslator
from bot.runtime.health import Heartbeat
from bot.storage.games import GameStore
from bot.workers.pool import WorkerPool

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL_SECONDS = 30.0
INTENTS = discord.Intents(guilds=True)
"""Only guilds (channels, threads, roles: what permission checks read). Interactions need no
intent; messages, reactions, typing and the privileged intents are never used, and every event
not asked for is one the bot does not have to decode under load."""
SHUTDOWN_GRACE_SECONDS = 5.0
"""How long a stop waits for the interactions being handled to finish."""


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
    """Takes the clicks on tournament buttons."""

    def __init__(
        self,
        *,
        heartbeat: Heartbeat,
        store: GameStore,
        dev_guilds: tuple[int, ...] = (),
        gateway_from_api: bool = False,
        workers: WorkerPool | None = None,
        shard_count: int | None = None,
        shard_ids: tuple[int, ...] | None = None,
    ) -> None:
        """`store` keeps the synced commands' hash; `workers` start with the client (their owner
        closes them). `shard_count` and `shard_ids` pick the shards this process holds (None:
        all of them, as many as Discord recommends; ids need the count)."""
        if shard_ids is None:
            super().__init__(
                intents=INTENTS,
                allowed_mentions=discord.AllowedMentions.none(),
                shard_count=shard_count,
            )
        else:
            super().__init__(
                intents=INTENTS,
                allowed_mentions=discord.AllowedMentions.none(),
                shard_count=shard_count,
                shard_ids=list(shard_ids),
            )
        self.tree = discord.app_commands.CommandTree(self)
        self.tree.error(self._on_command_error)
        self._workers = workers
        self._store = store
        self._dev_guilds = dev_guilds
        self._heartbeat = heartbeat
        self._heartbeat_task: asyncio.Task[None] | None = None
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
    ) -> None:
        """Hand over the handlers, the start/stop hooks and the command groups."""
        self.buttons = buttons
        if tournaments is not None:
            self.tournaments = tournaments
        self._lifecycle = hooks
        for group in commands:
            self.tree.add_command(group)

    async def setup_hook(self) -> None:
        if self._gateway_from_api:
            # Pointed at another API (a local fake): connect to the gateway it names.
            _, url, _ = await self.http.get_bot_gateway()
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self._workers is not None:
            # Workers start while the gateway connects (a quick restart matters more than the
            # first picture; a click that comes first simply waits for its worker).
            self._warm_up = asyncio.create_task(self._workers.start(), name="workers-start")
        await self.tree.set_translator(CatalogueTranslator())
        await sync_commands(self.tree, self._store, self._dev_guilds)
        if self._lifecycle is not None:
            await self._lifecycle.before_connect()
        self._heartbeat_task = asyncio.create_task(self._beat_forever(), name="heartbeat")

    async def on_connect(self) -> None:
        await asyncio.to_thread(self._heartbeat.beat)

    async def on_shard_ready(self, shard_id: int) -> None:
        log.info("shard %s of %s ready", shard_id, self.shard_count)

    async def on_ready(self) -> None:
        log.info("connected as %s (id %s)", self.user, self.user.id if self.user else "?")
        await asyncio.to_thread(self._heartbeat.beat)

    async def on_interaction(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Answer clicks no button of ours will take (forged ids, buttons no longer on the
        message): discord.py drops those silently, and every interaction deserves an answer."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, object] = dict(interaction.data or {})
        custom_id = data.get("custom_id")
        if isinstance(custom_id, str) and dispatchable(interaction.message, custom_id):
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
                await asyncio.to_thread(self._heartbeat.beat)

    def gateway_open(self) -> bool:
        """Whether every shard this process holds has its websocket open (one down is enough
        to make the bot deaf to that shard's guilds)."""
        shards = self.shards
        expected = self.shard_ids if self.shard_ids is not None else range(self.shard_count or 1)
        return bool(shards) and all(
            shard_id in shards and not shards[shard_id].is_closed() for shard_id in expected
        )

    async def close(self) -> None:
        for task in (self._heartbeat_task, self._warm_up):
            if task is not None:
                task.cancel()
        if self._lifecycle is not None:
            await self._lifecycle.stopping()
        if not await HANDLERS.drained(SHUTDOWN_GRACE_SECONDS):
            log.warning("closing with %s interactions still being handled", HANDLERS.count)
        await super().close()
