"""The command-line entry points as subprocesses: engine.replay, engine.vectors, engine.bench."""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import bench, replay, vectors
from engine.model import Variant


def run(repo_root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def records(data_dir: Path) -> list[Path]:
    """The public game records kept in tests/data/conformance/records/."""
    return sorted((data_dir / "conformance" / "records").glob("game-????.json"))


def test_replay_prints_the_final_position(repo_root: Path, data_dir: Path) -> None:
    """`python -m engine.replay RECORD.json` prints the record's final position JSON."""
    record = records(data_dir)[0]
    result = run(repo_root, "engine.replay", str(record))
    assert result.returncode == 0, result.stderr
    expected = json.loads(record.with_suffix(".position.json").read_text())
    assert json.loads(result.stdout) == expected


def in_process(
    main: Callable[[list[str]], int], capsys: pytest.CaptureFixture[str], *args: str
) -> subprocess.CompletedProcess[str]:
    """A command's `main` run in this process, its output read as a subprocess's would be."""
    status = main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), status, out, err)


def test_replay_trace_prints_one_position_per_action(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--trace: one position per action (JSON Lines), the last one the final position."""
    record = records(data_dir)[1]
    actions = json.loads(record.read_text())["actions"]
    result = in_process(replay.main, capsys, str(record), "--trace")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(actions)
    assert json.loads(lines[-1]) == json.loads(record.with_suffix(".position.json").read_text())
    assert json.loads(lines[0])["phase"] in ("roll", "place")


def test_replay_illegal_action_names_index_notation_reason(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An illegal action: one line naming index, notation and reason; exit status 2."""
    body = json.loads(records(data_dir)[0].read_text())
    body["actions"] = [*body["actions"][:3], "S", "D5"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(body))
    result = in_process(replay.main, capsys, str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    assert "action 4 'D5'" in result.stderr
    assert "time to roll" in result.stderr
    assert "Traceback" not in result.stderr


RECORD = {
    "format": "marrakech-record/1",
    "players": 3,
    "variant": "standard",
    "first_player": 0,
    "piles": None,
}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"format": "marrakech-record/1"}', "lacks"),
        ("[" * 100000, "JSON"),
        (
            json.dumps({**RECORD, "actions": ["S", "D3", "c4:c5"]}),
            "action 2 'c4:c5' is not an action notation",
        ),
        (b"\xff\xfe{\x00", "cannot read it"),
        (json.dumps({**RECORD, "actions": []}).replace("0", "9" * 5000), "not valid JSON"),
    ],
)
def test_replay_bad_files_give_one_clear_line(
    tmp_path: Path, content: str | bytes, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad JSON or format, a number too long for Python to read, or a file that is not UTF-8
    text: a one-line error on stderr, exit status 2, never a traceback."""
    path = tmp_path / "record.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = in_process(replay.main, capsys, str(path))
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_replay_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = in_process(replay.main, capsys, str(tmp_path / "nowhere.json"))
    assert result.returncode == 2
    assert "cannot read" in result.stderr
    assert "Traceback" not in result.stderr


def test_vectors_public_suite_passes(repo_root: Path, data_dir: Path) -> None:
    """`python -m engine.vectors anu-public.json`: all 1,998 pass, a count for each of the eight
    kinds of FORMATS.md 4, exit 0."""
    result = run(repo_root, "engine.vectors", str(data_dir / "conformance" / "anu-public.json"))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "1998 passed, 0 failed"
    assert "move_assam: 381 passed, 0 failed" in lines
    assert "make_placement: 404 passed, 0 failed" in lines
    assert {line.split(":")[0] for line in lines[:-1]} == {
        "move_assam",
        "rotate_assam",
        "payment_amount",
        "is_placement_valid",
        "make_placement",
        "is_game_over",
        "winner",
        "roll_die_distribution",
    }


def write_jsonl(path: Path, header: dict[str, Any], cases: list[Any]) -> None:
    lines = [json.dumps(header)] + [json.dumps(case) for case in cases]
    text = "\n".join(lines) + "\n"
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text)


MOVE = {
    "id": "m1",
    "kind": "move_assam",
    "input": {"assam": {"row": 0, "col": 6, "facing": "N"}, "steps": 3},
    "expected": {"assam": {"row": 0, "col": 4, "facing": "W"}},
}


@pytest.mark.parametrize("name", ["cases.jsonl", "cases.jsonl.gz"])
def test_vectors_json_lines_failures_and_skips(repo_root: Path, tmp_path: Path, name: str) -> None:
    """JSON Lines (plain or gzip): a wrong expectation fails (exit 1), unknown kinds are named."""
    wrong = {**MOVE, "id": "m2", "expected": {"assam": {"row": 0, "col": 5, "facing": "W"}}}
    unknown: dict[str, Any] = {"id": "u1", "kind": "teleport", "input": {}, "expected": None}
    path = tmp_path / name
    write_jsonl(path, {"format": "marrakech-vectors/1"}, [MOVE, wrong, unknown])
    result = run(repo_root, "engine.vectors", str(path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    assert "move_assam: 1 passed, 1 failed" in lines
    assert any("teleport" in line and "skipped" in line for line in lines)
    assert any(line.startswith("FAIL") and "m2" in line for line in lines)


def test_vectors_fails_a_json_lines_line_that_is_not_json_as_a_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A damaged line after the header (not JSON, nested too deeply, a number too long to
    read) is never skipped in silence: it is named in a FAIL line, counted as failed, and the
    run exits 1."""
    path = tmp_path / "cases.jsonl"
    header = json.dumps({"format": "marrakech-vectors/1"})
    deep = "[" * 100000
    long = "9" * 5000
    path.write_text(f"{header}\n{json.dumps(MOVE)}\n{{oops\n{deep}\n{long}\n")
    result = in_process(vectors.main, capsys, str(path))
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    assert lines[-1] == "1 passed, 3 failed"
    assert any(line.startswith("FAIL") and "line 3 is not JSON" in line for line in lines)
    assert any(line.startswith("FAIL") and "line 4 is not JSON" in line for line in lines)
    assert any(line.startswith("FAIL") and "line 5 is not JSON" in line for line in lines)


@pytest.mark.parametrize("name", ["cases.json", "cases.jsonl"])
def test_vectors_fails_a_case_written_as_a_json_string_as_no_object(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A case encoded twice (a JSON string holding the case) fails as a case that is not a
    JSON object; it is not told as a line that could not be read, its text as the reason."""
    header, cases = {"format": "marrakech-vectors/1"}, [MOVE, json.dumps(MOVE)]
    path = tmp_path / name
    if name.endswith(".jsonl"):
        write_jsonl(path, header, cases)
    else:
        path.write_text(json.dumps({**header, "cases": cases}))
    result = in_process(vectors.main, capsys, str(path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("FAIL")] == [
        f"FAIL {path} ? (?): a case must be a JSON object"
    ]
    assert lines[-1] == "1 passed, 1 failed"


def test_vectors_prints_a_count_line_for_a_kind_whose_every_case_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every kind met has its count line, also one with no case passed: a summary that listed
    only the kinds with a pass would read as if that kind had no cases."""
    wrong_die = {
        "id": "d1",
        "kind": "roll_die_distribution",
        "input": {},
        "expected": {"faces": {"1": 1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1}},
    }
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"format": "marrakech-vectors/1", "cases": [MOVE, wrong_die]}))
    result = in_process(vectors.main, capsys, str(path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "move_assam: 1 passed, 0 failed" in lines
    assert "roll_die_distribution: 0 passed, 1 failed" in lines
    assert lines[-1] == "1 passed, 1 failed"


def test_vectors_show_caps_the_failures_printed_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--show N` prints the first N failures, then one line counting those left unprinted;
    the totals still count every failure."""
    wrong = [
        {**MOVE, "id": f"w{n}", "expected": {"assam": {"row": n, "col": 0, "facing": "N"}}}
        for n in range(3)
    ]
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"format": "marrakech-vectors/1", "cases": [MOVE, *wrong]}))
    result = in_process(vectors.main, capsys, str(path), "--show", "1")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert [line.split()[2] for line in lines if line.startswith("FAIL")] == ["w0"]
    assert "... and 2 more failures" in lines
    assert lines[-1] == "1 passed, 3 failed"


@pytest.mark.parametrize("order", [("ok.json", "bad.json"), ("bad.json", "ok.json")])
def test_vectors_counts_every_file_it_is_given(
    tmp_path: Path, order: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`FILE...`: the counts and the exit status are of all the files together, so a failing
    file is never hidden by a passing one given after it."""
    wrong = {**MOVE, "id": "m2", "expected": {"assam": {"row": 0, "col": 5, "facing": "W"}}}
    for name, case in (("ok.json", MOVE), ("bad.json", wrong)):
        document = {"format": "marrakech-vectors/1", "cases": [case]}
        (tmp_path / name).write_text(json.dumps(document))
    result = in_process(vectors.main, capsys, *(str(tmp_path / name) for name in order))
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    assert "move_assam: 1 passed, 1 failed" in lines
    assert lines[-1] == "1 passed, 1 failed"


def test_vectors_all_passing_exit_zero(repo_root: Path, tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_text(json.dumps({"format": "marrakech-vectors/1", "cases": [MOVE]}))
    result = run(repo_root, "engine.vectors", str(path))
    assert (result.returncode, result.stdout.splitlines()[-1]) == (0, "1 passed, 0 failed")


_GZIP = gzip.compress(b'{"format": "marrakech-vectors/1"}\n', mtime=0)
DAMAGED_GZIP = _GZIP[:10] + bytes([_GZIP[10] | 0b110]) + _GZIP[11:]
"""A gzip file whose compressed data is damaged: its first block has the reserved type 3."""


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("record.json", '{"format": "marrakech-record/1", "cases": []}'),
        ("other.jsonl", '{"format": "something-else"}\n'),
        ("cases.txt", "{}"),
        ("broken.json", "{"),
        ("deep.json", "[" * 100000),
        ("deep.jsonl", "[" * 100000 + "\n"),
        ("utf16.jsonl", '{"format": "marrakech-vectors/1"}\n'.encode("utf-16")),
        ("no-cases.json", '{"format": "marrakech-vectors/1"}'),
        ("cases-by-id.json", '{"format": "marrakech-vectors/1", "cases": {"m1": {}}}'),
        ("long.json", '{"format": "marrakech-vectors/1", "cases": [' + "9" * 5000 + "]}"),
        ("long.jsonl", "9" * 5000 + "\n"),
        pytest.param("damaged.jsonl.gz", DAMAGED_GZIP, id="damaged.jsonl.gz"),
    ],
)
def test_vectors_refuses_other_formats(
    repo_root: Path, tmp_path: Path, name: str, content: str | bytes
) -> None:
    """A file that is not marrakech-vectors/1 is refused with a clear message (exit 2): one
    line, never a traceback, also for JSON nested too deeply, a number too long for Python to
    read, a file that is not UTF-8 or a gzip file whose data is damaged."""
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = run(repo_root, "engine.vectors", str(path))
    assert result.returncode == 2
    assert str(path) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("clock", "where"), [("cpu", "subprocess"), ("wall", "in process")])
def test_bench_prints_rates(
    repo_root: Path, clock: str, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m engine.bench`: a line per player count in the contract form, checked too."""
    args = ("--games", "20", "--checked-games", "2", "--clock", clock)
    if where == "subprocess":
        result = run(repo_root, "engine.bench", *args)
    else:
        result = in_process(bench.main, capsys, *args)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for players in (2, 3, 4):
        pattern = rf"{players} players: \d+ games/s, \d+ actions/s"
        assert any(re.fullmatch(pattern, line) for line in lines), lines
        assert any(line.startswith(f"{players} players checked API: ") for line in lines)
    assert f"{clock} clock" in lines[-1]


@pytest.mark.parametrize(("args", "clock"), [((), "cpu"), (("--clock", "wall"), "wall")])
def test_the_bench_times_every_line_by_the_clock_asked_for_the_cpu_by_default(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    clock: str,
) -> None:
    """`--clock cpu` (the default, when left out) is this process's CPU time, so other programs
    busy on the machine do not count against the engine; `--clock wall` the wall clock. Every
    line is timed by the clock asked for, and the last line says which."""
    assert {"cpu": time.process_time, "wall": time.perf_counter} == bench.CLOCKS
    clocks: list[Callable[[], float]] = []

    def noted(*args: Any, clock: Callable[[], float], **kwargs: Any) -> bench.Rate:
        clocks.append(clock)
        return (1.0, 1.0)

    monkeypatch.setattr(bench, "measure", noted)
    assert bench.main(["--games", "1", "--checked-games", "1", *args]) == 0
    assert clocks
    assert all(used is bench.CLOCKS[clock] for used in clocks)
    assert f"; {clock} clock;" in capsys.readouterr().out.splitlines()[-1]


def test_the_bench_reports_the_median_batch() -> None:
    """Five batches of one game of 10 actions, lasting 1, 5, 2, 4 and 3 s: the rates of the
    3 s batch, not the best (1 s) nor the worst."""
    stamps = iter([0.0, 1.0, 1.0, 6.0, 6.0, 8.0, 8.0, 12.0, 12.0, 15.0])

    def ten_actions(players: int, variant: Variant, rng: random.Random) -> int:
        return 10

    rate = bench.measure(
        ten_actions, 4, Variant.STANDARD, 5, seed=1, batches=5, clock=lambda: next(stamps)
    )
    assert rate == pytest.approx((1 / 3, 10 / 3))


def test_a_reader_that_goes_away_ends_the_output_quietly(repo_root: Path, data_dir: Path) -> None:
    """`python -m engine.replay RECORD --trace | head -1`: no traceback when the pipe closes."""
    process = subprocess.Popen(
        [sys.executable, "-m", "engine.replay", str(records(data_dir)[0]), "--trace"],
        cwd=repo_root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    json.loads(process.stdout.readline())  # far more follows than a pipe holds
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 1
    assert "Traceback" not in errors
    assert "Error" not in errors


def test_a_reader_gone_before_a_short_output_ends_it_quietly_too(
    repo_root: Path, data_dir: Path
) -> None:
    """`python -m engine.replay RECORD | head -0`: an output smaller than the pipe's buffer is
    written when the command ends, after its reader left; still no traceback, no "Exception
    ignored" line, and exit status 1. Python buffers a pipe's output unless told otherwise, so
    this runs without PYTHONUNBUFFERED."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    process = subprocess.Popen(
        [sys.executable, "-m", "engine.replay", str(records(data_dir)[0])],
        cwd=repo_root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert (process.wait(timeout=60), errors) == (1, "")
