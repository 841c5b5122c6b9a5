"""R4-R7: turning Assam (never 180), the die, walking straight and every border mosaic exit."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine import (
    CHANCE,
    AssamMoved,
    AssamTurned,
    DieRolled,
    Facing,
    IllegalActionError,
    Phase,
    Variant,
    chance_outcomes,
    current_player,
    legal_actions,
    orientations,
    parse_square,
    square_name,
    walk,
)
from tests.engine.builders import board, of_type, play, start

# R7, written out by hand from RULES.md, one line per border square and outward facing:
# (square, facing) -> (square reached by the one step, new facing).
BORDER_EXITS = {
    # North edge (row 1): pairs {a,b} {c,d} {e,f}; g1 is the top-right corner arc.
    ("a1", "N"): ("b1", "S"),
    ("b1", "N"): ("a1", "S"),
    ("c1", "N"): ("d1", "S"),
    ("d1", "N"): ("c1", "S"),
    ("e1", "N"): ("f1", "S"),
    ("f1", "N"): ("e1", "S"),
    ("g1", "N"): ("g1", "W"),
    # West edge (column a): pairs {1,2} {3,4} {5,6}; a7 is the bottom-left corner arc.
    ("a1", "W"): ("a2", "E"),
    ("a2", "W"): ("a1", "E"),
    ("a3", "W"): ("a4", "E"),
    ("a4", "W"): ("a3", "E"),
    ("a5", "W"): ("a6", "E"),
    ("a6", "W"): ("a5", "E"),
    ("a7", "W"): ("a7", "N"),
    # South edge (row 7): a7 is the corner arc; pairs {b,c} {d,e} {f,g}.
    ("a7", "S"): ("a7", "E"),
    ("b7", "S"): ("c7", "N"),
    ("c7", "S"): ("b7", "N"),
    ("d7", "S"): ("e7", "N"),
    ("e7", "S"): ("d7", "N"),
    ("f7", "S"): ("g7", "N"),
    ("g7", "S"): ("f7", "N"),
    # East edge (column g): g1 is the corner arc; pairs {2,3} {4,5} {6,7}.
    ("g1", "E"): ("g1", "S"),
    ("g2", "E"): ("g3", "W"),
    ("g3", "E"): ("g2", "W"),
    ("g4", "E"): ("g5", "W"),
    ("g5", "E"): ("g4", "W"),
    ("g6", "E"): ("g7", "W"),
    ("g7", "E"): ("g6", "W"),
}


def test_r7_there_are_28_border_exits() -> None:
    """R7: 7 squares on each of the 4 edges, each with one outward facing."""
    assert len(BORDER_EXITS) == 28


@pytest.mark.parametrize(("origin", "target"), sorted(BORDER_EXITS.items()))
def test_r7_border_exit(origin: tuple[str, str], target: tuple[str, str]) -> None:
    """R7: one step off the board follows the mosaic arc, counts as one step, flags the arc."""
    (step,) = walk(parse_square(origin[0]), Facing[origin[1]], 1)
    assert (square_name(step.square), step.facing.name) == target
    assert step.via_border


@pytest.mark.parametrize(
    ("origin", "steps", "target"),
    [
        (("a1", "N"), 1, ("b1", "S")),
        (("g1", "N"), 1, ("g1", "W")),
        (("g5", "E"), 1, ("g4", "W")),
        (("b7", "S"), 1, ("c7", "N")),
        (("g1", "N"), 3, ("e1", "W")),  # RULES.md R7: (0,6) facing N, 3 steps -> (0,4) facing W
        (("d4", "N"), 3, ("d1", "N")),
        (("d4", "N"), 4, ("c1", "S")),  # 3 steps up, then the arc over to c1
        (("a7", "S"), 4, ("d7", "E")),  # the corner arc turns him east, then 3 more steps
    ],
)
def test_r6_r7_walks(origin: tuple[str, str], steps: int, target: tuple[str, str]) -> None:
    """R6, R7: Assam walks straight; the arc and the square it lands on are one step."""
    path = walk(parse_square(origin[0]), Facing[origin[1]], steps)
    assert len(path) == steps
    assert (square_name(path[-1].square), path[-1].facing.name) == target


def test_r6_path_inside_the_board_has_no_arcs() -> None:
    """R6: d4 facing E, 3 steps: e4, f4, g4, no border arc."""
    path = walk(parse_square("d4"), Facing.E, 3)
    assert [square_name(step.square) for step in path] == ["e4", "f4", "g4"]
    assert not any(step.via_border for step in path)


def test_r4_orient_choices_are_left_straight_right() -> None:
    """R4: the mover keeps the facing or turns a quarter left or right."""
    state = start(4)
    assert state.phase is Phase.ORIENT
    assert legal_actions(state) == ["L", "S", "R"]
    for action, facing in (("L", Facing.W), ("S", Facing.N), ("R", Facing.E)):
        after, events = play(state, action)
        assert after.facing is facing
        assert after.phase is Phase.ROLL
        assert of_type(events, AssamTurned) == [AssamTurned(0, action, facing)]


@pytest.mark.parametrize("facing", list(Facing))
def test_r4_r12_orientations_give_each_turn_with_its_facing(facing: Facing) -> None:
    """R4: orient L, S, R turn a quarter left, keep, turn a quarter right; R12: after laying,
    only L and R. Each is listed with the facing `apply` gives; other phases offer none."""
    left, right = Facing((facing + 3) % 4), Facing((facing + 1) % 4)
    orient = board(4, facing=facing.name, phase=Phase.ORIENT)
    assert orientations(orient) == [("L", left), ("S", facing), ("R", right)]
    rotate = board(4, facing=facing.name, phase=Phase.ROTATE, variant=Variant.ROTATE_AFTER)
    assert orientations(rotate) == [("L", left), ("R", right)]
    for state in (orient, rotate):
        assert [action for action, _ in orientations(state)] == legal_actions(state)
        for action, turned in orientations(state):
            assert play(state, action)[0].facing is turned
    for phase in (Phase.ROLL, Phase.PLACE):
        assert orientations(board(4, facing=facing.name, phase=phase)) == []


@pytest.mark.parametrize("action", ["U", "B", "180", "LL", "N", "x"])
def test_r4_assam_never_turns_around(action: str) -> None:
    """R4: no 180-degree turn, and nothing but L, S or R, at the orient step."""
    with pytest.raises(IllegalActionError, match="cannot turn around"):
        play(start(4), action)


def test_r5_die_faces_are_1_2_2_3_3_4() -> None:
    """R5: six faces 1, 2, 2, 3, 3, 4 -> exact probabilities 1/6, 1/3, 1/3, 1/6."""
    state, _ = play(start(4), "S")
    assert current_player(state) == CHANCE
    assert legal_actions(state) == ["D1", "D2", "D3", "D4"]
    outcomes = chance_outcomes(state)
    assert outcomes == [
        ("D1", Fraction(1, 6)),
        ("D2", Fraction(1, 3)),
        ("D3", Fraction(1, 3)),
        ("D4", Fraction(1, 6)),
    ]
    assert sum(p for _, p in outcomes) == 1
    assert chance_outcomes(start(4)) == []  # no roll is due at the orient step


@pytest.mark.parametrize("action", ["D0", "D5", "D6", "d3", "3"])
def test_r5_only_faces_1_to_4_exist(action: str) -> None:
    """R5: there is no 5 or 6 on the die (one rulebook-derived text says 1-6: wrong)."""
    state, _ = play(start(4), "S")
    with pytest.raises(IllegalActionError, match="time to roll"):
        play(state, action)


def test_r6_roll_moves_assam_and_reports_the_path() -> None:
    """R6: after 'R' (facing E) a 4 takes him e4, f4, g4 and round the arc to g5 facing W."""
    state, events = play(start(4), "R", "D4")
    assert (square_name(state.assam), state.facing) == ("g5", Facing.W)
    assert of_type(events, DieRolled) == [DieRolled(0, 4)]
    (moved,) = of_type(events, AssamMoved)
    assert moved.start == parse_square("d4")
    assert moved.start_facing is Facing.E
    assert [square_name(s.square) for s in moved.path] == ["e4", "f4", "g4", "g5"]
    assert [s.via_border for s in moved.path] == [False, False, False, True]
    assert moved.end == state.assam
    assert moved.facing is Facing.W
    assert state.last_roll == 4


def test_r6_moving_takes_the_facing_set_before_the_roll() -> None:
    """R4, R6: the walk starts in the facing chosen at the orient step."""
    state = board(4, facing="S", phase=Phase.ORIENT)
    after, _ = play(state, "L", "D2")  # S turned left is E
    assert square_name(after.assam) == "f4"
