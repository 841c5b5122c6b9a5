"""The small disk of the full-disk tests (tests/e2e/full_disk.py): where it is mounted, a full
disk refuses every write SQLite makes, a one-statement autocommit write as much as a
transaction, and the refusal marks the database gone (what the outage watch waits on) until a
probe commits once there is room; where mounting is refused the test says so, and under CI it
fails instead."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.storage.database import DatabaseUnavailableError
from bot.storage.sqlite import SqliteDatabase
from tests.e2e.full_disk import mount_refused, small_disk, under_ci


@pytest.mark.parametrize(
    ("value", "ci"),
    [("", False), ("0", False), ("false", False), ("FALSE", False), ("true", True), ("1", True)],
)
def test_ci_is_told_by_its_environment_variable(value: str, ci: bool) -> None:
    assert under_ci({"CI": value}) is ci
    assert under_ci({}) is False


def test_a_refused_mount_skips_the_test_with_its_reason(tmp_path: Path) -> None:
    with pytest.raises(pytest.skip.Exception, match=r"no tmpfs could be mounted.*only root"):
        mount_refused(tmp_path, "only root", env={})


def test_a_refused_mount_fails_the_test_under_ci(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"only root.*CI must run it"):
        mount_refused(tmp_path, "only root", env={"CI": "true"})


@pytest.mark.e2e
async def test_a_full_disk_refuses_a_one_statement_write(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        database = await SqliteDatabase.connect(disk.folder / "marrakech.sqlite3")
        try:
            disk.fill()
            with pytest.raises(DatabaseUnavailableError) as refused:
                async with database.single_write() as statement:
                    await statement.execute(
                        "INSERT INTO bot_meta (key, value) VALUES (?, ?)", "key", "x" * 8192
                    )
            cause = refused.value.__cause__
            assert isinstance(cause, sqlite3.OperationalError)
            assert cause.sqlite_errorcode == sqlite3.SQLITE_FULL
            availability = database.availability
            assert not availability.up, "the database is gone: the outage watch probes it"
            assert "full" in availability.reason, availability.reason
            with pytest.raises(DatabaseUnavailableError):
                await database.probe("while full")
            assert not availability.up
            disk.free()
            async with database.single_write() as statement:
                await statement.execute(
                    "INSERT INTO bot_meta (key, value) VALUES (?, ?)", "key", "x" * 8192
                )
            await database.probe("with room again")
            assert availability.up, "a probe that commits marks the database back"
        finally:
            await database.close()
