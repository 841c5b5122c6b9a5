"""One judgement per finished game (docs/coach.md, "One judgement per game"): the analysis,
Learn from your mistakes and the stats' accuracy all read the same `ai.judge.GameJudgement`.

Judging a whole game costs seconds of CPU, so it is done once, by whichever of them needs it
first, in the worker pool's slow lane (never on the event loop), and kept in the database as
compact JSON (`ai.judge_json`, bot/storage/judgements.py); reading it back costs a couple of
milliseconds. In this process, callers asking for a game being judged wait for that one
judging; two processes judging the same game at once both finish, and the first text written
is the one kept (the judge is deterministic: both say the same). A kept text this bot cannot
read is judged again: one of an older layout, or damaged, is replaced by the new judgement (so
it is judged once); one of a newer layout, written by a newer process beside this one during
an upgrade, stays for the processes that read it, and this one uses its own judgement. A
judgement the database cannot keep (an outage as it is written) is still given to whoever
asked: the analysis is drawn from it all the same, and the game's next ask judges it again and
keeps it. One the database fails to read is judged afresh in the workers, given all the same
and kept if the database takes it (a kept one stays as it is: the judge says the same again).
"""

from __future__ import annotations

import asyncio
import functools
import logging

from ai.judge import GameJudgement
from ai.judge_json import VERSION, judgement_from_json, version_of
from bot.storage.database import DatabaseUnavailableError
from bot.storage.judgements import JudgementStore
from bot.workers import jobs
from bot.workers.pool import Lane, WorkerPool
from engine import Record

log = logging.getLogger(__name__)

JUDGE_TIMEOUT_SECONDS = 120.0
"""How long a worker may judge one game."""


class GameJudgements:
    """Each finished game's judgement: read from the database, or judged once by a worker."""

    def __init__(self, store: JudgementStore, workers: WorkerPool) -> None:
        self._store = store
        self._workers = workers
        self._judging: dict[int, asyncio.Task[GameJudgement]] = {}

    async def of(self, game_id: int, record: Record) -> GameJudgement:
        """The judgement of the finished game `game_id`, whose record is `record`."""
        task = self._judging.get(game_id)
        if task is None:
            task = asyncio.ensure_future(self._judgement(game_id, record))
            self._judging[game_id] = task
            task.add_done_callback(functools.partial(self._judged, game_id))
        return await asyncio.shield(task)

    def _judged(self, game_id: int, task: asyncio.Task[GameJudgement]) -> None:
        """A judging ended: forget it, and take its failure if it failed. The callers still
        waiting get the failure themselves and tell it. Those that left meanwhile (the stats'
        job, cancelled at a stop while a worker judged; the pool then closes under the
        judging) leave it to nobody, and asyncio would log it with a traceback as an
        exception never retrieved: it is no incident, the next caller judges again."""
        self._judging.pop(game_id, None)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.debug("judgement of game %s ended without a result: %s", game_id, error)

    async def _judgement(self, game_id: int, record: Record) -> GameJudgement:
        unread: DatabaseUnavailableError | None = None
        try:
            kept = await self._store.judgement(game_id)
        except DatabaseUnavailableError as error:  # judged afresh: the same judgement
            unread, kept = error, None
        newer = False
        if kept is not None:
            try:
                return judgement_from_json(kept)
            except ValueError as error:
                newer = (version_of(kept) or 0) > VERSION
                log.warning(
                    "judgement of game %s not readable here (%s); judged again%s",
                    game_id,
                    error,
                    "" if newer else " and replaced",
                )
        text = await self._workers.run(
            Lane.SLOW, jobs.judged_game, record, limit=JUDGE_TIMEOUT_SECONDS
        )
        # The outage is logged once by its watch: one line here says what it did to this game.
        try:
            if kept is None:
                await self._store.add_judgement(game_id, text)
            elif not newer:
                await self._store.replace_judgement(game_id, kept, text)
        except DatabaseUnavailableError as error:
            log.info(
                "judgement of game %s %s; kept at its next ask (%s)",
                game_id,
                "not kept" if unread is None else "not read, judged again and not kept",
                error,
            )
        else:
            if unread is not None:
                log.info("judgement of game %s not read; judged again (%s)", game_id, unread)
        return judgement_from_json(text)
