"""`python -m bot.presentation.analysis_bench`: how long the workers take over a finished
game's analysis, and (with `--pictures DIR`) sample pictures of one.

Plays seeded 4-player games between medium AI players (standard rules), then times, in this
process, the two jobs a press of Analysis gives the workers: computing the analysis from the
game's record and judging every decision of every seat (`jobs.game_review` with
`ai.judge.judge_game`, as the first request for the game does), and drawing it
with its English words (`jobs.analysis_png`). Each figure is a median over the games, with the
slowest beside it, in wall-clock seconds and in this process's CPU seconds. First line:
`analysis of a 4-player game: median 3.91 s (computed 3.85 s, drawn 0.06 s), slowest 5.40 s`.

`--pictures DIR` writes `analysis.png` (the picture as the bot sends it, 720 px wide) and
`analysis-phone.png` (the same, shrunk to the 390 px of a phone's screen) for the game of
`--seed`, its seats named in several scripts.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

import engine
from ai.arena import play_seeded
from ai.judge import judge_game
from ai.medium import MediumPlayer
from bot.presentation.analysis import analysis_texts
from bot.workers import jobs

NAMES = ("Amina", "Dmitro Іваненко", "Zoë 🌸", "李 Kwame")
PHONE_WIDTH = 390


def medium_game(players: int, seed: int) -> engine.Record:
    """The record of a game of `players` medium AI players from `seed` (as the arena plays)."""
    player = MediumPlayer()
    final = play_seeded(
        players,
        engine.Variant.STANDARD,
        seed,
        lambda state, _seat, ai_seed: player.decide(state, ai_seed).action,
    )
    return engine.record_of(final)


def timed(games: int, first_seed: int) -> list[tuple[float, float, float, float, int]]:
    """Per game: wall and CPU seconds to compute, wall and CPU seconds to draw, PNG bytes."""
    rows = []
    for seed in range(first_seed, first_seed + games):
        record = medium_game(4, seed)
        wall, cpu = time.perf_counter(), time.process_time()
        review = jobs.game_review(record, judge_game(record))
        computed = (time.perf_counter() - wall, time.process_time() - cpu)
        texts = analysis_texts(review.analysis, seed, "en", review.seats)
        wall, cpu = time.perf_counter(), time.process_time()
        png = jobs.analysis_png(review.analysis, texts, NAMES, review.blunders)
        drawn = (time.perf_counter() - wall, time.process_time() - cpu)
        rows.append((*computed, *drawn, len(png)))
    return rows


def pictures(folder: Path, seed: int) -> list[Path]:
    """Write the sample pictures of the game of `seed` to `folder`; their paths."""
    record = medium_game(4, seed)
    review = jobs.game_review(record, judge_game(record))
    texts = analysis_texts(review.analysis, 12, "en", review.seats)
    png = jobs.analysis_png(review.analysis, texts, NAMES, review.blunders)
    folder.mkdir(parents=True, exist_ok=True)
    full = folder / "analysis.png"
    full.write_bytes(png)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    height = round(image.height * PHONE_WIDTH / image.width)
    phone = folder / "analysis-phone.png"
    image.resize((PHONE_WIDTH, height), Image.Resampling.LANCZOS).save(phone, optimize=True)
    return [full, phone]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.presentation.analysis_bench",
        description="Time the analysis of finished 4-player games, or draw sample pictures.",
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pictures", type=Path, metavar="DIR")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.pictures is not None:
        for path in pictures(args.pictures, args.seed):
            print(path)
        return 0
    jobs.ready()  # fonts and cached layers, as a warm worker has them
    rows = timed(args.games, args.seed)
    compute = [row[0] for row in rows]
    draw = [row[2] for row in rows]
    total = [row[0] + row[2] for row in rows]
    print(
        f"analysis of a 4-player game: median {statistics.median(total):.2f} s (computed "
        f"{statistics.median(compute):.2f} s, drawn {statistics.median(draw):.2f} s), "
        f"slowest {max(total):.2f} s"
    )
    cpu = [row[1] + row[3] for row in rows]
    size = statistics.median(row[4] for row in rows) / 1024
    print(
        f"  {len(rows)} games; CPU time median {statistics.median(cpu):.2f} s, slowest "
        f"{max(cpu):.2f} s; PNG median {size:.0f} KB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
