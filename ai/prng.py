"""A small deterministic pseudo-random generator (SplitMix64) for the AI players.

The engine owns no RNG and imports no `random`; the AI players draw their tie-breaks, noise and
playout dice from this generator, seeded by the caller, so a decision depends only on the state
and the seed. It offers the methods the engine's helpers expect from an RNG: `random()`,
`randrange(n)` and `shuffle(items)`.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_T = TypeVar("_T")


class SplitMix64:
    """SplitMix64 (Steele, Lea and Flood, 2014): 64-bit state, full period, good mixing."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next64(self) -> int:
        """The next 64-bit output."""
        self._state = state = (self._state + _GOLDEN) & _MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def random(self) -> float:
        """A float in [0, 1) with 53 random bits."""
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def randrange(self, stop: int) -> int:
        """An int in [0, stop); the modulo bias is below 2**-50 for the small ranges used here."""
        if stop <= 0:
            raise ValueError("randrange needs a positive bound")
        return self.next64() % stop

    def shuffle(self, items: MutableSequence[_T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.next64() % (i + 1)
            items[i], items[j] = items[j], items[i]

    def fork(self, salt: int) -> SplitMix64:
        """An independent generator derived from this one's next output and `salt`."""
        return SplitMix64(self.next64() ^ ((salt * _GOLDEN) & _MASK))


def mix_seed(*parts: int) -> int:
    """Combine integers (e.g. a game seed and an action index) into one 64-bit seed."""
    state = SplitMix64(0x5EED)
    value = 0
    for part in parts:
        state = SplitMix64(value ^ (part & _MASK) ^ state.next64())
        value = state.next64()
    return value
