"""The errors the storage raises, whatever the back end: the database unusable now, or a write
its schema refused. They sit apart from the interface (bot/storage/database.py) so that what
the interface uses, its `availability` (bot/storage/availability.py), can raise them too.
"""

from __future__ import annotations


class StorageError(Exception):
    """The database cannot be used as it is (bad migrations, newer schema, ...), or refused a
    write (the subclasses below)."""


class DatabaseUnavailableError(StorageError):
    """The database cannot be reached or cannot write now: its server is down or restarting,
    the connection to it was lost, or its disk is full. The block that failed was rolled back,
    unless the connection was lost while it committed (PostgreSQL): then it may have been
    committed. The database's `availability` says when it is back (bot.storage.availability)."""


class IntegrityError(StorageError):
    """A constraint of the schema refused a write; the transaction is rolled back.

    `table` and `columns` name what the constraint covers when the back end says so (SQLite
    names the columns of UNIQUE and NOT NULL failures, PostgreSQL the table and the key);
    `constraint` is the constraint's name where the back end gives it (PostgreSQL).
    """

    def __init__(
        self,
        message: str,
        *,
        table: str | None = None,
        columns: tuple[str, ...] = (),
        constraint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.table = table
        self.columns = columns
        self.constraint = constraint


class UniqueViolation(IntegrityError):
    """A row with the same key (a primary key or a unique index) already exists."""


class CheckViolation(IntegrityError):
    """A CHECK constraint refused the values."""


class NotNullViolation(IntegrityError):
    """A NOT NULL column was given no value."""


class ForeignKeyViolation(IntegrityError):
    """A reference points at no row (or a referenced row is still referenced)."""
