"""The arena: Wilson intervals, how results are counted, seat rotation and the report."""

from __future__ import annotations

import json
import math
import re
import statistics
from pathlib import Path

import pytest

from ai import Budget, Decision, RandomPlayer
from ai.arena import (
    Match,
    Moments,
    Tally,
    a_luck,
    luck_lines,
    main,
    play_seeded,
    record_result,
    report,
    run_match,
    wilson,
)
from ai.prng import mix_seed
from engine import Outcome, Variant, legal_actions
from engine.model import Phase
from engine.rules import scores
from engine.state import GameState
from tests.conftest import ClosedPipeRun


def test_wilson_interval_known_values() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def _finished(state: GameState, ranking: tuple[tuple[int, ...], ...]) -> GameState:
    return state._replace(
        phase=Phase.OVER, to_move=None, outcome=Outcome(ranking, "rugs-exhausted", "shared")
    )


def test_a_shared_win_counts_half_and_ties_count_half_pairwise(
    positions: list[GameState],
) -> None:
    two = next(p for p in positions if p.players == 2)
    tally = Tally()
    record_result(_finished(two, ((0, 1),)), 0, tally)
    assert (tally.games, tally.wins, tally.pairwise, tally.pairs) == (1, 0.5, 0.5, 1)
    four = next(p for p in positions if p.players == 4)
    tally = Tally()
    record_result(_finished(four, ((2,), (1, 3), (0,))), 1, tally)
    assert tally.wins == 0.0
    assert tally.pairwise == 0.0 + 0.5 + 1.0
    assert tally.pairs == 3


def test_a_first_place_shared_by_k_seats_gives_a_one_kth_of_a_win(
    positions: list[GameState],
) -> None:
    """Three or four seats sharing first place give A a third or a quarter of a win (a flat
    half for any shared first place would overstate A's win rate), in the plain and the
    luck-adjusted figures alike."""
    four = next(p for p in positions if p.players == 4)
    for ranking, a_seat, share in (
        (((0, 1, 2), (3,)), 0, 1 / 3),
        (((1, 3), (0, 2)), 3, 1 / 2),
        (((0, 1, 2, 3),), 2, 1 / 4),
    ):
        tally = Tally()
        record_result(_finished(four, ranking), a_seat, tally)
        assert tally.wins == pytest.approx(share), ranking
        assert tally.win_luck.y == pytest.approx(share), ranking


def test_the_score_difference_is_a_s_total_less_the_mean_total_of_the_b_seats(
    positions: list[GameState],
) -> None:
    """With A in any seat, in 2 and in 4 players: A's total (R11: dirhams plus visible
    squares) less the mean of the B seats' totals, also in the luck-adjusted figure. Dividing
    the B seats' sum by every seat, A's included, would make the difference far too large."""
    for players in (2, 4):
        state = next(p for p in positions if p.players == players and p.rugs_laid > 6)
        over = _finished(state, (tuple(range(players)),))
        totals = [score.total for score in scores(over)]
        assert len(set(totals)) > 1
        for a_seat in range(players):
            tally = Tally()
            record_result(over, a_seat, tally)
            b_totals = [total for seat, total in enumerate(totals) if seat != a_seat]
            expected = totals[a_seat] - sum(b_totals) / len(b_totals)
            assert tally.score_difference == pytest.approx(expected), (players, a_seat)
            assert tally.difference_luck.y == pytest.approx(expected), (players, a_seat)


def test_a_s_luck_is_its_own_rolls_luck_less_the_mean_of_the_b_seats(
    positions: list[GameState],
) -> None:
    """In 2 and in 4 players, and that is the luck the luck-adjusted win rate and score
    difference take out. The B seats' sum divided by every seat, A's included, would take out
    too little of it."""
    assert a_luck([3.0, -1.0], 0) == pytest.approx(4.0)
    assert a_luck([3.0, -1.0], 1) == pytest.approx(-4.0)
    assert a_luck([3.0, 1.0, -2.0, 4.0], 2) == pytest.approx(-2.0 - (3.0 + 1.0 + 4.0) / 3)
    assert a_luck([], 0) == 0.0  # no luck noted
    for players in (2, 4):
        state = next(p for p in positions if p.players == players)
        over = _finished(state, tuple((seat,) for seat in range(players)))
        lucks = [2.0, -1.0, 0.5, -3.0][:players]
        tally = Tally()
        tally.seat_luck = list(lucks)
        record_result(over, 0, tally)
        expected = lucks[0] - sum(lucks[1:]) / (players - 1)
        assert tally.win_luck.luck == pytest.approx(expected), players
        assert tally.difference_luck.luck == pytest.approx(expected), players


def test_each_deal_seats_a_in_every_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    import ai.arena as arena

    seen: list[tuple[int, tuple[str, ...]]] = []
    real = arena.play_game

    def spy(match: Match, seats: list[object], game_seed: int, tally: Tally) -> GameState:
        seen.append((game_seed, tuple(getattr(p, "level", "") for p in seats)))
        return real(match, seats, game_seed, tally)  # type: ignore[arg-type]

    monkeypatch.setattr(arena, "play_game", spy)
    match = Match("easy", "random", 3, 6, 11, Variant.STANDARD, None)
    tally = run_match(match)
    assert tally.games == 6
    assert [levels.index("easy") for _, levels in seen] == [0, 1, 2, 0, 1, 2]
    assert seen[0][0] == seen[1][0] == seen[2][0] != seen[3][0]


def test_the_report_ends_with_the_verdict_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--a", "easy", "--b", "random", "--games", "4", "--seed", "2"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    pattern = (
        r"easy vs random: easy wins \d+\.\d% \(95% CI \d+\.\d-\d+\.\d\), worst decision \d+\.\d\d s"
    )
    assert re.fullmatch(pattern, last)


def test_the_report_for_four_players_gives_the_pairwise_rate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(
        [
            "--a",
            "easy",
            "--b",
            "random",
            "--players",
            "4",
            "--games",
            "4",
            "--variant",
            "rotate-after",
        ]
    )
    out = capsys.readouterr().out
    assert "one easy against 3 x random" in out
    assert "ahead of each random" in out


def test_the_report_gives_each_rate_with_the_wilson_interval_of_its_own_counts() -> None:
    """A's first places (3 of 8 games) and its pairwise share (14 of 24 pairs) each come with
    the 95% Wilson interval of their own counts, in the report and in the verdict line."""
    tally = Tally(games=8, wins=3.0, pairwise=14.0, pairs=24)
    match = Match("easy", "random", 4, 8, 1, Variant.STANDARD, None)
    lines = report(match, tally)
    low, high = wilson(3.0, 8)
    p_low, p_high = wilson(14.0, 24)
    assert lines[1] == (
        f"  easy first place: 3/8 = 37.5% (95% CI {100 * low:.1f}-{100 * high:.1f}; "
        "fair share 25.0%)"
    )
    assert lines[2].startswith(
        f"  easy ahead of each random: 58.3% of 24 pairs "
        f"(95% CI {100 * p_low:.1f}-{100 * p_high:.1f}; fair 50%"
    )
    assert lines[-1].startswith(
        f"easy vs random: easy wins 37.5% (95% CI {100 * low:.1f}-{100 * high:.1f}), "
    )


def test_games_in_several_processes_add_up_to_the_one_process_result() -> None:
    match = Match("easy", "random", 3, 5, 4, Variant.STANDARD, None)
    alone = run_match(match)
    shared = run_match(Match("easy", "random", 3, 5, 4, Variant.STANDARD, None, jobs=2))
    assert (shared.games, shared.wins, shared.pairwise, shared.pairs) == (
        alone.games,
        alone.wins,
        alone.pairwise,
        alone.pairs,
    )
    assert shared.score_difference == pytest.approx(alone.score_difference)
    assert shared.decisions == alone.decisions


def test_a_match_plays_exactly_the_games_asked_for_also_in_an_unfinished_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--games 5` at 3 players plays 5 games, the last set of deals cut short: the report's
    counts and the results file hold 5, whether in one process or two. G is the sample size
    behind every interval the report gives."""
    results = tmp_path / "games.jsonl"
    argv = ["--a", "easy", "--b", "random", "--players", "3", "--games", "5", "--seed", "4"]
    assert main([*argv, "--results", str(results)]) == 0
    out = capsys.readouterr().out.splitlines()
    first_place = next(line for line in out if "easy first place: " in line)
    assert re.search(r"easy first place: [\d.]+/5 = ", first_place), first_place
    assert any("of 10 pairs" in line for line in out), out
    lines = results.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["game"] for line in lines] == [0, 1, 2, 3, 4]
    assert run_match(Match("easy", "random", 3, 5, 4, Variant.STANDARD, None, jobs=2)).games == 5


def test_a_rotate_after_match_plays_rotate_after_games(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--variant rotate-after`: every game the match plays and counts is of the variant (R12),
    not only the report's first line."""
    import ai.arena as arena

    played: list[Variant] = []
    real = arena.record_result

    def spy(state: GameState, a_seat: int, tally: Tally) -> None:
        played.append(state.variant)
        real(state, a_seat, tally)

    monkeypatch.setattr(arena, "record_result", spy)
    argv = ["--a", "easy", "--b", "random", "--games", "2", "--variant", "rotate-after"]
    assert main(argv) == 0
    assert "variant rotate-after" in capsys.readouterr().out
    assert played == [Variant.ROTATE_AFTER, Variant.ROTATE_AFTER]


def test_every_decision_of_a_match_gets_the_budget_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--work 7 --seconds 2.5` is the budget each seat's every decision is given, so that a
    match measures hard at the budget named on its command line, not at its default."""
    import ai.arena as arena

    given: list[Budget | None] = []

    class Listening(RandomPlayer):
        def decide(self, state: GameState, seed: int, budget: Budget | None = None) -> Decision:
            given.append(budget)
            return super().decide(state, seed, budget)

    monkeypatch.setattr(arena, "make_player", lambda level: Listening())
    argv = ["--a", "hard", "--b", "random", "--games", "1", "--work", "7", "--seconds", "2.5"]
    assert main(argv) == 0
    assert given
    assert set(given) == {Budget(work=7, seconds=2.5)}


def test_progress_gives_a_line_per_game_with_the_running_rate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--progress`: after each game, on stderr, how many games are done and A's first-place
    rate so far; the report on stdout gives the same figures as without it."""
    argv = ["--a", "easy", "--b", "random", "--players", "3", "--games", "3", "--seed", "5"]
    assert main(argv) == 0
    quiet = capsys.readouterr().out
    tally = run_match(Match("easy", "random", 3, 3, 5, Variant.STANDARD, None))
    assert main([*argv, "--progress"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[:3] == quiet.splitlines()[:3]  # the timings aside
    lines = err.splitlines()
    assert [line.split(":")[0] for line in lines] == ["game 1", "game 2", "game 3"]
    assert lines[-1] == f"game 3: easy wins {100 * tally.wins / 3:.1f}%"
    for line in lines:
        assert 0.0 <= float(line.split()[-1].rstrip("%")) <= 100.0, line


def test_the_verdict_line_gives_the_worst_decision_of_the_level_measured() -> None:
    """The last line's worst decision is A's (the level measured), never B's, however slower
    B's slowest decision was."""
    tally = Tally(games=1, wins=1.0)
    tally.time_decision("medium", 0.25, 0.3)
    tally.time_decision("hard", 1.5, 1.6)
    match = Match("medium", "hard", 2, 1, 1, Variant.STANDARD, None)
    last = report(match, tally)[-1]
    assert last.endswith("worst decision 0.25 s"), last


def test_the_worst_decision_of_a_match_is_the_worst_of_all_its_games() -> None:
    """The report's worst decision time is the match's: the games' tallies added up (in one
    process or several) keep each level's slowest decision, whichever game it came in."""
    slow, quick = Tally(), Tally()
    slow.time_decision("hard", 0.5, 0.6)
    quick.time_decision("hard", 0.2, 0.3)
    match = Tally()
    match.add(slow)
    match.add(quick)
    assert (match.worst, match.worst_wall) == ({"hard": 0.5}, {"hard": 0.6})
    assert match.decisions == {"hard": 2}


@pytest.mark.parametrize(
    ("budget", "message"),
    [
        (["--work", "0"], "--work must be at least 1"),
        (["--work", "-3"], "--work must be at least 1"),
        (["--seconds", "0"], "--seconds must be more than 0"),
        (["--seconds", "-1.5"], "--seconds must be more than 0"),
    ],
)
def test_a_budget_that_allows_no_thinking_is_a_usage_error(
    budget: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line and exit status 2 before any game is played, as for `--games 0`, never a
    traceback."""
    with pytest.raises(SystemExit) as stopped:
        main(["--a", "hard", "--b", "random", "--games", "2", *budget])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"python -m ai.arena: error: {message}"
    assert "Traceback" not in err


def test_jobs_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--a", "easy", "--b", "random", "--jobs", "0"])
    assert "--jobs must be at least 1" in capsys.readouterr().err


def test_results_file_has_one_line_per_game_adding_up_to_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "games.jsonl"
    argv = ["--a", "easy", "--b", "random", "--players", "2", "--games", "6", "--seed", "4"]
    assert main([*argv, "--results", str(results)]) == 0
    verdict = capsys.readouterr().out.splitlines()[-1]
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert [line["game"] for line in lines] == list(range(6))
    assert [line["a_seat"] for line in lines] == [0, 1, 0, 1, 0, 1]
    wins = sum(line["win"] for line in lines)
    assert f"easy wins {100 * wins / 6:.1f}%" in verdict
    assert all(line["pairwise"] == line["win"] for line in lines)  # 2 players: the same
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-1] == verdict  # writing changes nothing


def test_a_results_line_gives_a_s_pairwise_share_adding_up_to_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At 4 players each line's `pairwise` is the share of the 3 B seats A finished ahead of
    (0 to 1, ties half), and their mean is the report's "ahead of each" rate, so two versions
    compare game by game on it."""
    results = tmp_path / "games.jsonl"
    argv = ["--a", "easy", "--b", "random", "--players", "4", "--games", "4", "--seed", "3"]
    assert main([*argv, "--results", str(results)]) == 0
    out = capsys.readouterr().out
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    shares = [line["pairwise"] for line in lines]
    assert all(0.0 <= share <= 1.0 for share in shares), shares
    assert f"easy ahead of each random: {100 * statistics.fmean(shares):.1f}% of 12 pairs" in out


def test_an_unwritable_results_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-folder" / "games.jsonl"
    with pytest.raises(SystemExit) as stopped:
        main(["--a", "easy", "--b", "random", "--games", "2", "--results", str(missing)])
    assert stopped.value.code == 2
    assert "--results: cannot write" in capsys.readouterr().err
    assert not missing.parent.exists()


def _moments(pairs: list[tuple[float, float]]) -> Moments:
    moments = Moments()
    for y, luck in pairs:
        moments.add_game(y, luck)
    return moments


def test_a_result_the_luck_explains_wholly_leaves_no_error() -> None:
    lucks = [-3.0, 1.0, 2.5, 0.5, -1.0]
    mean, error, explained = _moments([(7.0 + 2.0 * luck, luck) for luck in lucks]).estimate()
    assert mean == pytest.approx(7.0)  # the result less the luck's part: 7 whatever the dice
    assert error == pytest.approx(0.0, abs=1e-6)
    assert explained == pytest.approx(1.0)


def test_the_luck_adjusted_mean_is_the_control_variate_estimate() -> None:
    pairs = [(1.0, 2.0), (0.0, -1.5), (1.0, 0.5), (0.5, 0.0), (0.0, -2.0), (1.0, -0.5)]
    ys, lucks = [y for y, _ in pairs], [luck for _, luck in pairs]
    slope, _ = statistics.linear_regression(lucks, ys)
    mean, error, explained = _moments(pairs).estimate()
    assert mean == pytest.approx(statistics.fmean(ys) - slope * statistics.fmean(lucks))
    residuals = [y - slope * luck for y, luck in pairs]
    assert error == pytest.approx(math.sqrt(statistics.variance(residuals) * 5 / 4 / len(pairs)))
    assert explained == pytest.approx(statistics.correlation(lucks, ys) ** 2)
    halves = _moments(pairs[:2])
    halves.add(_moments(pairs[2:]))
    assert halves.estimate() == pytest.approx((mean, error, explained))


def test_too_few_games_or_no_luck_give_the_plain_mean() -> None:
    assert _moments([(1.0, 0.5), (0.0, 0.2)]).estimate()[1] == math.inf
    mean, error, explained = _moments([(1.0, 0.0), (0.0, 0.0), (1.0, 0.0)]).estimate()
    assert mean == pytest.approx(2 / 3)
    assert explained == 0.0
    assert error == pytest.approx(math.sqrt(statistics.variance([1.0, 0.0, 1.0]) / 3))


def test_the_report_gives_luck_adjusted_figures_from_the_games_luck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "games.jsonl"
    argv = ["--a", "medium", "--b", "easy", "--games", "8", "--seed", "6"]
    assert main([*argv, "--results", str(results)]) == 0
    out = capsys.readouterr().out
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    pairs = [(line["score_difference"], line["luck"]) for line in lines]
    assert len({luck for _, luck in pairs}) == 8  # every game has its own luck
    mean, error, _ = _moments(pairs).estimate()
    expected = (
        f"mean score difference {mean:+.2f} "
        f"(95% CI {mean - 1.959963984540054 * error:+.2f} to "
        f"{mean + 1.959963984540054 * error:+.2f})"
    )
    assert "luck-adjusted" in out
    assert expected in out


def test_luck_adds_up_the_same_in_several_processes() -> None:
    alone = run_match(Match("medium", "easy", 2, 4, 8, Variant.STANDARD, None))
    shared = run_match(Match("medium", "easy", 2, 4, 8, Variant.STANDARD, None, jobs=2))
    assert shared.win_luck.estimate() == pytest.approx(alone.win_luck.estimate())
    assert shared.difference_luck.estimate() == pytest.approx(alone.difference_luck.estimate())


def test_a_seeded_game_replays_and_hears_every_roll() -> None:
    """`play_seeded` (the arena's and the calibration's game loop): the same seed and deciders
    give the same game, and `rolled` hears every roll of it."""
    rolls: list[int] = []

    def first_legal(state: GameState, seat: int, ai_seed: int) -> str:
        return legal_actions(state)[ai_seed % len(legal_actions(state))]

    def heard(state: GameState, face: int) -> None:
        assert state.to_move is not None
        rolls.append(face)

    one = play_seeded(2, Variant.STANDARD, 11, first_legal, heard)
    two = play_seeded(2, Variant.STANDARD, 11, first_legal)
    assert one.outcome is not None
    assert one.history == two.history
    assert rolls == [int(a[1]) for a in one.history if a.startswith("D")]


def test_each_decision_of_a_seeded_game_has_the_ai_seed_of_its_action_index() -> None:
    """`play_seeded` gives each decision the AI seed mix_seed(game seed, 3, actions so far),
    so the decisions of one game draw their tie-breaks and coins apart, not from one seed."""
    seen: list[tuple[int, int]] = []

    def first_legal(state: GameState, seat: int, ai_seed: int) -> str:
        seen.append((len(state.history), ai_seed))
        return legal_actions(state)[0]

    play_seeded(3, Variant.STANDARD, 17, first_legal)
    assert len(seen) > 20
    assert [ai_seed for _, ai_seed in seen] == [mix_seed(17, 3, index) for index, _ in seen]
    assert len({ai_seed for _, ai_seed in seen}) == len(seen)


@pytest.mark.parametrize(
    ("pairs", "figure"),
    [
        ([(1.0, -1.0), (1.0, -1.5), (1.0, -2.0), (0.0, -5.0)], "100.0% (95% CI 100.0-100.0)"),
        ([(0.0, 1.0), (0.0, 1.5), (0.0, 2.0), (1.0, 5.0)], "0.0% (95% CI 0.0-0.0)"),
    ],
    ids=["above", "below"],
)
def test_a_luck_adjusted_win_rate_out_of_range_is_printed_within_0_and_100(
    pairs: list[tuple[float, float]], figure: str
) -> None:
    """With few games the luck-adjusted estimate may fall outside [0, 1] (139% and -39% here):
    it is printed at the nearest bound, its interval too, the low bound never above the high."""
    estimate = _moments(pairs).estimate()[0]
    assert not 0.0 <= estimate <= 1.0
    tally = Tally(games=len(pairs), wins=sum(y for y, _ in pairs))
    tally.win_luck = _moments(pairs)
    tally.difference_luck = _moments(pairs)
    match = Match("hard", "medium", 4, len(pairs), 24, Variant.STANDARD, None)
    lines = luck_lines(match, tally)
    assert f"hard first place {figure}, mean score difference" in lines[1], lines[1]


def test_the_report_ends_quietly_when_its_reader_goes_away(
    into_a_closed_pipe: ClosedPipeRun,
) -> None:
    """`python -m ai.arena ... | head -1`: exit status 1 and not a word on stderr once
    the reader is gone, as the engine's commands end (`engine.cli.run_cli`)."""
    result = into_a_closed_pipe("ai.arena", "--a", "easy", "--b", "random", "--games", "1")
    assert (result.returncode, result.stderr) == (1, "")
