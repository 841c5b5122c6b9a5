"""Command line of the bot: `python -m bot` (or `marrakech-bot`) runs it; `healthcheck` checks it.

This is the composition root's front door: it reads the settings, stops with one clear line
when they are missing or wrong, sets up logging (which never shows the token), then hands over
to `bot.runtime.app.run`.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from bot import crashpoints
from bot.runtime.health import check_health
from bot.runtime.logs import configure_logging
from bot.runtime.settings import SettingsError, load_heartbeat_path, load_settings
from bot.runtime.test_hooks import load_test_hooks

PROGRAM = "marrakech-bot"
EXIT_BAD_SETTINGS = 2
EXIT_CRASHED = 1

log = logging.getLogger("bot")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command given by `argv` (default: the process arguments); return the exit code."""
    arguments = _parser().parse_args(argv)
    if arguments.command == "healthcheck":
        return _healthcheck()
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
        "loop runs, 1 otherwise.",
    )
    return parser


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
    try:
        settings = load_settings(os.environ)
        hooks = load_test_hooks(os.environ)  # the end-to-end tests' only: all off for admins
        crashpoints.configure(os.environ)
    except (SettingsError, crashpoints.CrashSettingError) as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    configure_logging(settings.log_level, secrets=(settings.token,))
    log.info("starting with %s", settings)
    for name in (*hooks.active, *crashpoints.active(os.environ)):
        log.warning("testing only: %s is set; never set it for a real bot", name)
    from bot.runtime.app import run  # imported late: discord.py loads only once settings are good

    try:
        return run(settings, hooks)
    except Exception:
        # Through logging, so the traceback passes the token redaction.
        log.exception("the bot stopped on an unexpected error")
        return EXIT_CRASHED


if __name__ == "__main__":
    sys.exit(main())
