"""Every seat's chance of winning: hard's own estimate in a duel, the field model in 3 and 4
players, a result once decided; and the calibration that measures the field's constants."""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import replace

import pytest

from ai import calibrate_chances
from ai.chances import FIELDS, Field, best_of, estimates, win_chances
from ai.evaluation import leaf_weights, position_value
from ai.win_chance import win_chance
from engine import Variant, deal, new_game, resign
from engine.state import GameState
from tests.ai.conftest import random_game


def test_the_chances_of_every_sample_position_sum_to_one(positions: list[GameState]) -> None:
    for state in positions:
        chances = win_chances(state)
        assert len(chances) == state.players
        assert sum(chances) == pytest.approx(1.0, abs=1e-9)
        assert all(0.0 <= chance <= 1.0 for chance in chances)
        for seat in state.eliminated:
            assert chances[seat] == 0.0


def test_a_duel_is_hards_own_estimate_for_the_seat_to_move() -> None:
    for state in random_game(2, Variant.STANDARD, 5)[::9]:
        seat = state.to_move
        assert seat is not None
        own, rival = state.rugs_in_hand(seat), state.rugs_in_hand(1 - seat)
        plain = replace(leaf_weights(2, own + rival), win_stake=0.0)
        expected = win_chance(position_value(state, seat, plain), own, rival)
        assert win_chances(state)[seat] == pytest.approx(expected)


def test_the_estimates_of_the_seats_in_average_zero() -> None:
    """The leaf's value for a seat is its estimate less its rivals' average: (n - 1) / n of it
    is the estimate less everyone's, and those sum to zero."""
    for players in (3, 4):
        for state in random_game(players, Variant.STANDARD, players)[::11]:
            found = estimates(state)
            assert sorted(found) == [s for s in range(players) if not state.is_eliminated(s)]
            assert sum(found.values()) == pytest.approx(0.0, abs=1e-9)


def test_a_decided_game_gives_its_result() -> None:
    state = new_game(deal(3, Variant.STANDARD, random.Random(1)))
    for seat in (1, 2):
        state, _ = resign(state, seat)
    assert state.outcome is not None
    assert win_chances(state) == (1.0, 0.0, 0.0)


def test_best_of_equal_means_is_even_and_a_higher_mean_is_likelier() -> None:
    for count in (2, 3, 4):
        assert best_of([0.0] * count, 10.0) == pytest.approx([1.0 / count] * count)
    chances = best_of([6.0, 0.0, -2.0, -4.0], 10.0)
    assert chances == sorted(chances, reverse=True)
    assert sum(chances) == pytest.approx(1.0)
    assert best_of([1.0, 0.0], 0.0) == [1.0, 0.0]
    assert best_of([1.0, 1.0, 0.0], 0.0) == [0.5, 0.5, 0.0]


def test_best_of_two_is_the_normal_chance_of_the_difference() -> None:
    """Two seats: the first wins when its deviation less the other's, of spread sqrt(2) times
    theirs, exceeds minus the gap of the means."""
    for gap in (0.0, 3.0, -7.5, 20.0):
        spread = 8.0
        expected = 0.5 * (1 + math.erf(gap / (spread * math.sqrt(2)) / math.sqrt(2)))
        assert best_of([gap, 0.0], spread)[0] == pytest.approx(expected, abs=1e-6)


def test_the_spread_grows_with_the_rugs_left_and_levels_off() -> None:
    for field in FIELDS.values():
        spreads = [field.spread(left) for left in range(49)]
        assert spreads[0] == 0.0
        assert all(a < b for a, b in itertools.pairwise(spreads))
        assert field.deviation(48) == pytest.approx(field.ceiling**0.5, rel=0.05)
        assert field.deviation(1) == pytest.approx(field.slope**0.5, rel=0.01)
        assert field.spread(20) == pytest.approx(field.widen * field.deviation(20))


def test_the_constants_are_those_docs_ai_md_reports() -> None:
    """Measured by `python -m ai.calibrate_chances` (docs/ai.md); a change needs a new run."""
    assert {
        3: Field(offset_per_rug=2.9, slope=10.0, ceiling=240.0, widen=1.05),
        4: Field(offset_per_rug=2.5, slope=5.5, ceiling=139.0, widen=1.1),
    } == FIELDS


def test_the_fit_recovers_known_constants() -> None:
    """Turn starts drawn from the model itself, with known constants, give them back."""
    rng = random.Random(4)
    truth = Field(offset_per_rug=2.5, slope=6.0, ceiling=140.0)
    starts = []
    for _ in range(400):
        for left in range(48, 0, -1):
            extra = [0.75, 0.75, -0.25, -1.25][:4] if left % 4 else [0.0] * 4
            means = [rng.gauss(0.0, 8.0) for _ in range(4)]
            average = sum(means) / 4
            means = [m - average for m in means]
            finals = [
                m + truth.offset_per_rug * e + rng.gauss(0.0, truth.deviation(left))
                for m, e in zip(means, extra, strict=True)
            ]
            average = sum(finals) / 4
            top = max(finals)
            seats = tuple(
                calibrate_chances.SeatStart(m, e, f - average, float(f == top), 0.25)
                for m, e, f in zip(means, extra, finals, strict=True)
            )
            starts.append(calibrate_chances.Start(left, seats))
    found, _ = calibrate_chances.fit(starts, every=37)
    assert found.offset_per_rug == pytest.approx(truth.offset_per_rug, abs=0.3)
    assert found.slope == pytest.approx(truth.slope, rel=0.15)
    assert found.ceiling == pytest.approx(truth.ceiling, rel=0.15)
    assert found.widen == pytest.approx(1.0, abs=0.1), "independent deviations need no widening"


def test_the_calibration_command_reports_the_fit_and_the_calibration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    starts = calibrate_chances.gather(3, 3, seed=2)
    assert starts
    assert all(len(start.seats) == 3 for start in starts)
    assert [start.left for start in starts[:3]] == [45, 44, 43]
    lines = calibrate_chances.report(3, starts)
    assert any(line.startswith("fitted: offset") for line in lines)
    assert any(line.startswith("Brier score") for line in lines)
    assert calibrate_chances.main(["--players", "4", "--games", "2", "--seed", "9"]) == 0
    assert "fitted: offset" in capsys.readouterr().out
    assert calibrate_chances.gather(4, 2, seed=5, jobs=2) == calibrate_chances.gather(4, 2, seed=5)
