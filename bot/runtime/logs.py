"""Logging set-up for the bot: one stderr handler, and secrets blanked out of every line.

Redaction happens on the fully formatted line, so a secret is hidden wherever it appears:
in the message, in its arguments, or in a traceback.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from typing import TextIO

LOG_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"
REDACTED = "[redacted]"
QUIET_LIBRARIES = ("aiosqlite", "asyncpg", "discord")
"""Libraries kept at INFO when the bot logs at DEBUG: at DEBUG they write every SQL statement
with its values (a game's secret seed among them), every request to Discord (interaction
tokens in their paths) and every gateway event in full (each interaction with its token),
hundreds of lines a game that hide the bot's own. `discord` holds every logger of discord.py
(its gateway, client, state, http and webhook ones)."""


class RedactingFormatter(logging.Formatter):
    """A formatter that replaces each given secret with `REDACTED` in the formatted line."""

    def __init__(self, fmt: str, secrets: Iterable[str]) -> None:
        super().__init__(fmt)
        # Longest first, so a secret that contains another is hidden whole.
        self._secrets = sorted({secret for secret in secrets if secret}, key=len, reverse=True)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        for secret in self._secrets:
            line = line.replace(secret, REDACTED)
        return line


def configure_logging(
    level: str, *, secrets: Iterable[str] = (), stream: TextIO | None = None
) -> logging.Handler:
    """Send every log record at `level` or above to stderr (or `stream`) with secrets hidden;
    the QUIET_LIBRARIES at INFO or above whatever the level.

    Replaces any handlers already on the root logger and returns the one it installed.
    """
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(RedactingFormatter(LOG_FORMAT, secrets))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for library in QUIET_LIBRARIES:
        logging.getLogger(library).setLevel(max(logging.INFO, root.level))
    logging.captureWarnings(True)
    return handler
