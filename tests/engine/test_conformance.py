"""Conformance: the public records replay to their positions; vector kinds follow FORMATS.md 4.

The records and vectors are copies kept in tests/data/conformance/ (see tests/data/README.md).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Phase, from_position, record_from_json, replay_record, to_position
from engine.vectors import evaluate, main, winner
from tests.conftest import DATA_DIR
from tests.engine.mutation import mutate

CONFORMANCE = DATA_DIR / "conformance"
PUBLIC_RECORDS = sorted((CONFORMANCE / "records").glob("game-????.json"))


def test_the_public_records_are_there() -> None:
    assert len(PUBLIC_RECORDS) >= 24


@pytest.mark.parametrize("path", PUBLIC_RECORDS, ids=lambda p: p.stem)
def test_public_record_replays_to_its_position(path: Path) -> None:
    """R1-R13 end to end: each public record replays to exactly its position (as JSON), a
    finished game's, which reads back through from_position to itself."""
    state = replay_record(record_from_json(json.loads(path.read_text())))
    expected = json.loads(path.with_suffix(".position.json").read_text())
    assert to_position(state) == expected
    again = from_position(expected)
    assert again.phase is Phase.OVER
    assert to_position(again) == expected


def empty_board() -> list[list[Any]]:
    return [[None] * 7 for _ in range(7)]


def light(board: list[list[Any]] | None = None, **assam: Any) -> dict[str, Any]:
    players = [
        {"color": letter, "dirhams": 30, "rugs_left": 15, "in_game": True} for letter in "cyp"
    ]
    return {
        "board": board or empty_board(),
        "assam": {"row": 3, "col": 3, "facing": "N", **assam},
        "players": players,
    }


def case(kind: str, body: dict[str, Any], expected: Any) -> str:
    return evaluate({"id": "t", "kind": kind, "input": body, "expected": expected}).status


@pytest.mark.parametrize(
    ("rotation", "facing"),
    [
        (0, "N"),
        (90, "E"),
        (270, "W"),
        (180, "N"),
        (45, "N"),
        (90.0, "N"),
        (-90, "N"),
        (450, "N"),
        (360, "N"),
        (630, "N"),
        (True, "N"),
    ],
)
def test_r4_rotate_assam_vectors(rotation: Any, facing: str) -> None:
    """FORMATS.md 4, R4: only the integers 0, 90 and 270 turn him; anything else changes
    nothing: 180, 45, 90.0, True, and -90 or 450, which name a legal turn only modulo 360."""
    body = {"assam": {"row": 1, "col": 1, "facing": "N"}, "rotation": rotation}
    expected = {"assam": {"row": 1, "col": 1, "facing": facing}}
    assert case("rotate_assam", body, expected) == "passed"


@pytest.mark.parametrize("steps", [0, 5, -1, True, 2.0, "3", None])
def test_r6_move_assam_takes_1_to_4_steps_and_fails_other_counts_as_bad_input(steps: Any) -> None:
    """FORMATS.md 4: `steps` is 1..4. Any other count fails that case as bad input; it never
    answers, nor crashes the runner."""
    body = {"assam": {"row": 1, "col": 1, "facing": "N"}, "steps": steps}
    verdict = evaluate({"id": "s", "kind": "move_assam", "input": body, "expected": None})
    assert verdict.status == "failed"
    assert verdict.detail == 'bad input: "steps" must be 1, 2, 3 or 4'


def test_a_vectors_file_with_a_bad_case_counts_it_failed_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """engine.vectors: a case it cannot answer is a failure, counted and named; the cases
    after it still run, and the run ends with its summary line and exit status 1."""
    assam = {"row": 1, "col": 1, "facing": "N"}
    cases = [
        {
            "id": "zero",
            "kind": "move_assam",
            "input": {"assam": assam, "steps": 0},
            "expected": {"assam": assam},
        },
        {
            "id": "one",
            "kind": "move_assam",
            "input": {"assam": assam, "steps": 1},
            "expected": {"assam": {**assam, "row": 0}},
        },
    ]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"format": "marrakech-vectors/1", "cases": cases}))
    status = main([str(path)])
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f'FAIL {path} zero (move_assam): bad input: "steps" must be 1, 2, 3 or 4',
        "move_assam: 1 passed, 1 failed",
        "1 passed, 1 failed",
    ]
    assert status == 1


def rug(letter: str, rug_id: int) -> dict[str, Any]:
    return {"color": letter, "rug_id": rug_id}


def placing(body: dict[str, Any], letter: str, rug_id: int, *squares: tuple[int, int]) -> None:
    body["rug"] = {
        "color": letter,
        "rug_id": rug_id,
        "squares": [{"row": r, "col": c} for r, c in squares],
    }


@pytest.mark.parametrize(
    ("letter", "rug_id", "squares", "why"),
    [
        ("c", 1, ((3, 3), (3, 4)), "R10: under Assam"),
        ("c", 1, ((0, 0), (0, 1)), "R10: not touching Assam"),
        ("c", 1, ((2, 3), (2, 5)), "not side by side"),
        ("c", 1, ((2, 6), (2, 7)), "off the board"),
        ("z", 1, ((2, 3), (2, 4)), "a colour no player has"),
        ("y", 5, ((2, 3), (2, 4)), "(y, 5) is already visible"),
        ("p", 1, ((2, 3), (2, 4)), "that player has no rugs left"),
        ("y", 9, ((2, 2), (2, 3)), "R10: exactly covers rug (y, 5)"),
    ],
)
def test_r10_make_placement_unchanged(
    letter: str, rug_id: int, squares: tuple[tuple[int, int], ...], why: str
) -> None:
    """FORMATS.md 4: an invalid placement leaves the state as it was, marked unchanged."""
    board = empty_board()
    board[2][2] = board[2][3] = rug("y", 5)
    body = light(board)
    body["players"][2]["rugs_left"] = 0
    placing(body, letter, rug_id, *squares)
    expected = {key: body[key] for key in ("board", "assam", "players")}
    assert case("make_placement", body, {**expected, "unchanged": True}) == "passed", why


def test_r10_make_placement_lays_the_rug_for_an_out_player_too() -> None:
    """FORMATS.md 4: both squares show the rug, its player has one fewer; out players allowed."""
    body = light()
    body["players"][1]["in_game"] = False
    body["players"][1]["dirhams"] = 0
    placing(body, "y", 0, (2, 3), (1, 3))
    board = empty_board()
    board[1][3] = board[2][3] = rug("y", 0)
    players = [dict(p) for p in body["players"]]
    players[1]["rugs_left"] = 14
    expected = {"board": board, "assam": body["assam"], "players": players, "unchanged": False}
    assert case("make_placement", body, expected) == "passed"


def test_r8_payment_amount_and_r11_game_over_vectors() -> None:
    """R8 region size under Assam regardless of who pays; R11 over when nobody holds rugs."""
    board = empty_board()
    board[3][3] = board[3][4] = rug("c", 0)
    board[2][4] = board[1][4] = rug("c", 1)
    board[4][3] = rug("y", 0)
    body = light(board)
    assert case("payment_amount", body, 4) == "passed"
    assert case("is_game_over", body, False) == "passed"
    for player in body["players"]:
        player["rugs_left"] = 0
    assert case("is_game_over", body, True) == "passed"
    # c: 30 + 4 visible, y: 30 + 1, p: 30 + 0 -> c wins.
    assert case("winner", body, "c") == "passed"


def test_r8_payment_amount_counts_the_region_of_a_player_who_is_out() -> None:
    """FORMATS.md 4: payment_amount is the size of the region under Assam regardless of who
    pays, also when its rugs are those of a player who is out (whom no one pays, R9)."""
    board = empty_board()
    board[3][3] = board[3][4] = rug("y", 0)
    board[2][4] = rug("y", 1)
    body = light(board)
    body["players"][1].update(dirhams=0, in_game=False)
    assert case("payment_amount", body, 3) == "passed"


@pytest.mark.parametrize(
    ("assam", "squares", "valid"),
    [
        ((3, 6), ((2, 6), (2, 5)), True),
        ((3, 6), ((2, 6), (2, 7)), False),
        ((3, 6), ((3, 7), (2, 7)), False),
        ((0, 3), ((0, 2), (-1, 2)), False),
        ((6, 0), ((6, 1), (7, 1)), False),
    ],
)
def test_r10_is_placement_valid_is_false_for_a_rug_off_the_board(
    assam: tuple[int, int], squares: tuple[tuple[int, int], ...], valid: bool
) -> None:
    """FORMATS.md 4, R10: a rug lies on two squares of the board; one with a square off it is
    not valid, even with its other square touching Assam at the board's edge."""
    body = light(row=assam[0], col=assam[1])
    placing(body, "c", 1, *squares)
    assert case("is_placement_valid", body, valid) == "passed"


@pytest.mark.parametrize("out", [False, True])
def test_r10_is_placement_valid_ignores_the_rugs_left(out: bool) -> None:
    """FORMATS.md 4: is_placement_valid is R10's geometry only: a placement touching Assam is
    valid though no player holds a rug (or the game is over, the players being out)."""
    body = light()
    for player in body["players"]:
        player.update(rugs_left=0, in_game=not out)
    placing(body, "c", 1, (2, 3), (1, 3))
    assert case("is_placement_valid", body, True) == "passed"


def test_r11_winner_tie_and_not_over() -> None:
    """R11: "n" while the game goes on; "t" when score and dirhams are equal."""
    body = light()
    assert case("winner", body, "n") == "passed"
    for player in body["players"]:
        player["rugs_left"] = 0
    assert case("winner", body, "t") == "passed"
    body["players"][2]["dirhams"] = 31
    assert case("winner", body, "p") == "passed"


def test_r9_one_player_left_is_game_over() -> None:
    """R9: with one player still in, the game is over (even with rugs left)."""
    body = light()
    for player in body["players"][1:]:
        player["in_game"] = False
    assert case("is_game_over", body, True) == "passed"
    assert case("winner", body, "c") == "passed"


def test_r11_rugs_of_a_player_who_is_out_do_not_keep_the_game_going() -> None:
    """FORMATS.md 4, R11: over when every player still in has no rugs left, whatever a player
    who is out still holds."""
    body = light()
    body["players"][0].update(dirhams=31, rugs_left=0)
    body["players"][1].update(rugs_left=0)
    body["players"][2].update(dirhams=0, in_game=False)  # out, with all 15 rugs unlaid
    assert case("is_game_over", body, True) == "passed"
    assert case("winner", body, "c") == "passed"
    body["players"][1]["rugs_left"] = 1  # a player still in holds a rug: not over
    assert case("is_game_over", body, False) == "passed"
    assert case("winner", body, "n") == "passed"


@pytest.mark.parametrize(
    "bad",
    [
        {"board": "x"},
        {"players": []},
        {"players": [{"color": "c"}] * 3},
        {"assam": {"row": 9, "col": 0, "facing": "N"}},
        {"assam": {"row": 0, "col": 0, "facing": "Q"}},
    ],
)
def test_bad_light_states_fail_cleanly(bad: dict[str, Any]) -> None:
    """A malformed case input fails that case with a reason; the runner goes on."""
    verdict = evaluate(
        {"id": "b", "kind": "payment_amount", "input": {**light(), **bad}, "expected": 0}
    )
    assert verdict.status == "failed"
    assert verdict.detail.startswith("bad input")


@pytest.mark.parametrize(("kind", "expected"), [("payment_amount", 0), ("winner", "n")])
def test_colour_letters_are_one_per_player(kind: str, expected: Any) -> None:
    """FORMATS.md 4: colour letters are arbitrary labels, one per player; a case giving two
    players one letter fails as bad input, never answered."""
    body = light()
    assert case(kind, body, expected) == "passed"
    body["players"][2]["color"] = "c"  # seat 0's letter
    verdict = evaluate({"id": "b", "kind": kind, "input": body, "expected": expected})
    assert verdict.status == "failed"
    assert verdict.detail == "bad input: player 2's color must be a letter no other player has"


PUBLIC_CASES = json.loads((CONFORMANCE / "anu-public.json").read_text())["cases"]


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(index=st.integers(0, max(0, len(PUBLIC_CASES) - 1)), data=st.data())
def test_mutated_vector_cases_fail_cleanly(index: int, data: st.DataObject) -> None:
    """A case with random JSON in it passes or fails with a reason: the runner never crashes."""
    body = copy.deepcopy(PUBLIC_CASES[index])
    mutate(body, data)
    verdict = evaluate(body)
    assert verdict.status in ("passed", "failed", "skipped")
    assert verdict.status != "failed" or verdict.detail


def test_r9_a_light_state_with_no_player_in_is_over_and_answers() -> None:
    """R9, R11: with every player out the game is over; `winner` still answers with a label
    (FORMATS.md 4 leaves the case open) instead of failing."""
    body = light()
    for player in body["players"]:
        player["in_game"] = False
    assert case("is_game_over", body, True) == "passed"
    assert winner(body) in ("c", "y", "p", "t")
