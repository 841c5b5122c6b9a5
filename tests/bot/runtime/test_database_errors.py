"""bot.runtime.database_errors: why a database could not be opened, told in one line."""

from __future__ import annotations

from bot.runtime.database_errors import reason


def test_a_driver_message_over_several_lines_is_told_in_one() -> None:
    """A PostgreSQL server's errors come with DETAIL and HINT lines."""
    error = OSError("could not open the database\nDETAIL:  the disk is read-only\nHINT:  look")
    assert reason(error) == "could not open the database DETAIL: the disk is read-only HINT: look"
