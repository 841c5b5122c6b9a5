"""A player's games and turns: their open games on a server (where they play, and whose turn
each game waits for), and the direct message they may ask for when it becomes their turn.

The choice of that message is the player's, bot-wide (bot.storage.players): a direct message
reaches them outside every server, so one `/marrakech notify` covers all their games. "When I
am next" adds a direct message when the player before them, a person, starts their turn (an
AI plays at once, and the player's own turn message follows)."""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.services.errors import BadOptionError, GameDamagedError
from bot.services.loader import GameLoader
from bot.services.views import OpenGame, TurnNotice, UpNextNotice
from bot.storage.game_log import GameLog
from bot.storage.game_rows import GameRow
from bot.storage.kinds import GameStatus
from bot.storage.players import DirectChoices, PlayerStore
from engine import GameState

log = logging.getLogger(__name__)


NOTIFY_CHOICES = ("on", "next", "off")
"""`/marrakech notify`: at your turn; at your turn and when you are next; none."""


def next_seat(state: GameState) -> int | None:
    """The seat that plays after the one to move, as the engine hands the turn on (R9: seats
    out of the game or without rugs are skipped); None when the game is over."""
    mover = state.to_move
    if mover is None:
        return None
    players = state.config.players
    for offset in range(1, players):
        seat = (mover + offset) % players
        if not state.is_eliminated(seat) and state.rugs_in_hand(seat):
            return seat
    return None


class PlayerGamesService:
    """What `/marrakech mygames` lists: the caller's lobbies and running games."""

    def __init__(self, loader: GameLoader, players: PlayerStore) -> None:
        self._loader = loader
        self._store: GameLog = loader.store
        self._players = players

    async def open_games(self, guild_id: int, user_id: int) -> list[OpenGame]:
        """The server's lobbies and running games in which the user holds a seat, oldest
        first, each with the seat whose turn it is."""
        rows = await self._store.open_games_of(guild_id, user_id)
        return [await self._open_game(row, user_id) for row in rows]

    async def _open_game(self, row: GameRow, user_id: int) -> OpenGame:
        listed = OpenGame(row.id, row.guild_id, row.channel_id, False, row.board_message_id, None)
        if row.status is GameStatus.LOBBY:
            return replace(listed, lobby=True)
        try:
            async with self._loader.locked(row.id):
                loaded = await self._loader.load(row.id)
        except GameDamagedError:
            log.info("game %d could not be loaded to list it", row.id)
            return listed
        if loaded.state is None or loaded.game.status is not GameStatus.RUNNING:
            return listed
        mine = [player for player in loaded.players if player.user_id == user_id]
        return replace(
            listed,
            to_play=loaded.player_at(loaded.state.to_move),
            yours_to_ai=any(player.ai_plays for player in mine),
            paused=loaded.paused_until() is not None,
        )

    # --- direct messages when a turn begins ----------------------------------------------------

    async def set_turn_dms(self, user_id: int, on: bool) -> bool:
        """Turn the user's direct messages at their turn on or off; True if that changed."""
        return await self._players.set_turn_dms(user_id, on, self._loader.now())

    async def set_notify(self, user_id: int, choice: str, locale: str | None = None) -> None:
        """The user's `/marrakech notify` choice (NOTIFY_CHOICES), their direct messages then
        written in `locale` (the language they asked in; None: each game's); BadOptionError
        for any other choice, changing nothing."""
        if choice not in NOTIFY_CHOICES:
            raise BadOptionError("state", choice)
        await self._players.set_choices(
            user_id, choice != "off", choice == "next", self._loader.now(), locale
        )

    async def turn_dms_refused(self, user_id: int) -> bool:
        """Discord refused a direct message to the user: turn theirs off. True if they were on
        (the player is then told once, in the game's channel)."""
        return await self._players.set_turn_dms(user_id, False, self._loader.now())

    async def turn_notice(self, game_id: int, seq: int, message_id: int) -> TurnNotice | None:
        """The direct message due for the turn message `message_id`, which shows the game at
        `seq`: None unless the game is still there, a human plays the seat to move and asked
        for these messages."""
        return (await self.turn_notices(game_id, seq, message_id))[0]

    async def turn_notices(
        self, game_id: int, seq: int, message_id: int
    ) -> tuple[TurnNotice | None, UpNextNotice | None]:
        """The direct messages due for the turn message `message_id` (the game at `seq`): the
        mover's (`turn_notice`) and the one for the person after them who asked to be told
        when they are next, unless their direct messages were turned off since; both choices
        read in one round trip, and none for a turn an AI plays."""
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id)
        game, state = loaded.game, loaded.state
        if state is None or game.status is not GameStatus.RUNNING or game.seq != seq:
            return None, None
        player = loaded.player_at(state.to_move)
        if player is None or player.user_id is None or player.ai_plays or player.seat is None:
            return None, None
        following = loaded.player_at(next_seat(state))
        after = None
        if following is not None and following.user_id is not None and not following.ai_plays:
            after = following.user_id if following.user_id != player.user_id else None
        choices = await self._players.choices(player.user_id, after or player.user_id)
        up_next = None
        following_choices = choices.get(after or 0, DirectChoices())
        if after is not None and following_choices.turn and following_choices.next_up:
            locale = following_choices.locale or game.locale
            up_next = UpNextNotice(
                game.id, game.guild_id, game.channel_id, message_id, locale, after, game.locale
            )
        mover_choices = choices.get(player.user_id, DirectChoices())
        if not mover_choices.turn:
            return None, up_next
        paid_to_you, you_paid = loaded.view().since_last_turn
        notice = TurnNotice(
            game.id,
            game.guild_id,
            game.channel_id,
            message_id,
            mover_choices.locale or game.locale,
            player.user_id,
            player.seat,
            loaded.players,
            paid_to_you,
            you_paid,
            game.locale,
        )
        return notice, up_next
