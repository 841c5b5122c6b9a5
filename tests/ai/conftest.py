"""Positions for the AI tests: decision nodes from seeded random games of every kind.

All player counts, both variants, 2-player piles, openings, middles, the last turns of a game,
seats that resigned or went broke, and a mover with no dirhams left.
"""

from __future__ import annotations

import random

import pytest

from engine import CHANCE, Variant, apply, current_player, deal, legal_actions, new_game, resign
from engine.state import GameState


def random_game(players: int, variant: Variant, seed: int) -> list[GameState]:
    """Every decision state of one uniformly random game (dice and choices from `seed`)."""
    rng = random.Random(seed)
    state = new_game(deal(players, variant, rng))
    found = []
    while (seat := current_player(state)) is not None:
        if seat != CHANCE:
            found.append(state)
        if seat == CHANCE:
            action = rng.choice(["D1", "D2", "D2", "D3", "D3", "D4"])
        else:
            action = rng.choice(legal_actions(state))
        state, _ = apply(state, action)
    return found


def sample_positions() -> list[GameState]:
    """A varied, seeded sample of decision nodes (about a hundred)."""
    chosen: list[GameState] = []
    for players in (2, 3, 4):
        for variant in Variant:
            for seed in (1, 2):
                game = random_game(players, variant, seed * 10 + players)
                picks = sorted(
                    {0, 1, 2, len(game) // 3, len(game) // 2, *range(len(game) - 5, len(game))}
                )
                chosen.extend(game[i] for i in picks if 0 <= i < len(game))
    chosen.extend(_with_eliminations())
    return chosen


def _with_eliminations() -> list[GameState]:
    """Positions where seats are out (resigned, or about to go broke) and a penniless mover."""
    found = []
    for players in (3, 4):
        for variant in Variant:
            game = random_game(players, variant, 77 + players)
            state = game[len(game) // 3]
            assert state.to_move is not None
            out = (state.to_move + 1) % players
            state, _ = resign(state, out)
            while current_player(state) == CHANCE:
                state, _ = apply(state, "D2")
            if current_player(state) is not None:
                found.append(state)
    for players in (2, 3, 4):
        game = random_game(players, Variant.STANDARD, 91 + players)
        state = game[len(game) // 2]
        broke = tuple(0 if seat == state.to_move else d for seat, d in enumerate(state.dirhams))
        found.append(state._replace(dirhams=broke))
    return found


POSITIONS = sample_positions()


@pytest.fixture(scope="session")
def positions() -> list[GameState]:
    return POSITIONS
