"""The golden games' judgements (`ai.judge.judge_game` over tests/engine/golden/), each judged
once per test process, with the coverage tracer paused (tests/tracing.py): judging a whole
game takes seconds, three times that under the tracer, and tests of the judgement's text, its
storage and its analysis read the same ones. `count_judgings` has the workers give every game
judged the 2-player golden game's judgement, for tests that count judgings and their cost, not
the judge's work; `judging_untraced` has them judge for real, the tracer paused while the
judge searches (tests/bot/conftest.py has every test of the bot do so)."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ai.judge import GameJudgement, Judgement, decisions, judge_game, summarise
from ai.judge_json import judgement_to_json
from bot.workers import jobs
from engine import Record, record_from_json
from tests.tracing import untraced, untraced_calls

GOLDEN = Path(__file__).resolve().parent / "engine" / "golden"


def golden_data(name: str) -> dict[str, Any]:
    """The golden game `name` (its file's name without `.json`) as its record's JSON."""
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return data


def golden_record(name: str) -> Record:
    """The golden game `name` (its file's name without `.json`)."""
    return record_from_json(golden_data(name))


def actors_of(data: dict[str, Any], people: Mapping[int, int]) -> tuple[int | None, ...]:
    """Who made each action of the record `data` (as `PlayService.actors` reads them from the
    log) when each seat's person in `people` (seat: user id) made all its decisions: None for
    the die rolls and for the seats of no one in `people` (AI seats)."""
    record = record_from_json(data)
    actors: list[int | None] = [None] * len(record.actions)
    for index, state, _ in decisions(record):
        if state.to_move is not None:
            actors[index] = people.get(state.to_move)
    return tuple(actors)


@functools.cache
def judged_golden(name: str) -> GameJudgement:
    """The judgement of the golden game `name`, every seat's decisions, with no work budget."""
    with untraced():
        return judge_game(golden_record(name))


def judging_untraced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Have the workers' jobs judge with the judge itself (`ai.judge.judge_game` for a finished
    game, `ai.judge.judge_options` for a coached decision), the coverage tracer paused while
    it searches: every judgement is the judge's own, and the jobs' own lines are measured."""
    for name in ("judge_game", "judge_options"):
        monkeypatch.setattr(jobs, name, untraced_calls(getattr(jobs, name)))


def count_judgings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the games judged in the workers (the length of each record, in order); each
    judging gives the 2-player golden game's judgements, in turn, as those of the record's own
    decisions (each moved to the decision's seat and index: whose decision it was and who made
    it stay the record's, and the judging costs only a replay)."""
    calls: list[int] = []
    golden = judged_golden("2p-standard").decisions

    def counted(record: Record) -> str:
        calls.append(len(record.actions))
        made: list[Judgement] = []
        for index, state, _ in decisions(record):
            assert state.to_move is not None
            like = golden[len(made) % len(golden)]
            made.append(dataclasses.replace(like, seat=state.to_move, index=index))
        seats = tuple(
            summarise(seat, [judgement for judgement in made if judgement.seat == seat])
            for seat in range(record.players)
        )
        return judgement_to_json(GameJudgement(record.players, tuple(made), seats))

    monkeypatch.setattr(jobs, "judged_game", counted)
    return calls
