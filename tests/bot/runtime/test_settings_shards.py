"""Tests of the shard settings of bot.runtime.settings: MARRAKECH_SHARD_COUNT and _IDS."""

from __future__ import annotations

import pytest

from bot.runtime.settings import SETTING_NAMES, SettingsError, describe, load_settings
from bot.storage.games import ShardSet

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.secret-part-of-the-token"


def _shards(**values: str) -> ShardSet | None:
    environ = {"DISCORD_TOKEN": TOKEN}
    environ.update({f"MARRAKECH_SHARD_{name.upper()}": value for name, value in values.items()})
    return load_settings(environ).shards


def test_without_shard_settings_discord_picks_the_count() -> None:
    assert _shards() is None
    assert _shards(count="", ids=" ") is None


def test_the_count_alone_means_every_shard_in_this_process() -> None:
    assert _shards(count="4") == ShardSet(4, (0, 1, 2, 3))
    assert _shards(count=" 1 ") == ShardSet(1, (0,))


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        ("0-1", (0, 1)),
        ("3", (3,)),
        ("0,3", (0, 3)),
        ("0-1,3", (0, 1, 3)),
        (" 3 , 0 - 1 ,", (0, 1, 3)),
        ("2-2", (2,)),
        ("0-3", (0, 1, 2, 3)),
    ],
)
def test_shard_ids_are_ids_and_ranges(ids: str, expected: tuple[int, ...]) -> None:
    assert _shards(count="4", ids=ids) == ShardSet(4, expected)


@pytest.mark.parametrize(
    ("count", "ids", "words"),
    [
        ("0", None, "MARRAKECH_SHARD_COUNT must be a whole number of shards from 1 to"),
        ("-2", None, "MARRAKECH_SHARD_COUNT must be a whole number of shards from 1 to"),
        ("four", None, "MARRAKECH_SHARD_COUNT must be a whole number of shards from 1 to"),
        ("2.5", None, "MARRAKECH_SHARD_COUNT must be a whole number of shards from 1 to"),
        ("٤", None, "MARRAKECH_SHARD_COUNT must be a whole number of shards from 1 to"),
        (None, "0-1", "MARRAKECH_SHARD_IDS needs MARRAKECH_SHARD_COUNT"),
        ("4", "4", "shard 4 does not exist"),
        ("4", "2-5", "shard 5 does not exist"),
        ("4", "0,1,1", "names shard 1 twice"),
        ("4", "0-2,1", "names shard 1 twice"),
        ("4", "3-1", "runs backwards"),
        ("4", "a-b", "'a-b' is neither"),
        ("4", "-1", "'-1' is neither"),
        ("4", "0-", "'0-' is neither"),
        ("4", "0;1", "'0;1' is neither"),
        ("4", "1-2-3", "'1-2-3' is neither"),
        ("4", ",", "at least one shard"),
    ],
)
def test_bad_shard_settings_are_refused_in_one_line(
    count: str | None, ids: str | None, words: str
) -> None:
    values = {name: value for name, value in (("count", count), ("ids", ids)) if value is not None}

    with pytest.raises(SettingsError) as raised:
        _shards(**values)

    message = str(raised.value)
    assert words in message
    assert "\n" not in message
    assert TOKEN not in message


def test_the_shard_settings_are_admin_settings() -> None:
    assert {"MARRAKECH_SHARD_COUNT", "MARRAKECH_SHARD_IDS"} <= set(SETTING_NAMES)
    settings = load_settings(
        {"DISCORD_TOKEN": TOKEN, "MARRAKECH_SHARD_COUNT": "2", "MARRAKECH_SHARD_IDS": "1"}
    )
    assert "ShardSet(count=2, ids=(1,))" in repr(settings)


@pytest.mark.parametrize(
    ("ids", "held"), [("0-1", "shards 0, 1 of 4"), ("3", "shard 3 of 4")], ids=["0-1", "3"]
)
def test_the_start_line_says_which_shards_of_how_many_this_process_holds(
    ids: str, held: str
) -> None:
    settings = load_settings(
        {"DISCORD_TOKEN": TOKEN, "MARRAKECH_SHARD_COUNT": "4", "MARRAKECH_SHARD_IDS": ids}
    )
    line = describe(settings)
    assert f" · {held} · " in line
    assert TOKEN not in line


def test_a_range_one_step_backwards_is_refused_not_read_as_no_shard() -> None:
    with pytest.raises(SettingsError, match="the range '2-1' runs backwards"):
        _shards(count="4", ids="2-1,3")


def test_a_shard_count_beyond_any_bot_is_one_clear_line() -> None:
    with pytest.raises(SettingsError, match="MARRAKECH_SHARD_COUNT"):
        load_settings({"DISCORD_TOKEN": TOKEN, "MARRAKECH_SHARD_COUNT": "99999999999999999999"})
