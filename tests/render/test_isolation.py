"""render/ stays a pure picture library: no Discord, asyncio or database imports, and it is safe
to call from the bot's worker threads at the same time."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from render import render_board
from render.samples import Moment, at_turn

FORBIDDEN = ("discord", "asyncio", "aiosqlite", "aiohttp", "ai", "bot")


def test_importing_render_loads_no_bot_machinery() -> None:
    code = (
        "import sys, render, render.demo, render.bench;"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert "PIL" in loaded
    assert "engine" in loaded
    assert not loaded & set(FORBIDDEN)


def test_threads_rendering_at_once_get_the_same_bytes_as_one_alone(midgame: Moment) -> None:
    others = [at_turn(players, seed=seed, turn=9) for players, seed in ((2, 21), (3, 22))]
    jobs = [midgame, *others] * 4
    # Threads first, on a size nothing has drawn yet, so they also build the caches at once.
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(
            pool.map(
                lambda m: render_board(m.state, events=m.events, show_candidates=True, size=640),
                jobs,
            )
        )
    alone = [render_board(m.state, events=m.events, show_candidates=True, size=640) for m in jobs]
    assert together == alone
