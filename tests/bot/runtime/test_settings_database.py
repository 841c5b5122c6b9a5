"""MARRAKECH_DB: a SQLite file by path or sqlite:/// URL, or a PostgreSQL URL whose password
never shows in the logged settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.runtime.settings import SettingsError, load_heartbeat_path, load_settings

TOKEN = {"DISCORD_TOKEN": "abc.def.ghi"}


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ("games.sqlite3", Path("games.sqlite3")),
        ("/data/games.sqlite3", Path("/data/games.sqlite3")),
        ("sqlite:///games.sqlite3", Path("games.sqlite3")),
        ("sqlite:////data/games.sqlite3", Path("/data/games.sqlite3")),
    ],
)
def test_a_sqlite_file(value: str, path: Path) -> None:
    settings = load_settings({**TOKEN, "MARRAKECH_DB": value})
    assert settings.database.path == path
    assert settings.database.url is None
    assert settings.database.target == path
    assert settings.heartbeat_path == path.parent / "heartbeat"


def test_a_postgresql_url_is_kept_whole_and_its_password_hidden() -> None:
    url = "postgresql://marrakech:s3cret-pw@db.internal:5432/marrakech"
    settings = load_settings({**TOKEN, "MARRAKECH_DB": url})
    assert settings.database.target == url
    assert settings.database.password == "s3cret-pw"
    shown = repr(settings)
    assert "s3cret-pw" not in shown
    assert "postgresql://marrakech:***@db.internal:5432/marrakech" in shown
    assert settings.heartbeat_path == Path("data/heartbeat")
    assert load_heartbeat_path({"MARRAKECH_DB": url}) == Path("data/heartbeat")


def test_a_postgres_url_without_password_or_with_a_socket() -> None:
    for url in ("postgres://db/marrakech", "postgresql:///marrakech?host=/run/postgresql"):
        settings = load_settings({**TOKEN, "MARRAKECH_DB": url})
        assert settings.database.target == url
        assert settings.database.password is None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("mysql://db/marrakech", "mysql://"),
        ("sqlite:///", "file path after sqlite:///"),
        ("postgresql:///marrakech", "names no server"),
    ],
)
def test_a_bad_database_setting_is_one_clear_line(value: str, said: str) -> None:
    with pytest.raises(SettingsError, match="MARRAKECH_DB") as raised:
        load_settings({**TOKEN, "MARRAKECH_DB": value})
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)
