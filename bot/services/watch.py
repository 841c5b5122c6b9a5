"""Spectators (docs/watching.md): a member of the server follows a running game without playing
it. They get a private view of it they refresh themselves and, if they ask, a direct message
at each finished turn, several turns that come at once in one message.

Watching acts on no game: it adds nothing to the game's channel and nothing to its log. A game
of another server cannot be watched. The direct messages are claimed in the database before
they go out (bot.storage.watchers), so each turn is told once, by one process, across
restarts; a finished or stopped game's watchers go with its last message, those who asked
for no message too.

Whether a direct message may reach a person now is the gate's (`MessageGate`): a person in
their quiet hours is held, and the turns they missed come together in the next message that
may reach them. A finished game's end held for them waits for the moment the gate names,
when the edge shows the game to its watchers again (`end_held`). Without a gate, every message
may go.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot.services.errors import (
    NotWatchableError,
    NotWatchingError,
    OtherServerGameError,
    UnseenGameError,
)
from bot.services.loader import GameLoader
from bot.services.views import GameStatus, GameView
from bot.services.watch_views import WatchNews, WatchView
from bot.storage.watchers import WatchStore

MessageGate = Callable[[int], Awaitable[datetime | None]]
"""Until when a direct message to the user is held (None: it may reach them now)."""
Sees = Callable[[int], bool]
"""Whether the member who asks may see the channel with this id."""


def _sees_all(_channel_id: int) -> bool:
    return True


async def _always(_user_id: int) -> datetime | None:
    return None


class WatchService:
    """Watch, look, ask for or stop the direct messages, stop watching; and the messages due."""

    def __init__(
        self, loader: GameLoader, store: WatchStore, gate: MessageGate | None = None
    ) -> None:
        self._loader = loader
        self._store = store
        self._gate = gate or _always
        self._watched: set[int] = set()
        """The games with a watcher who asked for direct messages, as far as this process
        knows: those asked for here, and all of them at its start (`start`)."""
        self._kept: set[int] = set()
        """The games with a watcher, messages asked for or not, as far as this process knows:
        those watched here, and all of them at its start. Their end ends every watch of them."""
        self._ends_held: dict[int, datetime] = {}
        """Per finished game whose end is held for a watcher, when the first may be told it."""

    async def start(self) -> None:
        """Learn which games have watchers, and which of them asked for direct messages (at
        the start)."""
        for game_id, messages in await self._store.watched_games():
            self._kept.add(game_id)
            if messages:
                self._watched.add(game_id)

    def set_gate(self, gate: MessageGate) -> None:
        """Decide, from now on, whether a direct message may reach a person now."""
        self._gate = gate

    async def watch(
        self,
        guild_id: int,
        game_id: int,
        user_id: int,
        locale: str | None = None,
        sees: Sees = _sees_all,
    ) -> WatchView:
        """Start watching the server's running game (a second time changes nothing), its
        messages in `locale` (the language the watcher asked in; None: the game's); a game
        whose channel the watcher cannot see (`sees`) is refused."""
        view = await self._running(guild_id, game_id, sees)
        await self._store.watch(game_id, user_id, view.seq, self._loader.now(), locale)
        self._kept.add(game_id)
        return WatchView(view, await self._store.get(game_id, user_id))

    async def look(
        self, guild_id: int, game_id: int, user_id: int, sees: Sees = _sees_all
    ) -> WatchView:
        """The game as it is now, for the watcher's view; a finished game is shown as it
        ended."""
        view = await self._view(guild_id, game_id, sees)
        return WatchView(view, await self._store.get(game_id, user_id))

    async def set_dms(
        self,
        guild_id: int,
        game_id: int,
        user_id: int,
        on: bool,
        locale: str | None = None,
        sees: Sees = _sees_all,
    ) -> WatchView:
        """Ask for (or stop) a direct message at each finished turn; told from now on, in
        `locale` when given (the language the watcher asked in). Asking needs sight of the
        game's channel (`sees`); stopping, like `unwatch`, never does: it shows nothing."""
        view = await self._running(guild_id, game_id, sees if on else _sees_all)
        if not await self._store.set_dms(game_id, user_id, on, view.seq, locale):
            raise NotWatchingError()
        if on:
            self._watched.add(game_id)
        return WatchView(view, await self._store.get(game_id, user_id))

    async def stop_messages(self, game_id: int, user_id: int) -> None:
        """No more direct messages to the watcher about this game until they ask again: Discord
        refused them one (closed to the bot), or they can no longer see the game's channel (a
        role taken away, the channel hidden from them, the server left)."""
        await self._store.set_dms(game_id, user_id, False, 0)

    async def unwatch(self, guild_id: int, game_id: int, user_id: int) -> WatchView:
        """Stop watching: no view to refresh, no message any more."""
        view = await self._view(guild_id, game_id)
        if not await self._store.unwatch(game_id, user_id):
            raise NotWatchingError()
        return WatchView(view, None)

    async def news(self, view: GameView) -> list[WatchNews]:
        """The direct messages due now that the game's message shows `view`, each claimed for
        its sender: none for a game no one here asked them for (no round trip: watchers ask
        through the game's server, whose shard is this process's, and a start learns them
        all), none while the AI plays on (its turns come together with the next person's
        turn or the end), none for a watcher held by the gate (theirs come later, together).
        A finished game's watchers go with its last message, and so do those of a game stopped
        before its end (aborted or abandoned), told of it (one held then is kept until it may
        be told, and the game stays watched here until then: `end_held`); those who asked for
        no message go too, untold (a game no one watches ends without a round trip)."""
        if view.status in (GameStatus.OVER, GameStatus.ABORTED):
            if view.id not in self._watched and view.id not in self._kept:
                return []
            return await self._last_news(view)
        if view.id not in self._watched:
            return []
        if view.status is not GameStatus.RUNNING or view.ai_to_move:
            return []
        due: list[WatchNews] = []
        for watcher in await self._store.behind(view.id, view.seq):
            if await self._gate(watcher.user_id) is not None:
                continue
            if await self._store.claim(watcher, view.seq):
                due.append(WatchNews(watcher.user_id, view, watcher.sent_seq, watcher.locale))
        return due

    async def _last_news(self, view: GameView) -> list[WatchNews]:
        due: list[WatchNews] = []
        held: list[datetime] = []
        stopped = view.status is GameStatus.ABORTED  # its end is news, at any seq
        for watcher in await self._store.end(view.id):
            if not watcher.dms or (watcher.sent_seq >= view.seq and not stopped):
                continue
            until = await self._gate(watcher.user_id)
            if until is None:
                due.append(WatchNews(watcher.user_id, view, watcher.sent_seq, watcher.locale))
            else:
                await self._store.put_back(watcher, self._loader.now())
                held.append(until)
        if held:
            self._ends_held[view.id] = min(held)
        else:
            self._watched.discard(view.id)
            self._ends_held.pop(view.id, None)
            self._kept.discard(view.id)
        return due

    def end_held(self, game_id: int) -> timedelta | None:
        """How long until a watcher held from the finished game's end may be told it (None:
        no one is held): its `news` tells them from then on."""
        until = self._ends_held.get(game_id)
        return None if until is None else max(until - self._loader.now(), timedelta())

    async def games_behind(self) -> list[GameView]:
        """The games whose watchers were not told what their message shows, or that they
        were stopped before their end (after a restart, once `start` learnt the watched
        games)."""
        views = []
        for game_id in await self._store.games_behind():
            async with self._loader.locked(game_id):
                views.append((await self._loader.load(game_id)).view())
        return views

    async def _view(self, guild_id: int, game_id: int, sees: Sees = _sees_all) -> GameView:
        async with self._loader.locked(game_id):
            view = (await self._loader.load(game_id)).view()
        if view.game.guild_id != guild_id:
            raise OtherServerGameError(game_id)
        if not sees(view.game.channel_id):
            raise UnseenGameError(game_id)
        if view.state is None:
            raise NotWatchableError(game_id, GameStatus.LOBBY.value)
        return view

    async def _running(self, guild_id: int, game_id: int, sees: Sees = _sees_all) -> GameView:
        view = await self._view(guild_id, game_id, sees)
        if view.status is not GameStatus.RUNNING:
            raise NotWatchableError(game_id, view.status.value)
        return view
