"""Tests of bot.health: the heartbeat file and the check the container's HEALTHCHECK runs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.health import MAX_HEARTBEAT_AGE, Heartbeat, check_health, heartbeat_age


def test_beat_records_the_clock_and_age_counts_from_it(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"

    Heartbeat(path, clock=lambda: 1_000.0).beat()

    assert heartbeat_age(path, now=1_042.5) == pytest.approx(42.5)


def test_beat_creates_missing_folders_and_replaces_the_previous_beat(tmp_path: Path) -> None:
    path = tmp_path / "run" / "bot" / "heartbeat"
    clock_values = iter([100.0, 200.0])
    heartbeat = Heartbeat(path, clock=lambda: next(clock_values))

    heartbeat.beat()
    heartbeat.beat()

    assert heartbeat_age(path, now=230.0) == pytest.approx(30.0)
    assert [entry.name for entry in path.parent.iterdir()] == ["heartbeat"]


def test_no_heartbeat_has_no_age(tmp_path: Path) -> None:
    assert heartbeat_age(tmp_path / "missing") is None


def test_garbled_heartbeat_has_no_age(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    path.write_text("not a time\n", encoding="ascii")

    assert heartbeat_age(path) is None


def test_a_beat_from_the_future_counts_as_fresh(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    Heartbeat(path, clock=lambda: 500.0).beat()

    assert heartbeat_age(path, now=400.0) == 0.0


def test_check_health_passes_on_a_fresh_beat(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    Heartbeat(path).beat()

    healthy, reason = check_health(path)

    assert healthy
    assert reason.startswith("healthy")


def test_check_health_fails_on_a_stale_beat(tmp_path: Path) -> None:
    path = tmp_path / "heartbeat"
    Heartbeat(path, clock=lambda: time.time() - MAX_HEARTBEAT_AGE - 60).beat()

    healthy, reason = check_health(path)

    assert not healthy
    assert reason.startswith("unhealthy: last heartbeat")


def test_check_health_fails_without_a_beat(tmp_path: Path) -> None:
    healthy, reason = check_health(tmp_path / "heartbeat")

    assert not healthy
    assert str(tmp_path / "heartbeat") in reason


def test_healthcheck_command_follows_the_heartbeat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("MARRAKECH_HEARTBEAT", raising=False)
    monkeypatch.setenv("MARRAKECH_DB", str(tmp_path / "marrakech.sqlite3"))

    assert main(["healthcheck"]) == 1
    assert "unhealthy" in capsys.readouterr().out

    Heartbeat(tmp_path / "heartbeat").beat()

    assert main(["healthcheck"]) == 0
    assert capsys.readouterr().out.startswith("healthy")
