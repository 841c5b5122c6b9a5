"""What the spectators' service hands the edge (bot.services.watch): the game as a watcher sees
it, with their own watch, and the direct message due to one of them."""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.views import GameView
from bot.storage.watchers import Watcher


@dataclass(frozen=True, slots=True)
class WatchView:
    """What a watcher's private view shows: the game, and their own watch (None: they do not
    watch it, or no longer)."""

    game: GameView
    watcher: Watcher | None


@dataclass(frozen=True, slots=True)
class WatchNews:
    """The direct message due to one watcher: the game as it is now, and the seq up to which
    they were told before (its turns since are the news)."""

    user_id: int
    view: GameView
    told_seq: int
    locale: str | None = None
    """The language the watcher asked in (None: the game's)."""
