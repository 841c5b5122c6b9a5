"""Registered application commands: bulk overwrite with stable ids, and Discord's checks."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .limits import FormError

Json = dict[str, Any]

SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
MENTIONABLE = 9
NUMBER = 10
ATTACHMENT = 11

CHAT_INPUT = 1
NAME = re.compile(r"^[-_\w]{1,32}$")
MAX_OPTIONS = 25
MAX_CHOICES = 25
MAX_COMMANDS = 100
BAD_DESCRIPTION = "Must be between 1 and 100 in length."


@dataclass(slots=True)
class CommandRegistry:
    """Commands per scope: ``None`` for global, a guild id for guild commands."""

    scopes: dict[int | None, list[Json]] = field(default_factory=dict)
    syncs: int = 0
    """How many bulk overwrites (PUT) were accepted, over all scopes."""

    def commands_in(self, guild_id: int | None) -> list[Json]:
        return copy.deepcopy(self.scopes.get(guild_id, []))

    def overwrite(
        self,
        application_id: int,
        guild_id: int | None,
        commands: list[Json],
        next_id: Callable[[], int],
    ) -> list[Json]:
        """Replace a scope's commands; a command keeping its name and type keeps its id."""
        old = {(c["name"], c.get("type", CHAT_INPUT)): c for c in self.scopes.get(guild_id, [])}
        stored = []
        version = next_id()
        for body in commands:
            kind = body.get("type", CHAT_INPUT)
            previous = old.get((body["name"], kind))
            command_id = int(previous["id"]) if previous else next_id()
            stored.append(_normalised(body, command_id, application_id, guild_id, version))
        self.scopes[guild_id] = stored
        self.syncs += 1
        return copy.deepcopy(stored)

    def upsert(
        self,
        application_id: int,
        guild_id: int | None,
        body: Json,
        next_id: Callable[[], int],
    ) -> Json:
        """Create or replace one command (POST)."""
        kind = body.get("type", CHAT_INPUT)
        current = [
            c
            for c in self.scopes.get(guild_id, [])
            if (c["name"], c["type"]) != (body["name"], kind)
        ]
        merged = [*current, body]
        return next(
            c
            for c in self.overwrite(application_id, guild_id, merged, next_id)
            if c["name"] == body["name"]
        )

    def delete(self, guild_id: int | None, command_id: int) -> bool:
        commands = self.scopes.get(guild_id, [])
        kept = [c for c in commands if int(c["id"]) != command_id]
        self.scopes[guild_id] = kept
        return len(kept) != len(commands)

    def get(self, guild_id: int | None, command_id: int) -> Json | None:
        for command in self.scopes.get(guild_id, []):
            if int(command["id"]) == command_id:
                return copy.deepcopy(command)
        return None

    def find(self, guild_id: int | None, name: str, kind: int = CHAT_INPUT) -> Json | None:
        """The command a user would see in this guild: guild commands shadow global ones."""
        scopes = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            for command in self.scopes.get(scope, []):
                if command["name"] == name and command.get("type", CHAT_INPUT) == kind:
                    return command
        return None

    def names(self) -> set[str]:
        return {c["name"] for commands in self.scopes.values() for c in commands}


def _normalised(
    body: Json, command_id: int, application_id: int, guild_id: int | None, version: int
) -> Json:
    command: Json = {
        "id": str(command_id),
        "application_id": str(application_id),
        "version": str(version),
        "type": body.get("type", CHAT_INPUT),
        "name": body["name"],
        "name_localizations": body.get("name_localizations"),
        "description": body.get("description", ""),
        "description_localizations": body.get("description_localizations"),
        "options": copy.deepcopy(body.get("options") or []),
        "default_member_permissions": _as_string(body.get("default_member_permissions")),
        "dm_permission": body.get("dm_permission", True),
        "nsfw": body.get("nsfw", False),
        "contexts": body.get("contexts"),
        "integration_types": body.get("integration_types", [0]),
    }
    if guild_id is not None:
        command["guild_id"] = str(guild_id)
    return command


def _as_string(value: object) -> str | None:
    """Discord answers permission bit sets as strings, whatever the client sent."""
    return None if value is None else str(value)


def check_commands(commands: list[Json]) -> list[FormError]:
    """What Discord refuses in a bulk overwrite: names, descriptions, option structure."""
    errors: list[FormError] = []
    if len(commands) > MAX_COMMANDS:
        errors.append(FormError("_", "BASE_TYPE_MAX_LENGTH", "At most 100 commands"))
    seen: set[tuple[str, int]] = set()
    for index, command in enumerate(commands):
        where = str(index)
        name = command.get("name", "")
        kind = command.get("type", CHAT_INPUT)
        if (name, kind) in seen:
            errors.append(FormError(f"{where}.name", "APPLICATION_COMMANDS_DUPLICATE_NAME", name))
        seen.add((name, kind))
        if kind == CHAT_INPUT:
            errors.extend(_check_named(where, command))
            errors.extend(_check_options(f"{where}.options", command.get("options") or [], 0))
    return errors


def _check_named(where: str, item: Json) -> list[FormError]:
    """A name and description and each of their translations, as Discord checks them.

    Discord points a bad translated name of a command at its whole ``name_localizations``, and
    one of an option at the locale (as observed: discord/discord-api-docs#7712)."""
    errors = []
    if not _good_name(item.get("name", "")):
        errors.append(
            FormError(f"{where}.name", "APPLICATION_COMMAND_INVALID_NAME", repr(item.get("name")))
        )
    for locale, name in (item.get("name_localizations") or {}).items():
        if not _good_name(name):
            here = f"{where}.name_localizations" + ("" if "." not in where else f".{locale}")
            errors.append(FormError(here, "APPLICATION_COMMAND_INVALID_NAME", repr(name)))
    if not _good_description(item.get("description", "")):
        errors.append(FormError(f"{where}.description", "BASE_TYPE_BAD_LENGTH", BAD_DESCRIPTION))
    for locale, description in (item.get("description_localizations") or {}).items():
        if not _good_description(description):
            here = f"{where}.description_localizations.{locale}"
            errors.append(FormError(here, "BASE_TYPE_BAD_LENGTH", BAD_DESCRIPTION))
    return errors


def _good_name(name: object) -> bool:
    """1-32 letters, digits, ``-`` or ``_``, in lower case where the script has cases."""
    return isinstance(name, str) and bool(NAME.match(name)) and name == name.lower()


def _good_description(description: object) -> bool:
    return isinstance(description, str) and 1 <= len(description) <= 100


def _check_options(where: str, options: list[Json], depth: int) -> list[FormError]:
    errors: list[FormError] = []
    if len(options) > MAX_OPTIONS:
        errors.append(FormError(where, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."))
    optional_seen = False
    for index, option in enumerate(options):
        here = f"{where}.{index}"
        errors.extend(_check_named(here, option))
        kind = option.get("type")
        if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
            if depth >= (1 if kind == SUB_COMMAND_GROUP else 2):
                errors.append(FormError(here, "APPLICATION_COMMAND_TOO_DEEP", "Nested too deep"))
            errors.extend(_check_options(f"{here}.options", option.get("options") or [], depth + 1))
            continue
        required = bool(option.get("required", False))
        if required and optional_seen:
            errors.append(
                FormError(here, "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required first")
            )
        optional_seen = optional_seen or not required
        choices = option.get("choices") or []
        if len(choices) > MAX_CHOICES:
            errors.append(FormError(f"{here}.choices", "BASE_TYPE_MAX_LENGTH", "At most 25"))
        for number, choice in enumerate(choices):
            errors.extend(_check_choice(f"{here}.choices.{number}", choice))
    return errors


def _check_choice(where: str, choice: Json) -> list[FormError]:
    """A choice's name and its translations: 1 to 100 characters, any characters."""
    errors = []
    if not _good_description(choice.get("name", "")):
        errors.append(FormError(f"{where}.name", "BASE_TYPE_BAD_LENGTH", BAD_DESCRIPTION))
    for locale, name in (choice.get("name_localizations") or {}).items():
        if not _good_description(name):
            here = f"{where}.name_localizations.{locale}"
            errors.append(FormError(here, "BASE_TYPE_BAD_LENGTH", BAD_DESCRIPTION))
    return errors
