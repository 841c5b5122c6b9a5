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
    """Send every log record at `level` or above to stderr (or `stream`) with secrets hidden.

    Replaces any handlers already on the root logger and returns the one it installed.
    """
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(RedactingFormatter(LOG_FORMAT, secrets))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    return handler
