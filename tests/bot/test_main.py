"""Tests of the command line (`python -m bot`): clear one-line failures, no token in any output."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import types
from pathlib import Path

import pytest

import bot.storage
from bot import __main__ as entry
from bot import crashpoints
from bot.runtime import app
from bot.runtime.settings import Settings
from bot.runtime.test_hooks import TestHooks

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.never-print-this"
LOUDER_THAN_INFO = re.compile(r" (WARNING|ERROR|CRITICAL) ")
"""A log line an operator is asked to read."""


def run_bot_process(
    tmp_path: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """Run `python -m bot ARGS` in a fresh interpreter with only `env` as settings."""
    base = {key: value for key, value in os.environ.items() if key in ("PATH", "PYTHONPATH")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,
        env={**base, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_without_token_prints_one_clear_line_and_exits_non_zero(tmp_path: Path) -> None:
    result = run_bot_process(tmp_path, {})

    assert result.returncode == entry.EXIT_BAD_SETTINGS
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "DISCORD_TOKEN is not set" in lines[0]
    assert "https://discord.com/developers/applications" in lines[0]
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LOG_LEVEL", "LOUD"),
        ("MARRAKECH_DEV_GUILDS", "not-a-guild"),
        ("DISCORD_TOKEN", f"Bot {TOKEN}"),  # pasted with its prefix: refused, never echoed
    ],
)
def test_bad_setting_prints_one_line_without_the_token(
    tmp_path: Path, name: str, value: str
) -> None:
    result = run_bot_process(tmp_path, {"DISCORD_TOKEN": TOKEN, name: value})

    assert result.returncode == entry.EXIT_BAD_SETTINGS
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert name in result.stderr
    assert "Traceback" not in result.stderr
    assert TOKEN not in result.stdout + result.stderr


def test_healthcheck_needs_no_token(tmp_path: Path) -> None:
    result = run_bot_process(
        tmp_path, {"MARRAKECH_HEARTBEAT": str(tmp_path / "beat")}, "healthcheck"
    )

    assert result.returncode == 1
    assert result.stdout.startswith("unhealthy: no heartbeat")
    assert result.stderr == ""


@pytest.mark.parametrize("given", [True, False], ids=["set", "beside-the-database"])
def test_a_heartbeat_path_that_is_a_folder_stops_the_start_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    given: bool,
) -> None:
    """The bot could never write its heartbeat there: it would play on while the health check
    said "unhealthy" for ever (a container marked so, or restarted again and again by whatever
    watches it). A bad setting: one line naming it, exit 2, and the bot does not start."""
    started: list[Settings] = []

    def run(settings: Settings, hooks: TestHooks) -> int:
        started.append(settings)
        return 0

    monkeypatch.setitem(sys.modules, "bot.runtime.app", types.SimpleNamespace(run=run))
    monkeypatch.setattr(entry, "configure_logging", lambda *args, **kwargs: None)
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path / "marrakech.sqlite3"))
    folder = tmp_path / ("data" if given else "heartbeat")
    folder.mkdir()
    if given:
        monkeypatch.setenv("MARRAKECH_HEARTBEAT", str(folder))
    else:
        monkeypatch.delenv("MARRAKECH_HEARTBEAT", raising=False)

    assert entry.main([]) == entry.EXIT_BAD_SETTINGS
    assert started == []
    said = capsys.readouterr()
    assert said.out == ""
    lines = said.err.splitlines()
    assert len(lines) == 1, said.err
    assert "MARRAKECH_HEARTBEAT" in lines[0]
    assert f"{folder} is a folder" in lines[0]
    assert TOKEN not in said.err


def test_good_settings_are_handed_to_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    received: list[Settings] = []
    hooks_received: list[TestHooks] = []

    def run(settings: Settings, hooks: TestHooks) -> int:
        received.append(settings)
        hooks_received.append(hooks)
        return 7

    monkeypatch.setitem(sys.modules, "bot.runtime.app", types.SimpleNamespace(run=run))
    monkeypatch.setattr(entry, "configure_logging", lambda *args, **kwargs: None)
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("MARRAKECH_DEV_GUILDS", "42")

    assert entry.main([]) == 7
    assert [settings.dev_guilds for settings in received] == [(42,)]
    assert received[0].token == TOKEN
    assert hooks_received == [TestHooks()], "no test hook is on for a real bot"


@pytest.mark.usefixtures("restore_root_logger")
def test_a_crash_in_the_app_is_logged_redacted_and_exits_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Neither the token nor the database's password shows in the crash's traceback."""

    def run(settings: Settings, hooks: TestHooks) -> int:
        raise RuntimeError(f"gateway refused {settings.token} ({settings.database.target})")

    monkeypatch.setitem(sys.modules, "bot.runtime.app", types.SimpleNamespace(run=run))
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("MARRAKECH_DB", "postgresql://bot:s3cret-pw@db.example:5432/marrakech")

    assert entry.main([]) == entry.EXIT_CRASHED

    errors = capsys.readouterr().err
    assert "RuntimeError: gateway refused [redacted]" in errors
    assert "(postgresql://bot:[redacted]@db.example:5432/marrakech)" in errors
    assert TOKEN not in errors
    assert "s3cret-pw" not in errors


def test_unreachable_discord_is_one_clear_error_line_without_traceback(tmp_path: Path) -> None:
    with socket.socket() as closed:  # a loopback port that nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    env = {"DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE_URL": f"http://127.0.0.1:{port}/api/v10"}

    result = run_bot_process(tmp_path, env)

    assert result.returncode == app.EXIT_UNREACHABLE, result.stderr
    errors = [
        line
        for line in result.stderr.splitlines()
        if LOUDER_THAN_INFO.search(line) and "testing only" not in line  # the fake's address
    ]
    assert len(errors) == 1, result.stderr
    assert " ERROR " in errors[0]
    assert "cannot reach Discord" in errors[0], result.stderr
    assert "Traceback" not in result.stderr
    assert "voice will NOT be supported" not in result.stderr
    assert TOKEN not in result.stderr + result.stdout


def signalled_at_start(tmp_path: Path, signum: signal.Signals) -> tuple[int, str]:
    """Start the bot against a loopback port nothing listens on, send it `signum` as soon as
    it logs its start line (it is still loading Discord's library then, before its event loop
    runs) and return its exit code and its log."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    base = {key: value for key, value in os.environ.items() if key in ("PATH", "PYTHONPATH")}
    env = {"DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE_URL": f"http://127.0.0.1:{port}/api/v10"}
    with subprocess.Popen(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={**base, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stderr is not None
        said = []
        for line in process.stderr:
            said.append(line)
            if " starting: " in line:
                process.send_signal(signum)
                break
        said.append(process.stderr.read())
        return process.wait(timeout=60), "".join(said)


def test_a_stop_signal_while_the_bot_starts_stops_it_cleanly(tmp_path: Path) -> None:
    """SIGTERM (`docker stop`, `systemctl stop`) in the bot's first second, before its event
    loop runs: a clean stop, exit 0, said in the log; not a process killed by the signal."""
    code, said = signalled_at_start(tmp_path, signal.SIGTERM)

    assert code == app.EXIT_OK, said
    assert "stop signal received" in said
    assert "Traceback" not in said
    errors = [line for line in said.splitlines() if LOUDER_THAN_INFO.search(line)]
    assert [line for line in errors if "testing only" not in line] == [], said


def test_sigusr2_while_the_bot_starts_logs_the_lag_figures_and_the_bot_goes_on(
    tmp_path: Path,
) -> None:
    """SIGUSR2 logs the event loop's lag figures; sent before the loop runs, it logs them once
    the loop does, rather than killing the bot (its default action). The bot then goes on
    starting: here it cannot reach Discord, and says so."""
    code, said = signalled_at_start(tmp_path, signal.SIGUSR2)

    assert code == app.EXIT_UNREACHABLE, said
    assert "event loop lag: no probes yet" in said
    assert "cannot reach Discord" in said


@pytest.mark.usefixtures("restore_root_logger")
def test_sqlite_with_only_some_shards_is_warned_about_at_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """SQLite serves one process: a process holding only some shards leaves the others'
    servers unanswered unless a second process shares the file, which SQLite cannot do."""
    monkeypatch.setitem(sys.modules, "bot.runtime.app", types.SimpleNamespace(run=lambda s, h: 0))
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path / "marrakech.sqlite3"))
    monkeypatch.setenv("MARRAKECH_SHARD_COUNT", "2")
    monkeypatch.setenv("MARRAKECH_SHARD_IDS", "1")
    assert entry.main([]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "WARNING" in line]
    assert warned == [
        warned[0].split("WARNING", 1)[0]
        + "WARNING  bot: this process holds shard 1 of 2 on SQLite, which serves one process "
        "only: the servers of the other shards get no answer; hold every shard here, or use "
        "PostgreSQL for several processes"
    ]


@pytest.mark.usefixtures("restore_root_logger")
@pytest.mark.parametrize("ids", [None, "0-1"], ids=["count-alone", "every-id"])
def test_sqlite_holding_every_shard_is_not_warned_about(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    ids: str | None,
) -> None:
    """A process holding every shard, by the count alone or naming every id, is the one
    process SQLite is for."""
    monkeypatch.setitem(sys.modules, "bot.runtime.app", types.SimpleNamespace(run=lambda s, h: 0))
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path / "marrakech.sqlite3"))
    monkeypatch.setenv("MARRAKECH_SHARD_COUNT", "2")
    if ids is None:
        monkeypatch.delenv("MARRAKECH_SHARD_IDS", raising=False)
    else:
        monkeypatch.setenv("MARRAKECH_SHARD_IDS", ids)
    assert entry.main([]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "WARNING" in line]
    assert not [line for line in warned if "on SQLite" in line], warned


@pytest.mark.usefixtures("restore_root_logger")
def test_each_test_hook_that_is_on_is_warned_about_at_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A real bot started with a test hook left in its environment says so: a fixed seed lets
    anyone who knows it derive every die roll, a fake Discord's address talks to another API."""
    monkeypatch.setitem(sys.modules, "bot.runtime.app", types.SimpleNamespace(run=lambda s, h: 0))
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path / "marrakech.sqlite3"))
    monkeypatch.delenv("MARRAKECH_SHARD_COUNT", raising=False)
    monkeypatch.delenv("MARRAKECH_SHARD_IDS", raising=False)
    monkeypatch.setenv("DISCORD_API_BASE_URL", "http://127.0.0.1:8123/api/v10")
    monkeypatch.setenv("MARRAKECH_TEST_CLOCK_FILE", str(tmp_path / "offset"))
    monkeypatch.setenv("MARRAKECH_TEST_SEED", "fixed")
    monkeypatch.setenv("MARRAKECH_CRASH_AT", "db.committed:1000000")
    try:
        assert entry.main([]) == 0
    finally:
        crashpoints.configure({})  # disarmed for the tests that follow in this process
    warned = [
        line.split(" bot: ", 1)[1]
        for line in capsys.readouterr().err.splitlines()
        if " WARNING " in line
    ]
    assert warned == [
        f"testing only: {name} is set; never set it for a real bot"
        for name in (
            "DISCORD_API_BASE_URL",
            "MARRAKECH_TEST_CLOCK_FILE",
            "MARRAKECH_TEST_SEED",
            "MARRAKECH_CRASH_AT",
        )
    ]


@pytest.mark.usefixtures("restore_root_logger")
def test_the_start_line_says_the_settings_in_words_with_the_database_s_full_path(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """An admin reads where the database really is (a relative path resolved against the
    working folder), not Python's reprs."""
    monkeypatch.setitem(sys.modules, "bot.runtime.app", types.SimpleNamespace(run=lambda s, h: 0))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("MARRAKECH_DB", "data/marrakech.sqlite3")
    monkeypatch.delenv("MARRAKECH_SHARD_COUNT", raising=False)
    monkeypatch.delenv("MARRAKECH_SHARD_IDS", raising=False)
    monkeypatch.delenv("MARRAKECH_DEV_GUILDS", raising=False)
    monkeypatch.delenv("MARRAKECH_HEARTBEAT", raising=False)
    assert entry.main([]) == 0
    (line,) = [line for line in capsys.readouterr().err.splitlines() if " starting: " in line]
    assert line.split(" bot: ", 1)[1] == (
        f"starting: database sqlite:{tmp_path}/data/marrakech.sqlite3 · heartbeat "
        f"{tmp_path}/data/heartbeat · log level INFO · every shard Discord recommends · "
        "commands synced globally"
    )


@pytest.mark.parametrize("command", [["migrate"], ["ratings", "rebuild"]], ids=" ".join)
@pytest.mark.parametrize(
    "url",
    [
        "postgresql://bot:hunter2@db.example:5432/marrakech",
        "postgresql://bot:hunter%232@db.example:5432/marrakech",
    ],
    ids=["plain", "percent-encoded"],
)
def test_a_database_command_prints_a_driver_error_that_quotes_the_password_without_it(
    command: list[str],
    url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`migrate` and `ratings rebuild` print their failure themselves, outside the log's
    redaction: a driver's message quoting the URL comes out with the password as `***`."""

    async def refused(target: object, **_: object) -> None:
        raise ConnectionError(f"cannot connect to {target}")

    monkeypatch.setattr(bot.storage, "open_database", refused)
    monkeypatch.setenv("MARRAKECH_DB", url)
    assert entry.main(command) == 6
    said = capsys.readouterr()
    assert said.out == ""
    for password in ("hunter2", "hunter%232", "hunter#2"):
        assert password not in said.err
    assert said.err == (
        "marrakech-bot: postgresql://bot:***@db.example:5432/marrakech: "
        "cannot connect to postgresql://bot:***@db.example:5432/marrakech\n"
    )


@pytest.mark.parametrize(
    ("command", "codes"),
    [
        (
            ["healthcheck"],
            [
                "Exit 0 if the running bot's heartbeat file is fresh",
                "2 when MARRAKECH_HEARTBEAT or MARRAKECH_DB",
                "1 otherwise",
            ],
        ),
        (
            ["migrate"],
            [
                "Exit 0 when the schema is up to date",
                "2 when MARRAKECH_DB is bad",
                "5 when the database cannot be opened as configured",
                "6 when its server does not answer",
            ],
        ),
        (
            ["copy-db"],
            [
                "Exit 0 when the copy is complete and checked",
                (
                    "2 when FROM or TO is malformed, FROM names a SQLite file that does not "
                    "exist, or both name the same database"
                ),
                "1 on any other problem",
            ],
        ),
        (
            ["ratings", "rebuild"],
            [
                "Exit 0 when done",
                "2 when MARRAKECH_DB is bad or names a SQLite file that does not exist",
                "5 when the database cannot be opened or used as configured",
                "6 when its server does not answer",
            ],
        ),
    ],
    ids=["healthcheck", "migrate", "copy-db", "ratings-rebuild"],
)
def test_each_command_s_help_gives_the_exit_codes_it_exits_with(
    command: list[str], codes: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The codes each command returns (its tests: test_copy_db_command, test_ratings_command,
    the database commands above) as its --help words them, and as docs/deployment.md does."""
    with pytest.raises(SystemExit) as stopped:
        entry.main([*command, "--help"])
    assert stopped.value.code == 0
    said = " ".join(capsys.readouterr().out.split())
    for code in codes:
        assert code in said, said


def test_a_bad_setting_exits_2_from_every_database_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The code each command's --help gives for a bad setting or argument."""
    monkeypatch.setenv("MARRAKECH_DB", "mysql://db/marrakech")
    assert entry.main(["healthcheck"]) == entry.EXIT_BAD_SETTINGS
    assert entry.main(["migrate"]) == entry.EXIT_BAD_SETTINGS
    assert entry.main(["ratings", "rebuild"]) == entry.EXIT_BAD_SETTINGS
    missing = str(tmp_path / "missing.sqlite3")
    assert entry.main(["copy-db", missing, str(tmp_path / "to.sqlite3")]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 4
