"""`marrakech-bot copy-db FROM TO`: copies a whole install from SQLite to PostgreSQL (and back),
reports what it copied and that every game replays, refuses a target that holds anything with
one line and exit code 1, reports a game that does not replay, and never prints a password."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg  # type: ignore[import-untyped]
import pytest

from bot.__main__ import main
from bot.runtime import copy_db
from bot.runtime.copy_db import copy_install
from bot.runtime.settings import DatabaseTarget
from bot.storage import Database, StorageError, open_database
from bot.storage import copy as storage_copy
from bot.storage.copy import copy_database
from bot.storage.database import Backend, load_migrations
from bot.storage.players import PlayerStore
from tests.bot.storage.test_copy import BEFORE_JUDGEMENTS, Filled, all_rows, fill
from tests.bot.storage.test_storage import migrated_by_a_newer_bot
from tests.postgres import backend, database_target, postgres_server, postgres_url

__all__ = ["backend", "database_target", "postgres_server", "postgres_url"]

PASSWORD = "hunter2"


@pytest.fixture(scope="module")
def filled_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Filled]:
    """An SQLite install `fill`ed once for the module and closed, never opened again: each test
    starts from a copy of it (filling one plays whole games through the services)."""
    path = tmp_path_factory.mktemp("filled") / "marrakech.sqlite3"

    async def filled() -> Filled:
        database = await open_database(path)
        try:
            return await fill(database)
        finally:
            await database.close()

    with ThreadPoolExecutor(1) as thread:  # a loop of its own: the test's is not running yet
        made = thread.submit(asyncio.run, filled()).result()
    assert [file.name for file in path.parent.iterdir()] == [path.name], "closed: one file"
    return path, made


@pytest.fixture
def source(filled_once: tuple[Path, Filled], tmp_path: Path) -> tuple[Path, Filled]:
    """The test's own copy of the filled install, at tmp_path/marrakech.sqlite3."""
    made, filled = filled_once
    path = tmp_path / made.name
    shutil.copyfile(made, path)
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


async def test_another_application_s_database_as_target_is_refused_before_anything_is_written(
    source: tuple[Path, Filled],
    database_target: str,
    backend: Backend,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An admin who names the wrong database as TO (another application's, or the server's
    default one) is refused in one line, and that database is left as it was: the bot's tables
    are not created in it first, and FROM is not touched either."""
    path, _ = source
    await _another_application_s(database_target, backend)
    before = _files(tmp_path), await _postgres_tables(database_target, backend)

    assert await _run(["copy-db", str(path), database_target]) == 1
    after = _files(tmp_path), await _postgres_tables(database_target, backend)
    assert after == before, "both databases are left as they were"
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == (
        "marrakech-bot: the target database holds tables this bot does not make (notes); "
        "copy-db only fills an empty one\n"
    )


async def test_a_source_an_older_bot_made_is_refused_and_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """copy-db never changes FROM (the SQLite file is kept as a backup): one at an older schema
    is not migrated in place but refused with what to run first, and TO is not created."""
    older = tmp_path / "older.sqlite3"
    await (await open_database(older, schema_version=BEFORE_JUDGEMENTS)).close()
    before = _files(tmp_path)

    assert await _run(["copy-db", str(older), str(tmp_path / "copy.sqlite3")]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == (
        f"marrakech-bot: FROM sqlite:{older}: the database schema is version "
        f"{BEFORE_JUDGEMENTS}, older than this bot ({len(load_migrations())}); copy-db leaves "
        "FROM as it is: bring it up to date first with `marrakech-bot migrate` (MARRAKECH_DB "
        "set to FROM)\n"
    )
    assert _files(tmp_path) == before


async def test_a_source_a_newer_bot_migrated_is_refused_and_nothing_is_written(
    database_target: str, backend: Backend, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/deployment.md, Upgrades: a bot never runs on a database a newer version migrated.
    Its rows may mean what this bot's schema cannot say, so copy-db refuses such a FROM with
    what to do, and TO is not created."""
    known = await migrated_by_a_newer_bot(database_target, backend)
    target = tmp_path / "copy.sqlite3"
    before = _files(tmp_path)

    code = await _run(["copy-db", database_target, str(target)])
    said = capsys.readouterr()
    assert code == 1, said.out
    assert said.out == ""
    assert said.err.startswith("marrakech-bot: FROM "), said.err
    assert said.err.endswith(
        f": the database schema is version {known + 1}, newer than this bot ({known}); "
        "upgrade the bot\n"
    ), said.err
    assert len(said.err.splitlines()) == 1
    assert _files(tmp_path) == before


async def test_an_empty_database_an_older_bot_made_is_filled(
    source: tuple[Path, Filled], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A target that holds only the bot's tables, empty, is no other application's: it is
    brought up to this bot's schema and filled."""
    path, _ = source
    target = tmp_path / "older.sqlite3"
    await (await open_database(target, schema_version=BEFORE_JUDGEMENTS)).close()

    assert await _run(["copy-db", str(path), str(target)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("every game replays")
    assert await _rows(target) == await _rows(path)


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
        (["{folder}", "{target}"], "FROM sqlite:{folder}: a folder, not a database file"),
        (["{source}", "{source}"], "FROM and TO are the same database"),
        (["{source}", "{source_spelled_otherwise}"], "FROM and TO are the same database"),
        (["{url}", "{url}"], "FROM and TO are the same database"),
        (["{url}", "{url_spelled_otherwise}"], "FROM and TO are the same database"),
        (["{socket}", "{socket_spelled_otherwise}"], "FROM and TO are the same database"),
    ],
    ids=[
        "malformed",
        "missing",
        "folder",
        "one-file",
        "one-file-spelled-otherwise",
        "one-url",
        "one-url-spelled-otherwise",
        "one-socket-spelled-otherwise",
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
    the source, even when it is also the target, neither written nor migrated. A PostgreSQL
    database is the same whatever the scheme's spelling, the login or the default port written
    out (no server is asked: these are refused before any connection)."""
    path, _ = source
    names = {
        "source": str(path),
        "missing": str(tmp_path / "missing.sqlite3"),
        "folder": str(path.parent),
        "target": str(tmp_path / "b.sqlite3"),
        "source_spelled_otherwise": str(path.parent / ".." / path.parent.name / path.name),
        "url": f"postgresql://bot:{PASSWORD}@127.0.0.1:1/marrakech",
        "url_spelled_otherwise": "postgres://admin@127.0.0.1:1/marrakech",
        "socket": f"postgresql://bot:{PASSWORD}@/marrakech?host={tmp_path / 'no-server'}",
        "socket_spelled_otherwise": f"postgres:///marrakech?host={tmp_path / 'no-server'}"
        "&port=5432&user=bot",
    }
    before = _files(tmp_path)
    argv = ["copy-db", *(argument.format(**names) for argument in arguments)]
    code = await _run(argv)
    said = capsys.readouterr().err
    assert code == 2, said
    assert expected.format(**names) in said
    assert _files(tmp_path) == before


async def test_two_schemas_of_one_postgresql_database_are_two_databases(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A `search_path` names another schema: copying between two is no copy into itself."""
    url = "postgresql://bot@127.0.0.1:1/marrakech"
    assert await _run(["copy-db", f"{url}?search_path=one", f"{url}?search_path=two"]) == 1
    said = capsys.readouterr().err
    assert "same database" not in said
    assert said.startswith(f"marrakech-bot: FROM {url}?search_path=one: "), said


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


async def _another_application_s(target: str, backend: Backend) -> None:
    """Make `target` another application's database: one table `notes`, holding one row."""
    if backend == "sqlite":
        with contextlib.closing(sqlite3.connect(target)) as connection:
            connection.execute("CREATE TABLE notes (x TEXT)")
            connection.execute("INSERT INTO notes VALUES ('keep')")
            connection.commit()
        return
    connection = await asyncpg.connect(target)
    try:
        await connection.execute("CREATE TABLE notes (x text); INSERT INTO notes VALUES ('keep')")
    finally:
        await connection.close()


async def _postgres_tables(target: str, backend: Backend) -> dict[str, list[tuple[object, ...]]]:
    """Every table of the PostgreSQL schema `target` names, with its rows (none for SQLite,
    whose file `_files` reads)."""
    if backend == "sqlite":
        return {}
    connection = await asyncpg.connect(target)
    try:
        names = await connection.fetch(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY table_name"
        )
        return {
            str(name[0]): [
                tuple(row) for row in await connection.fetch(f'SELECT * FROM "{name[0]}"')
            ]
            for name in names
        }
    finally:
        await connection.close()


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

    async def refused(target: str | Path, **_: object) -> Database:
        raise ConnectionError(f"cannot connect to {target}")

    monkeypatch.setattr(storage_copy, "open_database", refused)  # its look, before any write
    monkeypatch.setattr(copy_db, "open_database", refused)
    with pytest.raises(StorageError) as raised:
        await copy_install(DatabaseTarget(url=url), DatabaseTarget(path=tmp_path / "b.sqlite3"))

    assert str(raised.value) == (
        "FROM postgresql://bot:***@db.example:5432/marrakech: cannot connect to "
        "postgresql://bot:***@db.example:5432/marrakech"
    )


@pytest.mark.parametrize("password", [PASSWORD, "hunter%232"], ids=["plain", "percent-encoded"])
async def test_copy_db_prints_a_failure_that_quotes_the_password_without_it(
    password: str,
    monkeypatch: pytest.MonkeyPatch,
    source: tuple[Path, Filled],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """copy-db prints its failure itself, outside the log's redaction: the password is hidden
    as the URL writes it (`hunter%232`, percent-encoded as the README says to) and as the server
    reads it (`hunter#2`)."""
    path, _ = source
    url = f"postgresql://bot:{password}@db.example:5432/marrakech"

    async def fails(source: DatabaseTarget, target: DatabaseTarget) -> copy_db.CopyReport:
        raise StorageError(f"the copy into {target.url} was rolled back ({target.password})")

    monkeypatch.setattr(copy_db, "copy_install", fails)
    assert await _run(["copy-db", str(path), url]) == 1
    said = capsys.readouterr()
    for secret in (PASSWORD, "hunter%232", "hunter#2"):
        assert secret not in said.out + said.err
    assert "the copy into postgresql://bot:***@db.example:5432/marrakech" in said.err
