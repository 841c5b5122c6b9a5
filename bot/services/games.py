"""GameService: the game use cases in one object, for the composition root and the tests.

It builds the loader every game use case shares (bot.services.loader: locks, memory, the
database), the ratings the games that end are applied to (`ratings`, bot.services.ratings),
and the services on the loader: `lobby` (bot.services.lobby), `play`
(bot.services.play), `turns`, the turn clock (bot.services.turn_clock), `substitutes`
(bot.services.substitutes) and `nudges` (bot.services.nudges); and the record of this
process's catch-ups of games at its starts, under its shards (`catch_ups`,
bot.services.catch_ups). Finding a
channel's open game, where the lobby and the play commands both begin, is its own.
"""

from __future__ import annotations

from collections.abc import Callable

import ai
from bot.services import dice
from bot.services.away import AwayService
from bot.services.catch_ups import CatchUps
from bot.services.clock import Clock, system_clock
from bot.services.errors import NoGameHereError
from bot.services.hints import HintAllowance
from bot.services.loader import GameLoader
from bot.services.lobby import LobbyService
from bot.services.nudges import NudgeService
from bot.services.play import PlayService
from bot.services.ratings import RatingService
from bot.services.substitutes import SubstituteService
from bot.services.turn_clock import TurnClockService
from bot.services.views import Damage
from bot.storage.away import AwayStore
from bot.storage.games import ALL_SHARDS, GameStore, ShardSet
from bot.storage.nudges import NudgeStore
from bot.storage.ratings import RatingStore
from bot.storage.substitutes import SubstituteStore
from bot.workers.pool import WorkerPool


class GameService:
    """The use cases of a Marrakech game, with plain ints for users, channels and guilds."""

    def __init__(
        self,
        store: GameStore,
        *,
        clock: Clock = system_clock,
        seeds: Callable[[], str] = dice.new_seed,
        ai_budget: ai.Budget | None = None,
        workers: WorkerPool | None = None,
        owner: str | None = None,
        shards: ShardSet = ALL_SHARDS,
    ) -> None:
        """`seeds` makes each new game's secret seed; `ai_budget` limits the hard AI's search
        (None: the engine's default); the AI thinks in `workers` (default: threads of this
        process, for tests and tools); `owner` names this process in the claims it takes on
        due work (bot.services.loader), whose games in `shards` come to it first."""
        self._store = store
        self.ratings = RatingService(RatingStore(store.database))
        self.loader = GameLoader(store, clock, owner, self.ratings)
        self.lobby = LobbyService(self.loader, seeds)
        self.play = PlayService(self.loader)
        self.catch_ups = CatchUps(store, shards)
        self.hints = HintAllowance(self.loader)
        self.substitutes = SubstituteService(self.loader, SubstituteStore(store.database))
        self.nudges = NudgeService(self.loader, NudgeStore(store.database))
        self.away = AwayService(self.loader, AwayStore(store.database))
        self.turns = TurnClockService(
            self.loader,
            ai_budget=ai_budget,
            workers=workers if workers is not None else WorkerPool(workers=0),
            shards=shards,
            away=self.away,
        )

    def on_damage(self, listener: Callable[[Damage], None]) -> None:
        """Call `listener` once per run for each game found damaged on loading it."""
        self.loader.on_damage(listener)

    def on_game_closed(self, listener: Callable[[int], None]) -> None:
        """Call `listener` with a game's id once this process closed it (finished, aborted,
        cancelled or abandoned)."""
        self.loader.on_game_closed(listener)

    def on_seat_left(self, listener: Callable[[int], None]) -> None:
        """Call `listener` with a game's id once a person resigned from it and it goes on."""
        self.loader.on_seat_left(listener)

    def on_schedule_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` whenever a turn clock or a game's display changes."""
        self.loader.on_schedule_change(listener)

    async def open_game_id(self, channel_id: int) -> int:
        """The id of the channel's lobby or running game; NoGameHereError if none."""
        game = await self._store.open_in_channel(channel_id)
        if game is None:
            raise NoGameHereError()
        return game.id

    async def game_to_show(self, channel_id: int) -> int:
        """The channel's lobby or running game, else its last game played to the end (its final
        board); NoGameHereError if neither."""
        game = await self._store.open_in_channel(channel_id)
        if game is None:
            game = await self._store.last_over_in_channel(channel_id)
        if game is None:
            raise NoGameHereError()
        return game.id
