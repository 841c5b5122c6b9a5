"""The discord.py client: intents, the command tree, the game buttons, heartbeat, recovery."""

from __future__ import annotations

import asyncio
import logging

import discord
import yarl
from discord.gateway import DiscordWebSocket

from bot.edge.buttons import GameButton, dispatchable
from bot.edge.commands import build_commands
from bot.edge.community import CommunityController
from bot.edge.games import GameController
from bot.edge.inflight import HANDLERS
from bot.edge.sync import sync_commands
from bot.edge.translator import CatalogueTranslator
from bot.presentation import images
from bot.runtime.health import Heartbeat
from bot.runtime.scheduler import Scheduler
from bot.services import DueKind, DueWork, GameService, GuildService, StatsService
from bot.services.clock import Clock, system_clock
from bot.storage import GameStore, GuildStore, StatsStore
from bot.workers.pool import WorkerPool

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL_SECONDS = 30.0
INTENTS = discord.Intents(guilds=True)
"""Only guilds (channels, threads, roles: what permission checks read). Interactions need no
intent; messages, reactions, typing and the privileged intents are never used, and every event
not asked for is one the bot does not have to decode under load."""
SHUTDOWN_GRACE_SECONDS = 5.0
"""How long a stop waits for the interactions being handled to finish."""


class MarrakechClient(discord.Client):
    """A gateway client that needs no privileged intents and mentions nobody by default."""

    def __init__(
        self,
        *,
        heartbeat: Heartbeat,
        service: GameService,
        store: GameStore,
        dev_guilds: tuple[int, ...] = (),
        gateway_from_api: bool = False,
        clock: Clock = system_clock,
        workers: WorkerPool | None = None,
    ) -> None:
        """`workers` draws the pictures (default: threads of this process, for tests); its
        owner starts and closes it."""
        super().__init__(
            intents=INTENTS,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.tree = discord.app_commands.CommandTree(self)
        self.tree.error(self._on_command_error)
        guilds = GuildService(GuildStore(store.database), clock=clock)
        stats = StatsService(StatsStore(store.database))
        self._workers = workers if workers is not None else WorkerPool(workers=0)
        pictures = images.Pictures(self._workers)
        self.buttons = GameController(self, service, guilds, pictures)
        self.community = CommunityController(service, guilds, stats, pictures)
        for group in build_commands(self.buttons, self.community):
            self.tree.add_command(group)
        self._service = service
        self.scheduler = Scheduler(service.turns, self._on_due, clock)
        self._store = store
        self._dev_guilds = dev_guilds
        self._heartbeat = heartbeat
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._warm_up: asyncio.Task[None] | None = None
        self._gateway_from_api = gateway_from_api

    async def setup_hook(self) -> None:
        if self._gateway_from_api:
            # Pointed at another API (a local fake): connect to the gateway it names.
            _, url, _ = await self.http.get_bot_gateway()
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
        self.add_dynamic_items(GameButton)
        # Workers start while the gateway connects (a quick restart matters more than the
        # first picture; a click that comes first simply waits for its worker).
        self._warm_up = asyncio.create_task(self._workers.start(), name="workers-start")
        await self.tree.set_translator(CatalogueTranslator())
        await sync_commands(self.tree, self._store, self._dev_guilds)
        # Before the gateway connects, so no click can race it: catch up on any game whose
        # message fell behind its state when the last run stopped (REST only).
        await self.buttons.resume_displays()
        self._heartbeat_task = asyncio.create_task(self._beat_forever(), name="heartbeat")
        finished = await self._service.play.backfill_results()
        if finished:
            log.info("results of %d finished games written for the stats", finished)
        # Its first pass handles reminders and turns that fell due while the bot was down.
        self.scheduler.start()

    async def _on_due(self, work: DueWork) -> None:
        """A reminder, an automatic turn or an overdue display is due: do it in the service,
        show it here."""
        match work.kind:
            case DueKind.SHOW:
                await self.buttons.catch_up(work.game_id)
            case DueKind.REMIND:
                reminder = await self._service.turns.remind(work.game_id, work.seq)
                if reminder is not None:
                    await self.buttons.send_reminder(reminder)
            case DueKind.PLAY:
                turn = await self._service.turns.play_due(work.game_id, work.seq)
                if turn is not None:
                    await self.buttons.show_auto_turn(turn)

    async def on_connect(self) -> None:
        await asyncio.to_thread(self._heartbeat.beat)

    async def on_ready(self) -> None:
        log.info("connected as %s (id %s)", self.user, self.user.id if self.user else "?")
        await asyncio.to_thread(self._heartbeat.beat)

    async def on_interaction(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Answer clicks no GameButton will take (forged ids, buttons no longer on the message):
        discord.py drops those silently, and every interaction deserves an answer."""
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
        """Beat every 30 s while the gateway connection is up (a stale file means trouble)."""
        while not self.is_closed():
            await asyncio.sleep(HEARTBEAT_INTERVAL_SECONDS)
            if self.ws is not None and self.ws.open:
                await asyncio.to_thread(self._heartbeat.beat)

    async def close(self) -> None:
        if self._heartbeat_task is not None:
            self._heartbeat_task.cancel()
        await self.scheduler.stop()
        if not await HANDLERS.drained(SHUTDOWN_GRACE_SECONDS):
            log.warning("closing with %s interactions still being handled", HANDLERS.count)
        await super().close()
