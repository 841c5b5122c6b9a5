"""The finished games whose analysis may be shown (`bot.presentation.analysis` words and draws
it; the workers compute it from the record).

Only a game of the asking server that was played to its end has one: a game still running (or
a lobby) is refused as not over yet, one aborted or abandoned as stopped early, and a game of
another server, or none, as not found, the same way a replay is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.services.errors import GameNotFoundError, NoAnalysisYetError, NotAReplayError
from bot.services.views import GameStatus, Player

if TYPE_CHECKING:
    from bot.services.play import PlayService


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A game played to its end: its record (FORMATS.md, with extras) and its players."""

    game_id: int
    record: dict[str, Any]
    players: tuple[Player, ...]
    actors: tuple[int | None, ...] = ()
    """Who made each action of the record, in order: the person who clicked, None for a die
    roll or a move the AI made (empty where no one reads it: a replay's analysis)."""


async def finished_game(play: PlayService, game_id: int, guild_id: int) -> FinishedGame:
    """The game `game_id` of server `guild_id`, if it was played to its end (see the module:
    NoAnalysisYetError or NotAReplayError otherwise)."""
    try:
        view = await play.look(game_id)
    except GameNotFoundError:
        raise NotAReplayError() from None
    if view.game.guild_id != guild_id:
        raise NotAReplayError()
    if view.status is not GameStatus.OVER:
        raise NoAnalysisYetError(game_id, stopped=view.status is GameStatus.ABORTED)
    record = await play.record(game_id)
    return FinishedGame(game_id, record, view.players, await play.actors(game_id))
