"""Sync the command tree to Discord only when it changed (a hash is kept in the database).

The hash covers the payload Discord receives, translations included, so a changed French or
Ukrainian command text syncs again like a changed command. What was synced is kept per bot
application, with the dev guilds it went to: another application started on the same database
(a staging bot on a copy, a new application) syncs its own commands, and a server dropped from
the dev guilds has its copy of the commands removed at the next sync, once. At each start the
bot also lists the commands Discord holds where it syncs (one request per place, which no
per-route limit binds: docs/discord-limits.md), and syncs again when their names are not the
tree's: commands deleted on Discord's side come back.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any, Protocol

import discord
from discord import app_commands

log = logging.getLogger(__name__)

SYNCED_KEY = "commands_synced"
"""The `bot_meta` key, followed by `:<application id>`, of what was last synced for that
application."""


def synced_key(application_id: int | None) -> str:
    """The `bot_meta` key of what was last synced for the application `application_id`."""
    return f"{SYNCED_KEY}:{application_id}"


async def command_payloads(tree: app_commands.CommandTree[Any]) -> list[dict[str, Any]]:
    """The global commands as `tree.sync()` sends them: translated if a translator is set."""
    translator = tree.translator
    commands = tree.get_commands()
    if translator is None:
        return [command.to_dict(tree) for command in commands]
    return [await command.get_translated_payload(tree, translator) for command in commands]


async def tree_digest(tree: app_commands.CommandTree[Any], dev_guilds: tuple[int, ...]) -> str:
    """A hash of every command's payload (localisations included) and of where they go."""
    payload = {
        "targets": sorted(dev_guilds) or "global",
        "commands": sorted(await command_payloads(tree), key=lambda command: str(command["name"])),
    }
    encoded = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


class KeyValues(Protocol):
    """Where what was synced is kept from one run to the next (the storage's key-value meta,
    which the composition root passes in)."""

    async def get_meta(self, key: str) -> str | None: ...

    async def set_meta(self, key: str, value: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Synced:
    """What was last synced for one application: the tree's hash, and the dev guilds it went
    to (none: globally)."""

    digest: str
    dev_guilds: tuple[int, ...]

    def encoded(self) -> str:
        return json.dumps({"sha256": self.digest, "dev_guilds": list(self.dev_guilds)})

    @classmethod
    def decoded(cls, stored: str | None) -> Synced | None:
        """What `encoded` wrote; None for nothing stored, or for a value it cannot read (which
        syncs once more)."""
        if stored is None:
            return None
        try:
            value = json.loads(stored)
            return cls(str(value["sha256"]), tuple(int(guild) for guild in value["dev_guilds"]))
        except (ValueError, TypeError, KeyError):
            return None


class DevGuildRefusedError(Exception):
    """Discord refused the commands of a dev guild: the bot is not in that server, or was
    invited there without the `applications.commands` scope. A setting to fix, not a fault
    that passes by itself."""

    def __init__(self, guild_id: int, error: discord.HTTPException) -> None:
        super().__init__(f"Discord refused the slash commands of server {guild_id} ({error})")
        self.guild_id = guild_id


async def sync_commands(
    tree: app_commands.CommandTree[Any], store: KeyValues, dev_guilds: tuple[int, ...]
) -> bool:
    """Sync to the dev guilds if any (instant), else globally; skip if nothing changed and
    Discord holds the commands. Servers no longer among the dev guilds are cleared of their
    copy. What was synced is stored only once Discord took it, so a sync that failed is tried
    again at the next start.

    Returns True if it synced; raises DevGuildRefusedError for a dev guild Discord refuses.
    """
    key = synced_key(tree.client.application_id)
    digest = await tree_digest(tree, dev_guilds)
    last = Synced.decoded(await store.get_meta(key))
    dropped = [guild for guild in (last.dev_guilds if last else ()) if guild not in dev_guilds]
    if last is not None and last.digest == digest and not dropped:
        if await _discord_holds_them(tree, dev_guilds):
            log.info("slash commands unchanged, not syncing")
            return False
        log.warning("Discord does not hold the bot's slash commands as synced: syncing again")
    if dev_guilds:
        for guild_id in dev_guilds:
            guild = discord.Object(guild_id)
            tree.copy_global_to(guild=guild)
            try:
                await tree.sync(guild=guild)
            except (discord.Forbidden, discord.NotFound) as error:
                raise DevGuildRefusedError(guild_id, error) from error
        log.info("slash commands synced to guilds %s", ", ".join(map(str, dev_guilds)))
    else:
        await tree.sync()
        log.info("slash commands synced globally")
    for guild_id in dropped:
        await _clear(tree, guild_id)
    await store.set_meta(key, Synced(digest, dev_guilds).encoded())
    return True


async def _discord_holds_them(
    tree: app_commands.CommandTree[Any], dev_guilds: tuple[int, ...]
) -> bool:
    """Whether Discord holds a slash command of each of the tree's names, and no other,
    wherever they are synced to. A listing Discord fails is taken as yes: the stored hash
    decides, and the bot starts."""
    names = {command.name for command in tree.get_commands()}
    places: list[discord.Object | None] = [discord.Object(guild) for guild in dev_guilds]
    try:
        for guild in places or [None]:
            held = {
                command.name
                for command in await tree.fetch_commands(guild=guild)
                if command.type is discord.AppCommandType.chat_input
            }
            if held != names:
                return False
    except discord.HTTPException as error:
        log.warning("could not list the slash commands Discord holds (%s): not checked", error)
    return True


async def _clear(tree: app_commands.CommandTree[Any], guild_id: int) -> None:
    """Remove the commands synced to a server that is no longer a dev guild (the global ones
    serve it now). A server the bot has left refuses it: nothing is left to clear there."""
    guild = discord.Object(guild_id)
    tree.clear_commands(guild=guild)
    try:
        await tree.sync(guild=guild)
    except (discord.Forbidden, discord.NotFound) as error:
        log.warning(
            "could not clear the slash commands of former dev guild %s (%s)", guild_id, error
        )
        return
    log.info("slash commands cleared from former dev guild %s", guild_id)
