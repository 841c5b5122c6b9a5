"""`marrakech-bot ratings rebuild`: recomputes every server's ratings from its rated games, on
SQLite and on PostgreSQL, to exactly the numbers the bot applied game by game, and says how
many games and servers it went through. And the bot's own start rates the games the ratings do
not include yet."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.storage import open_database
from tests.bot.edge.test_edge import running_edge
from tests.bot.services.test_ratings import OTHER_GUILD, opened, resign_all_but, tables
from tests.bot.services.test_service import BOB, CAROL, HOST, service_on
from tests.postgres import backend, database_target, postgres_server, postgres_url

__all__ = ["backend", "database_target", "postgres_server", "postgres_url"]


async def test_rebuild_restores_the_ratings_the_games_gave(
    database_target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = await open_database(database_target)
    try:
        service = service_on(database)
        for channel, (users, keeper) in enumerate(
            [((HOST, BOB), HOST), ((HOST, BOB, CAROL), BOB), ((CAROL, HOST), CAROL)], start=1
        ):
            view = await opened(service, users, channel=channel)
            await resign_all_but(service, view, keeper)
        view = await opened(service, (HOST, BOB), channel=9, guild=OTHER_GUILD)
        await resign_all_but(service, view, BOB)
        applied = await tables(database)
        async with database.transaction() as conn:
            await conn.execute("DELETE FROM ratings")
            await conn.execute("DELETE FROM rating_changes WHERE number > 1")
    finally:
        await database.close()
    monkeypatch.setenv("MARRAKECH_DB", database_target)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)  # not needed to rebuild

    assert await asyncio.to_thread(main, ["ratings", "rebuild"]) == 0
    assert "ratings rebuilt from 4 rated games in 2 servers" in capsys.readouterr().out
    database = await open_database(database_target)
    try:
        assert await tables(database) == applied
    finally:
        await database.close()


def test_ratings_needs_an_action_and_a_good_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["ratings"])
    assert "ACTION" in capsys.readouterr().err
    monkeypatch.setenv("MARRAKECH_DB", "mysql://db/marrakech")
    assert main(["ratings", "rebuild"]) == 2
    assert "MARRAKECH_DB" in capsys.readouterr().err


async def test_rebuild_reports_an_unreachable_server_without_its_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MARRAKECH_DB", "postgresql://bot:hunter2@127.0.0.1:1/marrakech")
    assert await asyncio.to_thread(main, ["ratings", "rebuild"]) == 6, "try again later"
    said = capsys.readouterr()
    assert "hunter2" not in said.out + said.err
    assert "postgresql://bot:***@127.0.0.1:1/marrakech" in said.err


def test_rebuild_names_a_folder_given_as_the_database_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """MARRAKECH_DB naming the folder the file lies in is told as such, not as nothing there."""
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path))
    assert main(["ratings", "rebuild"]) == 2
    said = capsys.readouterr().err.strip()
    assert said == (
        f"marrakech-bot: sqlite:{tmp_path}: a folder, not a database file (name the file in it)"
    )


@pytest.mark.parametrize(
    "mistyped", ["typo/marrakech.sqlite3", "marakech.sqlite3"], ids=["folder", "file"]
)
def test_rebuild_refuses_a_database_file_that_does_not_exist(
    mistyped: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A mistyped path, of a folder or of the file in the right folder, is no install with
    nothing rated: refused, and nothing is created (not an empty database said to be rebuilt)."""
    before = sorted(tmp_path.iterdir())
    missing = tmp_path / mistyped
    monkeypatch.setenv("MARRAKECH_DB", str(missing))
    assert main(["ratings", "rebuild"]) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.strip() == f"marrakech-bot: sqlite:{missing}: no such database file"
    assert sorted(tmp_path.iterdir()) == before


async def test_rebuild_counts_one_game_and_one_server_in_the_singular(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "marrakech.sqlite3"
    database = await open_database(path)
    try:
        service = service_on(database)
        view = await opened(service, (HOST, BOB), channel=1)
        await resign_all_but(service, view, HOST)
    finally:
        await database.close()
    monkeypatch.setenv("MARRAKECH_DB", str(path))
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert await asyncio.to_thread(main, ["ratings", "rebuild"]) == 0
    assert capsys.readouterr().out.strip().endswith("ratings rebuilt from 1 rated game in 1 server")


async def test_the_start_rates_the_games_the_ratings_do_not_include_yet(
    database_target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rated game whose rating failed to apply, or that ended before ratings were kept, is
    queued: the bot's start (`Bot.before_connect`, as `marrakech-bot` runs it) applies it, to
    the numbers applying it at its end gave. Without that, a quiet server's game would wait for
    the server's next rated game, and the games before ratings for ever."""
    async with running_edge(tmp_path, monkeypatch, database_target=database_target) as edge:
        guild = edge.channel.guild
        assert guild is not None
        users = (edge.host.id, edge.guest.id)
        view = await opened(edge.service, users, channel=edge.channel.id, guild=guild.id)
        await edge.service.play.resign(view.id, edge.guest.id)
        database = edge.store.database
        applied = await tables(database)
        assert dict(applied)["rating_guilds"] == [(guild.id, 1, 1)]
        async with database.transaction() as conn:  # as a failed apply leaves them
            await conn.execute("DELETE FROM rating_changes")
            await conn.execute("DELETE FROM ratings")
            await conn.execute("UPDATE rating_guilds SET applied = 0")
        try:
            await edge.bot.before_connect()
            assert await tables(database) == applied, "the start applies the game left unrated"
        finally:
            await edge.bot.stopping()  # the watch and the clock the start began
