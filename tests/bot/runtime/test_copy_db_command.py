"""`marrakech-bot copy-db FROM TO`: copies a whole install from SQLite to PostgreSQL (and back),
reports what it copied and that every game replays, refuses a target that holds anything with
one line and exit code 1, reports a game that does not replay, and never prints a password."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from bot.__main__ import main
from bot.runtime import copy_db
from bot.runtime.copy_db import copy_install
from bot.runtime.settings import DatabaseTarget
from bot.storage import Database, StorageError, open_database
from bot.storage.copy import copy_database
from bot.storage.players import PlayerStore
from tests.bot.storage.test_copy import Filled, all_rows, fill
from tests.postgres import postgres_server, postgres_url

__all__ = ["postgres_server", "postgres_url"]

PASSWORD = "hunter2"


@pytest.fixture
async def source(tmp_path: Path) -> tuple[Path, Filled]:
    path = tmp_path / "marrakech.sqlite3"
    database = await open_database(path)
    try:
        filled = await fill(database)
    finally:
        await database.close()
    return path, filled


def with_password(url: str) -> str:
    """The URL with a password in it (the test server trusts local connections and ignores
    it): what an admin's URL looks like."""
    parts = urlsplit(url)
    user = parts.username or "postgres"
    return urlunsplit(parts._replace(netloc=f"{user}:{PASSWORD}@{parts.hostname or ''}"))


async def test_sqlite_to_postgres_and_back_copies_everything_and_says_so(
    source: tuple[Path, Filled],
    postgres_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, _ = source
    url = with_password(postgres_url)
    assert await _run(["copy-db", str(path), url]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("copied 8 games (3 running), ")  # two of a tournament
    assert said.out.rstrip().endswith("; every game replays")
    assert said.err == ""
    assert PASSWORD not in said.out + said.err

    back = tmp_path / "back.sqlite3"
    assert await _run(["copy-db", url, f"sqlite:///{back}"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("every game replays")
    assert await _rows(back) == await _rows(path)


async def test_a_target_holding_anything_is_refused_with_one_line(
    source: tuple[Path, Filled], postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = source
    url = with_password(postgres_url)
    target = await open_database(url)
    try:
        await PlayerStore(target).set_turn_dms(42, True, datetime(2026, 1, 1, tzinfo=UTC))
    finally:
        await target.close()

    assert await _run(["copy-db", str(path), url]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert len(said.err.strip().splitlines()) == 1
    assert "not empty (player_settings 1 rows)" in said.err
    assert PASSWORD not in said.err
    rows = await _rows(url)
    assert rows["player_settings"] == [(None, 0, 1, "2026-01-01T00:00:00.000+00:00", 42)]
    assert sum(len(found) for found in rows.values()) == 1, "the target is left as it was"


async def test_a_game_that_does_not_replay_is_reported_and_fails_the_copy(
    source: tuple[Path, Filled], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, filled = source
    database = await open_database(path)
    try:
        async with database.transaction() as conn:  # a log that lost its last entry
            await conn.execute(
                "DELETE FROM actions WHERE game_id = $1 AND seq = "
                "(SELECT max(seq) FROM actions WHERE game_id = $1)",
                filled.running,
            )
    finally:
        await database.close()

    assert await _run(["copy-db", str(path), str(tmp_path / "copy.sqlite3")]) == 1
    said = capsys.readouterr().out
    assert "1 problems:" in said
    assert f"game {filled.running}: its action log has" in said


async def test_a_copy_that_lost_or_changed_rows_is_reported(
    source: tuple[Path, Filled], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check after the copy compares every table: a row lost and a value changed on the
    way are each named, so the copy is not taken for faithful."""

    async def lossy(origin: Database, target: Database) -> dict[str, int]:
        rows = await copy_database(origin, target)
        async with target.transaction() as conn:
            await conn.execute(
                "DELETE FROM player_settings WHERE user_id = "
                "(SELECT min(user_id) FROM player_settings)"
            )
            await conn.execute("UPDATE bot_meta SET value = 'another value'")
        return rows

    path, _ = source
    monkeypatch.setattr(copy_db, "copy_database", lossy)
    report = await copy_install(
        DatabaseTarget(path=path), DatabaseTarget(path=tmp_path / "copy.sqlite3")
    )
    assert report.problems == (
        "bot_meta holds different values in FROM and TO",
        "player_settings has 2 rows in FROM but 1 in TO",
    )


async def test_an_unreachable_server_is_named_without_its_password(
    source: tuple[Path, Filled], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = source
    url = f"postgresql://bot:{PASSWORD}@127.0.0.1:1/marrakech"
    assert await _run(["copy-db", str(path), url]) == 1
    said = capsys.readouterr()
    assert PASSWORD not in said.out + said.err
    assert "TO postgresql://bot:***@127.0.0.1:1/marrakech" in said.err


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            ["mysql://db/marrakech", "{target}"],
            "FROM must be a file path, sqlite:///path or postgresql://",
        ),
        (["{missing}", "{target}"], "no such database file"),
        (["{source}", "{source}"], "FROM and TO are the same database"),
        (["{source}", "{source_spelled_otherwise}"], "FROM and TO are the same database"),
    ],
)
async def test_bad_arguments_are_refused_before_anything_is_opened(
    arguments: list[str],
    expected: str,
    source: tuple[Path, Filled],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each refusal exits 2 with its reason, and the folder holding every database named
    (the source, a missing one, the target) is byte for byte as it was: no file created, and
    the source, even when it is also the target, neither written nor migrated."""
    path, _ = source
    names = {
        "source": str(path),
        "missing": str(tmp_path / "missing.sqlite3"),
        "target": str(tmp_path / "b.sqlite3"),
        "source_spelled_otherwise": str(path.parent / ".." / path.parent.name / path.name),
    }
    before = _files(tmp_path)
    argv = ["copy-db", *(argument.format(**names) for argument in arguments)]
    assert await _run(argv) == 2
    assert expected in capsys.readouterr().err
    assert _files(tmp_path) == before


@pytest.mark.parametrize(
    ("arguments", "named", "not_named"),
    [
        (["mysql://db/marrakech", "{good}"], "FROM", "TO"),
        (["{good}", "mysql://db/marrakech"], "TO", "FROM"),
    ],
    ids=["FROM", "TO"],
)
async def test_a_bad_argument_s_refusal_names_that_argument(
    arguments: list[str],
    named: str,
    not_named: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["copy-db", *(argument.format(good=tmp_path / "a.sqlite3") for argument in arguments)]
    assert await _run(argv) == 2
    said = capsys.readouterr().err
    assert f"{named} must be a file path, sqlite:///path or postgresql://" in said, said
    assert not_named not in said
    assert "MARRAKECH_DB" not in said


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder`, by its path there, with its bytes."""
    return {
        str(file.relative_to(folder)): file.read_bytes()
        for file in sorted(folder.rglob("*"))
        if file.is_file()
    }


async def _rows(target: str | Path) -> dict[str, list[tuple[object, ...]]]:
    database = await open_database(target)
    try:
        return await all_rows(database)
    finally:
        await database.close()


async def _run(argv: list[str]) -> int:
    """The command runs its own event loop: give it a thread of its own."""
    return await asyncio.to_thread(main, argv)


async def test_a_driver_error_that_quotes_the_password_is_told_without_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    url = f"postgresql://bot:{PASSWORD}@db.example:5432/marrakech"

    async def refused(target: str | Path) -> Database:
        raise ConnectionError(f"cannot connect to {target}")

    monkeypatch.setattr(copy_db, "open_database", refused)
    with pytest.raises(StorageError) as raised:
        await copy_install(DatabaseTarget(url=url), DatabaseTarget(path=tmp_path / "b.sqlite3"))

    assert str(raised.value) == (
        "FROM postgresql://bot:***@db.example:5432/marrakech: cannot connect to "
        "postgresql://bot:***@db.example:5432/marrakech"
    )


async def test_copy_db_prints_a_failure_that_quotes_the_password_without_it(
    monkeypatch: pytest.MonkeyPatch, source: tuple[Path, Filled], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = source
    url = f"postgresql://bot:{PASSWORD}@db.example:5432/marrakech"

    async def fails(source: DatabaseTarget, target: DatabaseTarget) -> copy_db.CopyReport:
        raise StorageError(f"the copy into {target.url} was rolled back")

    monkeypatch.setattr(copy_db, "copy_install", fails)
    assert await _run(["copy-db", str(path), url]) == 1
    said = capsys.readouterr()
    assert PASSWORD not in said.out + said.err
    assert "the copy into postgresql://bot:***@db.example:5432/marrakech" in said.err
