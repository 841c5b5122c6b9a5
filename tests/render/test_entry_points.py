"""`python -m render.demo OUTDIR`, `python -m render.bench` and `python -m render.rating_chart
OUT.png [WIDTH]` do what they say, and `--help` gives each one's usage and writes nothing."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from PIL import Image

from render import bench, demo, rating_chart
from render.board import render_board
from render.samples import at_turn, new_sample
from tests.conftest import ClosedPipeRun

EXPECTED = {
    "opening.png",
    "midgame-candidates.png",
    "two-player.png",
    "rotate-after.png",
    "elimination.png",
    "game-over.png",
    "cyrillic.png",
    "names.png",
    "phone.png",
    "portrait.png",
    "replay.gif",
    "seen-protanopia.png",
    "seen-deuteranopia.png",
    "seen-tritanopia.png",
}


def test_demo_writes_every_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert demo.main([str(tmp_path / "out")]) == 0
    names = {path.name for path in (tmp_path / "out").iterdir()}
    assert names == EXPECTED
    for name in names:
        image = Image.open(io.BytesIO((tmp_path / "out" / name).read_bytes()))
        image.load()
        assert image.width >= (390 if name == "phone.png" else 400)
    assert len(capsys.readouterr().out.splitlines()) == len(EXPECTED)


def test_the_demo_s_phone_picture_is_the_board_shrunk_to_390_px_wide() -> None:
    """phone.png is the picture shrunk to a phone screen's 390 px width, its proportions kept."""
    opening, _ = new_sample(4, seed=1)
    png = render_board(opening, names=demo.NAMES)
    board = Image.open(io.BytesIO(png))
    phone = demo.phone_size(png)
    assert phone.width == 390
    assert phone.height == round(board.height * 390 / board.width)


def test_demo_wants_one_folder(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        demo.main([])
    assert stopped.value.code == 2
    assert "usage: python -m render.demo [-h] OUTDIR" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("main", "usage"),
    [
        (demo.main, "usage: python -m render.demo [-h] OUTDIR"),
        (bench.main, "usage: python -m render.bench [-h]"),
        (rating_chart.main, "usage: python -m render.rating_chart [-h] OUT.png [WIDTH]"),
    ],
    ids=["demo", "bench", "rating_chart"],
)
def test_help_gives_the_usage_and_writes_nothing(
    main: Callable[[Sequence[str]], int],
    usage: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not a folder or a file named --help, nor a benchmark run."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0
    said = capsys.readouterr()
    assert said.out.startswith(usage), said.out
    assert said.err == ""
    assert list(tmp_path.iterdir()) == []


def test_bench_prints_the_agreed_first_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench, "SEEDS", (1,))
    # A short game keeps the test quick; full-game replays are tested in test_replay.
    monkeypatch.setattr(bench, "finished", lambda players, seed: at_turn(players, seed, 8))
    assert bench.main() == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"median \d+\.\d ms per board, PNG \d+ KB", lines[0])
    assert lines[2].startswith("replay GIF of a 4-player game")


def test_bench_gives_the_median_png_size_and_the_largest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first line's PNG size is the median board's, not the mean: one 100 KB board among
    boards of 2 KB leaves it at 2 KB, and the second line names the 100 KB one as the largest."""
    pictures = iter([2048] * 3 + [100 * 1024] + [2048] * 1000)
    monkeypatch.setattr(bench, "render_board", lambda *args, **kwargs: bytes(next(pictures)))
    monkeypatch.setattr(bench, "render_replay", lambda record: b"")
    monkeypatch.setattr(bench, "SEEDS", (1,))
    monkeypatch.setattr(bench, "finished", lambda players, seed: at_turn(players, seed, 8))
    assert bench.main() == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(", PNG 2 KB"), lines[0]
    assert lines[1].endswith("; largest PNG 100 KB"), lines[1]


@pytest.mark.parametrize(
    "command",
    [("render.demo", "OUTDIR"), ("render.bench",)],
    ids=["demo", "bench"],
)
def test_the_output_ends_quietly_when_its_reader_goes_away(
    into_a_closed_pipe: ClosedPipeRun, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """`python -m render.demo OUTDIR | head -1` and `python -m render.bench | head -1`: exit
    status 1 and not a word on stderr once the reader is gone, as the engine's and the AI's
    commands end (`engine.cli.run_cli`)."""
    module, *args = command
    arguments = [str(tmp_path / "samples") if arg == "OUTDIR" else arg for arg in args]
    result = into_a_closed_pipe(module, *arguments)
    assert (result.returncode, result.stderr) == (1, "")
