"""`python -m engine.bench`: how fast seeded uniformly random games play.

For each player count it plays whole games from the start with `engine.playout` (the fast
path) and prints `N players: G games/s, A actions/s`; then the same for the rotate-after
variant, and the checked API's own rate (`engine.playout.checked_playout`: `apply` on immutable
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


def fast_rate(players: int, variant: Variant, games: int, seed: int) -> tuple[float, float]:
    """(games/s, actions/s) of the fast path over `games` seeded random games."""
    rng = random.Random(seed)
    actions = 0
    started = time.perf_counter()
    for _ in range(games):
        actions += run(new_fast_game(deal(players, variant, rng)), rng)
    elapsed = time.perf_counter() - started
    return games / elapsed, actions / elapsed


def checked_rate(players: int, variant: Variant, games: int, seed: int) -> tuple[float, float]:
    """(games/s, actions/s) of the checked API over `games` seeded random games."""
    rng = random.Random(seed)
    actions = 0
    started = time.perf_counter()
    for _ in range(games):
        final = checked_playout(new_game(deal(players, variant, rng)), rng)
        actions += len(final.history)
    elapsed = time.perf_counter() - started
    return games / elapsed, actions / elapsed


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
    for players in PLAYER_COUNTS:
        games, actions = fast_rate(players, Variant.STANDARD, args.games, args.seed)
        print(f"{players} players: {games:.0f} games/s, {actions:.0f} actions/s", flush=True)
    for players in PLAYER_COUNTS:
        games, actions = fast_rate(players, Variant.ROTATE_AFTER, args.games, args.seed)
        print(
            f"{players} players rotate-after: {games:.0f} games/s, {actions:.0f} actions/s",
            flush=True,
        )
    for players in PLAYER_COUNTS:
        games, actions = checked_rate(players, Variant.STANDARD, args.checked_games, args.seed)
        print(
            f"{players} players checked API: {games:.0f} games/s, {actions:.0f} actions/s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
