"""The golden games' judgements (`ai.judge.judge_game` over tests/engine/golden/), each judged
once per test process: judging a whole game takes seconds, several times that under the
coverage tracer, and tests of the judgement's text, its storage and its analysis read the same
ones. `count_judgings` has the workers give every game judged the 2-player golden game's
judgement, for tests that count judgings and their cost, not the judge's work."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from ai.judge import GameJudgement, judge_game
from ai.judge_json import judgement_to_json
from bot.workers import jobs
from engine import Record, record_from_json

GOLDEN = Path(__file__).resolve().parent / "engine" / "golden"


def golden_record(name: str) -> Record:
    """The golden game `name` (its file's name without `.json`)."""
    return record_from_json(json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8")))


@functools.cache
def judged_golden(name: str) -> GameJudgement:
    """The judgement of the golden game `name`, every seat's decisions, with no work budget."""
    return judge_game(golden_record(name))


def count_judgings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the games judged in the workers (the length of each record, in order); each
    judging gives the 2-player golden game's judgement."""
    calls: list[int] = []
    text = judgement_to_json(judged_golden("2p-standard"))

    def counted(record: Record) -> str:
        calls.append(len(record.actions))
        return text

    monkeypatch.setattr(jobs, "judged_game", counted)
    return calls
