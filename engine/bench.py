"""`python -m engine.bench`: how fast seeded uniformly random games play.

For each player count it plays whole games from the start with `engine.playout` (the fast
path) and prints `N players: G games/s, A actions/s`; then the same for the rotate-after
variant, and the checked API's own rate (`engine.playout.checked_playout`: `apply` on
immutable states, with events). Each game: a random first player (and 2-player piles),
random orientation, the die by its distribution, a uniformly random legal placement and, in
the variant, a random quarter turn.

Each line is the median of several timed batches. Time is this process's CPU time by default
(`--clock cpu`), so other programs busy on the machine do not count against the engine;
`--clock wall` times by the wall clock instead. An entry point only: `import engine` never
imports this module.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from engine.cli import run_cli
from engine.dealing import deal, new_game
from engine.model import PLAYER_COUNTS, Variant
from engine.playout import checked_playout, new_fast_game, run

Rate = tuple[float, float]
"""(games per second, actions per second)."""

CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def fast_game(players: int, variant: Variant, rng: random.Random) -> int:
    """One seeded random game on the fast path; returns the number of actions."""
    return run(new_fast_game(deal(players, variant, rng)), rng)


def checked_game(players: int, variant: Variant, rng: random.Random) -> int:
    """One seeded random game through the checked API; returns the number of actions."""
    return len(checked_playout(new_game(deal(players, variant, rng)), rng).history)


def measure(
    game: Callable[[int, Variant, random.Random], int],
    players: int,
    variant: Variant,
    games: int,
    *,
    seed: int,
    batches: int,
    clock: Callable[[], float],
) -> Rate:
    """Play `games` games in `batches`; the rates of the median batch (by games/s)."""
    rng = random.Random(seed)
    per_batch = max(1, games // batches)
    rates = []
    for _ in range(batches):
        actions = 0
        started = clock()
        for _ in range(per_batch):
            actions += game(players, variant, rng)
        seconds = max(clock() - started, 1e-9)
        rates.append((per_batch / seconds, actions / seconds))
    rates.sort()
    return rates[len(rates) // 2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.bench", description="Random-playout throughput of the engine."
    )
    parser.add_argument("--games", type=int, default=3000, help="fast games per line")
    parser.add_argument("--checked-games", type=int, default=90, help="checked games per line")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = parser.parse_args(argv)
    if args.games < 1 or args.checked_games < 1:
        parser.error("game counts must be positive")
    standard, variant = Variant.STANDARD, Variant.ROTATE_AFTER
    lines = [(f"{n} players", fast_game, n, standard, args.games, 5) for n in PLAYER_COUNTS]
    lines += [
        (f"{n} players {variant}", fast_game, n, variant, args.games, 5) for n in PLAYER_COUNTS
    ]
    lines += [
        (f"{n} players checked API", checked_game, n, standard, args.checked_games, 3)
        for n in PLAYER_COUNTS
    ]
    clock = CLOCKS[args.clock]
    for label, game, players, game_variant, games, batches in lines:
        games_per_s, actions_per_s = measure(
            game, players, game_variant, games, seed=args.seed, batches=batches, clock=clock
        )
        print(f"{label}: {games_per_s:.0f} games/s, {actions_per_s:.0f} actions/s", flush=True)
    print(
        f"(median of timed batches; {args.clock} clock; fast lines {args.games} games, "
        f"checked lines {args.checked_games}; seed {args.seed})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
