"""The bot's settings, read once from the environment and checked before anything starts.

Every problem is reported as a `SettingsError` whose message is one line an admin can act on.
The token never appears in a message or in the repr of `Settings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

TOKEN_VAR = "DISCORD_TOKEN"
DB_VAR = "MARRAKECH_DB"
DEV_GUILDS_VAR = "MARRAKECH_DEV_GUILDS"
LOG_LEVEL_VAR = "LOG_LEVEL"
HEARTBEAT_VAR = "MARRAKECH_HEARTBEAT"

SETTING_NAMES = (TOKEN_VAR, DB_VAR, DEV_GUILDS_VAR, LOG_LEVEL_VAR, HEARTBEAT_VAR)
"""Every setting an admin may give (documented in README.md and .env.example); the hooks of the
end-to-end tests are apart, in bot.runtime.test_hooks."""

DEFAULT_DB_PATH = Path("data/marrakech.sqlite3")
DEFAULT_LOG_LEVEL = "INFO"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
HEARTBEAT_FILE_NAME = "heartbeat"
TOKEN_HELP = (
    "create a bot at https://discord.com/developers/applications "
    "(your app > Bot > Reset Token) and start with DISCORD_TOKEN=<token> marrakech-bot"
)


class SettingsError(Exception):
    """A missing or invalid setting; the message is one line telling the admin what to fix."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot needs from its environment."""

    token: str = field(repr=False)
    db_path: Path
    dev_guilds: tuple[int, ...]
    log_level: str
    heartbeat_path: Path


def load_settings(environ: Mapping[str, str]) -> Settings:
    """Read and check every setting; raise SettingsError naming the first problem found."""
    db_path = _db_path(environ)
    return Settings(
        token=_token(environ),
        db_path=db_path,
        dev_guilds=_dev_guilds(environ),
        log_level=_log_level(environ),
        heartbeat_path=_heartbeat_path(environ, db_path),
    )


def load_heartbeat_path(environ: Mapping[str, str]) -> Path:
    """The heartbeat file's path alone: the health check needs it without needing the token."""
    return _heartbeat_path(environ, _db_path(environ))


def _value(environ: Mapping[str, str], name: str) -> str | None:
    """The variable's value without surrounding blanks; unset and empty both give None."""
    value = environ.get(name, "").strip()
    return value or None


def _token(environ: Mapping[str, str]) -> str:
    token = _value(environ, TOKEN_VAR)
    if token is None:
        raise SettingsError(f"{TOKEN_VAR} is not set: {TOKEN_HELP}")
    if any(character.isspace() for character in token):
        raise SettingsError(
            f"{TOKEN_VAR} contains a space: paste only the token itself, without 'Bot ' or quotes"
        )
    return token


def _db_path(environ: Mapping[str, str]) -> Path:
    value = _value(environ, DB_VAR)
    return Path(value) if value is not None else DEFAULT_DB_PATH


def _dev_guilds(environ: Mapping[str, str]) -> tuple[int, ...]:
    value = _value(environ, DEV_GUILDS_VAR)
    if value is None:
        return ()
    guild_ids: list[int] = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        if not (item.isascii() and item.isdigit()) or int(item) == 0:
            raise SettingsError(
                f"{DEV_GUILDS_VAR} must be guild ids separated by commas, "
                f"e.g. 123456789012345678,234567890123456789; {item!r} is not a guild id"
            )
        if int(item) not in guild_ids:
            guild_ids.append(int(item))
    return tuple(guild_ids)


def _log_level(environ: Mapping[str, str]) -> str:
    value = _value(environ, LOG_LEVEL_VAR)
    if value is None:
        return DEFAULT_LOG_LEVEL
    level = value.upper()
    if level not in LOG_LEVELS:
        raise SettingsError(
            f"{LOG_LEVEL_VAR} must be one of {', '.join(LOG_LEVELS)}; got {value!r}"
        )
    return level


def _heartbeat_path(environ: Mapping[str, str], db_path: Path) -> Path:
    value = _value(environ, HEARTBEAT_VAR)
    return Path(value) if value is not None else db_path.parent / HEARTBEAT_FILE_NAME
