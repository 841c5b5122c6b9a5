"""Errors: typed (subclasses of ValueError) and worded plainly, in every phase of a turn."""

from __future__ import annotations

import pytest

from engine import (
    EngineError,
    FormatError,
    GameState,
    IllegalActionError,
    Phase,
    ReplayError,
    Variant,
    apply,
)
from tests.engine.builders import board, play, start


def test_errors_are_value_errors() -> None:
    for error in (EngineError, IllegalActionError, FormatError, ReplayError):
        assert issubclass(error, ValueError)
    assert str(ReplayError(3, "D9", "it is time to roll")) == "action 3 'D9': it is time to roll"


def in_phase(phase: str) -> GameState:
    if phase == "orient":
        return start(4)
    if phase == "roll":
        return play(start(4), "S")[0]
    if phase == "place":
        return board(4, phase=Phase.PLACE)
    if phase == "rotate":
        return board(4, phase=Phase.ROTATE, variant=Variant.ROTATE_AFTER)
    return board(4, phase=Phase.PLACE)._replace(stock=(1, 0, 0, 0))


@pytest.mark.parametrize(
    ("phase", "action", "message"),
    [
        ("orient", "D3", "it is not time to roll: first turn Assam (L, S or R)"),
        ("orient", "U", "he cannot turn around"),
        ("orient", "c4c5", "Assam turns left (L), keeps straight (S) or turns right (R)"),
        ("roll", "L", "it is time to roll (D1-D4)"),
        ("roll", "D7", "it is time to roll (D1-D4)"),
        ("place", "S", "lay a rug on two squares, e.g. 'c4c5'"),
        ("rotate", "S", "turn Assam a quarter turn left (L) or right (R)"),
        ("rotate", "D2", "turn Assam a quarter turn left (L) or right (R)"),
    ],
)
def test_illegal_actions_say_why_in_plain_words(phase: str, action: str, message: str) -> None:
    """R4, R5, R10, R12: the message says what is wrong and what is allowed."""
    with pytest.raises(IllegalActionError) as caught:
        apply(in_phase(phase), action)
    text = str(caught.value)
    assert message in text
    for jargon in ("Phase.", "<", "None", "Traceback", "assert"):
        assert jargon not in text


def test_no_action_after_the_end() -> None:
    """R11: once over, every action is refused with "the game is over"."""
    over, _ = play(in_phase("over"), "c3d3")
    assert over.is_over
    with pytest.raises(IllegalActionError, match=r"^the game is over$"):
        apply(over, "S")


@pytest.mark.parametrize("action", [42, None, ["S"], b"S"])
def test_an_action_must_be_a_notation(action: object) -> None:
    with pytest.raises(IllegalActionError, match="an action is a notation such as"):
        apply(start(4), action)  # type: ignore[arg-type]
