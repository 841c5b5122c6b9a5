"""A tiny real discord.py bot the harness runs as a subprocess to prove the fake works.

Run as ``python sample_bot.py`` with DISCORD_TOKEN and DISCORD_API_BASE_URL set. It has one
slash command group (``/sample``) with subcommands that exercise every kind of answer, and one
DynamicItem button that survives restarts.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import signal
import sys

import discord
import yarl
from discord import app_commands
from discord.gateway import DiscordWebSocket

log = logging.getLogger("sample_bot")


def point_at_fake_api(base_url: str | None) -> None:
    """Send REST calls to ``base_url`` (discord.py's gateway URL is set in setup_hook)."""
    if base_url:
        discord.http.Route.BASE = base_url.rstrip("/")


class CounterButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"sample:count:(?P<count>\d+)",
):
    """A persistent button whose custom_id carries its count; a click adds one."""

    def __init__(self, count: int) -> None:
        super().__init__(
            discord.ui.Button(label=f"Count {count}", custom_id=f"sample:count:{count}")
        )
        self.count = count

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
    ) -> CounterButton:
        return cls(int(match["count"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(self.count + 1))
        await interaction.response.edit_message(content=f"count is {self.count + 1}", view=view)


class SampleBot(discord.Client):
    def __init__(self) -> None:
        # READY fires guild_ready_timeout after the last GUILD_CREATE; 2 s by default.
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.2)
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(sample)
        self.tree.add_command(sample_mod)

    async def setup_hook(self) -> None:
        if os.environ.get("DISCORD_API_BASE_URL"):
            # GET /gateway: GET /gateway/bot would do too, but takes 2 calls in 5 s.
            found = await self.http.request(discord.http.Route("GET", "/gateway"))
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(found["url"])
        self.add_dynamic_items(CounterButton)
        # Syncing is limited to 2 a minute: sync only what Discord does not have yet.
        registered = {command.name for command in await self.tree.fetch_commands()}
        if registered != {command.name for command in self.tree.get_commands()}:
            synced = await self.tree.sync()
            log.info("synced %d commands", len(synced))

    async def on_ready(self) -> None:
        log.info("READY as %s", self.user)

    async def on_resumed(self) -> None:
        log.info("RESUMED")


sample = app_commands.Group(name="sample", description="Sample commands for the harness")


@sample.command(name="hello", description="Say hello with a counter button")
@app_commands.describe(name="who to greet", times="how many times", who="someone to ping")
async def hello(
    interaction: discord.Interaction,
    name: str,
    times: app_commands.Range[int, 1, 5] = 1,
    who: discord.Member | None = None,
) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(CounterButton(0))
    ping = f" {who.mention}" if who is not None else ""
    allowed = discord.AllowedMentions(users=[who] if who is not None else False)
    await interaction.response.send_message(
        f"{' '.join(['hello'] * times)} {name}{ping}", view=view, allowed_mentions=allowed
    )


@sample.command(name="secret", description="An answer only you can see")
async def secret(interaction: discord.Interaction) -> None:
    locale = interaction.locale.value
    note = discord.File(io.BytesIO(b"psst"), "secret.txt")
    await interaction.response.send_message(
        f"only you can see this ({locale})", file=note, ephemeral=True
    )


@sample.command(name="report", description="A deferred answer with a file")
async def report(interaction: discord.Interaction) -> None:
    await interaction.response.defer(thinking=True)
    await interaction.edit_original_response(content="building report...")
    data = f"report for {interaction.user.name}\n".encode()
    attached = await interaction.followup.send(
        "here is the file", file=discord.File(io.BytesIO(data), "report.txt"), wait=True
    )
    temporary = await interaction.followup.send("one moment", wait=True)
    await temporary.delete()
    await attached.edit(content="here is the file (checked)")
    original = await interaction.original_response()
    await interaction.edit_original_response(content=f"report ready (was: {original.content})")


@sample.command(name="post", description="Post a channel message through the REST API")
async def post(interaction: discord.Interaction, text: str) -> None:
    await interaction.response.defer(ephemeral=True, thinking=True)
    channel = interaction.channel
    assert isinstance(channel, discord.abc.Messageable)
    try:
        sent = await channel.send(text)
    except discord.Forbidden as error:
        await interaction.edit_original_response(
            content=f"cannot post: {error.text} ({error.code})"
        )
        return
    await interaction.edit_original_response(content=f"posted {sent.id}")


sample_mod = app_commands.Group(
    name="sample-mod",
    description="Moderator commands",
    default_permissions=discord.Permissions(manage_channels=True),
    guild_only=True,
)


@sample_mod.command(name="wipe", description="Checks Manage Channels again at run time")
async def wipe(interaction: discord.Interaction) -> None:
    if not interaction.permissions.manage_channels:
        await interaction.response.send_message("you need Manage Channels", ephemeral=True)
        return
    await interaction.response.send_message("wiped", ephemeral=True)


async def main() -> int:
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", "INFO"),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    point_at_fake_api(os.environ.get("DISCORD_API_BASE_URL"))
    client = SampleBot()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with client:
        runner = asyncio.create_task(client.start(os.environ["DISCORD_TOKEN"]))
        stopper = asyncio.create_task(stop.wait())
        await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if not runner.done():
            await client.close()
        stopper.cancel()
        error = (await asyncio.gather(runner, return_exceptions=True))[0]
    if isinstance(error, BaseException):
        log.error("the client stopped with an error", exc_info=error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
