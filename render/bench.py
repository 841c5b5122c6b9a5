"""`python -m render.bench`: how fast board pictures are made at the default size.

Renders every PLACE-phase moment of a few seeded 4-player games (with the turn's events, the
numbered candidates and the players' names, as the bot does) and prints the median time and
PNG size, then the time and size of a full 4-player replay GIF. First line:
`median 12.3 ms per board, PNG 85 KB`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence

from engine import Phase, record_of
from engine.cli import run_cli
from render.board import render_board
from render.layout import DEFAULT_SIZE
from render.replay import render_replay
from render.samples import Moment, finished, moments, new_sample

SEEDS = (1, 2, 3)
NAMES = ("Amina", "Dmitro Іваненко", "Zoë 🌸", "AI (hard)")


def main(argv: Sequence[str] = ()) -> int:
    argparse.ArgumentParser(
        prog="python -m render.bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    ).parse_args(argv)
    cases: list[Moment] = []
    for seed in SEEDS:
        state, rng = new_sample(4, seed)
        cases.extend(m for m in moments(state, rng) if m.state.phase is Phase.PLACE)
    first = cases[0]
    render_board(first.state, events=first.events, show_candidates=True, names=NAMES)  # warm
    times, cpu_times, sizes = [], [], []
    for case in cases:
        start, start_cpu = time.perf_counter(), time.process_time()
        png = render_board(case.state, events=case.events, show_candidates=True, names=NAMES)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - start_cpu)
        sizes.append(len(png))
    median_ms = statistics.median(times) * 1000
    median_kb = statistics.median(sizes) / 1024
    print(f"median {median_ms:.1f} ms per board, PNG {median_kb:.0f} KB")
    cpu_ms = statistics.median(cpu_times) * 1000
    print(
        f"  {len(cases)} boards at {DEFAULT_SIZE} px wide; median CPU time {cpu_ms:.1f} ms; "
        f"slowest {max(times) * 1000:.1f} ms; largest PNG {max(sizes) / 1024:.0f} KB"
    )
    record = record_of(finished(4, seed=SEEDS[0]).state)
    start = time.perf_counter()
    gif = render_replay(record)
    elapsed = time.perf_counter() - start
    print(
        f"replay GIF of a 4-player game ({len(record.actions)} actions): {elapsed:.2f} s, "
        f"{len(gif) / 1024:.0f} KB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(lambda: main(sys.argv[1:])))
