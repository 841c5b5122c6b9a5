"""The discord.py client: intents, the command tree, heartbeat while connected."""

from __future__ import annotations

import asyncio
import logging

import discord

from bot.health import Heartbeat

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL_SECONDS = 30.0


class MarrakechClient(discord.Client):
    """A gateway client that needs no privileged intents and beats a heartbeat file."""

    def __init__(self, *, heartbeat: Heartbeat) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = discord.app_commands.CommandTree(self)
        self._heartbeat = heartbeat
        self._heartbeat_task: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        self._heartbeat_task = asyncio.create_task(
            self._beat_forever(), name="heartbeat"
        )

    async def on_ready(self) -> None:
        log.info(
            "connected as %s (id %s)", self.user, self.user.id if self.user else "?"
        )
        self._heartbeat.beat()

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
