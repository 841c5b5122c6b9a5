"""Command line of the bot: `python -m bot` (or `marrakech-bot`) runs it; `healthcheck` checks
it; `migrate` brings its database's schema up to date on purpose; `copy-db FROM TO` moves a
whole install to another database (SQLite to PostgreSQL, or back) and checks the copy;
`ratings rebuild` recomputes every server's ratings from its rated games.

This is the composition root's front door: it reads the settings, stops with one clear line
when they are missing or wrong, sets up logging (which never shows the token), then hands over
to `bot.runtime.app.run`.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from bot import crashpoints
from bot.runtime import early_signals
from bot.runtime.health import check_health
from bot.runtime.logs import configure_logging
from bot.runtime.settings import (
    DB_VAR,
    HEARTBEAT_VAR,
    DatabaseTarget,
    SettingsError,
    describe,
    load_database,
    load_heartbeat_path,
    load_settings,
)
from bot.runtime.test_hooks import load_test_hooks

PROGRAM = "marrakech-bot"
EXIT_BAD_SETTINGS = 2
EXIT_CRASHED = 1
MIGRATE_RETRY_SECONDS = 5.0
"""How long `migrate --wait` pauses between two tries on a server that does not answer."""

_pause: Callable[[float], None] = time.sleep

log = logging.getLogger("bot")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command given by `argv` (default: the process arguments); return the exit code."""
    arguments = _parser().parse_args(argv)
    if arguments.command == "healthcheck":
        return _healthcheck()
    if arguments.command == "migrate":
        return _migrate(arguments.wait)
    if arguments.command == "copy-db":
        return _copy_db(arguments.source, arguments.target)
    if arguments.command == "ratings":
        return _rebuild_ratings()
    return _run_bot()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Run the Marrakech Discord bot. Settings come from the environment "
        "(DISCORD_TOKEN is required; see README.md).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser(
        "healthcheck",
        help="exit 0 if the running bot's heartbeat is fresh and its event loop runs",
        description="Exit 0 if the running bot's heartbeat file is fresh and says its event "
        "loop runs; 2 when MARRAKECH_HEARTBEAT or MARRAKECH_DB (beside which the file lies "
        "by default) is bad; 1 otherwise.",
    )
    migrate = commands.add_parser(
        "migrate",
        help="apply the database migrations this bot has and the database lacks, then exit",
        description="Bring the database named by MARRAKECH_DB up to this bot's schema and exit "
        "(the bot also does it when it starts; with several processes on one PostgreSQL "
        "database exactly one applies each migration while the others wait). Exit 0 when "
        "the schema is up to date; 2 when MARRAKECH_DB is bad; 5 when the database cannot be "
        "opened as configured, 6 when its server does not answer (as for the bot; with "
        "--wait, once the wait is over).",
    )
    migrate.add_argument(
        "--wait",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="while the database server does not answer (it may be starting), try again every "
        f"{MIGRATE_RETRY_SECONDS:.0f} s for up to SECONDS, saying so each time",
    )
    copy_db = commands.add_parser(
        "copy-db",
        help="copy every game and setting from database FROM into the empty database TO",
        description="Copy the whole of database FROM (games, their logs, results, server and "
        "player settings) into database TO, which must be empty, then check that every table "
        "matches and every game replays. Stop the bot first. FROM and TO are written as "
        "MARRAKECH_DB is: a file path or sqlite:///path (SQLite), or postgresql://... . "
        "Exit 0 when the copy is complete and checked; 2 when FROM or TO is malformed, FROM "
        "names a SQLite file that does not exist, or both name the same database; 1 on any "
        "other problem (TO not empty, FROM at an older schema than this bot, a database "
        "error, a copy that does not match). FROM is never written into: run `migrate` on an "
        "older one first.",
    )
    copy_db.add_argument("source", metavar="FROM", help="the database to copy")
    copy_db.add_argument("target", metavar="TO", help="the empty database to fill")
    ratings = commands.add_parser(
        "ratings",
        help="the players' ratings: `ratings rebuild` recomputes them from the rated games",
        description="Work on the ratings kept in the database named by MARRAKECH_DB.",
    )
    actions = ratings.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser(
        "rebuild",
        help="recompute every server's ratings from its rated games, in the order they ended",
        description="Recompute every server's ratings from its rated games (the stored "
        "results), from the first, in the order they ended: the same numbers the bot got by "
        "applying them one by one. Safe while the bot runs (a game ending meanwhile is applied "
        "after). Exit 0 when done; 2 when MARRAKECH_DB is bad or names a SQLite file that "
        "does not exist; 5 when the database cannot be opened or used as configured, 6 when "
        "its server does not answer (as for the bot).",
    )
    return parser


def _seconds(text: str) -> float:
    """A --wait argument: a number of seconds, 0 or more."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return seconds


def _migrate(wait: float) -> int:
    try:
        target = load_database(os.environ)
    except SettingsError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    from bot.runtime.database_errors import EXIT_DATABASE_DOWN, opening_failure, reason
    from bot.storage import open_database

    async def migrate() -> tuple[int, int]:
        database = await open_database(target.target, schema_version=0)
        try:
            before = await database.schema_version()
            return before, await database.migrate()
        finally:
            await database.close()

    waited = 0.0
    while True:
        try:
            before, after = asyncio.run(migrate())
            break
        except Exception as error:
            if opening_failure(error) != EXIT_DATABASE_DOWN or wait <= 0:
                return _database_failed(target, error)
            if waited + MIGRATE_RETRY_SECONDS > wait:
                return _database_failed(
                    target, error, f"the database server did not answer in {wait:.0f} s"
                )
            _say(
                target,
                f"{reason(error)}: the database server does not answer yet; trying again in "
                f"{MIGRATE_RETRY_SECONDS:.0f} s",
            )
            _pause(MIGRATE_RETRY_SECONDS)
            waited += MIGRATE_RETRY_SECONDS
    if before == after:
        print(f"{target!r}: schema version {after}, up to date")
    else:
        print(f"{target!r}: schema version {before} -> {after}")
    return 0


def _not_a_file(path: Path) -> str:
    """Why a database path that is no file cannot be read: a folder named, or nothing there."""
    if path.is_dir():
        return "a folder, not a database file (name the file in it)"
    return "no such database file"


def _rebuild_ratings() -> int:
    try:
        target = load_database(os.environ)
    except SettingsError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    if target.path is not None and not target.path.is_file():  # a mistyped path: no install
        print(f"{PROGRAM}: {target!r}: {_not_a_file(target.path)}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    from bot.services.ratings import RatingService
    from bot.storage import open_database
    from bot.storage.ratings import RatingStore

    async def rebuild() -> tuple[int, int]:
        database = await open_database(target.target)
        try:
            rebuilt = await RatingService(RatingStore(database)).rebuild()
        finally:
            await database.close()
        return rebuilt.guilds, rebuilt.games

    try:
        guilds, games = asyncio.run(rebuild())
    except Exception as error:
        return _database_failed(target, error)
    rated = f"{games} rated game{'' if games == 1 else 's'}"
    servers = f"{guilds} server{'' if guilds == 1 else 's'}"
    print(f"{target!r}: ratings rebuilt from {rated} in {servers}")
    return 0


def _database_failed(target: DatabaseTarget, error: Exception, then: str = "") -> int:
    """A command could not open or use its database: say why in one line (and `then`, what
    came of it), and exit as the bot would (bot.runtime.database_errors); anything else is a
    bug, raised."""
    from bot.runtime.database_errors import opening_failure, reason

    code = opening_failure(error)
    if code is None:
        raise error
    _say(target, f"{reason(error)}: {then}" if then else reason(error))
    return code


def _say(target: DatabaseTarget, message: str) -> None:
    """One line on stderr about `target`, without its password."""
    for secret in target.secrets:
        message = message.replace(secret, "***")
    print(f"{PROGRAM}: {target!r}: {message}", file=sys.stderr)


def _copy_db(source_text: str, target_text: str) -> int:
    try:
        source = _database_argument("FROM", source_text)
        target = _database_argument("TO", target_text)
    except SettingsError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    if source.path is not None and not source.path.is_file():
        print(f"{PROGRAM}: FROM {source!r}: {_not_a_file(source.path)}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    if _same_database(source, target):
        print(f"{PROGRAM}: FROM and TO are the same database ({source!r})", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    from bot.runtime.copy_db import copy_install
    from bot.storage import StorageError

    try:
        report = asyncio.run(copy_install(source, target))
    except StorageError as error:
        message = str(error)
        for password in (*source.secrets, *target.secrets):
            message = message.replace(password, "***")
        print(f"{PROGRAM}: {message}", file=sys.stderr)
        return EXIT_CRASHED
    print(report.summary())
    for problem in report.problems:
        print(f"  {problem}")
    return EXIT_CRASHED if report.problems else 0


def _database_argument(name: str, value: str) -> DatabaseTarget:
    """A FROM or TO argument read as MARRAKECH_DB is (its errors name the argument)."""
    try:
        return load_database({DB_VAR: value})
    except SettingsError as error:
        raise SettingsError(str(error).replace(DB_VAR, name)) from None


def _same_database(one: DatabaseTarget, other: DatabaseTarget) -> bool:
    if one.path is not None and other.path is not None:
        return one.path.resolve() == other.path.resolve()
    if one.url is not None and other.url is not None:
        return _postgres_database(one.url) == _postgres_database(other.url)
    return False


def _postgres_database(url: str) -> tuple[object, ...]:
    """What a PostgreSQL URL names, however it is spelled: the server (its host, and its port,
    5432 unless given, from the URL or its `host` and `port` parameters), the database (the
    user's name when none is given, as libpq does) and the other parameters (`search_path`
    names another schema); not the scheme (`postgres://` or `postgresql://`), nor the login."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    user = query.pop("user", None) or unquote(parts.username or "")
    for login in ("password", "passfile"):
        query.pop(login, None)
    try:
        host, port = parts.hostname or "", parts.port
    except ValueError:  # several hosts: compared as written
        host, port = parts.netloc.rpartition("@")[2].lower(), None
    host = query.pop("host", host)
    written_port = query.pop("port", None) or (str(port) if port is not None else "5432")
    database = (
        query.pop("dbname", None) or query.pop("database", None) or unquote(parts.path[1:]) or user
    )
    return host, written_port, database, sorted(query.items())


def _healthcheck() -> int:
    try:
        path = load_heartbeat_path(os.environ)
    except SettingsError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    healthy, reason = check_health(path)
    print(reason)
    return 0 if healthy else 1


def _run_bot() -> int:
    # First: a stop or SIGUSR2 while the bot loads is kept for its event loop, not fatal.
    with early_signals.held():
        return _start_bot()


def _start_bot() -> int:
    try:
        settings = load_settings(os.environ)
        hooks = load_test_hooks(os.environ)  # the end-to-end tests' only: all off for admins
        crashpoints.configure(os.environ)
    except (SettingsError, crashpoints.CrashSettingError) as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    if settings.heartbeat_path.is_dir():  # never written: the health check would fail for ever
        print(
            f"{PROGRAM}: {HEARTBEAT_VAR}: {settings.heartbeat_path} is a folder: set "
            f"{HEARTBEAT_VAR} to a file's path, e.g. {settings.heartbeat_path / 'heartbeat'}",
            file=sys.stderr,
        )
        return EXIT_BAD_SETTINGS
    secrets = (settings.token, *settings.database.secrets)
    configure_logging(settings.log_level, secrets=tuple(s for s in secrets if s))
    log.info("starting: %s", describe(settings))
    shards = settings.shards
    if settings.database.path is not None and shards is not None and len(shards.ids) < shards.count:
        log.warning(
            "this process holds shard %s of %s on SQLite, which serves one process only: the "
            "servers of the other shards get no answer; hold every shard here, or use "
            "PostgreSQL for several processes",
            ", ".join(str(shard) for shard in shards.ids),
            shards.count,
        )
    for name in (*hooks.active, *crashpoints.active(os.environ)):
        log.warning("testing only: %s is set; never set it for a real bot", name)
    # Imported late: discord.py loads only once settings are good. Loading it and the bot makes
    # objects by the hundred thousand and frees few: the collector is paused meanwhile, as the
    # collections the load would set off cost about a tenth of it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        from bot.runtime.app import run
    finally:
        if collecting:
            gc.enable()

    try:
        return run(settings, hooks)
    except Exception:
        # Through logging, so the traceback passes the token redaction.
        log.exception("the bot stopped on an unexpected error")
        return EXIT_CRASHED


if __name__ == "__main__":
    sys.exit(main())
