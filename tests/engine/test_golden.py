"""Golden games (tests/engine/golden/): replay to their stored positions; facts checked by hand.

The records were written by golden/generate.py (seeded random play). Beyond "replays to the
stored position", each game is checked against facts worked out by hand from RULES.md (Assam's
walks round the border, the regions paid for and who was eliminated), and every final position
against an independent reading of R9/R11 (dirhams conserved, scores counted from the cells,
ranking order).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import (
    GameState,
    PlayerEliminated,
    TaxPaid,
    apply,
    new_game,
    parse_square,
    record_from_json,
    replay_record,
    square_name,
    to_position,
)
from tests.engine.golden.generate import GOLDEN, play

FOLDER = Path(__file__).resolve().parent / "golden"


def load(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    record = json.loads((FOLDER / f"{name}.json").read_text())
    position = json.loads((FOLDER / f"{name}.position.json").read_text())
    return record, position


def trace(name: str) -> list[tuple[GameState, list[Any]]]:
    """(state after, events) for every action of a golden record."""
    record = record_from_json(load(name)[0])
    state = new_game(record.config)
    steps = []
    for action in record.actions:
        state, events = apply(state, action)
        steps.append((state, list(events)))
    return steps


def squares(*names: str) -> frozenset[int]:
    return frozenset(parse_square(name) for name in names)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_record_replays_to_its_position(name: str) -> None:
    record, position = load(name)
    assert to_position(replay_record(record_from_json(record))) == position


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_files_are_what_the_seeded_driver_writes(name: str) -> None:
    """The files are reproducible from generate.py (same seed, same game)."""
    assert play(*GOLDEN[name]) == load(name)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_final_position_by_an_independent_reading(name: str) -> None:
    """R8/R9: dirhams only change hands; R11: score = dirhams + visible squares, counted here
    from the cells; the ranking holds every seat once: the seats still in by score then
    dirhams, a group exactly the seats equal on both, then the eliminated seats one to a
    group, the latest elimination (in the record's replay) first."""
    record, position = load(name)
    players = record["players"]
    seats = position["seats"]
    assert sum(seat["dirhams"] for seat in seats) == 30 * players
    for seat, score in zip(seats, position["scores"], strict=True):
        visible = sum(
            1 for row in position["cells"] for cell in row if cell and cell[0] in seat["colors"]
        )
        assert score == {
            "seat": seat["seat"],
            "dirhams": seat["dirhams"],
            "visible": visible,
            "total": seat["dirhams"] + visible,
        }
    ranking = position["outcome"]["ranking"]
    assert sorted(s for group in ranking for s in group) == list(range(players))

    def key(s: int) -> tuple[int, int]:
        return position["scores"][s]["total"], seats[s]["dirhams"]

    expected_groups: dict[tuple[int, int], list[int]] = {}
    for s in (s for s in range(players) if not seats[s]["eliminated"]):
        expected_groups.setdefault(key(s), []).append(s)
    expected = [sorted(group) for _, group in sorted(expected_groups.items(), reverse=True)]
    out = [e.seat for _, events in trace(name) for e in events if isinstance(e, PlayerEliminated)]
    expected += [[s] for s in reversed(out)]
    assert [sorted(group) for group in ranking] == expected
    assert position["phase"] == "over"
    assert position["to_move"] is None


def assam_after(steps: list[tuple[GameState, list[Any]]], index: int) -> tuple[str, str]:
    state = steps[index][0]
    return square_name(state.assam), state.facing.name


def test_golden_2p_standard_first_turns_by_hand() -> None:
    """R4, R6, R7 worked by hand: seat 1 starts; R then 3 -> g4 facing E; S then 3 from g4 E:
    the arc at the east edge (row 4 joins row 5) -> g5 facing W, then f5, e5."""
    steps = trace("2p-standard")
    assert load("2p-standard")[0]["first_player"] == 1
    assert assam_after(steps, 1) == ("g4", "E")
    assert assam_after(steps, 4) == ("e5", "W")
    assert assam_after(steps, 7) == ("e2", "N")  # R from W is N; e4, e3, e2
    assert assam_after(steps, 10) == ("g2", "E")  # R from N is E; f2, g2
    outcome = steps[-1][0].outcome
    assert outcome is not None
    assert outcome.reason == "rugs-exhausted"
    assert steps[-1][0].rugs_laid == 48  # every rug of both seats was laid


def test_golden_4p_standard_first_turns_by_hand() -> None:
    """Seat 3 starts. f4 E; then g4 and the east arc (row 4 -> 5) to g5 W; L (S), 2 -> g7;
    R (W), 3 -> d7. No payment in the first four turns."""
    steps = trace("4p-standard")
    assert [assam_after(steps, i) for i in (1, 4, 7, 10)] == [
        ("f4", "E"),
        ("g5", "W"),
        ("g7", "S"),
        ("d7", "W"),
    ]
    assert steps[10][0].dirhams == (30, 30, 30, 30)
    assert steps[-1][0].rugs_laid == 48


def test_golden_4p_rotate_after_first_payment_by_hand() -> None:
    """R12 turns: d1 N, lay d2e2 (red), L -> W; b1, lay c1c2, L -> S; b2, lay a1b1, L -> E;
    brown rolls 2: c2, d2 -> lands on red's intact d2e2 rug: pays red 2."""
    steps = trace("4p-rotate-after-elimination")
    assert [assam_after(steps, i) for i in (0, 3, 6, 9)] == [
        ("d1", "N"),
        ("b1", "W"),
        ("b2", "S"),
        ("d2", "E"),
    ]
    taxes = [e for e in steps[9][1] if isinstance(e, TaxPaid)]
    assert [(t.payer, t.payee, t.owed, t.region) for t in taxes] == [(3, 0, 2, squares("d2", "e2"))]
    assert steps[9][0].dirhams == (32, 30, 30, 28)
    final = steps[-1][0]
    assert final.eliminated == (3,)
    assert final.dirhams[3] == 0


def test_golden_3p_elimination_by_hand() -> None:
    """Action 124: yellow on a6 facing W rolls 2: the west arc (row 6 joins row 5) to a5
    facing E, then b5. The red region joined to b5 is 14 squares (counted by hand on the
    board); yellow holds 13: pays 13 and is out with 2 rugs unplayed. Red wins."""
    steps = trace("3p-elimination")
    before = steps[123][0]
    assert (square_name(before.assam), before.facing.name, before.to_move) == ("a6", "W", 1)
    assert before.dirhams[1] == 13
    state, events = steps[124]
    assert square_name(state.assam) == "b5"
    red = squares(
        "a2", "b2", "b3", "b4", "c4", "a5", "b5", "c5", "d5", "c6", "a7", "b7", "c7", "d7"
    )
    assert [
        (e.payer, e.payee, e.owed, e.paid, e.region) for e in events if isinstance(e, TaxPaid)
    ] == [(1, 0, 14, 13, red)]
    assert [e for e in events if isinstance(e, PlayerEliminated)] == [PlayerEliminated(1, 2)]
    final = steps[-1][0]
    assert final.outcome is not None
    assert final.outcome.ranking == ((0,), (2,), (1,))
    assert final.outcome.reason == "rugs-exhausted"


def test_golden_2p_last_player_standing_by_hand() -> None:
    """Action 127: seat 0 on d1 facing W rolls 4: c1, b1, a1, then the west arc (row 1 joins
    row 2) to a2 facing E. a2 is brown (seat 1's); the brown region is 9 squares, seat 0 holds
    6: out, and seat 1 is the last player standing."""
    steps = trace("2p-last-player-standing")
    before = steps[126][0]
    assert (square_name(before.assam), before.facing.name, before.dirhams) == ("d1", "W", (6, 54))
    state, events = steps[127]
    assert (square_name(state.assam), state.facing.name) == ("a2", "E")
    brown = squares("a1", "b1", "a2", "b2", "b3", "b4", "c4", "b5", "c5")
    taxes = [e for e in events if isinstance(e, TaxPaid)]
    assert [(t.payer, t.payee, t.owed, t.paid, t.region) for t in taxes] == [(0, 1, 9, 6, brown)]
    assert state.outcome is not None
    assert (state.outcome.reason, state.outcome.ranking) == ("last-player-standing", ((1,), (0,)))
    assert state.dirhams == (0, 60)
    assert len(steps) == 128  # the game stops there


def test_golden_3p_rotate_after_two_eliminations_by_hand() -> None:
    """Red on b5 facing S rolls 2 -> b7, on a 10-square blue region: holds 7, out (no turn of
    Assam after an elimination, R12). Yellow then rolls 2 from b7 facing S: the south arc
    (columns b and c) to c7 facing N, then c6: the same blue region, holds 5: out. Blue is the
    last player standing; yellow, eliminated later, ranks above red."""
    steps = trace("3p-rotate-after-last-player-standing")
    blue = squares("a4", "b4", "a5", "b5", "c5", "d5", "b6", "c6", "b7", "c7")
    first, first_events = steps[123]
    assert square_name(first.assam) == "b7"
    assert first.facing.name == "S"
    taxes = [(e.payer, e.owed, e.paid, e.region) for e in first_events if isinstance(e, TaxPaid)]
    assert taxes == [(0, 10, 7, blue)]
    assert first.to_move == 1
    assert first.phase.value == "roll"
    second, second_events = steps[124]
    assert (square_name(second.assam), second.facing.name) == ("c6", "N")
    taxes = [(e.payer, e.owed, e.paid, e.region) for e in second_events if isinstance(e, TaxPaid)]
    assert taxes == [(1, 10, 5, blue)]
    assert second.outcome is not None
    assert second.outcome.ranking == ((2,), (1,), (0,))
    assert second.outcome.reason == "last-player-standing"
