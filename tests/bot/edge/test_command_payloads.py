"""What the command tree sends Discord: server channels only, a channel option that offers
only channels where a game can be played, and the bounds Discord holds each number and text
option to."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import discord
from discord import app_commands

from bot.edge.commands import build_commands
from bot.services.time_rules import MOST_AWAY_DAYS_SETTING


class _Tree:
    allowed_contexts = app_commands.AppCommandContext()
    allowed_installs = app_commands.AppInstallationType()


def _payloads() -> list[dict[str, Any]]:
    nothing = cast(Any, None)
    tree = cast(Any, _Tree())
    return [group.to_dict(tree) for group in build_commands(nothing, nothing, nothing)]


def test_every_group_is_kept_to_server_channels_by_its_contexts() -> None:
    for payload in _payloads():
        assert payload["contexts"] == [0], payload["name"]


def test_the_admin_channel_option_offers_text_announcement_and_forum_channels_only() -> None:
    offered = set()
    for payload in _payloads():
        for command in payload["options"]:
            for option in command.get("options", []):
                if option["type"] == discord.AppCommandOptionType.channel.value:
                    offered.add(tuple(sorted(option["channel_types"])))
    assert offered == {
        tuple(
            sorted(
                (
                    discord.ChannelType.text.value,
                    discord.ChannelType.news.value,
                    discord.ChannelType.forum.value,
                )
            )
        )
    }


def test_each_number_and_text_option_is_bounded_as_the_game_allows() -> None:
    """2 to 4 seats, away 1 day at least (0 for a cap: no days away), times written HH:MM,
    game numbers from 1."""
    away = {"min_value": 1, "max_value": MOST_AWAY_DAYS_SETTING}
    cap = {"min_value": 0, "max_value": MOST_AWAY_DAYS_SETTING}
    clock = {"min_length": 1, "max_length": 5}
    bounds = {}
    for payload in _payloads():
        for command in payload["options"]:
            for option in command.get("options", []):
                keys = ("min_value", "max_value", "min_length", "max_length")
                found = {key: option[key] for key in keys if key in option}
                if found:
                    bounds[payload["name"], command["name"], option["name"]] = found
    assert bounds == {
        ("marrakech", "new", "seats"): {"min_value": 2, "max_value": 4},
        ("marrakech", "watch", "game"): {"min_value": 1},
        ("marrakech", "away", "days"): away,
        ("marrakech", "quiet-hours", "from"): clock,
        ("marrakech", "quiet-hours", "to"): clock,
        ("marrakech", "quiet-hours", "timezone"): {"min_length": 1, "max_length": 64},
        ("marrakech", "replay", "game"): {"min_value": 1},
        ("marrakech-mod", "substitute", "game"): {"min_value": 1},
        ("marrakech-mod", "tournament", "name"): {"min_length": 1, "max_length": 100},
        ("marrakech-mod", "tournament", "seats"): {"min_value": 2, "max_value": 4},
        ("marrakech-mod", "tournament", "rounds"): {"min_value": 1, "max_value": 20},
        ("marrakech-mod", "tournament-away-days", "days"): cap,
        ("marrakech-admin", "away-days", "days"): cap,
    }


def test_the_readme_names_every_command_a_player_or_moderator_has() -> None:
    """Someone reading the README finds every command: each one of each group is in its
    tables of commands, written as it is typed (a row may name a second command of its group
    after a slash: "`/marrakech join` / `/marrakech leave`", "`turn-limit limit:` / `variant
    variant:`")."""
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    named = set()
    for row in readme.splitlines():
        first = re.match(r"\| `/(marrakech(?:-\w+)?) ([\w-]+)", row)
        if first is None:
            continue
        group = first[1]
        named.add(f"/{group} {first[2]}")
        named.update(f"/{group} {name}" for name in re.findall(r"` / `([\w-]+)", row))
        named.update(
            f"/{g} {name}" for g, name in re.findall(r"` / `/(marrakech(?:-\w+)?) ([\w-]+)", row)
        )
    commands = {
        f"/{payload['name']} {command['name']}"
        for payload in _payloads()
        for command in payload["options"]
    }
    assert sorted(commands - named) == []
