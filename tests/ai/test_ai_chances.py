"""Every seat's chance of winning, against oracles of the tests' own: the rules' result of a
finished game (RULES.md R9, R11), exact values of positions small enough to work out by hand
from the formulas docs/ai.md gives, a Monte-Carlo draw of the model docs/ai.md describes (a
fixed seed, so the same draw every run), and properties any chance of winning has. A check
named "docs in sync" only keeps docs/ai.md and the code saying the same."""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from ai import calibrate_chances
from ai.chances import FIELDS, Field, best_of, estimates, win_chances
from ai.evaluation import leaf_weights, position_value
from engine import CHANCE, Variant, apply, current_player, deal, legal_actions, new_game, resign
from engine.model import seat_color_indices
from engine.state import GameState
from tests.ai.conftest import random_game
from tests.conftest import ClosedPipeRun

DOCS_AI = Path(__file__).resolve().parents[2] / "docs" / "ai.md"
DRAWS = 40_000
"""Monte-Carlo draws per position: a chance's standard error is at most 0.0025."""


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def sampled_best(means: list[float], spread: float, rng: random.Random) -> list[float]:
    """How often each of independent normal draws around `means` (one standard deviation
    `spread`) is the largest, over DRAWS draws."""
    wins = [0] * len(means)
    for _ in range(DRAWS):
        draws = [rng.gauss(mean, spread) for mean in means]
        wins[draws.index(max(draws))] += 1
    return [won / DRAWS for won in wins]


def within_sampling(found: float, sampled: float) -> bool:
    """`found` agrees with a frequency over DRAWS draws: 5 standard errors, and a little for the
    numerical integration."""
    error = math.sqrt(max(sampled * (1.0 - sampled), 1.0 / DRAWS) / DRAWS)
    return abs(found - sampled) <= 5.0 * error + 1e-3


def played_out(players: int, seed: int) -> GameState:
    """The final position of a uniformly random game."""
    rng = random.Random(seed)
    state = new_game(deal(players, Variant.STANDARD, rng))
    while (seat := current_player(state)) is not None:
        if seat == CHANCE:
            action = rng.choice(["D1", "D2", "D2", "D3", "D3", "D4"])
        else:
            action = rng.choice(legal_actions(state))
        state, _ = apply(state, action)
    return state


def winners_by_the_rules(state: GameState) -> tuple[list[int], str]:
    """Who wins a finished game by R9 and R11, worked out from the board and the purses: the
    last seat in, else the highest score (dirhams + visible squares of the seat's colours),
    a tie going to more dirhams, a tie on both shared. Also what decided it."""
    seats_in = [seat for seat in range(state.players) if seat not in state.eliminated]
    if len(seats_in) == 1:
        return seats_in, "last seat in"

    def score(seat: int) -> int:
        colours = seat_color_indices(state.players, seat)
        return state.dirhams[seat] + sum(colour in colours for colour in state.colors)

    best = max(score(seat) for seat in seats_in)
    top = [seat for seat in seats_in if score(seat) == best]
    richest = max(state.dirhams[seat] for seat in top)
    winners = [seat for seat in top if state.dirhams[seat] == richest]
    if len(winners) > 1:
        return winners, "shared"
    return winners, "dirhams" if len(top) > 1 else "score"


def first_decision(players: int, seed: int) -> GameState:
    """The first position a seat decides in: nothing laid, every purse and hand alike."""
    state = new_game(deal(players, Variant.STANDARD, random.Random(seed)))
    while current_player(state) == CHANCE:
        state, _ = apply(state, "D2")
    return state


# --- properties ------------------------------------------------------------------------------


def test_the_chances_of_every_sample_position_sum_to_one(positions: list[GameState]) -> None:
    for state in positions:
        chances = win_chances(state)
        assert len(chances) == state.players
        assert sum(chances) == pytest.approx(1.0, abs=1e-9)
        assert all(0.0 <= chance <= 1.0 for chance in chances)
        for seat in state.eliminated:
            assert chances[seat] == 0.0


def test_more_dirhams_never_lower_a_seats_chance(positions: list[GameState]) -> None:
    """Every dirham counts in the score (R11): 5 more for one seat, all else alike, leave its
    chance as high or higher."""
    for state in positions:
        if state.outcome is not None:
            continue
        before = win_chances(state)
        for seat in state.seats_in():
            richer = tuple(d + 5 * (other == seat) for other, d in enumerate(state.dirhams))
            after = win_chances(state._replace(dirhams=richer))
            assert after[seat] >= before[seat] - 1e-12, (state.history, seat)


@pytest.mark.parametrize("players", [3, 4])
def test_seats_alike_at_the_start_have_even_chances(players: int) -> None:
    for seed in (1, 2):
        assert win_chances(first_decision(players, seed)) == pytest.approx([1 / players] * players)


def test_the_estimates_of_the_seats_in_average_zero() -> None:
    """docs/ai.md: (n - 1) / n of a seat's leaf is its estimate less the average of all n seats
    in, and those differences sum to zero."""
    for players in (3, 4):
        for state in random_game(players, Variant.STANDARD, players)[::11]:
            found = estimates(state)
            assert sorted(found) == [s for s in range(players) if not state.is_eliminated(s)]
            assert sum(found.values()) == pytest.approx(0.0, abs=1e-9)


def test_with_a_seat_out_the_estimates_scale_by_the_seats_still_in(
    positions: list[GameState],
) -> None:
    """A seat's leaf is its estimate less the average of its rivals still in; with m seats in,
    (m - 1) / m of it is its estimate less the average of all m. m counts the seats in, not
    the seats dealt: scaling by the seats dealt would make the chances too sure after an
    elimination or a resignation."""
    checked = 0
    for state in positions:
        if state.players < 3 or state.outcome is not None or not state.eliminated:
            continue
        seats_in = state.seats_in()
        m = len(seats_in)
        assert 1 < m < state.players
        found = estimates(state)
        assert sorted(found) == sorted(seats_in)
        for seat in seats_in:
            assert found[seat] == pytest.approx(position_value(state, seat) * (m - 1) / m)
        checked += 1
    assert checked >= 4


# --- a finished game: the rules' result --------------------------------------------------------


def test_a_finished_game_gives_the_rules_result() -> None:
    """Winners share 1 and everyone else has 0, whoever the rules make the winners: a higher
    score, more dirhams on a tied score, a tie on both, the last seat in (the seeds below end
    each of those ways)."""
    decided = set()
    for players, seed in ((2, 0), (2, 38), (2, 77), (3, 0), (3, 48), (3, 157), (4, 3), (4, 74)):
        state = played_out(players, seed)
        winners, how = winners_by_the_rules(state)
        decided.add(how)
        expected = [1.0 / len(winners) if seat in winners else 0.0 for seat in range(players)]
        assert list(win_chances(state)) == pytest.approx(expected), (players, seed, how)
    assert decided == {"score", "dirhams", "shared", "last seat in"}


def test_a_game_won_by_resignations_goes_to_the_seat_left() -> None:
    state = first_decision(3, 1)
    for seat in (1, 2):
        state, _ = resign(state, seat)
    assert win_chances(state) == (1.0, 0.0, 0.0)


# --- exact values worked out by hand ----------------------------------------------------------


def test_a_duel_at_its_start_is_the_movers_offset_over_the_first_spread() -> None:
    """docs/ai.md: a duel's chance is that of a normal margin around the leaf value, moved by
    0.7 points (and 3.0 a rug held above the rival: none at the start), with the spread
    sqrt(15.5 x left / (1 + left / 74)); at the start the leaf without its win stake is 0 (nothing
    laid, purses alike) and 48 rugs are left."""
    spread = math.sqrt(15.5 * 48 / (1 + 48 / 74))
    mover = normal_cdf(0.7 / spread)
    for seed in (1, 2, 3):
        state = first_decision(2, seed)
        assert state.to_move is not None
        expected = [mover, 1 - mover] if state.to_move == 0 else [1 - mover, mover]
        assert list(win_chances(state)) == pytest.approx(expected, abs=1e-9)


def documented_duel(state: GameState, seat: int) -> float:
    """docs/ai.md: the chance of `seat` in a running duel, a normal margin around its leaf value
    without the win stake, moved by 0.7 points plus 3.0 a rug it holds above its rival, with
    the spread sqrt(15.5 x left / (1 + left / 74)) for the rugs left."""
    own, theirs = state.rugs_in_hand(seat), state.rugs_in_hand(1 - seat)
    left = own + theirs
    leaf = position_value(state, seat, replace(leaf_weights(2, left), win_stake=0.0))
    spread = math.sqrt(15.5 * left / (1 + left / 74))
    return normal_cdf((leaf + 0.7 + 3.0 * (own - theirs)) / spread)


def test_a_duel_adds_3_points_for_each_rug_the_mover_holds_above_its_rival() -> None:
    """Every running position of three random duels, the mover holding as many rugs as its
    rival or more: each seat's chance is docs/ai.md's for the mover, or what it leaves."""
    ahead = 0
    for seed in (1, 2, 3):
        for state in random_game(2, Variant.STANDARD, seed):
            seat = state.to_move
            assert seat is not None
            mover = documented_duel(state, seat)
            expected = [mover, 1 - mover] if seat == 0 else [1 - mover, mover]
            assert list(win_chances(state)) == pytest.approx(expected, abs=1e-9), state.history
            ahead += state.rugs_in_hand(seat) > state.rugs_in_hand(1 - seat)
    assert ahead > 20


def test_best_of_equal_means_is_even_and_no_spread_is_the_highest_mean() -> None:
    for count in (2, 3, 4):
        assert best_of([0.0] * count, 10.0) == pytest.approx([1.0 / count] * count)
    assert best_of([1.0, 0.0], 0.0) == [1.0, 0.0]
    assert best_of([1.0, 1.0, 0.0], 0.0) == [0.5, 0.5, 0.0]


def test_best_of_two_is_the_normal_chance_of_the_difference() -> None:
    """Two seats: the first wins when its deviation less the other's, of spread sqrt(2) times
    theirs, exceeds minus the gap of the means; a third seat far behind changes nothing."""
    spread = 8.0
    for gap in (0.0, 3.0, -7.5, 20.0):
        expected = normal_cdf(gap / (spread * math.sqrt(2)))
        assert best_of([gap, 0.0], spread)[0] == pytest.approx(expected, abs=1e-6)
        assert best_of([gap, 0.0, -500.0], spread)[0] == pytest.approx(expected, abs=1e-6)


# --- a Monte-Carlo draw of the documented model ----------------------------------------------


def test_best_of_matches_a_draw_of_independent_normals() -> None:
    rng = random.Random(33)
    for means, spread in (([6.0, 0.0, -2.0, -4.0], 10.0), ([3.0, 2.5, -5.5], 4.0)):
        found = best_of(means, spread)
        sampled = sampled_best(means, spread, rng)
        assert all(map(within_sampling, found, sampled)), (means, found, sampled)


def documented_spread(players: int, left: int) -> float:
    """docs/ai.md: variance = s / (1 + (s / ceiling)^4)^(1/4), s = slope x rugs left, widened."""
    field = FIELDS[players]
    s = field.slope * left
    return field.widen * math.sqrt(s / (1 + (s / field.ceiling) ** 4) ** 0.25)


def test_many_seats_match_a_draw_of_the_documented_model() -> None:
    """docs/ai.md's model for 3 and 4 players, drawn: each seat's total less the average is
    normal around (n - 1) / n of its leaf plus the offset per rug it holds above the average
    hand, all with the documented spread for the rugs left; a seat's chance is how often it
    comes out highest."""
    rng = random.Random(11)
    for players in (3, 4):
        game = random_game(players, Variant.STANDARD, 5 + players)
        for state in (game[len(game) // 4], game[len(game) // 2], game[-3]):
            seats = state.seats_in()
            hands = [state.rugs_in_hand(seat) for seat in seats]
            average_hand = sum(hands) / len(seats)
            means = [
                position_value(state, seat) * (len(seats) - 1) / len(seats)
                + FIELDS[players].offset_per_rug * (hand - average_hand)
                for seat, hand in zip(seats, hands, strict=True)
            ]
            sampled = sampled_best(means, documented_spread(players, sum(hands)), rng)
            found = [win_chances(state)[seat] for seat in seats]
            assert all(map(within_sampling, found, sampled)), (state.history, found, sampled)


def test_the_spread_grows_with_the_rugs_left_and_levels_off() -> None:
    for players, field in FIELDS.items():
        spreads = [field.spread(left) for left in range(49)]
        assert spreads[0] == 0.0
        assert all(a < b for a, b in itertools.pairwise(spreads))
        assert field.deviation(48) == pytest.approx(field.ceiling**0.5, rel=0.05)
        assert field.deviation(1) == pytest.approx(field.slope**0.5, rel=0.01)
        for left in (1, 12, 48):
            assert field.spread(left) == pytest.approx(documented_spread(players, left))


# --- docs in sync -----------------------------------------------------------------------------


def documented_figures(label: str) -> tuple[float, float]:
    """The 4- and 3-player figures of the row of docs/ai.md's table of measured constants that
    starts with `label`."""
    for line in DOCS_AI.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"| {label}"):
            four, three = (re.match(r"\s*([\d.]+)", cell) for cell in line.split("|")[2:4])
            assert four, line
            assert three, line
            return float(four[1]), float(three[1])
    raise AssertionError(f"docs/ai.md has no row {label!r}")


def test_docs_in_sync_the_constants_round_the_measured_figures_of_docs_ai_md() -> None:
    """Measured by `python -m ai.calibrate_chances` (docs/ai.md); a change needs a new run."""
    rows: dict[str, Callable[[Field], float]] = {
        "offset per rug": lambda field: field.offset_per_rug,
        "slope": lambda field: field.slope,
        "ceiling": lambda field: field.ceiling,
        "widen": lambda field: field.widen,
    }
    places = {"offset per rug": 1, "slope": 1, "ceiling": 0, "widen": 2}
    for label, constant in rows.items():
        four, three = documented_figures(label)
        for players, measured in ((4, four), (3, three)):
            assert constant(FIELDS[players]) == round(measured, places[label]), (label, players)
    assert set(FIELDS) == {3, 4}


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
    seats = [seat for start in starts for seat in start.seats]
    brier = sum((seat.chance - seat.win) ** 2 for seat in seats) / len(seats)
    even = sum((1 / 3 - seat.win) ** 2 for seat in seats) / len(seats)
    assert lines[-1] == f"Brier score {brier:.4f} (an even chance for every seat: {even:.4f})"
    header = lines.index("predicted chance (constants in use)  seats  predicted  won")
    assert sum(int(line.split()[1]) for line in lines[header + 1 : -1]) == len(seats)
    rows = [line.split() for line in lines if line.split()[0].isdigit()]
    assert [int(row[0]) for row in rows] == sorted({start.left for start in starts}, reverse=True)
    for row in rows:
        assert float(row[-1]) == pytest.approx(FIELDS[3].deviation(int(row[0])), abs=0.005), row
    assert calibrate_chances.main(["--players", "4", "--games", "2", "--seed", "9"]) == 0
    four = calibrate_chances.gather(4, 2, seed=9)
    assert capsys.readouterr().out.splitlines() == [
        "2 games of 4 medium players",
        *calibrate_chances.report(4, four),
    ]
    assert calibrate_chances.gather(4, 2, seed=9, jobs=2) == four


def test_the_chances_calibration_ends_quietly_when_its_reader_goes_away(
    into_a_closed_pipe: ClosedPipeRun,
) -> None:
    """`python -m ai.calibrate_chances ... | head -3`: exit status 1 and not a word on stderr once
    the reader is gone, as the engine's commands end (`engine.cli.run_cli`)."""
    result = into_a_closed_pipe("ai.calibrate_chances", "--players", "3", "--games", "1")
    assert (result.returncode, result.stderr) == (1, "")
