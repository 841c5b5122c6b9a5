"""What the worker pool's fork server loads (`PRELOAD`, bot/workers/pool.py), never the bot: the
pool's module (each worker's first call, `_start_worker`, is there) and the jobs' code, then one
board drawn, so that every worker forked from it starts with the fonts, the palette and the
cached layers loaded and its own warm-up (`jobs.ready`) finds the work done.

Drawn once per fork server instead of once per worker; should the drawing fail, each worker
warms up by itself as the pool starts it. The collector is paused while the modules load (they
make objects by the hundred thousand and free few), and what the fork server then holds is
frozen: it lives as long as the process, and the workers' collections never walk it."""

from __future__ import annotations

import contextlib
import gc
import importlib


def _load() -> None:
    gc.disable()
    try:
        importlib.import_module("bot.workers.pool")
        jobs = importlib.import_module("bot.workers.jobs")
        with contextlib.suppress(Exception):
            jobs.ready()
    finally:
        gc.enable()
    gc.freeze()


_load()
