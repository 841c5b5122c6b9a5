"""`python -m engine.ai.calibrate`: how well hard's leaf evaluation predicts a duel's end.

Plays seeded 2-player games of `medium` against itself and, at every turn start (the seat to
move about to turn Assam, which is where hard's search leaves its 2-player leaves), records
`position_value(state, mover)` and the mover's final margin (its total minus its rival's).
Per stage of the game (4 rugs laid at a time) it fits the margin as a straight line in the
value and prints the slope, the intercept (the edge of being the one to move), and the spread
of the margins around the line (their standard deviation). `engine.ai.evaluation` turns a
value into a chance of winning with these figures (`MOVER_EDGE`, `MARGIN_SPREAD`).

An entry point only: `import engine` never imports this module.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from engine.ai.evaluation import position_value
from engine.ai.medium import MediumPlayer
from engine.ai.prng import mix_seed
from engine.cli import run_cli
from engine.dealing import deal, new_game
from engine.model import Phase, Variant
from engine.rules import CHANCE, DIE_FACES, apply, current_player, scores

STAGE = 4
"""Rugs laid per stage of the game in the report."""


@dataclass(frozen=True)
class Fit:
    """The margin as a line in the value over one stage: margin ~ slope * value + edge."""

    samples: int
    slope: float
    edge: float
    spread: float


def duel_samples(game_seed: int) -> list[tuple[int, float, int]]:
    """One medium-against-medium duel: (rugs laid, value for the mover, final margin) at every
    turn start."""
    state = new_game(deal(2, Variant.STANDARD, random.Random(mix_seed(game_seed, 1))))
    dice = random.Random(mix_seed(game_seed, 2))
    player = MediumPlayer()
    starts: list[tuple[int, float, int]] = []
    while (seat := current_player(state)) is not None:
        if seat == CHANCE:
            action = f"D{DIE_FACES[dice.randrange(len(DIE_FACES))]}"
        else:
            if state.phase is Phase.ORIENT:
                starts.append((state.rugs_laid, position_value(state, seat), seat))
            action = player.decide(state, mix_seed(game_seed, 3, len(state.history))).action
        state, _ = apply(state, action)
    totals = [score.total for score in scores(state)]
    return [(laid, value, totals[mover] - totals[1 - mover]) for laid, value, mover in starts]


def fit_line(points: Sequence[tuple[float, int]]) -> Fit:
    """Least squares: the margin as slope * value + edge, and the residuals' spread."""
    count = len(points)
    mean_x = sum(x for x, _ in points) / count
    mean_y = sum(y for _, y in points) / count
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in points)
    slope = sxy / sxx if sxx else 0.0
    edge = mean_y - slope * mean_x
    residual = sum((y - slope * x - edge) ** 2 for x, y in points) / count
    return Fit(count, slope, edge, math.sqrt(residual))


def calibrate(games: int, seed: int) -> dict[int, Fit]:
    """Per stage (the first rugs-laid count of it): the fit over `games` seeded duels."""
    stages: dict[int, list[tuple[float, int]]] = {}
    for game in range(games):
        for laid, value, margin in duel_samples(mix_seed(seed, game)):
            stages.setdefault(laid - laid % STAGE, []).append((value, margin))
    return {stage: fit_line(points) for stage, points in sorted(stages.items()) if points}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.ai.calibrate",
        description="Fit duel margins against hard's leaf evaluation (medium self-play).",
    )
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    print("rugs laid  samples  slope  mover edge  spread")
    for stage, fit in calibrate(args.games, args.seed).items():
        print(
            f"{stage:2d}-{stage + STAGE - 1:<2d}     {fit.samples:7d}  {fit.slope:5.2f}"
            f"  {fit.edge:+10.2f}  {fit.spread:6.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
