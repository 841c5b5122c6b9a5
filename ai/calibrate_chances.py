"""Measure the constants of `ai.chances` for 3 and 4 players:
`python -m ai.calibrate_chances --players 4 --games 1500 --jobs 2`.

Plays seeded games of medium against medium (standard rules) and, at the start of every turn
with every seat still in, notes for each seat its estimate (`ai.chances.estimates`), how many
rugs it holds above the average hand, and how the game ended for it (its final total less the
average final total, and its win share). From those it prints:

- the offset: the least-squares slope of (final total less the estimate) on the rugs held
  above the average hand;
- per count of rugs left: the standard deviation of one seat's deviation from its shifted
  estimate (the measured deviations, less their average over the seats, spread by a factor
  sqrt((n - 1) / n) less than independent ones would: that factor is taken out), beside
  `ai.chances.Field.deviation` with the constants fitted here and with those in use;
- the fitted constants: `slope`, the variance per rug left over the last quarter of the game,
  and `ceiling`, the average variance over its first fifth; then `widen`, the factor on that
  spread (1 to 1.5 by twentieths) whose chances give the games' results the least log loss,
  judged on every `WIDEN_SAMPLE`-th turn start;
- how well the chances `ai.chances.win_chances` gives with the constants in use match the
  games' results, by tenths of predicted chance, and their Brier score beside that of an even
  chance for every seat.

`--jobs N` plays the games in N processes; the figures do not depend on it.
"""

from __future__ import annotations

import argparse
import functools
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ai.arena import in_processes, play_seeded
from ai.calibrate import by_tenths, seed_chunks
from ai.chances import FIELDS, Field, best_of, estimates, win_chances
from ai.medium import MediumPlayer
from engine.cli import run_cli
from engine.model import Phase, Variant
from engine.rules import scores
from engine.state import GameState

WIDEN_SAMPLE = 10
"""`widen` is judged on every this-many-th turn start (the integration is the slow part)."""
WIDENINGS = tuple(1.0 + k / 20 for k in range(11))


@dataclass(frozen=True, slots=True)
class SeatStart:
    """One seat at the start of a turn, and how its game ended."""

    estimate: float
    extra_rugs: float
    """Rugs it holds above the average hand of the seats in."""
    final: float
    """Its final total less the average final total of the seats in at that turn."""
    win: float
    """1 for a win, 0 for a loss, 1/k for a first place shared by k."""
    chance: float
    """Its chance by `win_chances` with the constants in use."""


@dataclass(frozen=True, slots=True)
class Start:
    """A turn start with every seat in: the rugs left, and each seat as `SeatStart`."""

    left: int
    seats: tuple[SeatStart, ...]


def play_game(players: int, seed: int) -> list[Start]:
    """One medium game of `players` from `seed` (seeded as the arena seeds its games) and its
    turn starts with every seat in."""
    player = MediumPlayer()
    noted: list[tuple[int, dict[int, float], list[float], tuple[float, ...]]] = []

    def decide(state: GameState, seat: int, ai_seed: int) -> str:
        if state.phase is Phase.ORIENT and not state.eliminated:
            hands = [state.rugs_in_hand(other) for other in range(players)]
            average = sum(hands) / players
            extra = [hand - average for hand in hands]
            noted.append((sum(hands), estimates(state), extra, win_chances(state)))
        return player.decide(state, ai_seed).action

    final = play_seeded(players, Variant.STANDARD, seed, decide)
    assert final.outcome is not None
    totals = [score.total for score in scores(final)]
    average = sum(totals) / players
    winners = final.outcome.ranking[0]
    return [
        Start(
            left,
            tuple(
                SeatStart(
                    means[seat],
                    extra[seat],
                    totals[seat] - average,
                    1.0 / len(winners) if seat in winners else 0.0,
                    chances[seat],
                )
                for seat in range(players)
            ),
        )
        for left, means, extra, chances in noted
    ]


def _play_seeds(players: int, seeds: Sequence[int]) -> list[Start]:
    return [start for seed in seeds for start in play_game(players, seed)]


def gather(players: int, games: int, seed: int, jobs: int = 1) -> list[Start]:
    """The turn starts of `games` games, game g seeded with mix_seed(seed, g), played in
    `jobs` processes (the same turn starts in the same order whatever `jobs`)."""
    chunks = seed_chunks(games, seed, jobs)
    return list(in_processes(functools.partial(_play_seeds, players), chunks, jobs))


def fit(starts: Sequence[Start], every: int = WIDEN_SAMPLE) -> tuple[Field, dict[int, float]]:
    """The constants fitted over `starts` (see the module; `widen` judged on every `every`-th
    start), and the measured variance of one seat's deviation by rugs left."""
    seats = [seat for start in starts for seat in start.seats]
    offset_per_rug, _ = statistics.linear_regression(
        [seat.extra_rugs for seat in seats], [seat.final - seat.estimate for seat in seats]
    )
    squares: dict[int, list[float]] = defaultdict(list)
    for start in starts:
        count = len(start.seats)
        for seat in start.seats:
            deviation = seat.final - seat.estimate - offset_per_rug * seat.extra_rugs
            squares[start.left].append(deviation * deviation * count / (count - 1))
    variance = {left: statistics.fmean(values) for left, values in squares.items() if left > 0}
    most = max(variance)
    late = [left for left in variance if left <= most / 4]
    early = [left for left in variance if left >= most * 4 / 5]
    slope = sum(variance[left] for left in late) / sum(late)
    ceiling = statistics.fmean(variance[left] for left in early)
    measured = Field(offset_per_rug, slope, ceiling)
    widen = min(WIDENINGS, key=lambda factor: log_loss(starts[::every], measured, factor))
    return Field(offset_per_rug, slope, ceiling, widen), variance


def log_loss(starts: Sequence[Start], field: Field, widen: float) -> float:
    """The mean log loss of the winners under the chances `field` gives with its spread
    widened by `widen` (a shared win counting its share)."""
    total = 0.0
    count = 0
    for start in starts:
        means = [s.estimate + field.offset_per_rug * s.extra_rugs for s in start.seats]
        chances = best_of(means, widen * field.deviation(start.left))
        for seat, chance in zip(start.seats, chances, strict=True):
            if seat.win:
                total -= seat.win * math.log(max(chance, 1e-12))
        count += 1
    return total / max(1, count)


def report(players: int, starts: Sequence[Start]) -> list[str]:
    """The figures described in the module docstring."""
    found, variance = fit(starts)
    lines = ["rugs left  turn starts  deviation  fitted  in use"]
    counts: dict[int, int] = defaultdict(int)
    for start in starts:
        counts[start.left] += 1
    in_use = FIELDS[players]
    lines.extend(
        f"{left:9d}  {counts[left]:11d}  {math.sqrt(variance[left]):9.2f}"
        f"  {found.deviation(left):6.2f}  {in_use.deviation(left):6.2f}"
        for left in sorted(variance, reverse=True)
    )
    lines.append(
        f"fitted: offset {found.offset_per_rug:.2f} per rug held above the average hand;"
        f" variance {found.slope:.2f} per rug left, levelling off at {found.ceiling:.1f};"
        f" spread widened by {found.widen:.2f}"
    )
    lines.append("predicted chance (constants in use)  seats  predicted  won")
    brier = even = 0.0
    for start in starts:
        for seat in start.seats:
            brier += (seat.chance - seat.win) ** 2
            even += (1.0 / players - seat.win) ** 2
    chances = [(seat.chance, seat.win) for start in starts for seat in start.seats]
    lines.extend(by_tenths(chances, count_width=6))
    total = sum(len(start.seats) for start in starts)
    lines.append(
        f"Brier score {brier / total:.4f} (an even chance for every seat: {even / total:.4f})"
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ai.calibrate_chances",
        description="Measure the constants of the 3- and 4-player win chances on medium self-play.",
    )
    parser.add_argument("--players", type=int, choices=(3, 4), default=4)
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    print(f"{args.games} games of {args.players} medium players")
    for line in report(args.players, gather(args.players, args.games, args.seed, args.jobs)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
