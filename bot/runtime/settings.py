"""The bot's settings, read once from the environment and checked before anything starts.

Every problem is reported as a `SettingsError` whose message is one line an admin can act on.
The token never appears in a message or in the repr of `Settings`.

Sharding: without `MARRAKECH_SHARD_COUNT` the bot runs every shard in one process, as many as
Discord recommends. `MARRAKECH_SHARD_COUNT=N` fixes the count (all N shards in this process);
`MARRAKECH_SHARD_IDS` then picks the shards this process holds, as ids (`3`), ranges (`0-1`)
or both separated by commas (`0-1,3`), each within 0..N-1, so that several processes can share
the bot's guilds. The ids alone, without the count, are an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from bot.storage.game_rows import ShardSet

TOKEN_VAR = "DISCORD_TOKEN"
DB_VAR = "MARRAKECH_DB"
DEV_GUILDS_VAR = "MARRAKECH_DEV_GUILDS"
LOG_LEVEL_VAR = "LOG_LEVEL"
HEARTBEAT_VAR = "MARRAKECH_HEARTBEAT"
SHARD_COUNT_VAR = "MARRAKECH_SHARD_COUNT"
SHARD_IDS_VAR = "MARRAKECH_SHARD_IDS"

SETTING_NAMES = (
    TOKEN_VAR,
    DB_VAR,
    DEV_GUILDS_VAR,
    LOG_LEVEL_VAR,
    HEARTBEAT_VAR,
    SHARD_COUNT_VAR,
    SHARD_IDS_VAR,
)
"""Every setting an admin may give (documented in README.md and .env.example); the hooks of the
end-to-end tests are apart, in bot.runtime.test_hooks."""

DEFAULT_DB_PATH = Path("data/marrakech.sqlite3")
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite:///"
DEFAULT_LOG_LEVEL = "INFO"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
HEARTBEAT_FILE_NAME = "heartbeat"
TOKEN_HELP = (
    "create a bot at https://discord.com/developers/applications "
    "(your app > Bot > Reset Token), then set DISCORD_TOKEN to it: in .env for Docker "
    "(--env-file .env), or in the environment (DISCORD_TOKEN=<token> marrakech-bot)"
)


class SettingsError(Exception):
    """A missing or invalid setting; the message is one line telling the admin what to fix."""


@dataclass(frozen=True, slots=True)
class DatabaseTarget:
    """Where the bot keeps its state: a SQLite file (`path`) or a PostgreSQL server (`url`).

    Its repr never shows the URL's password, so the settings can be logged."""

    path: Path | None = None
    url: str | None = field(default=None, repr=False)

    @property
    def target(self) -> str | Path:
        """What bot.storage.open_database takes."""
        if self.url is not None:
            return self.url
        assert self.path is not None
        return self.path

    @property
    def password(self) -> str | None:
        """The URL's password, as the server reads it (percent-decoded), to keep out of the
        logs."""
        raw = self._written_password
        return None if raw is None else unquote(raw)

    @property
    def secrets(self) -> tuple[str, ...]:
        """What the logs must never show: the password as the server reads it, and as the URL
        writes it (percent-encoded)."""
        return tuple(dict.fromkeys(s for s in (self.password, self._written_password) if s))

    @property
    def _written_password(self) -> str | None:
        """The password as the URL writes it; in a URL that does not parse, all that its user
        part holds after the ':' up to the URL's last '@', never the piece a parser reads."""
        if self.url is None:
            return None
        if not _parses(self.url):
            _, colon, written = _typed_user_part(self.url).partition(":")
            return written if colon else None
        return urlsplit(self.url).password

    def __repr__(self) -> str:
        if self.url is None:
            return f"sqlite:{self.path}"
        return redacted_url(self.url)


def redacted_url(url: str) -> str:
    """The URL with its password (if any) shown as ***; one that does not parse (a reserved
    character in its user part) has all of its user part hidden."""
    if not _parses(url):
        scheme, _, rest = url.partition("://")
        return f"{scheme}://***@{rest.rpartition('@')[2]}"
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port is not None else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))


_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
"""A '%' that starts no percent-encoding (two hex digits)."""


def _typed_user_part(url: str) -> str:
    """Everything between the URL's '://' and its last '@', as typed ('' without an '@')."""
    return url.partition("://")[2].rpartition("@")[0]


def _parses(url: str) -> bool:
    """Whether the URL's user part, host and port read as typed, and the same to the driver:
    a '/', '?' or '#' in a password ends the part it belongs to, and leaves the URL's last '@'
    (and the rest of the password) in the path, the query or the fragment, whether or not an
    '@' of the password comes before it; an '@' in the user part ends it for asyncpg, which
    reads the user part up to its first '@' and the rest as the server's name; a '%' not
    followed by two hex digits encodes nothing (one that is, as in every URL, is the character
    the digits encode)."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018  (reading it checks it)
    except ValueError:
        return False
    user_part = parts.netloc.rpartition("@")[0]
    if user_part != _typed_user_part(url) or "@" in user_part:
        return False
    return _STRAY_PERCENT.search(user_part) is None


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot needs from its environment."""

    token: str = field(repr=False)
    database: DatabaseTarget
    dev_guilds: tuple[int, ...]
    log_level: str
    heartbeat_path: Path
    shards: ShardSet | None = None
    """The shards this process holds; None: all of them, as many as Discord recommends."""


def describe(settings: Settings) -> str:
    """The settings in one line of words for the start of the log: where the database and
    the heartbeat really are (a relative path resolved against the working folder), the
    level, the shards and where the commands are synced; never the token or a password."""
    database = settings.database
    where = repr(database) if database.path is None else f"sqlite:{database.path.resolve()}"
    shards = settings.shards
    if shards is None:
        held = "every shard Discord recommends"
    else:
        ids = ", ".join(str(shard) for shard in shards.ids)
        held = f"shard{'s' if len(shards.ids) > 1 else ''} {ids} of {shards.count}"
    guilds = settings.dev_guilds
    synced = (
        "commands synced globally"
        if not guilds
        else "commands synced to the servers " + ", ".join(str(guild) for guild in guilds)
    )
    return " · ".join(
        (
            f"database {where}",
            f"heartbeat {settings.heartbeat_path.resolve()}",
            f"log level {settings.log_level}",
            held,
            synced,
        )
    )


def load_settings(environ: Mapping[str, str]) -> Settings:
    """Read and check every setting; raise SettingsError naming the first problem found."""
    database = load_database(environ)
    return Settings(
        token=_token(environ),
        database=database,
        dev_guilds=_dev_guilds(environ),
        log_level=_log_level(environ),
        heartbeat_path=_heartbeat_path(environ, database),
        shards=_shards(environ),
    )


def load_heartbeat_path(environ: Mapping[str, str]) -> Path:
    """The heartbeat file's path alone: the health check needs it without needing the token."""
    return _heartbeat_path(environ, load_database(environ))


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
    if token[0] in "\"'" or token[-1] in "\"'":
        raise SettingsError(
            f"{TOKEN_VAR} is in quotes: write it bare (an env file for docker run --env-file "
            "keeps quotes as part of the value)"
        )
    return token


def load_database(environ: Mapping[str, str]) -> DatabaseTarget:
    """The database the bot uses: `MARRAKECH_DB` is a file path or `sqlite:///path` (SQLite),
    or a `postgresql://user:password@host:port/name` URL (PostgreSQL); unset, the SQLite file
    data/marrakech.sqlite3."""
    value = _value(environ, DB_VAR)
    if value is None:
        return DatabaseTarget(path=DEFAULT_DB_PATH)
    if value.startswith(POSTGRES_SCHEMES):
        if not _parses(value):
            raise SettingsError(
                f"{DB_VAR}: the user name or password holds a character a URL reserves: "
                "percent-encode it (/ as %2F, ? as %3F, # as %23, @ as %40, % as %25)"
            )
        parts = urlsplit(value)
        if not parts.hostname and "host=" not in parts.query:
            raise SettingsError(
                f"{DB_VAR} names no server: use postgresql://user:password@host:5432/name"
            )
        return DatabaseTarget(url=value)
    if value.startswith(SQLITE_SCHEME):
        path = value.removeprefix(SQLITE_SCHEME)
        if not path:
            raise SettingsError(f"{DB_VAR} needs a file path after sqlite:///")
        return DatabaseTarget(path=Path(path).expanduser())
    if "://" in value:
        raise SettingsError(
            f"{DB_VAR} must be a file path, sqlite:///path or postgresql://...; "
            f"got a {value.split('://', 1)[0]}:// URL"
        )
    if value.startswith("sqlite:"):
        raise SettingsError(
            f"{DB_VAR}: write a SQLite URL sqlite:///relative/path or sqlite:////absolute/path "
            "(or give the file's path alone)"
        )
    return DatabaseTarget(path=Path(value).expanduser())


MAX_SNOWFLAKE = 2**64 - 1
"""The largest id Discord gives (a snowflake is a 64-bit number): a longer one is two ids run
together, or no id."""


def _dev_guilds(environ: Mapping[str, str]) -> tuple[int, ...]:
    value = _value(environ, DEV_GUILDS_VAR)
    if value is None:
        return ()
    guild_ids: list[int] = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        if not (item.isascii() and item.isdigit()) or not 0 < int(item) <= MAX_SNOWFLAKE:
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


def _heartbeat_path(environ: Mapping[str, str], database: DatabaseTarget) -> Path:
    """MARRAKECH_HEARTBEAT, else a file beside the SQLite file (with PostgreSQL, in the
    default data folder)."""
    value = _value(environ, HEARTBEAT_VAR)
    if value is not None:
        return Path(value).expanduser()  # `~` as in MARRAKECH_DB
    folder = database.path.parent if database.path is not None else DEFAULT_DB_PATH.parent
    return folder / HEARTBEAT_FILE_NAME


MAX_SHARDS = 65_536
"""More shards than any bot runs (Discord gives one per 1,000 to 2,500 servers)."""


def _shards(environ: Mapping[str, str]) -> ShardSet | None:
    count_value = _value(environ, SHARD_COUNT_VAR)
    ids_value = _value(environ, SHARD_IDS_VAR)
    if count_value is None:
        if ids_value is not None:
            raise SettingsError(
                f"{SHARD_IDS_VAR} needs {SHARD_COUNT_VAR}: set the bot's total number of shards "
                f"too, e.g. {SHARD_COUNT_VAR}=4 {SHARD_IDS_VAR}=0-1"
            )
        return None
    if (
        not (count_value.isascii() and count_value.isdigit())
        or not 0 < int(count_value) <= MAX_SHARDS
    ):
        raise SettingsError(
            f"{SHARD_COUNT_VAR} must be a whole number of shards from 1 to {MAX_SHARDS}, e.g. 4; "
            f"got {count_value!r}"
        )
    count = int(count_value)
    if ids_value is None:
        return ShardSet(count, tuple(range(count)))
    return ShardSet(count, _shard_ids(ids_value, count))


def _shard_ids(value: str, count: int) -> tuple[int, ...]:
    """The ids of `value` ("0-1,3"), each once and within 0..count-1, sorted."""
    ids: list[int] = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        first, dash, last = (word.strip() for word in item.partition("-"))
        words = [first, last] if dash else [first]
        if not all(word.isascii() and word.isdigit() for word in words):
            raise SettingsError(
                f"{SHARD_IDS_VAR} must be shard ids or ranges separated by commas, "
                f"e.g. 0-1,3; {item!r} is neither"
            )
        low, high = int(words[0]), int(words[-1])
        if low > high:
            raise SettingsError(f"{SHARD_IDS_VAR}: the range {item!r} runs backwards")
        if high >= count:
            raise SettingsError(
                f"{SHARD_IDS_VAR}: shard {high} does not exist with {SHARD_COUNT_VAR}={count} "
                f"(ids run from 0 to {count - 1})"
            )
        for shard_id in range(low, high + 1):
            if shard_id in ids:
                raise SettingsError(f"{SHARD_IDS_VAR} names shard {shard_id} twice")
            ids.append(shard_id)
    if not ids:
        raise SettingsError(f"{SHARD_IDS_VAR} must name at least one shard, e.g. 0-1,3")
    return tuple(sorted(ids))
