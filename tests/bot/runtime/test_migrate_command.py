"""`marrakech-bot migrate`: brings the database MARRAKECH_DB names up to this bot's schema on
purpose, on SQLite and on PostgreSQL, says from which version to which, and never prints a
password."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import bot.storage
from bot import __main__ as entry
from bot.__main__ import main
from bot.storage import open_database
from bot.storage.database import load_migrations
from tests.postgres import backend, database_target, database_url, postgres_server, postgres_url

__all__ = ["backend", "database_target", "postgres_server", "postgres_url"]

LATEST = len(load_migrations())


async def test_migrate_brings_a_fresh_database_up_to_date_once(
    database_target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = database_target
    monkeypatch.setenv("MARRAKECH_DB", target)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)  # not needed to migrate

    assert await _run(["migrate"]) == 0
    assert f"schema version 0 -> {LATEST}" in capsys.readouterr().out
    assert await _run(["migrate"]) == 0
    assert f"schema version {LATEST}, up to date" in capsys.readouterr().out

    database = await open_database(target)
    try:
        assert await database.schema_version() == LATEST
    finally:
        await database.close()


async def test_migrate_reports_an_unreachable_server_without_its_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MARRAKECH_DB", "postgresql://bot:hunter2@127.0.0.1:1/marrakech")
    assert await _run(["migrate"]) == 6, "try again later"
    said = capsys.readouterr()
    assert "hunter2" not in said.out + said.err
    assert "postgresql://bot:***@127.0.0.1:1/marrakech" in said.err


async def test_migrate_on_a_path_that_is_no_database_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path))  # a folder
    assert await _run(["migrate"]) == 5
    said = capsys.readouterr()
    assert said.out == ""
    assert len(said.err.strip().splitlines()) == 1, said.err
    assert said.err.startswith(f"marrakech-bot: sqlite:{tmp_path}: ")


@pytest.mark.parametrize("command", [["migrate"], ["ratings", "rebuild"]], ids=" ".join)
@pytest.mark.parametrize(
    ("database", "code"),
    [
        ("{server}", 5),
        ("postgresql://bot:hunter2@no-such-host.invalid/marrakech", 6),
    ],
    ids=["a-database-the-server-does-not-have", "a-host-name-that-does-not-resolve"],
)
async def test_a_database_that_cannot_be_opened_exits_as_for_the_bot_in_one_line(
    command: list[str],
    database: str,
    code: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    """`migrate` and `ratings rebuild` exit as the bot does: 5 for a database the server does
    not have (a typo a person must fix, which the systemd unit does not restart), 6 for a host
    name that does not resolve (compose's `postgres` while its container is being made again),
    in one line."""
    if "{server}" in database:
        database = database_url(request.getfixturevalue("postgres_server"), "no_such_database")
    monkeypatch.setenv("MARRAKECH_DB", database)
    assert await _run(command) == code
    said = capsys.readouterr()
    assert said.out == ""
    assert len(said.err.strip().splitlines()) == 1, said.err
    assert "hunter2" not in said.err


def test_migrate_says_a_driver_message_over_several_lines_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def refused(target: object, **_: object) -> None:
        raise OSError("could not open the database\nDETAIL:  the disk is read-only\nHINT:  look")

    monkeypatch.setattr(bot.storage, "open_database", refused)
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path / "marrakech.sqlite3"))
    assert main(["migrate"]) == 5
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == (
        f"marrakech-bot: sqlite:{tmp_path / 'marrakech.sqlite3'}: could not open the database "
        "DETAIL: the disk is read-only HINT: look\n"
    )


def test_migrate_refuses_a_bad_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MARRAKECH_DB", "mysql://db/marrakech")
    assert main(["migrate"]) == 2
    assert "MARRAKECH_DB" in capsys.readouterr().err


async def _run(argv: list[str]) -> int:
    """The command runs its own event loop: give it a thread of its own."""
    return await asyncio.to_thread(main, argv)


def test_migrate_waits_for_a_database_server_that_does_not_answer_yet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`migrate --wait SECONDS` (deploy/compose.yaml's one-shot service) tries again while the
    server does not answer (a PostgreSQL container still starting), one line each time, and
    migrates once it answers: the bots that wait for it then start."""
    real_open = bot.storage.open_database
    refusals = iter([ConnectionError("connection refused")] * 2)
    pauses: list[float] = []

    async def starting(target: str, *, schema_version: int | None) -> bot.storage.Database:
        for refusal in refusals:
            raise refusal
        return await real_open(target, schema_version=schema_version)

    monkeypatch.setattr(bot.storage, "open_database", starting)
    monkeypatch.setattr(entry, "_pause", pauses.append)
    database = tmp_path / "marrakech.sqlite3"
    monkeypatch.setenv("MARRAKECH_DB", str(database))

    assert main(["migrate", "--wait", "60"]) == 0
    said = capsys.readouterr()
    assert f"schema version 0 -> {LATEST}" in said.out
    tried_again = (
        f"marrakech-bot: sqlite:{database}: connection refused: the database server does not "
        f"answer yet; trying again in {entry.MIGRATE_RETRY_SECONDS:.0f} s"
    )
    assert said.err.splitlines() == [tried_again] * 2
    assert pauses == [entry.MIGRATE_RETRY_SECONDS] * 2


def test_migrate_stops_waiting_after_the_time_given_and_never_waits_for_a_person(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server that never answers: exit 6 once the wait is over. A database refused as
    configured (5: a person must look) is not tried again."""
    pauses: list[float] = []
    errors: list[Exception] = []

    async def refused(target: object, **_: object) -> None:
        raise errors[0]

    monkeypatch.setattr(bot.storage, "open_database", refused)
    monkeypatch.setattr(entry, "_pause", pauses.append)
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path / "marrakech.sqlite3"))

    errors.append(ConnectionError("connection refused"))
    assert main(["migrate", "--wait", "12"]) == 6
    assert sum(pauses) <= 12
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(pauses) + 1
    assert lines[-1].endswith(": connection refused: the database server did not answer in 12 s")

    pauses.clear()
    errors[0] = OSError("password authentication failed")
    assert main(["migrate", "--wait", "12"]) == 5
    assert pauses == []
    assert len(capsys.readouterr().err.splitlines()) == 1
