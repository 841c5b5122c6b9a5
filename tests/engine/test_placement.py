"""R10 laying a rug: touching Assam, not under him, never exactly covering one visible rug."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    CANDIDATES,
    Color,
    IllegalActionError,
    Phase,
    RugPlaced,
    legal_actions,
    parse_square,
    placement_problem,
    placements,
    placements_at,
    square_name,
)
from tests.engine.builders import board, of_type, play


def names(pairs: list[tuple[int, int]]) -> list[str]:
    return [square_name(a) + square_name(b) for a, b in pairs]


def test_r10_candidates_around_the_centre() -> None:
    """R10: from d4, every rug touching d4 but not covering it: 3 per neighbour, 12 in all."""
    state = board(4, phase=Phase.PLACE)
    expected = ["c3d3", "d2d3", "d3e3", "b4c4", "c3c4", "c4c5"]  # through d3 and c4
    expected += ["e3e4", "e4f4", "e4e5", "c5d5", "d5e5", "d5d6"]  # through e4 and d5
    assert sorted(names(placements(state))) == sorted(expected)
    assert len(placements(state)) == 12


def test_r10_candidates_in_a_corner() -> None:
    """R10: from a1 only b1 and a2 touch Assam: b1c1, b1b2, a2a3, a2b2."""
    state = board(4, assam="a1", phase=Phase.PLACE)
    assert sorted(names(placements(state))) == ["a2a3", "a2b2", "b1b2", "b1c1"]


def test_r10_placements_are_sorted_in_reading_order() -> None:
    """API: placements sorted by (first square, second square), same order as legal_actions."""
    state = board(4, phase=Phase.PLACE)
    pairs = placements(state)
    assert pairs == sorted(pairs)
    assert legal_actions(state) == names(pairs)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("a1a2", "must touch Assam's square"),
        ("d4d5", "cannot cover Assam's square"),
        ("d3d4", "cannot cover Assam's square"),
        ("c3d4", "two squares side by side"),
        ("d3d5", "two squares side by side"),
        ("d3", "lay a rug on two squares"),
        ("h1h2", "lay a rug on two squares"),
    ],
)
def test_r10_illegal_placements_say_why(action: str, message: str) -> None:
    """R10: each illegal placement is refused with the reason in plain words."""
    state = board(4, phase=Phase.PLACE)
    with pytest.raises(IllegalActionError, match=message):
        play(state, action)


@pytest.mark.parametrize("owner", ["red", "yellow", "blue", "brown"])
def test_r10_never_exactly_cover_one_rug_of_any_owner(owner: str) -> None:
    """R10: the two squares may not both show the same rug, the mover's own included."""
    state = board(4, [("d3e3", owner)], phase=Phase.PLACE)
    assert "d3e3" not in legal_actions(state)
    with pytest.raises(IllegalActionError, match=r"^a rug cannot exactly cover another rug"):
        play(state, "e3d3")


def test_r10_covering_half_a_rug_is_allowed() -> None:
    """R10: an empty square and half a rug, or half a rug lying elsewhere, may be covered."""
    state = board(4, [("e2e3", "yellow")], phase=Phase.PLACE)
    assert {"d3e3", "e3e4"} <= set(legal_actions(state))


def test_r10_two_halves_of_different_rugs_of_one_colour_are_allowed() -> None:
    """R10: two squares showing halves of two different rugs may be covered, same colour too."""
    state = board(4, [("c3d3", "red"), ("e3f3", "red")], phase=Phase.PLACE)
    assert "d3e3" in legal_actions(state)
    after, events = play(state, "d3e3")
    assert of_type(events, RugPlaced) == [
        RugPlaced(0, Color.RED, (parse_square("d3"), parse_square("e3")), 3)
    ]
    assert after.cells[parse_square("c3")] == 1
    assert after.cells[parse_square("f3")] == 2


def test_r10_the_squares_of_a_rug_half_covered_may_be_laid_over_again() -> None:
    """R10: once one half of a rug is covered, its two squares no longer show one rug, so a
    new rug may lie exactly where it lay; that new rug, whole, may not be covered exactly."""
    state = board(4, [("d3e3", "blue"), ("e2e3", "brown")], phase=Phase.PLACE)
    assert "d3e3" in legal_actions(state)
    after, events = play(state, "d3e3")
    d3, e3 = parse_square("d3"), parse_square("e3")
    assert of_type(events, RugPlaced) == [RugPlaced(0, Color.RED, (d3, e3), 3)]
    assert after.cells[d3] == after.cells[e3] == 3
    again = after._replace(phase=Phase.PLACE, to_move=1)
    assert "d3e3" not in legal_actions(again)


def test_r10_new_rug_lies_on_top_with_the_next_number() -> None:
    """R10: the rug covers both squares; rugs are numbered in laying order (FORMATS.md)."""
    state = board(4, [("d3e3", "yellow")], phase=Phase.PLACE)
    after, _ = play(state, "d2d3")
    d2, d3, e3 = (parse_square(n) for n in ("d2", "d3", "e3"))
    assert after.cells[d2] == after.cells[d3] == 2
    assert after.color_at(d3) is Color.RED
    assert after.color_at(e3) is Color.YELLOW
    assert after.rugs_left(0) == {Color.RED: 11}


def test_r10_either_square_order_is_accepted_and_written_lower_first() -> None:
    """FORMATS.md 1: 'd3c3' is accepted and kept as 'c3d3' in the history."""
    state = board(4, phase=Phase.PLACE)
    after, _ = play(state, "d3c3")
    assert after.history[-1] == "c3d3"


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    assam=st.integers(0, 48),
    rugs=st.lists(st.sampled_from(sorted({p for ps in CANDIDATES for p in ps})), max_size=30),
)
def test_r10_placements_match_a_brute_force_reading_of_the_rule(
    assam: int, rugs: list[tuple[int, int]]
) -> None:
    """R10 against an independent brute force over all square pairs; never empty."""
    state = board(4, phase=Phase.PLACE)
    number = 0
    cells = list(state.cells)
    for a, b in rugs:
        number += 1
        cells[a] = cells[b] = number
    state = state._replace(cells=tuple(cells), assam=assam, rugs_laid=number)

    def near(x: int, y: int) -> bool:
        return abs(x // 7 - y // 7) + abs(x % 7 - y % 7) == 1

    expected = [
        (a, b)
        for a in range(49)
        for b in range(a + 1, 49)
        if near(a, b)
        and assam not in (a, b)
        and (near(a, assam) or near(b, assam))
        and not (cells[a] and cells[a] == cells[b])
    ]
    assert placements(state) == placements_at(cells, assam) == expected
    assert expected, "R10: there is always at least one legal placement"
    for a, b in expected:
        assert placement_problem(state.cells, assam, a, b) is None
