"""A game's judgement (`ai.judge.GameJudgement`) as compact JSON, so that it is judged once
and kept: the analysis, the drill and the stats all read the same stored judgement.

Every judged decision keeps every option with its chance and facts (the drill offers them all
again), so the text is written positionally, in arrays rather than named fields:

    {"v": 2, "players": 2,
     "seats": [[seat, decisions, accuracy, inaccuracies, mistakes, blunders], ...],
     "decisions": [[index, turn, seat, kind, taken, best, taken_chance, best_chance, loss,
                    band, accuracy, [[action, chance, facts], ...]], ...]}

where `facts` holds the fields of `ai.judge.Facts` that the decision's kind fills: a way of
turning Assam before the roll [toll, worst_toll, out_chance], a rug [first square, second
square, covered, cut_owner, cut_region, grown], a turn after the rug [income]. Floats are
written as Python writes them (the shortest text that reads back to the same number), so a
judgement read back is equal to the one written, field for field.

A text of layout 1 has the same fields with the accuracies of an earlier formula (the mean of
lichess's curve over the decisions); it is read with each accuracy worked out again from its
options, as `ai.judge` works it out now, so a kept judgement need not be judged again.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ai.judge import (
    Band,
    Facts,
    GameJudgement,
    Judgement,
    Kind,
    Option,
    SeatSummary,
    decision_accuracy,
    game_accuracy,
)

VERSION = 2
"""The layout above; a text of another version is not read (`judgement_from_json` refuses it),
but for layout 1 (`READABLE`)."""

READABLE = (1, VERSION)
"""The layouts `judgement_from_json` reads: layout 1 with its accuracies worked out again."""


def judgement_to_json(judged: GameJudgement) -> str:
    """The compact JSON text of `judged` (see the module)."""
    document = {
        "v": VERSION,
        "players": judged.players,
        "seats": [
            [s.seat, s.decisions, s.accuracy, s.inaccuracies, s.mistakes, s.blunders]
            for s in judged.seats
        ],
        "decisions": [_decision(judgement) for judgement in judged.decisions],
    }
    return json.dumps(document, separators=(",", ":"), allow_nan=False)


def version_of(text: str) -> int | None:
    """The layout version a kept text says it has; None if it says none (damaged)."""
    try:
        version = json.loads(text)["v"]
    except (ValueError, TypeError, KeyError):
        return None
    return version if isinstance(version, int) else None


def judgement_from_json(text: str) -> GameJudgement:
    """The judgement `judgement_to_json` wrote; ValueError if `text` is not one (another
    version, or damaged)."""
    try:
        document = json.loads(text)
        version = document["v"]
        if version not in READABLE:
            raise ValueError(f"of version {version}, not {VERSION}")
        seats = tuple(
            SeatSummary(int(s), int(n), float(acc), int(i), int(m), int(b))
            for s, n, acc, i, m, b in document["seats"]
        )
        decisions = tuple(_judgement(row) for row in document["decisions"])
        judged = GameJudgement(int(document["players"]), decisions, seats)
        return judged if version == VERSION else _accuracy_again(judged)
    except (KeyError, TypeError, IndexError, ValueError) as error:
        raise ValueError(f"not a stored judgement: {error}") from None


def _accuracy_again(judged: GameJudgement) -> GameJudgement:
    """A judgement of layout 1 with every accuracy as `ai.judge` works it out now."""
    decisions = tuple(
        replace(
            judgement,
            accuracy=decision_accuracy(
                judgement.taken_chance, judgement.best_chance, judgement.worst_chance
            ),
        )
        for judgement in judged.decisions
    )
    seats = tuple(
        replace(seat, accuracy=game_accuracy(j for j in decisions if j.seat == seat.seat))
        for seat in judged.seats
    )
    return GameJudgement(judged.players, decisions, seats)


def _decision(judgement: Judgement) -> list[Any]:
    return [
        judgement.index,
        judgement.turn,
        judgement.seat,
        judgement.kind.value,
        judgement.taken,
        judgement.best,
        judgement.taken_chance,
        judgement.best_chance,
        judgement.loss,
        judgement.band.value,
        judgement.accuracy,
        [
            [option.action, option.chance, _facts(judgement.kind, option.facts)]
            for option in judgement.options
        ],
    ]


def _judgement(row: list[Any]) -> Judgement:
    index, turn, seat, kind, taken, best = row[:6]
    taken_chance, best_chance, loss, band, accuracy, options = row[6:]
    decided = Kind(kind)
    return Judgement(
        index=int(index),
        turn=int(turn),
        seat=int(seat),
        kind=decided,
        taken=str(taken),
        best=str(best),
        taken_chance=float(taken_chance),
        best_chance=float(best_chance),
        loss=float(loss),
        band=Band(band),
        accuracy=float(accuracy),
        options=tuple(
            Option(str(action), float(chance), _facts_from(decided, facts))
            for action, chance, facts in options
        ),
    )


def _facts(kind: Kind, facts: Facts) -> list[Any]:
    written: list[Any]
    if kind is Kind.ORIENT:
        written = [facts.toll, facts.worst_toll, facts.out_chance]
    elif kind is Kind.ROTATE:
        written = [facts.income]
    else:
        assert facts.squares is not None
        written = [*facts.squares, facts.covered, facts.cut_owner, facts.cut_region, facts.grown]
    if _facts_from(kind, written) != facts:
        raise ValueError(f"facts beyond what a {kind.value} decision fills: {facts}")
    return written


def _facts_from(kind: Kind, written: list[Any]) -> Facts:
    if kind is Kind.ORIENT:
        toll, worst, out = written
        return Facts(toll=float(toll), worst_toll=int(worst), out_chance=float(out))
    if kind is Kind.ROTATE:
        (income,) = written
        return Facts(income=float(income))
    first, second, covered, cut_owner, cut_region, grown = written
    return Facts(
        squares=(int(first), int(second)),
        covered=int(covered),
        cut_owner=None if cut_owner is None else int(cut_owner),
        cut_region=int(cut_region),
        grown=int(grown),
    )
