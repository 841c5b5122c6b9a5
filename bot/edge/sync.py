"""Sync the command tree to Discord only when it changed (a hash is kept in the database).

The hash covers the payload Discord receives, translations included, so a changed French or
Ukrainian command text syncs again like a changed command.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any, Protocol

import discord
from discord import app_commands

log = logging.getLogger(__name__)

HASH_KEY = "command_tree_sha256"


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
    """Where the synced commands' hash is kept from one run to the next (the storage's
    key-value meta, which the composition root passes in)."""

    async def get_meta(self, key: str) -> str | None: ...

    async def set_meta(self, key: str, value: str) -> None: ...


async def sync_commands(
    tree: app_commands.CommandTree[Any], store: KeyValues, dev_guilds: tuple[int, ...]
) -> bool:
    """Sync to the dev guilds if any (instant), else globally; skip if nothing changed.

    Returns True if it synced.
    """
    digest = await tree_digest(tree, dev_guilds)
    if await store.get_meta(HASH_KEY) == digest:
        log.info("slash commands unchanged, not syncing")
        return False
    if dev_guilds:
        for guild_id in dev_guilds:
            guild = discord.Object(guild_id)
            tree.copy_global_to(guild=guild)
            await tree.sync(guild=guild)
        log.info("slash commands synced to guilds %s", ", ".join(map(str, dev_guilds)))
    else:
        await tree.sync()
        log.info("slash commands synced globally")
    await store.set_meta(HASH_KEY, digest)
    return True
