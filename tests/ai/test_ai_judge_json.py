"""A game's judgement kept as compact JSON reads back equal, field for field, for every kind of
decision; one of the first layout reads with its accuracies worked out again; a text of another
layout, or damaged, is refused."""

from __future__ import annotations

import json

import pytest

from ai.judge import Kind
from ai.judge_json import VERSION, judgement_from_json, judgement_to_json
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


def test_a_judgement_of_the_first_layout_reads_with_its_accuracies_worked_out_again() -> None:
    """Layout 1 kept the accuracies of an earlier formula: read back, every accuracy is the
    judge's own, so a kept judgement is not judged again."""
    judged = judged_golden("2p-standard")
    document = json.loads(judgement_to_json(judged))
    document["v"] = 1
    for seat in document["seats"]:
        seat[2] = 97.5  # the earlier formula's figure, say
    for decision in document["decisions"]:
        decision[10] = 99.0
    assert judgement_from_json(json.dumps(document)) == judged
    assert any(seat.accuracy < 90.0 for seat in judged.seats), "not the written figures"


@pytest.mark.parametrize(
    "text",
    [f'{{"v":{VERSION + 1},"players":2,"seats":[],"decisions":[]}}', '{"v":2}', "[1]", "{", ""],
)
def test_another_layout_or_a_damaged_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a stored judgement"):
        judgement_from_json(text)
