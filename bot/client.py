"""The discord.py client: intents, the command tree, the game buttons, heartbeat, recovery."""

from __future__ import annotations

import asyncio
import logging

import discord

from bot.commands import build_commands
from bot.controller import GameController
from bot.health import Heartbeat
from bot.services import GameService
from bot.storage import GameStore
from bot.sync import sync_commands
from bot.ui.buttons import GameButton

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL_SECONDS = 30.0


class MarrakechClient(discord.Client):
    """A gateway client that needs no privileged intents and mentions nobody by default."""

    def __init__(
        self,
        *,
        heartbeat: Heartbeat,
        service: GameService,
        store: GameStore,
        dev_guilds: tuple[int, ...] = (),
    ) -> None:
        super().__init__(
            intents=discord.Intents.default(),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.tree = discord.app_commands.CommandTree(self)
        self.buttons = GameController(self, service)
        for group in build_commands(self.buttons):
            self.tree.add_command(group)
        self._store = store
        self._dev_guilds = dev_guilds
        self._heartbeat = heartbeat
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._resumed = False

    async def setup_hook(self) -> None:
        self.add_dynamic_items(GameButton)
        await sync_commands(self.tree, self._store, self._dev_guilds)
        self._heartbeat_task = asyncio.create_task(self._beat_forever(), name="heartbeat")

    async def on_ready(self) -> None:
        log.info("connected as %s (id %s)", self.user, self.user.id if self.user else "?")
        await asyncio.to_thread(self._heartbeat.beat)
        if not self._resumed:
            self._resumed = True
            await self.buttons.resume_displays()

    async def _beat_forever(self) -> None:
        await self.wait_until_ready()
        while not self.is_closed():
            if self.is_ready() and self.ws is not None and self.ws.open:
                await asyncio.to_thread(self._heartbeat.beat)
            await asyncio.sleep(HEARTBEAT_INTERVAL_SECONDS)

    async def close(self) -> None:
        if self._heartbeat_task is not None:
            self._heartbeat_task.cancel()
        await super().close()
