"""The README's invite asks for exactly the permissions its table lists, and the table lists
every permission the bot checks before a game or a tournament."""

from __future__ import annotations

import re
from pathlib import Path

import discord

from bot.edge.permissions import GAME_PERMISSIONS
from bot.edge.tournaments import TOURNAMENT_PERMISSIONS
from bot.presentation.messages import text

README = Path(__file__).resolve().parents[3] / "README.md"
RECOVERY = "read_message_history"
"""Asked for in the invite, never required: the catch-up after a crash reads the history."""


def table_names() -> set[str]:
    readme = README.read_text(encoding="utf-8")
    table = readme.split("| permission | why |", 1)[1].split("\n\n", 1)[0]
    return {match[1] for match in re.finditer(r"^\s*\| ([A-Z][^|]+?) \|", table, re.MULTILINE)}


def test_the_invite_asks_for_the_permissions_of_the_table() -> None:
    flags = {*GAME_PERMISSIONS, *TOURNAMENT_PERMISSIONS, "send_messages_in_threads", RECOVERY}
    named = {text(f"permission.{flag}", "en") for flag in flags if flag != RECOVERY}
    assert table_names() == named | {"Read Message History"}
    (asked,) = re.findall(r"permissions=(\d+)", README.read_text(encoding="utf-8"))
    assert int(asked) == discord.Permissions(**dict.fromkeys(flags, True)).value
