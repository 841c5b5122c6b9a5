"""A finished game's results mark the seats that were out of the game (stats skip their score)."""

from __future__ import annotations

import random

import engine
from bot.services import Player
from bot.services.loaded import results_of


def test_results_mark_the_seats_out_of_the_game() -> None:
    for deal_seed in range(300):
        rng = random.Random(deal_seed)
        state = engine.new_game(engine.deal(3, "standard", rng))
        while not state.is_over:
            state, _ = engine.apply(state, rng.choice(engine.legal_actions(state)))
        if state.eliminated:
            break
    else:
        raise AssertionError("no game had a seat out")
    rows = results_of(state, [Player(100 + seat, seat) for seat in range(3)])
    assert {r.seat for r in rows if r.eliminated} == set(state.eliminated)
    assert not any(r.won for r in rows if r.eliminated)
