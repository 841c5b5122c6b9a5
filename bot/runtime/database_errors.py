"""Why a database could not be opened, in one line, and what the process should exit with.

Opening a database (bot.storage.open_database) fails in ways an admin can act on: a path that
cannot be created or written, a file that is not a SQLite database, a schema newer than the
bot, a PostgreSQL database or login the server refuses (a person must look: exit 5), or a
server that does not answer yet (it may be starting: a supervisor restarts the bot, exit 6).
The bot, `migrate` and `ratings rebuild` say it in one line instead of a traceback.
"""

from __future__ import annotations

import socket
import sqlite3

from bot.storage import StorageError
from bot.storage.errors import DatabaseUnavailableError

EXIT_DATABASE = 5
"""The database cannot be opened as configured: a person must look."""
EXIT_DATABASE_DOWN = 6
"""The database server does not answer (yet): try again later."""
_RETRY_LATER = (
    ConnectionError,
    TimeoutError,
    socket.gaierror,
    DatabaseUnavailableError,
)
_UNAVAILABLE_POSTGRES = ("CannotConnectNowError", "TooManyConnectionsError")
"""asyncpg's errors for a server starting up or full: named, so SQLite installs never load it."""


def opening_failure(error: BaseException) -> int | None:
    """The exit code for a failure to open the database (EXIT_DATABASE_DOWN when it may pass
    by itself, else EXIT_DATABASE); None for an error that is no such failure (a bug)."""
    if isinstance(error, _RETRY_LATER) or type(error).__name__ in _UNAVAILABLE_POSTGRES:
        return EXIT_DATABASE_DOWN
    if isinstance(error, (StorageError, OSError, sqlite3.Error)) or _from_asyncpg(error):
        return EXIT_DATABASE
    return None


def _from_asyncpg(error: BaseException) -> bool:
    return type(error).__module__.startswith("asyncpg")


def reason(error: BaseException) -> str:
    """The error in one line."""
    return " ".join(str(error).split()) or type(error).__name__
