"""Validate the coach's judge on self-play: `python -m ai.judge_validate --games 300`.

For each level (easy, medium, hard by default; `random` too if asked) plays seeded self-play
games (every seat that level, standard rules; game g of every level seeded with
mix_seed(seed, g), as the arena seeds its games), judges every decision of every game with
`ai.judge.judge_game`, and prints:

- per level: the decisions with a choice, the share of them in each band (inaccuracy,
  mistake, blunder), the share called a mistake or worse, and the mean of the seats' accuracy
  in their games (`ai.judge.game_accuracy`, the figure a player is shown). A judge
  worth reading calls easy's decisions blunders far more often than hard's, and hard's own
  choices almost never mistakes;
- per level, the share of those decisions that lost at least 2.5, 5, 7.5, 10 and 15 points
  (what the bands of 3 and 4 players were chosen on, docs/coach.md);
- the calibration of the chances it judges with, per level and for all levels together: for
  every judged decision with a choice, the seat's chance after the option taken against how
  the game ended for it (a win 1, a shared first place 1/2), by tenths of predicted chance
  (`ai.calibrate.by_tenths`), and how far predicted and won lie apart on average
  (`calibration_gap`: by tenths, weighted by decisions).

`--bench` instead times the judging of one whole game (4 players by default, medium
self-play) in CPU seconds of this process: the figure the bot's workers spend per analysis.
`--jobs N` plays the games in N processes; the figures do not depend on it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from ai import make_player
from ai.arena import in_processes, play_seeded
from ai.calibrate import by_tenths, seed_chunks
from ai.judge import JUDGE_WORK, Band, judge_game
from ai.prng import mix_seed
from engine.cli import run_cli
from engine.model import Variant
from engine.record import Record, record_of, replay_record
from engine.state import GameState

LEVELS = ("easy", "medium", "hard")
"""The levels validated by default: the judge must order their blunder rates."""

ALL_LEVELS = ("random", *LEVELS)
"""The levels `--levels` takes: `random` shows what choosing blindly scores."""

LOSS_STEPS = (2.5, 5.0, 7.5, 10.0, 15.0)
"""Losses (points) whose shares the report gives, whatever the number of players."""


@dataclass
class LevelTally:
    """What the judge said of one level's decisions, and the chances it judged with."""

    level: str
    games: int = 0
    decisions: int = 0
    bands: dict[str, int] = field(default_factory=dict)
    accuracies: list[float] = field(default_factory=list)
    """Each seat's accuracy in its game (seats with a decision to judge)."""
    chances: list[tuple[float, float]] = field(default_factory=list)
    """(the seat's chance after the option taken, its result) per decision with a choice."""
    losses: list[float] = field(default_factory=list)
    """The loss of each decision with a choice, in points."""

    def add(self, other: LevelTally) -> None:
        self.games += other.games
        self.decisions += other.decisions
        for band, count in other.bands.items():
            self.bands[band] = self.bands.get(band, 0) + count
        self.accuracies.extend(other.accuracies)
        self.chances.extend(other.chances)
        self.losses.extend(other.losses)

    def share(self, *bands: Band) -> float:
        """The share of the decisions with a choice that fell in `bands`."""
        return sum(self.bands.get(band.value, 0) for band in bands) / max(1, self.decisions)


def self_play(level: str, players: int, seed: int) -> Record:
    """One self-play game of `level` in every seat, from `seed` (as the arena seeds games)."""
    player = make_player(level)

    def decide(state: GameState, seat: int, ai_seed: int) -> str:
        return player.decide(state, ai_seed).action

    return record_of(play_seeded(players, Variant.STANDARD, seed, decide))


def judge_one(level: str, players: int, work: int, seed: int) -> LevelTally:
    """Play and judge one self-play game of `level`."""
    record = self_play(level, players, seed)
    final = replay_record(record)
    outcome = final.outcome
    assert outcome is not None
    winners = outcome.ranking[0]
    tally = LevelTally(level, games=1)
    judged = judge_game(record, work=work)
    tally.accuracies.extend(seat.accuracy for seat in judged.seats if seat.decisions)
    for judgement in judged.decisions:
        if judgement.forced:
            continue
        tally.decisions += 1
        tally.bands[judgement.band.value] = tally.bands.get(judgement.band.value, 0) + 1
        tally.losses.append(judgement.loss)
        won = 1.0 / len(winners) if judgement.seat in winners else 0.0
        tally.chances.append((judgement.taken_chance, won))
    return tally


def _judge_seeds(level: str, players: int, work: int, seeds: Sequence[int]) -> list[LevelTally]:
    return [judge_one(level, players, work, seed) for seed in seeds]


def validate(
    levels: Sequence[str], games: int, players: int, seed: int, work: int, jobs: int
) -> list[str]:
    """Play, judge and report (see the module); prints each level's line as it is done."""
    lines = [
        f"{players} players, {games} self-play games per level, seed {seed}, work {work}",
        "level   games  decisions  inaccuracy  mistake  blunder  mistake+  accuracy",
    ]
    print(*lines, sep="\n", flush=True)
    tallies: list[LevelTally] = []
    for level in levels:
        tally = LevelTally(level)
        chunks = seed_chunks(games, seed, jobs)
        work_of = partial(_judge_seeds, level, players, work)
        for one in in_processes(work_of, chunks, jobs):
            tally.add(one)
        line = (
            f"{level:7s} {tally.games:5d}  {tally.decisions:9d}"
            f"  {tally.share(Band.INACCURACY):10.1%}  {tally.share(Band.MISTAKE):7.1%}"
            f"  {tally.share(Band.BLUNDER):7.1%}  {tally.share(Band.MISTAKE, Band.BLUNDER):8.1%}"
            f"  {sum(tally.accuracies) / max(1, len(tally.accuracies)):8.1f}"
        )
        print(line, flush=True)
        lines.append(line)
        tallies.append(tally)
    steps = "  ".join(f"{'>= ' + format(points, 'g'):>7s}" for points in LOSS_STEPS)
    table = [f"level   {steps}  points lost"]
    for tally in tallies:
        shares = [sum(loss >= points for loss in tally.losses) for points in LOSS_STEPS]
        table.append(
            f"{tally.level:7s} "
            + "  ".join(f"{count / max(1, tally.decisions):7.1%}" for count in shares)
        )
    print(*table, sep="\n", flush=True)
    lines.extend(table)
    for tally in [*tallies, _merged(tallies)]:
        table = [f"{tally.level}: chance after the option taken  decisions  predicted  won"]
        table.extend(by_tenths(tally.chances, count_width=9))
        table.append(
            f"{tally.level}: predicted and won apart by {calibration_gap(tally.chances):.1f}"
            " points on average (by tenths, weighted by decisions)"
        )
        print(*table, sep="\n", flush=True)
        lines.extend(table)
    return lines


def calibration_gap(chances: Sequence[tuple[float, float]]) -> float:
    """How far, in points, the mean predicted chance of each tenth lies from how often its
    decisions' seats won, averaged over the decisions (0: calibrated; 0 with none)."""
    tenths: dict[int, list[tuple[float, float]]] = {}
    for chance, won in chances:
        tenths.setdefault(min(9, int(chance * 10)), []).append((chance, won))
    gap = sum(
        abs(sum(chance for chance, _ in pairs) - sum(won for _, won in pairs))
        for pairs in tenths.values()
    )
    return 100.0 * gap / max(1, len(chances))


def _merged(tallies: Sequence[LevelTally]) -> LevelTally:
    everything = LevelTally("all levels")
    for tally in tallies:
        everything.add(tally)
    return everything


def bench(players: int, seed: int, work: int) -> float:
    """CPU seconds of judging one medium self-play game of `players` (every seat)."""
    record = self_play("medium", players, mix_seed(seed, 0))
    started = time.process_time()
    judge_game(record, work=work)
    return time.process_time() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ai.judge_validate",
        description="Validate the coach's judge on self-play games, or time it (--bench).",
    )
    parser.add_argument("--games", type=int, default=300, help="self-play games per level")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=None)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=int, default=JUDGE_WORK)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--bench", action="store_true", help="time the judging of one game")
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1 or args.work < 1:
        parser.error("--games, --jobs and --work must be at least 1")
    levels = [level for level in args.levels.split(",") if level]
    if not levels or any(level not in ALL_LEVELS for level in levels):
        parser.error(f"--levels takes a comma-separated list of {', '.join(ALL_LEVELS)}")
    if args.bench:
        players = args.players or 4
        seconds = bench(players, args.seed, args.work)
        print(f"judging a {players}-player game took {seconds:.2f} s of CPU")
        return 0
    validate(levels, args.games, args.players or 2, args.seed, args.work, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
