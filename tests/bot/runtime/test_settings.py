"""Tests of bot.runtime.settings: defaults, parsing, one-line errors that never show the token."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.runtime.settings import SETTING_NAMES, SettingsError, load_heartbeat_path, load_settings
from bot.runtime.test_hooks import TestHooks, load_test_hooks
from bot.services.clock import OffsetClock

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.secret-part-of-the-token"


def test_defaults_when_only_the_token_is_set() -> None:
    settings = load_settings({"DISCORD_TOKEN": TOKEN})

    assert settings.token == TOKEN
    assert settings.database.path == Path("data/marrakech.sqlite3")
    assert settings.dev_guilds == ()
    assert settings.log_level == "INFO"
    assert settings.heartbeat_path == Path("data/heartbeat")


def test_every_setting_is_read() -> None:
    settings = load_settings(
        {
            "DISCORD_TOKEN": f"  {TOKEN}\n",
            "MARRAKECH_DB": "/data/games.sqlite3",
            "MARRAKECH_DEV_GUILDS": " 111111111111111111 , 222222222222222222,",
            "LOG_LEVEL": "debug",
            "MARRAKECH_HEARTBEAT": "/run/marrakech/alive",
        }
    )

    assert settings.token == TOKEN
    assert settings.database.path == Path("/data/games.sqlite3")
    assert settings.dev_guilds == (111111111111111111, 222222222222222222)
    assert settings.log_level == "DEBUG"
    assert settings.heartbeat_path == Path("/run/marrakech/alive")


def test_heartbeat_defaults_to_the_database_folder() -> None:
    settings = load_settings({"DISCORD_TOKEN": TOKEN, "MARRAKECH_DB": "/data/marrakech.sqlite3"})

    assert settings.heartbeat_path == Path("/data/heartbeat")


def test_heartbeat_defaults_to_the_default_data_folder_with_postgresql() -> None:
    """No file to sit beside: `data/heartbeat` under the folder the bot starts in (README.md,
    docs/deployment.md)."""
    url = "postgresql://bot:secret@db.example:5432/marrakech"
    assert load_heartbeat_path({"MARRAKECH_DB": url}) == Path("data/heartbeat")


def test_empty_optional_settings_mean_their_defaults() -> None:
    settings = load_settings(
        {
            "DISCORD_TOKEN": TOKEN,
            "MARRAKECH_DB": "",
            "MARRAKECH_DEV_GUILDS": " ",
            "LOG_LEVEL": "",
            "MARRAKECH_HEARTBEAT": "",
        }
    )

    assert settings == load_settings({"DISCORD_TOKEN": TOKEN})


def test_repeated_dev_guilds_are_kept_once_in_order() -> None:
    settings = load_settings({"DISCORD_TOKEN": TOKEN, "MARRAKECH_DEV_GUILDS": "3,1,3,2,1"})

    assert settings.dev_guilds == (3, 1, 2)


@pytest.mark.parametrize("token", [None, "", "   "])
def test_missing_token_says_what_to_do(token: str | None) -> None:
    environ = {} if token is None else {"DISCORD_TOKEN": token}

    with pytest.raises(SettingsError) as raised:
        load_settings(environ)

    message = str(raised.value)
    assert "DISCORD_TOKEN is not set" in message
    assert "https://discord.com/developers/applications" in message
    assert "in .env for Docker" in message, "a container's admin sets it in the env file"
    assert "\n" not in message


@pytest.mark.parametrize(
    "token",
    [f"Bot {TOKEN}", f"{TOKEN[:20]}\n{TOKEN[20:]}", f"{TOKEN[:20]}\t{TOKEN[20:]}"],
    ids=["Bot prefix", "broken over two lines", "a tab"],
)
def test_token_with_a_space_is_refused_without_echoing_it(token: str) -> None:
    """Any blank inside the token, a line break or a tab pasted with it too: Discord would
    refuse it at login, after the whole start."""
    with pytest.raises(SettingsError) as raised:
        load_settings({"DISCORD_TOKEN": token})

    assert str(raised.value).startswith("DISCORD_TOKEN contains a space")
    assert TOKEN[:20] not in str(raised.value)
    assert TOKEN[20:] not in str(raised.value)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MARRAKECH_DEV_GUILDS", "my-server"),
        ("MARRAKECH_DEV_GUILDS", "123,-5"),
        ("MARRAKECH_DEV_GUILDS", "123;456"),
        ("MARRAKECH_DEV_GUILDS", "0"),
        ("MARRAKECH_DEV_GUILDS", "١٢٣"),
        ("LOG_LEVEL", "LOUD"),
    ],
)
def test_invalid_values_name_the_setting_in_one_line(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as raised:
        load_settings({"DISCORD_TOKEN": TOKEN, name: value})

    message = str(raised.value)
    assert name in message
    assert "\n" not in message
    assert TOKEN not in message


def test_two_guild_ids_run_together_without_their_comma_are_refused_as_no_guild_id() -> None:
    """A guild id is a Discord snowflake, a 64-bit number of at most 20 digits: two ids pasted
    without the comma between them are refused at once, naming what was given, rather than
    read as one server that Discord then refuses at the start's sync."""
    together = "123456789012345678234567890123456789"

    with pytest.raises(SettingsError) as raised:
        load_settings({"DISCORD_TOKEN": TOKEN, "MARRAKECH_DEV_GUILDS": together})

    assert str(raised.value).startswith("MARRAKECH_DEV_GUILDS must be guild ids")
    assert repr(together) in str(raised.value)


def test_repr_hides_the_token() -> None:
    settings = load_settings({"DISCORD_TOKEN": TOKEN})

    assert TOKEN not in repr(settings)
    assert TOKEN not in str(settings)
    assert "database" in repr(settings)


def test_heartbeat_path_needs_no_token() -> None:
    assert load_heartbeat_path({"MARRAKECH_DB": "/data/marrakech.sqlite3"}) == Path(
        "/data/heartbeat"
    )
    assert load_heartbeat_path({"MARRAKECH_HEARTBEAT": "/tmp/beat"}) == Path("/tmp/beat")


def test_the_test_hooks_are_no_settings_and_off_unless_set(tmp_path: Path) -> None:
    assert load_test_hooks({}) == TestHooks()
    assert TestHooks().active == ()
    path = tmp_path / "offset"
    hooks = load_test_hooks(
        {
            "MARRAKECH_TEST_CLOCK_FILE": str(path),
            "DISCORD_API_BASE_URL": "http://127.0.0.1:8123/api/v10/",
            "MARRAKECH_TEST_SEED": "fixed",
        }
    )
    assert hooks.clock_file == path
    assert hooks.api_base_url == "http://127.0.0.1:8123/api/v10"
    assert hooks.active == (
        "DISCORD_API_BASE_URL",
        "MARRAKECH_TEST_CLOCK_FILE",
        "MARRAKECH_TEST_SEED",
    )
    assert not set(hooks.active) & set(SETTING_NAMES)
    seeds, again = hooks.seeds(), hooks.seeds()
    assert seeds is not None
    assert again is not None
    first = [seeds() for _ in range(3)]
    assert first == [again() for _ in range(3)], "the same seeds at every start"
    assert len(set(first)) == 3
    assert all(len(seed) == 32 for seed in first)
    assert TestHooks().seeds() is None, "fresh secret seeds for a real bot"
    with pytest.raises(SettingsError, match="DISCORD_API_BASE_URL"):
        load_test_hooks({"DISCORD_API_BASE_URL": "127.0.0.1:8080/api/v10"})

    clock = OffsetClock(path)  # a missing file means no shift
    before = datetime.now(UTC)
    assert before - timedelta(seconds=5) <= clock() <= datetime.now(UTC) + timedelta(seconds=5)
    path.write_text("86400", encoding="ascii")
    assert clock.reload() == 86400
    assert clock() - datetime.now(UTC) > timedelta(hours=23)


def test_the_test_seed_s_n_th_seed_comes_from_its_value_and_n() -> None:
    """Another value of MARRAKECH_TEST_SEED gives other seeds, so plays other games."""
    fixed = load_test_hooks({"MARRAKECH_TEST_SEED": "fixed"}).seeds()
    another = load_test_hooks({"MARRAKECH_TEST_SEED": "another"}).seeds()
    assert fixed is not None
    assert another is not None
    first = [fixed() for _ in range(3)]
    assert len(set(first)) == 3, "n changes the seed"
    assert set(first).isdisjoint(another() for _ in range(3)), "so does the value"


def test_a_token_in_quotes_is_refused_at_once() -> None:
    """docker run --env-file keeps quotes: Discord would only say 'Improper token'."""
    for quoted in ('"abc.def.ghi"', "'abc.def.ghi'"):
        with pytest.raises(SettingsError, match="DISCORD_TOKEN is in quotes"):
            load_settings({"DISCORD_TOKEN": quoted})


@pytest.mark.parametrize("token", [f'"{TOKEN}', f"{TOKEN}'"], ids=["opening", "closing"])
def test_a_token_with_a_quote_at_one_end_only_is_refused_with_the_same_line(token: str) -> None:
    """A paste that lost its closing quote, or one stray quote in an env file, is no token."""
    with pytest.raises(SettingsError, match="DISCORD_TOKEN is in quotes: write it bare") as raised:
        load_settings({"DISCORD_TOKEN": token})

    assert TOKEN not in str(raised.value)


def test_a_heartbeat_path_under_home_is_read_as_the_database_path_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`~` names the home folder in MARRAKECH_HEARTBEAT as in MARRAKECH_DB, not a folder
    named `~` under the folder the bot (or the health check) starts in."""
    monkeypatch.setenv("HOME", "/home/bot")
    beat = load_heartbeat_path({"MARRAKECH_HEARTBEAT": "~/marrakech/heartbeat"})
    assert beat == Path("/home/bot/marrakech/heartbeat")
