"""`python -m engine.bench`: how fast seeded uniformly random games play.

For each player count it plays whole games from the start with `engine.playout` (the fast
path) and prints `N players: G games/s, A actions/s` (the median of 5 timed batches, which
keeps a busy machine's noise out); then the same for the rotate-after variant, and the
checked API's own rate (`engine.playout.checked_playout`: `apply` on immutable
states, with events). Each game: a random first player (and 2-player piles), random
orientation, the die by its distribution, a uniformly random legal placement and, in the
variant, a random quarter turn. An entry point only: `import engine` never imports it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from engine.dealing import deal, new_game
from engine.model import PLAYER_COUNTS, Variant
from engine.playout import checked_playout, new_fast_game, run

Rate = tuple[float, float]
"""(games per second, actions per second)."""


def _median_rate(batches: list[tuple[int, int, float]]) -> Rate:
    """The median batch's rates, from (games, actions, seconds) per batch."""
    ranked = sorted(batches, key=lambda b: b[0] / b[2])
    games, actions, seconds = ranked[len(ranked) // 2]
    return games / seconds, actions / seconds


def fast_rate(players: int, variant: Variant, games: int, seed: int, batches: int = 5) -> Rate:
    """Rates of the fast path: `games` seeded random games in `batches`, the median batch."""
    rng = random.Random(seed)
    timings = []
    per_batch = max(1, games // batches)
    for _ in range(batches):
        actions = 0
        started = time.perf_counter()
        for _ in range(per_batch):
            actions += run(new_fast_game(deal(players, variant, rng)), rng)
        timings.append((per_batch, actions, time.perf_counter() - started))
    return _median_rate(timings)


def checked_rate(players: int, variant: Variant, games: int, seed: int, batches: int = 3) -> Rate:
    """Rates of the checked API (`apply` with events) over `games` seeded random games."""
    rng = random.Random(seed)
    timings = []
    per_batch = max(1, games // batches)
    for _ in range(batches):
        actions = 0
        started = time.perf_counter()
        for _ in range(per_batch):
            final = checked_playout(new_game(deal(players, variant, rng)), rng)
            actions += len(final.history)
        timings.append((per_batch, actions, time.perf_counter() - started))
    return _median_rate(timings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.bench", description="Random-playout throughput of the engine."
    )
    parser.add_argument("--games", type=int, default=3000, help="fast games per line")
    parser.add_argument("--checked-games", type=int, default=100, help="checked games per line")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 1 or args.checked_games < 1:
        parser.error("game counts must be positive")
    standard, variant = Variant.STANDARD, Variant.ROTATE_AFTER
    lines = [(f"{n} players", fast_rate, n, standard, args.games) for n in PLAYER_COUNTS]
    lines += [(f"{n} players {variant}", fast_rate, n, variant, args.games) for n in PLAYER_COUNTS]
    lines += [
        (f"{n} players checked API", checked_rate, n, standard, args.checked_games)
        for n in PLAYER_COUNTS
    ]
    try:
        for label, measure, players, variant, games in lines:
            games_per_s, actions_per_s = measure(players, variant, games, args.seed)
            print(f"{label}: {games_per_s:.0f} games/s, {actions_per_s:.0f} actions/s", flush=True)
        print(f"(fast path: median of 5 batches of {args.games // 5} games; seed {args.seed})")
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
