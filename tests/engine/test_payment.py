"""R8 paying and R9 elimination: regions, who is paid, neutral rugs, last player standing."""

from __future__ import annotations

import pytest

from engine import (
    Color,
    GameEnded,
    Phase,
    PlayerEliminated,
    RugPlaced,
    TaxPaid,
    TurnStarted,
    legal_actions,
    parse_square,
    square_name,
)
from tests.engine.builders import ONTO_D4, board, of_type, play


def squares(*names: str) -> frozenset[int]:
    return frozenset(parse_square(name) for name in names)


def test_r8_mover_pays_the_owner_the_size_of_the_region() -> None:
    """R8: four yellow squares joined to d4 -> red (seat 0) pays yellow (seat 1) 4 dirhams."""
    state = board(4, [("d4d5", "yellow"), ("e4e5", "yellow")], **ONTO_D4)
    after, events = play(state, "D1")
    assert of_type(events, TaxPaid) == [
        TaxPaid(0, 1, 4, 4, Color.YELLOW, squares("d4", "d5", "e4", "e5"))
    ]
    assert after.dirhams == (26, 34, 30, 30)
    assert after.phase is Phase.PLACE


def test_r8_diagonals_do_not_connect() -> None:
    """R8: e6 touches d5 only at a corner, so the e6-f6 rug is not part of the region."""
    state = board(4, [("d4d5", "yellow"), ("e6f6", "yellow")], **ONTO_D4)
    _, events = play(state, "D1")
    assert of_type(events, TaxPaid)[0].region == squares("d4", "d5")


def test_r8_the_g_column_does_not_touch_the_a_column_of_the_next_row() -> None:
    """R8: g4 and a5 follow each other in square order but lie on opposite edges of the board,
    so the yellow rugs g3-g4 and a5-a6 are two regions, whichever one Assam lands on."""
    rugs = [("g3g4", "yellow"), ("a5a6", "yellow")]
    for assam, facing, landing, region in (
        ("g3", "S", "g4", squares("g3", "g4")),
        ("a6", "N", "a5", squares("a5", "a6")),
    ):
        state = board(4, rugs, assam=assam, facing=facing)
        after, events = play(state, "D1")
        assert after.assam == parse_square(landing)
        (tax,) = of_type(events, TaxPaid)
        assert (tax.payee, tax.owed, tax.region) == (1, 2, region)
        assert after.dirhams == (28, 32, 30, 30)


def test_r8_another_colour_breaks_the_region() -> None:
    """R8: a red rug between two yellow ones splits them."""
    state = board(4, [("c4d4", "yellow"), ("e4e5", "red"), ("f4f5", "yellow")], **ONTO_D4)
    _, events = play(state, "D1")
    (tax,) = of_type(events, TaxPaid)
    assert (tax.owed, tax.region) == (2, squares("c4", "d4"))


def test_r8_a_half_covered_rug_still_charges() -> None:
    """R8: only the visible top rug counts, even if the rest of it is covered."""
    state = board(4, [("d4d5", "yellow"), ("d5d6", "blue")], **ONTO_D4)
    _, events = play(state, "D1")
    (tax,) = of_type(events, TaxPaid)
    assert (tax.payee, tax.owed, tax.region) == (1, 1, squares("d4"))


def test_r8_region_counts_several_rugs_of_one_owner() -> None:
    """R8: the region runs through every joined square of the colour, rug after rug."""
    rugs = [("b4c4", "blue"), ("d4d5", "blue"), ("d6d7", "blue"), ("e7f7", "blue")]
    state = board(4, rugs, **ONTO_D4)
    _, events = play(state, "D1")
    (tax,) = of_type(events, TaxPaid)
    assert (tax.payee, tax.owed) == (2, 8)


@pytest.mark.parametrize(
    ("rugs", "why"),
    [
        ([], "empty square"),
        ([("d4d5", "red")], "the mover's own colour"),
    ],
)
def test_r8_no_payment(rugs: list[tuple[str, str]], why: str) -> None:
    """R8: nothing to pay on an empty square or on one's own colour."""
    state = board(4, rugs, **ONTO_D4)
    after, events = play(state, "D1")
    assert of_type(events, TaxPaid) == [], why
    assert after.dirhams == (30, 30, 30, 30)


def test_r8_two_players_pay_nothing_on_either_own_colour() -> None:
    """R8, R1: in 2 players seat 0 owns red and blue; landing on blue costs it nothing."""
    state = board(2, [("d4d5", "blue")], **ONTO_D4)
    _, events = play(state, "D1")
    assert of_type(events, TaxPaid) == []


def test_r8_two_players_each_colour_is_its_own_region() -> None:
    """R8: in 2 players red and blue (both seat 0's) do not join into one region; the payment
    names the colour landed on (blue), not the owner's first colour (red)."""
    rugs = [("d4d5", "blue"), ("e4e5", "red"), ("c4c5", "blue")]
    state = board(2, rugs, to_move=1, **ONTO_D4)
    after, events = play(state, "D1")
    assert of_type(events, TaxPaid) == [
        TaxPaid(1, 0, 4, 4, Color.BLUE, squares("c4", "c5", "d4", "d5"))
    ]
    assert after.dirhams == (34, 26)


def test_r8_r9_no_payment_on_an_eliminated_players_rug() -> None:
    """R8, R9: an eliminated player's rugs stay on the board but are neutral."""
    state = board(4, [("d4d5", "yellow")], **ONTO_D4)
    state = state._replace(eliminated=(1,), dirhams=(30, 0, 30, 30), stock=(11, 0, 12, 12))
    after, events = play(state, "D1")
    assert of_type(events, TaxPaid) == []
    assert after.dirhams == (30, 0, 30, 30)
    assert after.color_at(parse_square("d4")) is Color.YELLOW


def test_r9_paying_the_last_dirham_exactly_is_not_elimination() -> None:
    """R9: owing exactly what one holds leaves the player in, with 0 dirhams, laying a rug."""
    state = board(4, [("d4d5", "yellow"), ("e4e5", "yellow")], dirhams=(4, 30, 30, 30), **ONTO_D4)
    after, events = play(state, "D1")
    assert of_type(events, PlayerEliminated) == []
    assert after.dirhams == (0, 34, 30, 30)
    assert after.phase is Phase.PLACE
    assert after.to_move == 0
    after, events = play(after, "c3d3")
    assert of_type(events, RugPlaced)[0].seat == 0


def test_r9_owing_more_than_one_holds_eliminates() -> None:
    """R9: pay everything, out at once, no rug laid, unplaced rugs gone, next player's turn."""
    state = board(4, [("d4d5", "yellow"), ("e4e5", "yellow")], dirhams=(3, 30, 30, 30), **ONTO_D4)
    after, events = play(state, "D1")
    (tax,) = of_type(events, TaxPaid)
    assert (tax.owed, tax.paid) == (4, 3)
    assert of_type(events, PlayerEliminated) == [PlayerEliminated(0, 12)]
    assert of_type(events, RugPlaced) == []
    assert of_type(events, TurnStarted) == [TurnStarted(1, 2)]
    assert after.dirhams == (0, 33, 30, 30)
    assert after.eliminated == (0,)
    assert after.rugs_left(0) == {Color.RED: 0}
    assert after.next_rug_color(0) is None
    assert (after.phase, after.to_move) == (Phase.ORIENT, 1)
    assert sum(after.dirhams) == sum(state.dirhams)  # paid over, none lost


def test_r9_eliminated_rugs_become_neutral_and_seat_is_skipped() -> None:
    """R9: after red is out its rugs charge nobody, and red never gets a turn again."""
    rugs = [("d4d5", "yellow"), ("e4e5", "yellow"), ("b2b3", "red")]
    state = board(4, rugs, dirhams=(3, 30, 30, 30), **ONTO_D4)
    state, _ = play(state, "D1")  # red is eliminated; yellow (seat 1) to move
    movers = []
    for _ in range(4):
        movers.append(state.to_move)
        state, _ = play(state, "S", "D1")
        state, _ = play(state, legal_actions(state)[0])
    assert movers == [1, 2, 3, 1]
    # Yellow lands on the red rug at b2: no payment, red is out.
    neutral = board(4, [("b2b3", "red")], assam="b1", facing="S", to_move=1)
    neutral = neutral._replace(eliminated=(0,), dirhams=(0, 30, 30, 30), stock=(0, 12, 12, 12))
    after, events = play(neutral, "D1")
    assert of_type(events, TaxPaid) == []
    assert after.phase is Phase.PLACE


def test_r9_last_player_standing_ends_the_game() -> None:
    """R9, R11: in 2 players an elimination leaves one player, who wins."""
    state = board(2, [("d4d5", "yellow")], dirhams=(1, 59), **ONTO_D4)
    after, events = play(state, "D1")
    assert after.is_over
    assert after.to_move is None
    assert after.outcome is not None
    assert after.outcome.reason == "last-player-standing"
    assert after.outcome.ranking == ((1,), (0,))
    assert of_type(events, TurnStarted) == []


def test_r9_a_2_player_seat_that_goes_out_loses_its_whole_pile() -> None:
    """R9, R2: the unplaced rugs of a 2-player seat that goes out leave the game, pile and all."""
    state = board(2, [("d4d5", "yellow")], dirhams=(1, 59), **ONTO_D4)
    assert len(state.pile(0) or ()) == 24
    after, events = play(state, "D1")
    assert of_type(events, PlayerEliminated) == [PlayerEliminated(0, 24)]
    assert after.pile(0) == ()
    assert after.next_rug_color(0) is None
    assert after.rugs_left(0) == {Color.RED: 0, Color.BLUE: 0}
    assert after.pile(1) == state.pile(1)


def test_r9_r11_one_player_left_holding_no_rug_is_last_player_standing() -> None:
    """R9, R11: when an elimination leaves one player, who has laid every rug, both ends hold at
    once; the rules name it last-player-standing, not rugs-exhausted."""
    state = board(2, [("d4d5", "red")], dirhams=(59, 1), to_move=1, **ONTO_D4)
    assert state.piles is not None
    theirs = state.piles[1][:10]  # seat 0 has laid all its rugs; seat 1 holds ten
    stock = (0, theirs.count(Color.YELLOW.order), 0, theirs.count(Color.BROWN.order))
    state = state._replace(stock=stock, piles=((), theirs))
    assert state.rugs_in_hand(0) == 0
    after, events = play(state, "D1")  # seat 1 owes 2 for red, holds 1: out
    assert of_type(events, PlayerEliminated) == [PlayerEliminated(1, 10)]
    assert after.outcome is not None
    assert after.outcome.reason == "last-player-standing"
    assert after.outcome.ranking == ((0,), (1,))
    assert [event.reason for event in of_type(events, GameEnded)] == ["last-player-standing"]


def test_r9_later_eliminations_rank_higher() -> None:
    """R9: eliminated seats rank below every seat still in, the latest elimination first."""
    state = board(3, [("d4d5", "blue")], dirhams=(1, 2, 87), to_move=1, **ONTO_D4)
    state = state._replace(eliminated=(0,), dirhams=(0, 2, 88), stock=(0, 15, 15, 0))
    after, _ = play(state, "D1")  # seat 1 owes 2 for blue, holds 2: stays in
    assert not after.is_over
    state = state._replace(dirhams=(0, 1, 89))
    after, _ = play(state, "D1")  # seat 1 owes 2, holds 1: out; only seat 2 is left
    assert after.outcome is not None
    assert after.outcome.ranking == ((2,), (1,), (0,))
    assert after.outcome.reason == "last-player-standing"
    # The other way round, so that the order of the seats cannot stand in for that of the
    # eliminations: seat 2 went out first, then seat 1; seat 0 is left.
    state = board(3, [("d4d5", "red")], dirhams=(88, 1, 0), to_move=1, **ONTO_D4)
    stock = list(state.stock)
    stock[Color.BLUE.order] = 0
    state = state._replace(eliminated=(2,), stock=tuple(stock))
    after, _ = play(state, "D1")
    assert after.outcome is not None
    assert after.outcome.ranking == ((0,), (1,), (2,))


def test_r9_r11_elimination_leaving_no_rugs_ends_with_rugs_exhausted() -> None:
    """R11: if the players still in hold no rugs after an elimination, the game ends."""
    state = board(3, [("d4d5", "yellow")], dirhams=(1, 30, 59), **ONTO_D4)
    state = state._replace(stock=(3, 0, 0, 0))
    after, _ = play(state, "D1")
    assert after.outcome is not None
    assert after.outcome.reason == "rugs-exhausted"
    assert after.outcome.ranking[-1] == (0,)


def test_r8_payment_reports_region_squares_by_name() -> None:
    """R8: the TaxPaid region is the set of squares to highlight (here d4 and d5)."""
    state = board(4, [("d4d5", "brown")], **ONTO_D4)
    _, events = play(state, "D1")
    assert sorted(square_name(sq) for sq in of_type(events, TaxPaid)[0].region) == ["d4", "d5"]
