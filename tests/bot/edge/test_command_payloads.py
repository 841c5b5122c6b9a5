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
from bot.presentation import messages
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


def test_members_see_the_player_commands_and_moderators_and_admins_their_own() -> None:
    """Discord shows a command to the members holding its default permissions: `/marrakech`
    to everyone, `/marrakech-mod` to Manage Channels, `/marrakech-admin` to Manage Server."""
    asked = {payload["name"]: payload["default_member_permissions"] for payload in _payloads()}
    assert asked == {
        "marrakech": None,
        "marrakech-mod": discord.Permissions(manage_channels=True).value,
        "marrakech-admin": discord.Permissions(manage_guild=True).value,
    }


def test_every_turn_limit_offers_none_and_five_minutes_to_seven_days() -> None:
    """The same choices at `new`, at a tournament and as the server's default, as the README
    and docs/async.md promise: no limit, or 5 minutes to 7 days."""
    offered = {}
    for payload in _payloads():
        for command in payload["options"]:
            for option in command.get("options", []):
                if option["name"] in ("turn_limit", "limit"):
                    shown = [(choice["name"], choice["value"]) for choice in option["choices"]]
                    offered[payload["name"], command["name"], option["name"]] = shown
    limits = [
        ("none", 0),
        ("5 minutes", 5 * 60),
        ("1 hour", 3600),
        ("12 hours", 12 * 3600),
        ("1 day", 24 * 3600),
        ("3 days", 3 * 24 * 3600),
        ("7 days", 7 * 24 * 3600),
    ]
    assert offered == {
        ("marrakech", "new", "turn_limit"): limits,
        ("marrakech-mod", "tournament", "turn_limit"): limits,
        ("marrakech-admin", "turn-limit", "limit"): limits,
    }


OPTION_TEXTS = {
    ("marrakech", "new", "seats"): "command.new.seats",
    ("marrakech", "new", "variant"): "command.new.variant",
    ("marrakech", "new", "turn_limit"): "command.new.turn_limit",
    ("marrakech", "new", "casual"): "command.new.casual",
    ("marrakech", "new", "coach"): "command.new.coach",
    ("marrakech", "add-ai", "level"): "command.add_ai.level",
    ("marrakech", "notify", "state"): "command.notify.state",
    ("marrakech", "watch", "game"): "command.watch.game",
    ("marrakech", "away", "days"): "command.away.days",
    ("marrakech", "quiet-hours", "from"): "command.quiet_hours.from",
    ("marrakech", "quiet-hours", "to"): "command.quiet_hours.to",
    ("marrakech", "quiet-hours", "timezone"): "command.quiet_hours.timezone",
    ("marrakech", "stats", "member"): "command.stats.member",
    ("marrakech", "history", "server"): "command.history.server",
    ("marrakech", "replay", "game"): "command.replay.game",
    ("marrakech", "substitute", "out"): "command.substitute.out",
    ("marrakech", "substitute", "in"): "command.substitute.in",
    ("marrakech-mod", "substitute", "out"): "command.substitute.out",
    ("marrakech-mod", "substitute", "in"): "command.substitute.in",
    ("marrakech-mod", "substitute", "game"): "command.mod.substitute.game",
    ("marrakech-mod", "tournament", "name"): "command.mod.tournament.name",
    ("marrakech-mod", "tournament", "format"): "command.mod.tournament.format",
    ("marrakech-mod", "tournament", "seats"): "command.mod.tournament.seats",
    ("marrakech-mod", "tournament", "rounds"): "command.mod.tournament.rounds",
    ("marrakech-mod", "tournament", "turn_limit"): "command.new.turn_limit",
    ("marrakech-mod", "tournament", "variant"): "command.new.variant",
    ("marrakech-mod", "tournament-away-days", "days"): "command.mod.tournament_away_days.days",
    ("marrakech-mod", "tournament-withdraw", "member"): "command.mod.tournament_withdraw.member",
    ("marrakech-admin", "turn-limit", "limit"): "command.new.turn_limit",
    ("marrakech-admin", "variant", "variant"): "command.new.variant",
    ("marrakech-admin", "away-days", "days"): "command.admin.away_days.days",
    ("marrakech-admin", "quiet-clocks", "state"): "command.admin.quiet_clocks.state",
    ("marrakech-admin", "allow-channel", "channel"): "command.admin.channel",
    ("marrakech-admin", "remove-channel", "channel"): "command.admin.channel",
}
"""The catalogue text that describes each option (its French and Ukrainian versions follow
from the key)."""


def test_each_option_is_described_by_its_own_text() -> None:
    """What Discord shows under each option as it is typed: two options' descriptions swapped
    (the turn limit's under `variant`) would mislead in every language."""
    described = {}
    for payload in _payloads():
        for command in payload["options"]:
            for option in command.get("options", []):
                described[payload["name"], command["name"], option["name"]] = option["description"]
    assert described == {
        where: messages.text(key, messages.ENGLISH_LANGUAGE) for where, key in OPTION_TEXTS.items()
    }
