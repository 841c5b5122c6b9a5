"""The lobby: opening a game, taking and leaving seats, AI seats, cancelling, and the start.

A lobby is a game row with seats and no config yet. The start shuffles the seats and deals
from the game's secret seed (R13), stores the config in its record form (bot.services.records)
and sets the first turn's clock. `LobbyAction` names what can be done in a lobby: the edge
reads a button or a command into one and hands it to `LobbyService.apply`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

import engine
from bot.services import dice, records
from bot.services.actions import AI_LEVELS, LobbyAction
from bot.services.errors import (
    AlreadySeatedError,
    BadOptionError,
    ChannelHasGameError,
    GameNotRunningError,
    HostCannotLeaveError,
    HostOnlyError,
    LobbyClosedError,
    LobbyFullError,
    NoAiSeatError,
    NotEnoughPlayersError,
    NotSeatedError,
    TournamentGameError,
)
from bot.services.guilds import check_turn_limit, check_variant
from bot.services.loaded import LoadedGame, players_of
from bot.services.loader import GameLoader
from bot.services.views import GameView, Player
from bot.storage.game_log import GameLog
from bot.storage.game_rows import ChannelBusyError, GameRow, NewGame, SeatRow, StaleSeqError
from bot.storage.kinds import EndReason, GameStatus
from engine import Variant

NAME_LIMIT = 100
"""The most characters of a display name kept with a seat (Discord's names have at most 32)."""


BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols drawn as nothing: the Hangul fillers and the blank Braille pattern
(names that look empty are typed with them)."""


def shows_something(name: str) -> bool:
    """Whether `name` shows a character: a letter, digit, symbol or punctuation mark other
    than BLANK_LETTERS. Blanks, format characters (zero-width spaces and joiners, direction
    controls, soft hyphens) and combining marks show nothing by themselves: a name of only
    these reads as blank."""
    return any(
        unicodedata.category(char)[0] in "LNPS" and char not in BLANK_LETTERS for char in name
    )


def seat_name(name: str | None) -> str | None:
    """A display name as a seat keeps it: spaces collapsed, at most NAME_LIMIT characters;
    None when there is none (or nothing but spaces)."""
    if name is None:
        return None
    kept = " ".join(name.split())[:NAME_LIMIT].rstrip()
    return kept or None


class LobbyService:
    """Opens lobbies and changes them until they start or close."""

    def __init__(self, loader: GameLoader, seeds: Callable[[], str]) -> None:
        self._loader = loader
        self._store: GameLog = loader.store
        self._seeds = seeds

    async def create_lobby(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        seats: int = 4,
        variant: str = Variant.STANDARD.value,
        turn_limit_seconds: int | None = None,
        locale: str = "en",
        host_name: str | None = None,
        casual: bool = False,
        coach: bool = False,
        ai_levels: Sequence[str] = (),
    ) -> GameView:
        """Open a lobby in the channel with the host seated (shown by `host_name` in the
        pictures), and an AI seat of each of `ai_levels` after them, in one transaction; its
        public messages will be written in `locale` (a bot.presentation.messages language).
        A `casual` game counts in no rating; a `coach` game (hints and private verdicts,
        docs/coach.md) is always casual: help from the coach has no place in a rating."""
        if seats not in engine.PLAYER_COUNTS:
            raise BadOptionError("seats", seats)
        for level in ai_levels:
            if level not in AI_LEVELS:
                raise BadOptionError("level", level)
        if 1 + len(ai_levels) > seats:
            raise LobbyFullError()
        check_variant(variant)
        check_turn_limit(turn_limit_seconds)
        seed = self._seeds()
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            seats_wanted=seats,
            variant=variant,
            turn_limit_seconds=turn_limit_seconds,
            seed=seed,
            seed_sha256=dice.commitment(seed),
            locale=locale,
            host_name=seat_name(host_name),
            casual=casual or coach,
            coach=coach,
            ai_levels=tuple(ai_levels),
        )
        try:
            game = await self._store.create(new, self._loader.now())
        except ChannelBusyError:
            existing = await self._store.open_in_channel(channel_id)
            if existing is None:  # closed in between: let the user try again
                raise
            lobby = existing.status is GameStatus.LOBBY
            seated = lobby and any(
                seat.user_id == host_id for seat in await self._store.seats(existing.id)
            )
            raise ChannelHasGameError(
                existing.id,
                existing.guild_id,
                existing.channel_id,
                existing.board_message_id,
                lobby=lobby,
                seated=seated,
            ) from None
        host = Player(host_id, None, name=new.host_name)
        ais = tuple(Player(None, None, ai_level=level) for level in new.ai_levels)
        return self._loader.keep(LoadedGame(game, (host, *ais), None)).view()

    async def rematch(
        self, game_id: int, user_id: int, name: str | None = None
    ) -> tuple[GameView, tuple[int, ...]]:
        """Open a new lobby in a finished game's channel with its settings (seats, variant,
        turn limit, language, casual or rated, coached or not) and its AI seats, written
        together (a process killed after the write leaves a whole lobby for the next start to
        show), `user_id` (a player of that game, shown by `name`) as host. Returns the lobby
        and the finished game's other humans, to invite.
        Raises NotSeatedError for anyone else, GameNotRunningError unless the game is over,
        TournamentGameError for a tournament's game, ChannelHasGameError when the channel
        already has an open game."""
        finished = await self._loader.load(game_id)
        game = finished.game
        if game.status is not GameStatus.OVER:
            raise GameNotRunningError()
        if not any(player.user_id == user_id for player in finished.players):
            raise NotSeatedError()
        if game.tournament_id is not None:
            raise TournamentGameError()
        by_seat = sorted(finished.players, key=lambda player: player.seat or 0)
        view = await self.create_lobby(
            guild_id=game.guild_id,
            channel_id=game.channel_id,
            host_id=user_id,
            seats=game.seats_wanted,
            variant=game.variant,
            turn_limit_seconds=game.turn_limit_seconds,
            locale=game.locale,
            host_name=name,
            casual=game.casual,
            coach=game.coach,
            ai_levels=[player.ai_level for player in by_seat if player.ai_level is not None],
        )
        others = tuple(
            player.user_id
            for player in by_seat
            if player.user_id is not None and player.user_id != user_id
        )
        return view, others

    async def apply(
        self, game_id: int, user_id: int, action: LobbyAction, *, name: str | None = None
    ) -> GameView:
        """Do `action` in the lobby for the user, who is shown by `name` if they join."""
        level = action.ai_level
        if level is not None:
            return await self.add_ai(game_id, user_id, level)
        match action:
            case LobbyAction.JOIN:
                return await self.join(game_id, user_id, name=name)
            case LobbyAction.LEAVE:
                return await self.leave(game_id, user_id)
            case LobbyAction.START:
                return await self.start(game_id, user_id)
            case LobbyAction.CANCEL:
                return await self.cancel(game_id, user_id)
            case LobbyAction.REMOVE_AI:
                return await self.remove_ai(game_id, user_id)
        raise AssertionError(f"unhandled lobby action {action!r}")

    async def join(self, game_id: int, user_id: int, *, name: str | None = None) -> GameView:
        """Seat the user in the lobby; the pictures will show them by `name`."""
        async with self._loader.locked(game_id):
            loaded = await self._lobby(game_id)
            if any(player.user_id == user_id for player in loaded.players):
                raise AlreadySeatedError()
            if len(loaded.players) >= loaded.game.seats_wanted:
                raise LobbyFullError()
            now = self._loader.now()
            seats = await self._store.add_seat(game_id, user_id, now, seat_name(name))
            return self._seats_changed(loaded.game, seats, now)

    async def leave(self, game_id: int, user_id: int) -> GameView:
        """Take the user's seat in the lobby back; one who plays the game once it runs is
        told that resigning leaves it."""
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id)
            if loaded.game.status is not GameStatus.LOBBY:
                playing = loaded.game.status is GameStatus.RUNNING and any(
                    player.user_id == user_id for player in loaded.players
                )
                raise LobbyClosedError(playing=playing)
            if user_id == loaded.game.host_id:
                raise HostCannotLeaveError()
            if not any(player.user_id == user_id for player in loaded.players):
                raise NotSeatedError()
            now = self._loader.now()
            seats = await self._store.remove_seat(game_id, user_id, now)
            return self._seats_changed(loaded.game, seats, now)

    async def add_ai(self, game_id: int, user_id: int, level: str) -> GameView:
        """The host seats an AI of `level` in their lobby."""
        if level not in AI_LEVELS:
            raise BadOptionError("level", level)
        async with self._loader.locked(game_id):
            loaded = await self._hosted_lobby(game_id, user_id)
            if len(loaded.players) >= loaded.game.seats_wanted:
                raise LobbyFullError()
            now = self._loader.now()
            seats = await self._store.add_ai_seat(game_id, level, now)
            return self._seats_changed(loaded.game, seats, now)

    async def remove_ai(self, game_id: int, user_id: int) -> GameView:
        """The host removes the AI seated last in their lobby."""
        async with self._loader.locked(game_id):
            loaded = await self._hosted_lobby(game_id, user_id)
            rows = await self._store.seats(game_id)
            ai_rows = [row for row in rows if row.ai_level is not None]
            if not ai_rows:
                raise NoAiSeatError()
            now = self._loader.now()
            seats = await self._store.remove_seat_row(game_id, ai_rows[-1].key, now)
            return self._seats_changed(loaded.game, seats, now)

    async def cancel(self, game_id: int, user_id: int) -> GameView:
        """The host closes their lobby before it starts."""
        async with self._loader.locked(game_id):
            loaded = await self._hosted_lobby(game_id, user_id)
            return (await self._loader.end(loaded, EndReason.CANCELLED, user_id)).view()

    async def start(self, game_id: int, user_id: int) -> GameView:
        """Shuffle the seats and deal from the game's seed (R13), then post the first turn."""
        async with self._loader.locked(game_id):
            loaded = await self._hosted_lobby(game_id, user_id)
            if len(loaded.players) < min(engine.PLAYER_COUNTS):
                raise NotEnoughPlayersError(len(loaded.players))
            rng = dice.setup_rng(loaded.game.seed)
            rows = await self._store.seats(game_id)
            rng.shuffle(rows)
            config = engine.deal(len(rows), Variant(loaded.game.variant), rng)
            state = engine.new_game(config)
            players = tuple(
                Player(row.user_id, seat, row.ai_level, name=row.display_name)
                for seat, row in enumerate(rows)
            )
            try:
                game = await self._store.start(
                    game_id,
                    [row.key for row in rows],
                    records.config_json(config),
                    engine.to_position(state),
                    self._loader.now(),
                    self._loader.fresh_clock(loaded.game, players, state),
                )
            except StaleSeqError:
                self._loader.forget(game_id)
                raise LobbyClosedError() from None
            started = self._loader.keep(LoadedGame(game, players, state, turn_starts=(0,)))
            self._loader.schedule_changed(game)
            return started.view()

    async def _lobby(self, game_id: int, *, asked_by: int | None = None) -> LoadedGame:
        """The game, while it is a lobby; LobbyClosedError otherwise, saying to its host
        (`asked_by`, their Start pressed twice, say) that it has started."""
        loaded = await self._loader.load(game_id)
        if loaded.game.status is not GameStatus.LOBBY:
            started = loaded.game.status is GameStatus.RUNNING
            raise LobbyClosedError(started=started and asked_by == loaded.game.host_id)
        return loaded

    async def _hosted_lobby(self, game_id: int, user_id: int) -> LoadedGame:
        """The lobby, for its host (`_lobby`)."""
        loaded = await self._lobby(game_id, asked_by=user_id)
        if user_id != loaded.game.host_id:
            raise HostOnlyError()
        return loaded

    def _seats_changed(self, game: GameRow, seats: Sequence[SeatRow], now: datetime) -> GameView:
        """The lobby after its seats changed, as its row now is: its message no longer shows
        it, and the write stamped it and counted one change of seats (`rev`). Kept so, the
        next look finds the row unchanged and reads nothing more; a write another process
        made meanwhile leaves the row different, and the next look reads the game again."""
        row = replace(game, board_message_seq=None, updated_at=now, rev=game.rev + 1)
        lobby = LoadedGame(row, players_of(seats), None)
        return self._loader.keep(lobby).view()
