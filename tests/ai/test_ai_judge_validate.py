"""The judge's validation and benchmark command (`python -m ai.judge_validate`)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import ai.judge_validate
from ai.judge import Band, GameJudgement, judge_game
from ai.judge_validate import LevelTally, calibration_gap, judge_one, main
from engine.record import Record


@pytest.fixture(autouse=True)
def openings_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Judge only the first turns of each game played, so that the tests stay fast."""

    def opening(record: Record, work: int) -> GameJudgement:
        return judge_game(replace(record, actions=record.actions[:10]), work=work)

    monkeypatch.setattr(ai.judge_validate, "judge_game", opening)


def test_the_command_reports_the_bands_by_level_and_the_calibration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--games", "1", "--levels", "easy", "--work", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "2 players, 1 self-play games per level, seed 1, work 1"
    assert out[1].split() == [
        "level",
        "games",
        "decisions",
        "inaccuracy",
        "mistake",
        "blunder",
        "mistake+",
        "accuracy",
    ]
    assert out[2].split()[:2] == ["easy", "1"]
    assert out[3].split()[-2:] == ["points", "lost"]
    assert out[4].split()[0] == "easy"
    assert out[5] == "easy: chance after the option taken  decisions  predicted  won"
    assert "all levels: chance after the option taken  decisions  predicted  won" in out
    gap = "predicted and won apart by "
    assert sum(line.startswith(f"easy: {gap}") for line in out) == 1
    assert out[-1].startswith(f"all levels: {gap}")


def test_the_calibration_gap_is_the_mean_distance_by_tenths() -> None:
    assert calibration_gap([]) == 0.0
    assert calibration_gap([(0.25, 0.0), (0.25, 1.0)]) == pytest.approx(25.0)
    assert calibration_gap([(0.8, 1.0), (0.9, 1.0)]) == pytest.approx(15.0)
    assert calibration_gap([(0.05, 0.0), (0.95, 1.0), (0.55, 0.5)]) == pytest.approx(5.0)


def test_a_level_tally_counts_the_decisions_with_a_choice() -> None:
    tally = judge_one("easy", 2, 1, 3)
    assert tally.games == 1
    assert tally.decisions == len(tally.chances) == sum(tally.bands.values())
    assert all(0.0 <= chance <= 1.0 and won in (0.0, 0.5, 1.0) for chance, won in tally.chances)
    both = LevelTally("easy")
    both.add(tally)
    both.add(tally)
    assert both.decisions == 2 * tally.decisions
    assert both.share(Band.GOOD, Band.INACCURACY, Band.MISTAKE, Band.BLUNDER) == 1.0


def test_the_benchmark_times_one_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--bench", "--players", "3", "--work", "1"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"judging a 3-player game took \d+\.\d\d s of CPU\n", out)


def test_bad_arguments_are_refused_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--levels", "expert"])
    assert "--levels takes a comma-separated list of easy, medium, hard" in capsys.readouterr().err
