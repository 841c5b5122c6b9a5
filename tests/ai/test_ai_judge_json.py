"""A game's judgement kept as compact JSON reads back equal, field for field, for every kind of
decision; a text of another layout, or damaged, is refused."""

from __future__ import annotations

import pytest

from ai.judge import Kind
from ai.judge_json import judgement_from_json, judgement_to_json
from tests.judged import judged_golden


def test_a_judgement_reads_back_equal_for_every_kind_of_decision() -> None:
    kinds = set()
    for name in ("2p-standard", "3p-rotate-after-last-player-standing"):
        judged = judged_golden(name)
        kinds |= {judgement.kind for judgement in judged.decisions}
        text = judgement_to_json(judged)
        assert judgement_from_json(text) == judged
        assert " " not in text, "written compactly"
    assert kinds == {Kind.ORIENT, Kind.RUG, Kind.ROTATE}


@pytest.mark.parametrize(
    "text", ['{"v":2,"players":2,"seats":[],"decisions":[]}', '{"v":1}', "[1]", "{", ""]
)
def test_another_layout_or_a_damaged_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a stored judgement"):
        judgement_from_json(text)
