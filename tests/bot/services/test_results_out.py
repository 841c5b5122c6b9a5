"""A finished game's results mark the seats that were out of the game (stats skip their score),
number a place after a shared one counting everyone above it (1, 1, 3), and keep each seat's
first colour."""

from __future__ import annotations

import random

import engine
from bot.presentation import presenter
from bot.services import Player
from bot.services.loaded import results_of


def ended(players: int, ranking: tuple[tuple[int, ...], ...]) -> engine.GameState:
    """A game of `players` seats over with `ranking` (groups of tied seats, best first)."""
    state = engine.new_game(engine.deal(players, "standard", random.Random(0)))
    tie_break = "shared" if len(ranking[0]) > 1 else "score"
    return state._replace(
        phase=engine.Phase.OVER,
        to_move=None,
        outcome=engine.Outcome(ranking, "rugs-exhausted", tie_break),
    )


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


def test_a_place_after_a_shared_one_counts_everyone_above() -> None:
    three = results_of(ended(3, ((0, 1), (2,))), [Player(100 + seat, seat) for seat in range(3)])
    assert [(r.seat, r.place, r.won) for r in three] == [(0, 1, True), (1, 1, True), (2, 3, False)]
    four = results_of(
        ended(4, ((3,), (0, 2), (1,))), [Player(100 + seat, seat) for seat in range(4)]
    )
    assert [(r.seat, r.place) for r in four] == [(0, 2), (1, 4), (2, 2), (3, 1)]
    assert [r.seat for r in four if r.won] == [3]
    assert all(r.rated_place is None for r in (*three, *four)), "no substitute: no rated place"


def test_a_two_player_seat_is_stored_in_the_colour_its_posts_show_first() -> None:
    """The colour a result keeps (the stats' favourite colour) is the seat's first: the first
    square the final message shows for it, the turn embed's colour (of 2 seats, red and
    yellow), never its second."""
    state = ended(2, ((0,), (1,)))
    rows = results_of(state, [Player(100, 0), Player(101, 1)])
    for row in rows:
        shown_first = presenter._dots(state, row.seat)[0]
        assert presenter.COLOR_DOTS[engine.Color(row.color)] == shown_first, (row.seat, row.color)
    assert [row.color for row in rows] == ["red", "yellow"]
