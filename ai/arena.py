"""Tournament between AI levels: `python -m ai.arena --a hard --b medium --players 2`.

Plays seeded games and reports how often level A wins against level B, with a 95% Wilson
confidence interval, the mean score difference and the worst decision time of each level.

Seating: games come in sets of `players`; each set shares one deal and one dice seed and seats
A in each seat in turn (2 players: A as seat 0, then as seat 1; 3 or 4 players: one A against
copies of B, A in every seat in turn), so neither level profits from a seat, a first move or a
lucky deal. Shared first places count as a fraction: A gets 1/k of a win when k seats share it.
With more than 2 players A "wins" only by finishing first (a fair share would be 1/players);
the report also gives the pairwise rate: how often A finishes ahead of each copy of B (ties
count half; a fair share is 50%). The score difference is A's total minus the mean total of
the B seats. Decision times are CPU times of the deciding thread ("one core", whatever else
the machine runs); the worst wall-clock time is printed beside them.

Luck-adjusted figures: every die roll's luck for the seat rolling (`ai.luck`: medium's
appraisal of the face rolled less its average over the die) has mean zero whoever plays, yet
explains much of a game's result. Subtracting the part of the results that A's summed luck
explains (a control variate, fitted over the match) estimates the same expected win rate and
score difference with narrower 95% intervals (normal approximation); the report gives them
beside the plain figures, and how much of the variance the luck explained. The last line
(the plain win rate) reads e.g.
`hard vs medium: hard wins 67.5% (95% CI 62.8-72.0), worst decision 0.84 s`
(the worst decision is A's).

Levels: random, easy, medium, hard (see the `ai` package). `--variant rotate-after` plays R12;
`--work N` and `--seconds S` replace hard's default budget (e.g. a reduced budget for long
matches). `--jobs N` plays N sets of games at a time in separate processes (one per core; a
set, A in each seat in turn, is one process's work): every game is seeded on its own, so
the totals are exactly those of a one-process run. The dice come from Python's
`random.Random` seeded per deal, the AIs' seeds from `ai.mix_seed(game
seed, 3, action index)`, so a match replays exactly. `--results FILE` writes every game's
result (with A's luck) as a JSON line, to compare two matches over the same games game by game.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import TypeVar

from ai import LEVELS, Budget, make_player, mix_seed
from ai.luck import roll_luck
from ai.player import Player
from engine.cli import run_cli
from engine.dealing import deal, new_game
from engine.model import Variant
from engine.rules import CHANCE, DIE_FACES, apply, current_player, scores
from engine.state import GameState

Z95 = 1.959963984540054

R = TypeVar("R")


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (fractional successes, e.g. half wins, allowed)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


@dataclass
class Moments:
    """Sums over games of a result y and the dice's luck L in those games, from which
    `estimate` gives a luck-adjusted mean (control variate: y - beta * L, with beta the slope
    of y on L; L has mean zero for any players, see `ai.luck`)."""

    n: int = 0
    y: float = 0.0
    yy: float = 0.0
    luck: float = 0.0
    luck_sq: float = 0.0
    y_luck: float = 0.0

    def add_game(self, y: float, luck: float) -> None:
        self.n += 1
        self.y += y
        self.yy += y * y
        self.luck += luck
        self.luck_sq += luck * luck
        self.y_luck += y * luck

    def add(self, other: Moments) -> None:
        for name in (f.name for f in fields(self)):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def estimate(self) -> tuple[float, float, float]:
        """(luck-adjusted mean of y, its standard error, the share of y's variance that the
        luck explains). Without enough games or luck to fit: the plain mean and its error."""
        n = self.n
        if n < 3:
            return (self.y / n if n else 0.0), math.inf, 0.0
        mean_y, mean_luck = self.y / n, self.luck / n
        var_y = max(0.0, (self.yy - n * mean_y * mean_y) / (n - 1))
        var_luck = max(0.0, (self.luck_sq - n * mean_luck * mean_luck) / (n - 1))
        if var_luck == 0.0 or var_y == 0.0:
            return mean_y, math.sqrt(var_y / n), 0.0
        cov = (self.y_luck - n * mean_y * mean_luck) / (n - 1)
        explained = min(1.0, cov * cov / (var_y * var_luck))
        residual = var_y * (1.0 - explained) * (n - 1) / (n - 2)
        return mean_y - cov / var_luck * mean_luck, math.sqrt(residual / n), explained


@dataclass
class Tally:
    """Results of level A over the games played so far."""

    games: int = 0
    wins: float = 0.0
    pairwise: float = 0.0
    pairs: int = 0
    score_difference: float = 0.0
    worst: dict[str, float] = field(default_factory=dict)
    worst_wall: dict[str, float] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    thinking: dict[str, float] = field(default_factory=dict)
    win_luck: Moments = field(default_factory=Moments)
    """A's win share against A's luck, per game."""
    difference_luck: Moments = field(default_factory=Moments)
    """A's score difference against A's luck, per game."""
    seat_luck: list[float] = field(default_factory=list)
    """In the game being played: each seat's summed luck of its rolls (`ai.luck`)."""

    def add(self, other: Tally) -> None:
        """Add the games of `other` (played apart, e.g. in another process) to this tally."""
        self.games += other.games
        self.wins += other.wins
        self.pairwise += other.pairwise
        self.pairs += other.pairs
        self.score_difference += other.score_difference
        self.win_luck.add(other.win_luck)
        self.difference_luck.add(other.difference_luck)
        for level, worst in other.worst.items():
            self.worst[level] = max(self.worst.get(level, 0.0), worst)
        for level, worst in other.worst_wall.items():
            self.worst_wall[level] = max(self.worst_wall.get(level, 0.0), worst)
        for level, count in other.decisions.items():
            self.decisions[level] = self.decisions.get(level, 0) + count
        for level, seconds in other.thinking.items():
            self.thinking[level] = self.thinking.get(level, 0.0) + seconds

    def time_decision(self, level: str, cpu: float, wall: float) -> None:
        """Note one decision's CPU time (of the deciding thread) and wall-clock time."""
        self.worst[level] = max(self.worst.get(level, 0.0), cpu)
        self.worst_wall[level] = max(self.worst_wall.get(level, 0.0), wall)
        self.decisions[level] = self.decisions.get(level, 0) + 1
        self.thinking[level] = self.thinking.get(level, 0.0) + cpu


@dataclass(frozen=True)
class Match:
    """What to play: levels, players, variant, games and the master seed."""

    a: str
    b: str
    players: int
    games: int
    seed: int
    variant: Variant
    budget: Budget | None
    progress: bool = False
    jobs: int = 1
    results: str | None = None
    """A file to write one JSON line per game to (see `game_line`), or None."""


Decide = Callable[[GameState, int, int], str]
"""Chooses the action of `seat` at a decision node, given the AI seed of that node."""


def play_seeded(
    players: int,
    variant: Variant,
    game_seed: int,
    decide: Decide,
    rolled: Callable[[GameState, int], None] | None = None,
) -> GameState:
    """Play one game to its end: the deal from mix_seed(game_seed, 1), the dice from
    mix_seed(game_seed, 2), each decision by `decide(state, seat, AI seed)` with the AI seed
    mix_seed(game_seed, 3, actions so far); `rolled(state, face)` hears each roll before it is
    applied. The same seed and deciders replay the same game."""
    state = new_game(deal(players, variant, random.Random(mix_seed(game_seed, 1))))
    dice = random.Random(mix_seed(game_seed, 2))
    while (seat := current_player(state)) is not None:
        if seat == CHANCE:
            face = DIE_FACES[dice.randrange(len(DIE_FACES))]
            if rolled is not None:
                rolled(state, face)
            action = f"D{face}"
        else:
            action = decide(state, seat, mix_seed(game_seed, 3, len(state.history)))
        state, _ = apply(state, action)
    return state


def play_game(match: Match, seats: Sequence[Player], game_seed: int, tally: Tally) -> GameState:
    """Play one game of the match to its end (`play_seeded`), noting each seat's luck and
    each decision's time in `tally`."""
    tally.seat_luck = [0.0] * match.players

    def rolled(state: GameState, face: int) -> None:
        assert state.to_move is not None
        tally.seat_luck[state.to_move] += roll_luck(state, face)

    def decide(state: GameState, seat: int, seed: int) -> str:
        player = seats[seat]
        started, cpu = time.perf_counter(), time.thread_time()
        decision = player.decide(state, seed, match.budget)
        tally.time_decision(player.level, time.thread_time() - cpu, time.perf_counter() - started)
        return decision.action

    return play_seeded(match.players, match.variant, game_seed, decide, rolled)


def record_result(state: GameState, a_seat: int, tally: Tally) -> None:
    """Add one finished game, seen from A in `a_seat`."""
    outcome = state.outcome
    assert outcome is not None
    winners = outcome.ranking[0]
    tally.games += 1
    if a_seat in winners:
        tally.wins += 1.0 / len(winners)
    place = {seat: i for i, group in enumerate(outcome.ranking) for seat in group}
    totals = [score.total for score in scores(state)]
    others = [seat for seat in range(state.players) if seat != a_seat]
    for other in others:
        tally.pairs += 1
        if place[a_seat] < place[other]:
            tally.pairwise += 1.0
        elif place[a_seat] == place[other]:
            tally.pairwise += 0.5
    difference = totals[a_seat] - sum(totals[o] for o in others) / len(others)
    tally.score_difference += difference
    luck = a_luck(tally.seat_luck, a_seat)
    tally.win_luck.add_game(1.0 / len(winners) if a_seat in winners else 0.0, luck)
    tally.difference_luck.add_game(difference, luck)


def a_luck(seat_luck: Sequence[float], a_seat: int) -> float:
    """A's luck in a game: its own rolls' luck less the mean of the B seats' (0 if unknown)."""
    if not seat_luck:
        return 0.0
    others = [luck for seat, luck in enumerate(seat_luck) if seat != a_seat]
    return seat_luck[a_seat] - sum(others) / len(others)


def deal_and_seat(match: Match, game: int) -> tuple[int, int]:
    """Which deal game number `game` plays and A's seat in it (sets of `players` games share a
    deal, A in every seat in turn)."""
    return divmod(game, match.players)


def play_one(match: Match, game: int) -> Tally:
    """Play game number `game` of the match (its deal, dice and A's seat follow from the
    number) and return its tally alone."""
    deal_index, a_seat = deal_and_seat(match, game)
    a_player, b_player = make_player(match.a), make_player(match.b)
    seats = [a_player if seat == a_seat else b_player for seat in range(match.players)]
    tally = Tally()
    state = play_game(match, seats, mix_seed(match.seed, deal_index), tally)
    record_result(state, a_seat, tally)
    return tally


def _play_slice(match: Match, games: Sequence[int]) -> list[Tally]:
    return [play_one(match, game) for game in games]


def in_processes(
    work: Callable[[Sequence[int]], list[R]], chunks: Sequence[Sequence[int]], jobs: int
) -> Iterator[R]:
    """`work` over each chunk in order, the results one by one: in this process when `jobs`
    is 1, else in `jobs` processes (`work` must then be a module-level function or a
    `functools.partial` of one)."""
    if jobs <= 1:
        for chunk in chunks:
            yield from work(chunk)
        return
    from concurrent.futures import ProcessPoolExecutor  # only here: it loads multiprocessing

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(work, chunks):
            yield from results


def _game_tallies(match: Match) -> Iterator[Tally]:
    """The tally of every game in order, played in `match.jobs` processes when more than one
    (a set of `players` games to each task)."""
    step = match.players
    slices = [range(g, min(g + step, match.games)) for g in range(0, match.games, step)]
    return in_processes(functools.partial(_play_slice, match), slices, match.jobs)


def game_line(match: Match, game: int, tally: Tally) -> str:
    """One game's result as a JSON line: its number, A's seat, A's win share, A's pairwise
    share, score difference and luck (as `record_result` noted them in the game's tally), so
    that two matches over the same games (e.g. two versions of a level) can be compared game
    by game."""
    return json.dumps(
        {
            "game": game,
            "a_seat": deal_and_seat(match, game)[1],
            "win": tally.wins,
            "pairwise": tally.pairwise / tally.pairs,
            "score_difference": tally.score_difference,
            "luck": tally.win_luck.luck,
        }
    )


def run_match(match: Match) -> Tally:
    """Play the whole match and return A's tally (writing `match.results` if asked)."""
    tally = Tally()
    with contextlib.ExitStack() as stack:
        results = None
        if match.results is not None:
            results = stack.enter_context(open(match.results, "w", encoding="utf-8"))
        for game, game_tally in enumerate(_game_tallies(match)):
            tally.add(game_tally)
            if results is not None:
                print(game_line(match, game, game_tally), file=results, flush=True)
            if match.progress:
                rate = 100 * tally.wins / tally.games
                print(
                    f"game {tally.games}: {match.a} wins {rate:.1f}%", file=sys.stderr, flush=True
                )
    return tally


def report(match: Match, tally: Tally) -> list[str]:
    """The printed summary, ending with the one-line verdict."""
    low, high = wilson(tally.wins, tally.games)
    lines = [
        f"{match.games} games, {match.players} players, variant {match.variant.value}, "
        f"seed {match.seed}: one {match.a} against "
        + (f"one {match.b}" if match.players == 2 else f"{match.players - 1} x {match.b}"),
        (
            f"  {match.a} first place: {tally.wins:g}/{tally.games} "
            f"= {100 * tally.wins / tally.games:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}; "
            f"fair share {100 / match.players:.1f}%)"
        ),
    ]
    if match.players > 2:
        p_low, p_high = wilson(tally.pairwise, tally.pairs)
        lines.append(
            f"  {match.a} ahead of each {match.b}: {100 * tally.pairwise / tally.pairs:.1f}% of "
            f"{tally.pairs} pairs (95% CI {100 * p_low:.1f}-{100 * p_high:.1f}; fair 50%; "
            "pairs within one game are not independent, so this CI is optimistic)"
        )
    lines.append(
        f"  mean score difference ({match.a} minus mean {match.b}): "
        f"{tally.score_difference / tally.games:+.2f}"
    )
    lines.extend(luck_lines(match, tally))
    for level in dict.fromkeys((match.a, match.b)):
        count = tally.decisions.get(level, 0)
        mean = tally.thinking.get(level, 0.0) / count if count else 0.0
        lines.append(
            f"  {level}: {count} decisions, CPU time mean {1000 * mean:.1f} ms, "
            f"worst {1000 * tally.worst.get(level, 0.0):.1f} ms "
            f"(worst wall-clock {1000 * tally.worst_wall.get(level, 0.0):.1f} ms)"
        )
    lines.append(
        f"{match.a} vs {match.b}: {match.a} wins {100 * tally.wins / tally.games:.1f}% "
        f"(95% CI {100 * low:.1f}-{100 * high:.1f}), "
        f"worst decision {tally.worst.get(match.a, 0.0):.2f} s"
    )
    return lines


def luck_lines(match: Match, tally: Tally) -> list[str]:
    """The same two figures with the dice's luck taken out (`Moments.estimate`): unbiased
    estimates of the same expectations, with narrower 95% intervals (normal approximation)."""
    win, win_error, win_share = tally.win_luck.estimate()
    difference, difference_error, difference_share = tally.difference_luck.estimate()
    if math.isinf(win_error):
        return []
    # A rate lies in [0, 1]: with few games the estimate and its interval may stray out of it.
    win, low, high = (
        _within_one(win),
        _within_one(win - Z95 * win_error),
        _within_one(win + Z95 * win_error),
    )
    return [
        (
            f"  luck-adjusted (each roll's luck for its roller, by medium's appraisal, taken out; "
            f"it explains {100 * win_share:.0f}% of the variance of winning and "
            f"{100 * difference_share:.0f}% of the score difference's):"
        ),
        (
            f"    {match.a} first place {100 * win:.1f}% "
            f"(95% CI {100 * low:.1f}-{100 * high:.1f}), "
            f"mean score difference {difference:+.2f} "
            f"(95% CI {difference - Z95 * difference_error:+.2f} to "
            f"{difference + Z95 * difference_error:+.2f})"
        ),
    ]


def _within_one(rate: float) -> float:
    return min(1.0, max(0.0, rate))


def parse_args(argv: Sequence[str] | None) -> Match:
    parser = argparse.ArgumentParser(
        prog="python -m ai.arena", description="Play AI levels against each other."
    )
    parser.add_argument("--a", choices=LEVELS, required=True, help="the level measured")
    parser.add_argument("--b", choices=LEVELS, required=True, help="its opponent(s)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--variant", choices=[v.value for v in Variant], default=Variant.STANDARD.value
    )
    parser.add_argument(
        "--work", type=int, help="hard's work budget per decision (default: its own budget)"
    )
    parser.add_argument("--seconds", type=float, help="hard's time cap per decision")
    parser.add_argument("--progress", action="store_true", help="a line per game on stderr")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="sets of games (A in each seat) played at a time, in separate processes",
    )
    parser.add_argument(
        "--results", metavar="FILE", help="write each game's result to FILE as a JSON line"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.work is not None and args.work < 1:
        parser.error("--work must be at least 1")
    if args.seconds is not None and not args.seconds > 0:
        parser.error("--seconds must be more than 0")
    if args.results is not None:
        try:
            with open(args.results, "w", encoding="utf-8"):
                pass
        except OSError as error:
            parser.error(f"--results: cannot write {args.results}: {error.strerror}")
    budget = None
    if args.work is not None or args.seconds is not None:
        budget = Budget(work=args.work, seconds=args.seconds)
    return Match(
        args.a,
        args.b,
        args.players,
        args.games,
        args.seed,
        Variant(args.variant),
        budget,
        args.progress,
        args.jobs,
        args.results,
    )


def main(argv: Sequence[str] | None = None) -> int:
    match = parse_args(argv)
    tally = run_match(match)
    print("\n".join(report(match, tally)))
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
