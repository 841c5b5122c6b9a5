"""bot.runtime.database_errors: why a database could not be opened, told in one line, and the
exit code it gives."""

from __future__ import annotations

import socket

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.runtime.database_errors import EXIT_DATABASE, EXIT_DATABASE_DOWN, opening_failure, reason


def test_a_driver_message_over_several_lines_is_told_in_one() -> None:
    """A PostgreSQL server's errors come with DETAIL and HINT lines."""
    error = OSError("could not open the database\nDETAIL:  the disk is read-only\nHINT:  look")
    assert reason(error) == "could not open the database DETAIL: the disk is read-only HINT: look"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (asyncpg.InvalidCatalogNameError('database "marakech" does not exist'), EXIT_DATABASE),
        (
            asyncpg.InvalidPasswordError('password authentication failed for user "bot"'),
            EXIT_DATABASE,
        ),
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), EXIT_DATABASE_DOWN),
        (ConnectionRefusedError(111, "Connection refused"), EXIT_DATABASE_DOWN),
    ],
    ids=["no-such-database", "login-refused", "host-name-not-resolved", "no-answer"],
)
def test_a_refusal_needs_a_person_and_a_server_not_there_yet_a_restart(
    error: Exception, code: int
) -> None:
    """docs/deployment.md: 5 for a database or login the server refuses (the systemd unit
    leaves the bot down), 6 for a server that does not answer (yet) or whose name does not
    resolve, as compose's `postgres` while its container is made again (restarted)."""
    assert opening_failure(error) == code
