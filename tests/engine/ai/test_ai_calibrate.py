"""The calibration command behind the duel's chance of winning: its fit and its report."""

from __future__ import annotations

import pytest

from engine.ai.calibrate import STAGE, calibrate, duel_samples, fit_line, main


def test_a_line_is_fitted_exactly_and_noise_becomes_spread() -> None:
    exact = fit_line([(x, 2 * x + 3) for x in (-4.0, 0.0, 1.0, 5.0)])
    assert (exact.slope, exact.edge, exact.spread) == (2.0, 3.0, 0.0)
    noisy = fit_line([(0.0, -1), (0.0, 1), (1.0, 0), (1.0, 2)])
    assert noisy.slope == pytest.approx(1.0)
    assert noisy.edge == pytest.approx(0.0)
    assert noisy.spread == pytest.approx(1.0)


def test_a_duel_gives_a_sample_at_every_turn_start_ending_in_its_real_margin() -> None:
    samples = duel_samples(7)
    laid = [count for count, _, _ in samples]
    assert laid == sorted(laid) and laid[0] == 0
    assert len(samples) == len(set(laid))  # one turn start per rug laid
    margins = {margin for _, _, margin in samples}
    assert len({abs(margin) for margin in margins}) == 1  # the same end, seen by both seats
    assert samples == duel_samples(7)


def test_every_stage_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    fits = calibrate(games=3, seed=2)
    assert list(fits) == list(range(0, 48, STAGE))
    assert all(fit.samples >= 3 and fit.spread >= 0 for fit in fits.values())
    assert main(["--games", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["rugs", "laid", "samples", "slope", "mover", "edge", "spread"]
    assert len(lines) == 1 + 48 // STAGE
