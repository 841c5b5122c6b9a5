"""MARRAKECH_DB: a SQLite file by path or sqlite:/// URL, or a PostgreSQL URL whose password
never shows in the logged settings."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from bot.runtime.logs import configure_logging
from bot.runtime.settings import (
    DatabaseTarget,
    SettingsError,
    describe,
    load_heartbeat_path,
    load_settings,
    redacted_url,
)

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
        ("sqlite:/tmp/x.db", "sqlite:///"),  # too few slashes
        ("sqlite:games.sqlite3", "sqlite:///"),
    ],
)
def test_a_bad_database_setting_is_one_clear_line(value: str, said: str) -> None:
    with pytest.raises(SettingsError, match="MARRAKECH_DB") as raised:
        load_settings({**TOKEN, "MARRAKECH_DB": value})
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("password", ["S3cr/etPW", "S3cr#etPW", "S3cr?etPW", "S3cr%etPW"])
def test_a_password_a_url_cannot_hold_as_typed_is_refused_without_showing_it(
    password: str,
) -> None:
    """A '/', '#' or '?' ends the URL's user part: the URL would not parse, and the password
    would be logged whole; a '%' not followed by two hex digits encodes nothing. Refused in one
    line that says how to write it, and never shows it."""
    url = f"postgresql://marrakech:{password}@127.0.0.1:5432/marrakech"
    with pytest.raises(SettingsError, match="percent-encode") as raised:
        load_settings({**TOKEN, "MARRAKECH_DB": url})
    said = str(raised.value)
    assert password not in said
    assert "etPW" not in said
    assert "%2F" in said
    encoded = url.replace(
        password,
        password.replace("%", "%25").replace("/", "%2F").replace("#", "%23").replace("?", "%3F"),
    )
    settings = load_settings({**TOKEN, "MARRAKECH_DB": encoded})
    assert settings.database.password == password, "the encoded form is read as the password"
    assert "etPW" not in repr(settings)


@pytest.mark.parametrize(("reserved", "encoded"), [("/", "%2F"), ("?", "%3F"), ("#", "%23")])
@pytest.mark.usefixtures("restore_root_logger")
def test_a_password_with_an_at_sign_before_a_reserved_character_is_refused_without_showing_it(
    reserved: str, encoded: str
) -> None:
    """An '@' in the password leaves one in the URL's user part, but the '/', '?' or '#' after
    it still ends that part: the password would be read as its piece before the '@', the next
    piece as the host, and the rest would be logged. Refused in the same one line, and no piece
    of the password shows, neither redacted nor in a log given the target's secrets."""
    password = f"S3cr@et{reserved}PW"
    url = f"postgresql://marrakech:{password}@127.0.0.1:5432/marrakech"
    with pytest.raises(SettingsError, match="percent-encode") as raised:
        load_settings({**TOKEN, "MARRAKECH_DB": url})
    said = str(raised.value)
    assert "\n" not in said
    assert "S3cr" not in said
    assert "PW" not in said
    assert redacted_url(url) == "postgresql://***@127.0.0.1:5432/marrakech"
    stream = io.StringIO()
    configure_logging("INFO", secrets=DatabaseTarget(url=url).secrets, stream=stream)
    logging.getLogger("tests.settings").error("cannot connect to %s", url)
    logged = stream.getvalue()
    assert "S3cr" not in logged
    assert "PW" not in logged
    written = url.replace(password, password.replace(reserved, encoded).replace("@", "%40"))
    settings = load_settings({**TOKEN, "MARRAKECH_DB": written})
    assert settings.database.password == password, "the encoded form is read as the password"
    assert "S3cr" not in describe(settings)
    assert "PW" not in describe(settings)


@pytest.mark.parametrize("password", ["S3cr@etPW", "S3cr:et@PW"])
def test_a_password_with_an_at_sign_is_refused_as_the_driver_would_read_another_server(
    password: str,
) -> None:
    """asyncpg ends the URL's user part at its first '@', not its last: from
    postgresql://marrakech:S3cr@etPW@db.internal/marrakech it would connect to the server
    "etPW@db.internal" with the password "S3cr", fail to resolve that name and exit 6 (a server
    that does not answer yet) at every restart. Refused in one line that says to write %40 and
    never shows the password; written %40, the password is read whole, by the bot and by the
    driver, on the server the URL names."""
    from asyncpg.connect_utils import _parse_connect_dsn_and_args  # type: ignore[import-untyped]

    url = f"postgresql://marrakech:{password}@db.internal:5432/marrakech"
    with pytest.raises(SettingsError, match="percent-encode") as raised:
        load_settings({**TOKEN, "MARRAKECH_DB": url})
    said = str(raised.value)
    assert "\n" not in said
    assert "@ as %40" in said
    assert "S3cr" not in said
    assert "PW" not in said
    encoded = url.replace(password, password.replace("@", "%40"))
    settings = load_settings({**TOKEN, "MARRAKECH_DB": encoded})
    assert settings.database.password == password, "the encoded form is read as the password"
    assert "PW" not in repr(settings)
    address, parameters = _parse_connect_dsn_and_args(
        dsn=encoded,
        host=None,
        port=None,
        user=None,
        password=None,
        passfile=None,
        database=None,
        ssl=None,
        service=None,
        servicefile=None,
        direct_tls=None,
        server_settings=None,
        target_session_attrs=None,
        krbsrvname=None,
        gsslib=None,
    )
    assert address == [("db.internal", 5432)]
    assert (parameters.user, parameters.password) == ("marrakech", password)


@pytest.mark.usefixtures("restore_root_logger")
def test_the_logs_hide_a_percent_encoded_password_as_written_and_as_read() -> None:
    """A driver's error may quote the URL as written, or the password as the server read it."""
    url = "postgresql://marrakech:S3cr%2FetPW@db.internal:5432/marrakech"
    settings = load_settings({**TOKEN, "MARRAKECH_DB": url})
    assert settings.database.password == "S3cr/etPW"
    stream = io.StringIO()
    configure_logging("INFO", secrets=settings.database.secrets, stream=stream)
    logging.getLogger("tests.settings").error("cannot connect to %s", url)
    logging.getLogger("tests.settings").error("password S3cr/etPW refused")
    logged = stream.getvalue()
    assert "etPW" not in logged, logged
    assert "S3cr" not in logged, logged


def test_a_percent_sign_and_two_hex_digits_in_a_password_is_the_character_they_encode() -> None:
    # As in every URL: "ab%41" is "abA". A password with a '%' of its own writes it %25.
    url = "postgresql://marrakech:ab%41@127.0.0.1:5432/marrakech"
    assert load_settings({**TOKEN, "MARRAKECH_DB": url}).database.password == "abA"


@pytest.mark.parametrize("password", ["S3cr/etPW", "S3cr/et@PW", "S3cr@et/PW"])
def test_redacting_never_shows_a_password_even_from_a_url_that_does_not_parse(
    password: str,
) -> None:
    url = f"postgresql://marrakech:{password}@127.0.0.1:5432/marrakech"
    shown = redacted_url(url)
    assert shown == "postgresql://***@127.0.0.1:5432/marrakech"
    assert "PW" not in repr(DatabaseTarget(url=url))


@pytest.mark.parametrize("value", ["~/marrakech.sqlite3", "sqlite:///~/marrakech.sqlite3"])
def test_a_home_folder_is_expanded(value: str) -> None:
    settings = load_settings({**TOKEN, "MARRAKECH_DB": value})
    assert settings.database.path == Path.home() / "marrakech.sqlite3"
