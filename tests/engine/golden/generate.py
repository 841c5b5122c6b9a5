"""Write the golden game records of this folder: `python -m tests.engine.golden.generate`.

Each game is played from a seed with uniformly random choices through the checked API
(`engine.playout.checked_playout`): the seed deals the game (first player, 2-player piles) and
then draws every choice and roll. The record keeps the seed as an extra. The games were picked
to cover 2, 3 and 4 players, the rotate-after variant, eliminations and last-player-standing
ends; tests/engine/test_golden.py checks them against hand-verified facts.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from engine import Variant, deal, new_game, record_of, record_to_json, to_position
from engine.playout import checked_playout

GOLDEN = {
    "2p-standard": (2, Variant.STANDARD, 0),
    "2p-last-player-standing": (2, Variant.STANDARD, 3),
    "3p-elimination": (3, Variant.STANDARD, 26),
    "4p-standard": (4, Variant.STANDARD, 0),
    "4p-rotate-after-elimination": (4, Variant.ROTATE_AFTER, 113),
    "3p-rotate-after-last-player-standing": (3, Variant.ROTATE_AFTER, 77),
}
"""name -> (players, variant, seed)."""

FOLDER = Path(__file__).resolve().parent


def play(players: int, variant: Variant, seed: int) -> tuple[dict[str, object], dict[str, object]]:
    """The record and final position of the seeded random game."""
    rng = random.Random(seed)
    final = checked_playout(new_game(deal(players, variant, rng)), rng)
    return record_to_json(record_of(final, seed=seed)), to_position(final)


def main() -> None:
    for name, (players, variant, seed) in GOLDEN.items():
        record, position = play(players, variant, seed)
        (FOLDER / f"{name}.json").write_text(json.dumps(record) + "\n")
        (FOLDER / f"{name}.position.json").write_text(json.dumps(position, indent=1) + "\n")


if __name__ == "__main__":
    main()
