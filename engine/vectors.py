"""Conformance vectors (`marrakech-vectors/1`, FORMATS.md 4): evaluate cases, and the CLI.

    python -m engine.vectors FILE...

runs every case of each file (.json object, .jsonl, or .jsonl.gz read line by line) with the
engine's own rules, prints failures, per-kind counts and the names of skipped unknown kinds,
and ends with the line `N passed, M failed`. Exit status: 0 all passed, 1 some case failed,
2 a file could not be read or is not a vectors file.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.board import walk
from engine.checks import fields
from engine.cli import run_cli
from engine.errors import EngineError, FormatError
from engine.light import (
    LightState,
    read_assam,
    read_light,
    read_square,
    write_assam,
    write_light,
)
from engine.rules import (
    DIE_FACES,
    end_reason,
    lay_rug,
    orient,
    payment_region,
    placement_problem,
    rank,
)

VECTORS_FORMAT = "marrakech-vectors/1"
ROTATIONS = {0: "S", 90: "R", 270: "L"}
"""rotate_assam: clockwise degrees that are legal turns (R4); any other value changes nothing."""


def _input(case_input: object) -> dict[str, Any]:
    return fields(case_input, '"input"', ())


def move_assam(case_input: object) -> object:
    """R6, R7: where Assam stands after `steps` (1 to 4) steps."""
    body = _input(case_input)
    square, facing = read_assam(body.get("assam"))
    steps = body.get("steps")
    if type(steps) is not int or not 1 <= steps <= 4:
        raise FormatError('"steps" must be 1, 2, 3 or 4')
    end = walk(square, facing, steps)[-1]
    return {"assam": write_assam(end.square, end.facing)}


def rotate_assam(case_input: object) -> object:
    """R4: turning by 0, 90 or 270 degrees clockwise; any other rotation leaves Assam as he is."""
    body = _input(case_input)
    square, facing = read_assam(body.get("assam"))
    rotation = body.get("rotation")
    if type(rotation) is int and rotation in ROTATIONS:
        facing = orient(facing, ROTATIONS[rotation])
    return {"assam": write_assam(square, facing)}


def payment_amount(case_input: object) -> object:
    """R8: the size of the same-colour region under Assam (0 on an empty square)."""
    return len(payment_region(read_light(case_input).state))


def _rug(body: dict[str, Any]) -> tuple[str, int, int | None, int | None]:
    rug = fields(body.get("rug"), '"rug"', ("color", "rug_id", "squares"))
    squares = rug["squares"]
    if not isinstance(squares, list) or len(squares) != 2:
        raise FormatError("a rug has two squares")
    rug_id = rug["rug_id"]
    if type(rug_id) is not int:
        raise FormatError("a rug_id is a whole number")
    first, second = (read_square(square, "a rug square") for square in squares)
    return rug["color"], rug_id, first, second


def is_placement_valid(case_input: object) -> object:
    """R10 geometry only: on the board, side by side, touching Assam, not under him, no exact
    cover of one rug."""
    body = _input(case_input)
    state = read_light(body).state
    _, _, first, second = _rug(body)
    if first is None or second is None:
        return False
    return placement_problem(state.cells, state.assam, first, second) is None


def make_placement(case_input: object) -> object:
    """R10: the state after laying the rug, or the same state marked `unchanged` when the
    placement is invalid (FORMATS.md 4 lists the reasons)."""
    body = _input(case_input)
    light = read_light(body)
    state = light.state
    letter, rug_id, first, second = _rug(body)
    unchanged = {**write_light(light, state), "unchanged": True}
    if first is None or second is None or letter not in light.letters:
        return unchanged
    seat = light.letters.index(letter)
    if light.rug_number(letter, rug_id) is not None or not state.stock[seat]:
        return unchanged
    if placement_problem(state.cells, state.assam, first, second) is not None:
        return unchanged
    after = lay_rug(state, seat, (first, second))
    named = LightState(after, light.letters, {**light.rug_names, after.rugs_laid: (letter, rug_id)})
    return {**write_light(named, after), "unchanged": False}


def is_game_over(case_input: object) -> object:
    """R9, R11: over when no player still in holds a rug, or at most one player is in."""
    return end_reason(read_light(case_input).state) is not None


def winner(case_input: object) -> object:
    """R11: the winner's colour letter, "t" for a shared win, "n" while the game goes on."""
    light = read_light(case_input)
    reason = end_reason(light.state)
    if reason is None:
        return "n"
    first = rank(light.state, reason).ranking[0]
    return light.letters[first[0]] if len(first) == 1 else "t"


def roll_die_distribution(case_input: object) -> object:
    """R5: the die's faces with their relative weights."""
    return {"faces": {str(face): DIE_FACES.count(face) for face in sorted(set(DIE_FACES))}}


KINDS: dict[str, Callable[[object], object]] = {
    "move_assam": move_assam,
    "rotate_assam": rotate_assam,
    "payment_amount": payment_amount,
    "is_placement_valid": is_placement_valid,
    "make_placement": make_placement,
    "is_game_over": is_game_over,
    "winner": winner,
    "roll_die_distribution": roll_die_distribution,
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """How one case went: passed, failed (with why) or skipped (unknown kind)."""

    case_id: str
    kind: str
    status: str  # "passed", "failed" or "skipped"
    detail: str = ""


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def evaluate(case: object) -> Verdict:
    """Run one case with the engine's rules and compare with its `expected` (as JSON)."""
    if not isinstance(case, dict):
        return Verdict("?", "?", "failed", "a case must be a JSON object")
    case_id, kind = str(case.get("id", "?")), case.get("kind")
    if not isinstance(kind, str) or "input" not in case or "expected" not in case:
        return Verdict(case_id, str(kind), "failed", 'a case needs "kind", "input", "expected"')
    run = KINDS.get(kind)
    if run is None:
        return Verdict(case_id, kind, "skipped", "unknown kind")
    try:
        actual = run(case["input"])
    except EngineError as error:
        return Verdict(case_id, kind, "failed", f"bad input: {error}")
    try:
        expected = _canonical(case["expected"])
    except (TypeError, ValueError):
        return Verdict(case_id, kind, "failed", '"expected" is not plain JSON')
    if _canonical(actual) == expected:
        return Verdict(case_id, kind, "passed")
    return Verdict(case_id, kind, "failed", f"expected {expected}, got {_canonical(actual)}")


@dataclass(frozen=True, slots=True)
class UnreadableLine:
    """A JSON Lines line after the header that is not JSON: why (it fails as a case)."""

    problem: str


class VectorsFileError(Exception):
    """A file that cannot be read as marrakech-vectors/1."""


def _check_header(header: object, path: str) -> None:
    if not isinstance(header, dict) or header.get("format") != VECTORS_FORMAT:
        found = header.get("format") if isinstance(header, dict) else None
        raise VectorsFileError(
            f"{path}: not a {VECTORS_FORMAT} file (format is {found!r}); refusing it"
        )


def _json_problem(error: ValueError | RecursionError) -> str:
    """Why `json.loads` refused a text: its own message, or what the non-JSON errors mean."""
    if isinstance(error, json.JSONDecodeError):
        return error.msg
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return "a number too long to read"  # more digits than int() reads


def read_cases(path: str) -> Iterator[object]:
    """The cases of a vectors file, one at a time (JSON Lines files are streamed).

    Raises VectorsFileError for a file that is missing, unreadable (a damaged gzip file
    among them), nested too deeply or of another format. A JSON Lines line after the header
    that is not JSON (or is nested too deeply, or holds a number too long to read) yields an
    UnreadableLine saying so (which fails as a case).
    """
    try:
        if path.endswith(".json"):
            with open(path, encoding="utf-8") as handle:
                document = json.load(handle)
            _check_header(document, path)
            cases = document.get("cases")
            if not isinstance(cases, list):
                raise VectorsFileError(f'{path}: "cases" must be a list')
            yield from cases
        elif path.endswith((".jsonl", ".jsonl.gz")):
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as lines:
                header_seen = False
                for number, line in enumerate(lines, 1):
                    if not line.strip():
                        continue
                    try:
                        item = json.loads(line)
                    except (ValueError, RecursionError) as error:
                        if not header_seen:
                            raise VectorsFileError(f"{path}: line {number} is not JSON") from None
                        yield UnreadableLine(f"line {number} is not JSON ({_json_problem(error)})")
                        continue
                    if not header_seen:
                        _check_header(item, path)
                        header_seen = True
                    else:
                        yield item
                if not header_seen:
                    raise VectorsFileError(f"{path}: empty, no {VECTORS_FORMAT} header line")
        else:
            raise VectorsFileError(f"{path}: expected a .json, .jsonl or .jsonl.gz file")
    except (OSError, UnicodeDecodeError, EOFError, zlib.error) as error:
        raise VectorsFileError(f"{path}: cannot read it ({error})") from None
    except json.JSONDecodeError as error:
        raise VectorsFileError(
            f"{path}: not valid JSON ({error.msg}, line {error.lineno})"
        ) from None
    except ValueError as error:
        raise VectorsFileError(f"{path}: not valid JSON ({_json_problem(error)})") from None
    except RecursionError:
        raise VectorsFileError(f"{path}: JSON nested too deeply") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.vectors", description="Run marrakech-vectors/1 conformance files."
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument(
        "--show", type=int, default=20, metavar="N", help="print at most N failures (default 20)"
    )
    args = parser.parse_args(argv)
    passed: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    shown = 0
    refused = False
    for path in args.files:
        try:
            for case in read_cases(path):
                verdict = (
                    Verdict("?", "(unreadable)", "failed", case.problem)
                    if isinstance(case, UnreadableLine)
                    else evaluate(case)
                )
                if verdict.status == "passed":
                    passed[verdict.kind] += 1
                elif verdict.status == "skipped":
                    skipped[verdict.kind] += 1
                else:
                    failed[verdict.kind] += 1
                    if shown < args.show:
                        print(f"FAIL {path} {verdict.case_id} ({verdict.kind}): {verdict.detail}")
                    shown += 1
        except VectorsFileError as error:
            print(f"error: {error}", file=sys.stderr)
            refused = True
    if shown > args.show:
        print(f"... and {shown - args.show} more failures")
    for kind in sorted(passed.keys() | failed.keys()):
        print(f"{kind}: {passed[kind]} passed, {failed[kind]} failed")
    if skipped:
        names = ", ".join(f"{kind} ({count})" for kind, count in sorted(skipped.items()))
        print(f"skipped {sum(skipped.values())} cases of unknown kinds: {names}")
    total_failed = sum(failed.values())
    print(f"{sum(passed.values())} passed, {total_failed} failed")
    if refused:
        return 2
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
