"""Nudges: any player of a running game may ping the person it waits for, once per
NUDGE_HOURS per game (docs/async.md#nudges).

The ping goes to the game's channel or thread, never to a direct message: a nudge is the table
reminding a player, in front of the table. It respects the person's away days and quiet hours,
which are not this module's: whether a person can be pinged now is asked of a `Reachability`
the composition root passes in (`always_reachable` until one is given), and a nudge that cannot
ping says why and is not counted. Taking the nudge is one guarded write (bot.storage.nudges), so
two players nudging at once give one ping.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from bot.services.errors import GameNotRunningError, GameNotStartedError
from bot.services.loader import GameLoader
from bot.services.seat_errors import NudgeError, Unreachable
from bot.storage.kinds import GameStatus
from bot.storage.nudges import NudgeStore

NUDGE_HOURS = 4
"""The fewest hours between two nudges of one game."""


class Reachability(Protocol):
    """Whether the person can be pinged on the server now: None if so, else why not."""

    async def __call__(self, guild_id: int | None, user_id: int, /) -> Unreachable | None: ...


async def always_reachable(guild_id: int | None, user_id: int, /) -> Unreachable | None:
    """Everyone can be pinged (no away days or quiet hours are known)."""
    return None


@dataclass(frozen=True, slots=True)
class Nudge:
    """A nudge taken: ping `user_id` in the game's channel (or thread)."""

    game_id: int
    channel_id: int
    user_id: int
    by: int
    locale: str
    board_message_id: int | None
    turn: int
    """The turn it is about: once that turn is over, the ping says so."""


class NudgeService:
    """Checks and records nudges; the edge posts the ping."""

    def __init__(
        self,
        loader: GameLoader,
        store: NudgeStore,
        reachable: Reachability = always_reachable,
    ) -> None:
        self._loader = loader
        self._store = store
        self.reachable = reachable
        """Replaceable once the away days and quiet hours are built."""

    async def nudge(self, game_id: int, user_id: int) -> Nudge:
        """The nudge of the person the game waits for, by the player `user_id`; NudgeError or
        GameNotRunningError (GameNotStartedError in its lobby, NotSeatedError for someone not
        playing) why not."""
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id)
        if loaded.game.status is GameStatus.LOBBY:
            raise GameNotStartedError(host=user_id == loaded.game.host_id)
        state = loaded.state
        if loaded.game.status is not GameStatus.RUNNING or state is None:
            raise GameNotRunningError()
        loaded.seat_of(user_id)  # NotSeatedError for someone not playing
        waited = loaded.player_at(state.to_move)
        if waited is None or waited.user_id is None or waited.ai_plays:
            raise NudgeError("nobody")
        if waited.user_id == user_id:
            raise NudgeError("yourself")
        why = await self.reachable(loaded.game.guild_id, waited.user_id)
        if why is not None:
            raise NudgeError("unreachable", user_id=waited.user_id, until=why.until, why=why)
        now = self._loader.now()
        last = await self._store.take(game_id, user_id, now, now - timedelta(hours=NUDGE_HOURS))
        if last is not None:
            raise NudgeError("too_soon", until=last + timedelta(hours=NUDGE_HOURS))
        game = loaded.game
        return Nudge(
            game.id,
            game.channel_id,
            waited.user_id,
            user_id,
            game.locale,
            game.board_message_id,
            state.turn,
        )
