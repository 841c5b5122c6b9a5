"""Sync the command tree to Discord only when it changed (a hash is kept in the database)."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from bot.storage import GameStore

log = logging.getLogger(__name__)

HASH_KEY = "command_tree_sha256"


def tree_digest(tree: app_commands.CommandTree[Any], dev_guilds: tuple[int, ...]) -> str:
    """A hash of every command's payload and of where the commands go."""
    payload = {
        "targets": sorted(dev_guilds) or "global",
        "commands": sorted(
            (command.to_dict(tree) for command in tree.get_commands()),
            key=lambda command: str(command["name"]),
        ),
    }
    encoded = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


async def sync_commands(
    tree: app_commands.CommandTree[Any], store: GameStore, dev_guilds: tuple[int, ...]
) -> bool:
    """Sync to the dev guilds if any (instant), else globally; skip if nothing changed.

    Returns True if it synced.
    """
    digest = tree_digest(tree, dev_guilds)
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
