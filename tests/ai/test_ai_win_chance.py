"""The chance of winning a duel from hard's leaf value, and the calibration that measures it."""

from __future__ import annotations

import itertools
import random

import pytest

from ai import calibrate
from ai.calibrate import (
    FIT_NAMES,
    PART_NAMES,
    STAGES,
    Fit,
    TurnStart,
    by_tenths,
    fit,
    gather,
    leaf_parts,
    least_squares,
    plain_leaf,
    play_game,
    report,
    seed_chunks,
    staged_weights,
)
from ai.evaluation import DUEL_RUGS, position_value
from ai.prng import mix_seed
from ai.win_chance import (
    BASE_OFFSET,
    OFFSET_PER_RUG,
    SPREAD_SATURATION,
    SPREAD_SCALE,
    spread,
    win_chance,
)
from engine.state import GameState
from tests.conftest import ClosedPipeRun

MEASURED_SPREAD = {1: 3.78, 4: 7.64, 16: 14.53, 32: 19.65, 48: 21.26}
"""Standard deviations of the final margin around the leaf value, by rugs left, from the
calibration run docs/ai.md cites (8,000 medium-against-medium games, `python -m ai.calibrate
--games 8000 --jobs 2`)."""


def test_the_spread_narrows_as_the_rugs_run_out_and_fits_the_measured_one() -> None:
    spreads = [spread(left) for left in range(1, 49)]
    assert all(a < b for a, b in itertools.pairwise(spreads))
    for left, measured in MEASURED_SPREAD.items():
        assert spread(left) == pytest.approx(measured, rel=0.055)


def test_the_chance_rises_with_the_value_and_is_even_where_the_offset_cancels_it() -> None:
    for own, rival in ((24, 24), (6, 5), (1, 1), (1, 0)):
        values = [v / 2 for v in range(-80, 81)]
        chances = [win_chance(v, own, rival) for v in values]
        assert all(0.0 <= c <= 1.0 for c in chances)
        assert all(a <= b for a, b in itertools.pairwise(chances))
        even = -(BASE_OFFSET + OFFSET_PER_RUG * (own - rival))
        assert win_chance(even, own, rival) == pytest.approx(0.5)
        assert win_chance(even + 3, own, rival) + win_chance(even - 3, own, rival) == (
            pytest.approx(1.0)
        )


def test_a_lead_is_safer_late_and_an_extra_rug_is_worth_points() -> None:
    assert win_chance(8.0, 1, 1) > win_chance(8.0, 8, 8) > win_chance(8.0, 24, 24) > 0.5
    assert win_chance(-8.0, 1, 1) < win_chance(-8.0, 24, 24) < 0.5
    assert win_chance(0.0, 6, 5) > win_chance(0.0, 6, 6)


def test_a_finished_game_is_won_lost_or_shared_on_its_margin() -> None:
    assert win_chance(3.0, 0, 0) == 1.0
    assert win_chance(-1.0, 0, 0) == 0.0
    assert win_chance(0.0, 0, 0) == 0.5


def test_a_medium_game_notes_every_turn_start_from_the_movers_side() -> None:
    starts = play_game(7)
    assert len(starts) == 48  # 24 rugs each, nobody out
    assert [s.own_rugs + s.rival_rugs for s in starts] == list(range(48, 0, -1))
    assert all(s.own_rugs - s.rival_rugs in (0, 1) for s in starts)
    mover_first, mover_second = starts[0], starts[1]
    assert mover_first.margin == -mover_second.margin
    assert mover_first.win + mover_second.win == 1.0
    assert mover_first.win == (
        1.0 if mover_first.margin > 0 else 0.0 if mover_first.margin < 0 else mover_first.win
    )
    assert gather(2, 5, jobs=2) == gather(2, 5)


def test_the_fit_recovers_known_constants() -> None:
    """Turn starts drawn with a known offset and spread give those constants back."""
    rng = random.Random(3)
    truth = Fit(base_offset=0.7, offset_per_rug=3.0, spread_scale=15.5, spread_saturation=74.0)
    starts = []
    for _ in range(1000):
        for left in range(48, 0, -1):
            own = (left + 1) // 2 if left % 2 else left // 2
            rival = left - own
            value = rng.gauss(0.0, 10.0)
            deviation = (truth.spread_scale * left / (1 + left / truth.spread_saturation)) ** 0.5
            margin = value + truth.base_offset + truth.offset_per_rug * (own - rival)
            margin += rng.gauss(0.0, deviation)
            starts.append(TurnStart(value, own, rival, margin, float(margin > 0)))
    found = fit(starts)
    assert found.base_offset == pytest.approx(truth.base_offset, abs=0.3)
    assert found.offset_per_rug == pytest.approx(truth.offset_per_rug, abs=0.4)
    assert found.spread_scale == pytest.approx(truth.spread_scale, rel=0.1)
    assert found.spread_saturation == pytest.approx(truth.spread_saturation, rel=0.35)


def test_the_constants_are_those_hard_was_measured_with() -> None:
    """The arena figures in docs/ai.md were measured with these; a change needs a new run."""
    assert (BASE_OFFSET, OFFSET_PER_RUG, SPREAD_SCALE, SPREAD_SATURATION) == (0.7, 3.0, 15.5, 74.0)


def test_the_report_gives_every_count_of_rugs_left_the_fit_and_the_calibration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    starts = [start for seed in range(4) for start in play_game(seed)]
    lines = report(starts)
    assert sum(1 for line in lines if line.split()[0].isdigit()) == 48
    assert any(line.startswith("fitted: offset") for line in lines)
    bands = [line for line in lines if line[:5] in {f"{a:2d}-{b:2d}" for a, b in STAGES}]
    assert len(bands) == len(STAGES)
    assert all(len(line.split()) == 1 + len(FIT_NAMES) for line in bands)
    staged = lines[lines.index("part             none left  all 48 left") + 1 :]
    assert [line[:15].strip() for line in staged] == list(FIT_NAMES[1:])
    tenths = [line for line in lines if line[:3] in {f"{k / 10:.1f}" for k in range(10)}]
    assert tenths
    assert sum(int(line.split()[1]) for line in tenths) == len(starts)
    assert calibrate.main(["--games", "2", "--seed", "9"]) == 0
    assert "fitted: offset" in capsys.readouterr().out


def test_a_reliability_table_gives_each_tenth_its_count_mean_prediction_and_share_won() -> None:
    """`by_tenths` (the calibration tables of `ai.calibrate`, `ai.calibrate_chances` and
    `ai.judge_validate`): a chance of 1 falls in the last tenth, and the last column is how
    often those predictions won, not what they predicted."""
    pairs = [(0.25, 0.0), (0.29, 1.0), (0.95, 1.0), (1.0, 1.0)]
    assert by_tenths(pairs, count_width=3) == [
        "0.2-0.3    2      0.270  0.500",
        "0.9-1.0    2      0.975  1.000",
    ]


def test_the_table_by_rugs_left_sets_the_measured_spread_beside_the_spread_in_use() -> None:
    """Each row of rugs left ends with the spread `ai.win_chance` uses (not this run's fit,
    which the `fitted:` line gives), and its header names it so."""
    lines = report([*play_game(0), *play_game(1)])
    assert lines[0].endswith("  spread  spread in use")
    rows = [line.split() for line in lines if line.split()[0].isdigit()]
    assert rows
    for row in rows:
        assert float(row[-1]) == pytest.approx(spread(int(row[0])), abs=0.005)


def test_the_command_plays_the_games_of_its_seed_whatever_the_jobs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--games 2 --seed 9 --jobs 2` prints the report of games 0 and 1 of seed 9: docs/ai.md
    quotes the figures of a seed, and `--jobs` only shares the games out."""
    assert calibrate.main(["--games", "2", "--seed", "9", "--jobs", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == report(gather(2, 9))


def test_the_games_are_shared_out_in_at_most_jobs_chunks_none_left_out() -> None:
    """`seed_chunks` (which `ai.calibrate`, `ai.calibrate_chances` and `ai.judge_validate`
    share): every game's seed once, in order, in at most `jobs` chunks, also when `jobs` does
    not divide the games (docs/coach.md's `--games 300 --jobs 2` and any odd count)."""
    for games in range(1, 10):
        for jobs in range(1, 5):
            chunks = seed_chunks(games, 7, jobs)
            seeds = [seed for chunk in chunks for seed in chunk]
            assert seeds == [mix_seed(7, game) for game in range(games)], (games, jobs)
            assert len(chunks) <= jobs, (games, jobs)
            assert all(chunks), (games, jobs)


def test_a_few_games_give_what_they_can_fit_and_one_game_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Three games do not tell the parts apart at the start of the game (every seat still holds
    its 30 dirhams): that band says it is not fitted and the rest of the report follows. One
    game cannot measure a spread (it has one turn start per count of rugs left), so `--games`
    below 2 is refused in one line, exit status 2, before any game is played."""
    assert calibrate.main(["--games", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "37-48      not fitted: too few games to tell the parts apart" in out
    assert any(line.startswith("fitted: offset") for line in out)
    fitted = [line for line in out if line[:5] in ("25-36", "13-24", " 1-12")]
    assert [len(line.split()) for line in fitted] == [1 + len(FIT_NAMES)] * 3
    with pytest.raises(SystemExit) as stopped:
        calibrate.main(["--games", "1"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == "python -m ai.calibrate: error: --games must be at least 2"


def test_the_parts_add_up_to_the_leaf(positions: list[GameState]) -> None:
    """Weighed as the leaf weighs them, the parts give the leaf's value back: the parts are
    what the leaf is made of, so their fitted weights say how to tune it."""
    checked = 0
    for state in positions:
        if state.players != 2 or state.outcome is not None or state.to_move is None:
            continue
        seat = state.to_move
        tuning = plain_leaf(state.rugs_in_hand(0) + state.rugs_in_hand(1))
        parts = leaf_parts(state, seat)
        assert len(parts) == len(PART_NAMES)
        dirhams, squares, toll, own, rival = parts
        assert tuning.rival_region is not None
        rebuilt = (
            dirhams
            + tuning.square * squares
            + tuning.coming_toll * toll
            + tuning.region * own
            + tuning.rival_region * rival
        )
        assert position_value(state, seat, tuning) == pytest.approx(rebuilt)
        checked += 1
    assert checked > 10


def test_the_staged_fit_recovers_known_lines() -> None:
    """Margins made from known straight lines in the rugs left (and a little noise) give
    those lines back, the dirham counting 1."""
    rng = random.Random(11)
    lines = {
        "squares": (1.0, 0.7),
        "coming toll": (0.7, -0.5),
        "own regions": (1.0, -0.5),
        "rival regions": (0.8, -0.4),
        "rugs held": (2.5, -0.5),
    }
    starts = []
    for _ in range(3000):
        own_rugs = rng.randint(0, 24)
        rival_rugs = max(0, min(24, own_rugs + rng.choice((-1, 0))))
        share = (own_rugs + rival_rugs) / DUEL_RUGS
        parts = (
            rng.uniform(-20, 20),
            rng.uniform(-10, 10),
            rng.uniform(-8, 0),
            rng.uniform(0, 30),
            rng.uniform(0, 30),
        )
        margin = parts[0] + 1.0 + rng.gauss(0.0, 0.5)
        for (end, rise), x in zip(lines.values(), (*parts[1:], own_rugs - rival_rugs), strict=True):
            margin += (end + rise * share) * x
        starts.append(TurnStart(0.0, own_rugs, rival_rugs, margin, float(margin > 0), parts))
    found = {name: (end, rise) for name, end, rise in staged_weights(starts)}
    assert set(found) == set(lines)
    for name, (end, rise) in lines.items():
        assert found[name][0] == pytest.approx(end, abs=0.05)
        assert found[name][1] == pytest.approx(rise, abs=0.1)


def test_least_squares_solves_exact_systems_and_refuses_dependent_parts() -> None:
    rng = random.Random(5)
    truth = [1.5, -2.0, 0.25, 4.0]
    rows = [[rng.uniform(-5, 5) for _ in range(3)] + [1.0] for _ in range(50)]
    targets = [sum(a * b for a, b in zip(row, truth, strict=True)) for row in rows]
    assert least_squares(rows, targets) == pytest.approx(truth)
    with pytest.raises(ValueError, match="linearly dependent"):
        least_squares([[row[0], 2 * row[0], 1.0] for row in rows], targets)


def test_the_calibration_ends_quietly_when_its_reader_goes_away(
    into_a_closed_pipe: ClosedPipeRun,
) -> None:
    """`python -m ai.calibrate ... | head -3`: exit status 1 and not a word on stderr once
    the reader is gone, as the engine's commands end (`engine.cli.run_cli`)."""
    result = into_a_closed_pipe("ai.calibrate", "--games", "2")
    assert (result.returncode, result.stderr) == (1, "")
