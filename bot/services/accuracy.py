"""The background job that writes each person's accuracy in each finished game, for the stats
(`/marrakech stats`, docs/coach.md "Accuracy in your stats").

Judging a game costs seconds of CPU, so it runs in the worker pool's slow lane, never on the
event loop, and never in the path of a click, once per game whoever asks first
(`bot.services.judgements`: the analysis and the drill read the same judgement): a game that
ends wakes the job (`game_closed`), which judges, newest first, the finished games with people
in them that have no accuracy yet, at most PASS_GAMES a pass. The passes after a start look
through every finished game for those among some person's newest ACCURACY_GAMES of their server
(the games their stats show, however old: those that ended while the bot was down, before a
crash let it write, or before an upgrade asked for accuracy to be written again; past a game
that gave a person no value, their stats reach further back), one after another until one
finds them all; later passes look only among the newest WINDOW_GAMES finished games, so a game
that closes costs a bounded read. Writing is idempotent (a seat written keeps its value), so
two processes that judge the same game write it once. A game that cannot be judged (its record
damaged, a worker failing) is logged and left for the next start; one gone between the look
for games and its judging (deleted) is left out quietly, the others judged all the same. A
seat whose person had no choice to make (a resignation at the first turn) is written without a
value: judged, with nothing to count.

A person's accuracy counts the decisions they made themselves (`own_accuracy`): in a seat handed
to a substitute, each person's own, and the turns the AI played for someone (their time ran
out, or it held their seat until they rejoined) count for nobody.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import engine
from ai.judge import GameJudgement, Judgement, summarise
from bot.services.errors import GameNotFoundError, GameNotRunningError
from bot.services.judgements import GameJudgements
from bot.services.play import PlayService
from bot.services.stats import ACCURACY_GAMES
from bot.storage.database import DatabaseUnavailableError
from bot.storage.errors import ForeignKeyViolation
from bot.storage.stats import PendingGame, SeatAccuracy, StatsStore

log = logging.getLogger(__name__)

PASS_GAMES = 100
"""The most games one pass judges (the newest first; the stats show 20 per person)."""
WINDOW_GAMES = 1000
"""How many of the newest finished games (all servers) a pass after the catch-up at start looks
among: a game that closes is judged within them."""
REST_PER_JUDGING = 3.0
"""After judging a game, the job rests this many times as long before the next: it takes at
most a quarter of a worker's time, so AI turns and pictures are never kept waiting long by it
(a pass over many games, after a long stop, spreads out)."""
BACKOFF_SECONDS = 5.0
"""The pause after a pass the database failed, before the next."""


@dataclass(frozen=True, slots=True)
class _Judged:
    """What judging one game did: the seats written, and whether someone had no value in it."""

    written: int
    without_value: bool


class AccuracyRecorder:
    """Judges finished games in the workers and writes their people's accuracy."""

    def __init__(
        self,
        store: StatsStore,
        play: PlayService,
        judgements: GameJudgements,
        *,
        now: Callable[[], float] = time.monotonic,
        rest: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._store = store
        self._play = play
        self._judgements = judgements
        self._now = now
        self._rest = rest
        self._wake = asyncio.Event()
        self._waiting = asyncio.Event()
        """Set while the job waits for a game to close, with nothing left to do."""
        self._rested_at = 0.0
        """The time (of `now`) before which the job judges no game: its rest after the last one,
        kept across passes, so games closing one after another do not keep a worker busy."""
        self._looked_back = False
        """Whether a pass has found every game some person's stats would show: until then
        passes look back through all finished games, then only among the newest."""
        self._skipped: set[int] = set()
        """Games this process will not judge again until it restarts: judging them failed."""
        self._again = False
        """Whether the last pass may have left games to judge (it found as many as it asked
        for, or, looking back, judged a game that gave someone no value, so their stats reach
        further back): the next pass follows at once rather than after a game closes."""

    def game_closed(self, game_id: int) -> None:
        """A game closed in this process: look for games to judge (in the background)."""
        self._waiting.clear()
        self._wake.set()

    async def catch_up(self) -> int:
        """One pass: judge the finished games without accuracy (newest first, at most
        PASS_GAMES) and write it; how many seats were written."""
        written = 0
        reach_back = False
        wanted = PASS_GAMES + len(self._skipped)
        if self._looked_back:
            games = await self._store.without_accuracy(wanted, WINDOW_GAMES)
        else:
            games = await self._store.shown_without_accuracy(wanted, ACCURACY_GAMES)
        for game in games:
            if game.game_id in self._skipped:
                continue
            if (left := self._rested_at - self._now()) > 0:
                await self._rest(left)
            started = self._now()
            try:
                rows = await self._judge(game)
                written += rows.written
                reach_back = reach_back or rows.without_value
                ended = self._now()
                self._rested_at = ended + (ended - started) * REST_PER_JUDGING
            except DatabaseUnavailableError:
                raise
            except Exception:
                log.exception("accuracy of game %s: not judged; tried again at start", game.game_id)
                self._skipped.add(game.game_id)
        self._again = len(games) >= wanted or (reach_back and not self._looked_back)
        self._looked_back = self._looked_back or not self._again
        return written

    async def _judge(self, game: PendingGame) -> _Judged:
        try:
            record = engine.record_from_json(await self._play.record(game.game_id))
            actors = await self._play.actors(game.game_id)
        except (GameNotFoundError, GameNotRunningError):
            return self._gone(game.game_id)
        if len(actors) != len(record.actions):
            raise ValueError(f"the log has {len(actors)} moves, the record {len(record.actions)}")
        try:
            judged = await self._judgements.of(game.game_id, record)
            rows = own_accuracy(judged, game, actors)
            written = await self._store.add_accuracy(game.game_id, rows)
        except ForeignKeyViolation:  # its row went while it was judged
            return self._gone(game.game_id)
        return _Judged(written, any(row.accuracy is None for row in rows))

    def _gone(self, game_id: int) -> _Judged:
        """Game `game_id` went after the look for games found it (deleted): nothing to judge,
        no incident; left out of the passes that follow."""
        log.debug("accuracy of game %s: the game is gone, not judged", game_id)
        self._skipped.add(game_id)
        return _Judged(0, False)

    async def run_forever(self) -> None:
        """Catch up at once, pass after pass while a pass finds as many games as it asks for,
        then again after every game that closes, until cancelled."""
        while True:
            self._wake.clear()
            try:
                written = await self.catch_up()
            except DatabaseUnavailableError:
                await asyncio.sleep(BACKOFF_SECONDS)
                continue
            if written:
                log.info("accuracy of %d seats written for the stats", written)
            if not self._wake.is_set() and not self._again:
                self._waiting.set()
                await self._wake.wait()
                self._waiting.clear()

    async def idle(self) -> None:
        """Wait until the job has judged every game it was woken for and waits again."""
        while not self._waiting.is_set():
            await self._waiting.wait()


def own_accuracy(
    judged: GameJudgement, game: PendingGame, actors: Sequence[int | None]
) -> list[SeatAccuracy]:
    """Each person's accuracy over the decisions they made in each seat they played (`actors`:
    who made each action of the record, None for a die roll or the AI): the seat's people (who
    held it at the end, who left it) and anyone else who made one of its decisions (a
    substitute who handed it on), in seat order; None for a person who made no decision with
    a choice there."""
    made: dict[tuple[int, int], list[Judgement]] = {person: [] for person in game.people}
    for judgement in judged.decisions:
        actor = actors[judgement.index]
        if actor is not None:
            made.setdefault((judgement.seat, actor), []).append(judgement)
    rows = []
    for (seat, user_id), own in sorted(made.items()):
        summary = summarise(seat, own)
        rows.append(SeatAccuracy(seat, user_id, summary.accuracy if summary.decisions else None))
    return rows
