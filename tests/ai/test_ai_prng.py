"""The AI's SplitMix64 generator: the reference outputs, ranges, shuffles and seed mixing."""

from __future__ import annotations

import pytest

from ai.prng import SplitMix64, mix_seed


def test_splitmix64_reference_outputs() -> None:
    generator = SplitMix64(1234567)
    assert [generator.next64() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_ranges_and_floats_stay_in_bounds() -> None:
    generator = SplitMix64(9)
    draws = [generator.randrange(6) for _ in range(600)]
    assert set(draws) == set(range(6))
    assert all(0.0 <= generator.random() < 1.0 for _ in range(200))
    with pytest.raises(ValueError, match="positive bound"):
        generator.randrange(0)


def test_shuffle_is_a_seeded_permutation() -> None:
    items = list(range(24))
    first, second = items[:], items[:]
    SplitMix64(5).shuffle(first)
    SplitMix64(5).shuffle(second)
    assert first == second != items
    assert sorted(first) == items


def test_mix_seed_is_stable_and_spreads() -> None:
    assert mix_seed(1, 2) == mix_seed(1, 2)
    seeds = {mix_seed(game, index) for game in range(20) for index in range(20)}
    assert len(seeds) == 400
    assert mix_seed(1, 2) != mix_seed(2, 1)
    assert 0 <= mix_seed(-5, 10**30) < 2**64
