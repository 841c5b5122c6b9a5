"""All chance in a game comes from its secret seed (RULES.md R13).

The setup RNG (seat shuffle, first player, 2-player piles), every die roll and the seed of every
AI decision are derived from the seed alone: a roll depends on the seed and on the log position
it fills, so a restart, a replay or a second process always gets the same roll for the same
position.
"""

from __future__ import annotations

import hashlib
import math
import random
import secrets
from fractions import Fraction

SEED_BYTES = 16


def new_seed() -> str:
    """A fresh secret seed (hex)."""
    return secrets.token_hex(SEED_BYTES)


def commitment(seed: str) -> str:
    """The SHA-256 of the seed, shown at the start and checkable once the seed is revealed."""
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def setup_rng(seed: str) -> random.Random:
    """The RNG for the seat shuffle and `engine.deal`, in that order."""
    return random.Random(_derive(seed, "setup"))


def roll(seed: str, position: int, outcomes: list[tuple[str, Fraction]]) -> str:
    """The chance outcome for log position `position` (1-based seq), drawn with exact weights."""
    if not outcomes:
        raise ValueError("no chance outcome to draw from")
    scale = math.lcm(*(probability.denominator for _, probability in outcomes))
    weights = [int(probability * scale) for _, probability in outcomes]
    rng = random.Random(_derive(seed, f"roll:{position}"))
    pick = rng.randrange(sum(weights))
    for (notation, _), weight in zip(outcomes, weights, strict=True):
        if pick < weight:
            return notation
        pick -= weight
    raise AssertionError("unreachable: pick is below the total weight")


def ai_seed(seed: str, position: int) -> int:
    """The seed of an AI decision filling log position `position`: a replay, a restart or a
    second process makes the same choice in the same position."""
    return _derive(seed, f"ai:{position}") & ((1 << 64) - 1)


def _derive(seed: str, purpose: str) -> int:
    digest = hashlib.sha256(f"marrakech:{purpose}:{seed}".encode("ascii")).digest()
    return int.from_bytes(digest, "big")
