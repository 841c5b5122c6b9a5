"""Expected failures of the game use cases. The edge maps each to a short private message."""

from __future__ import annotations


class GameError(Exception):
    """A request the rules or the game's state refuse; nothing was changed."""


class NoGameHereError(GameError):
    """The channel has no open game."""


class GameNotFoundError(GameError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game {game_id}")
        self.game_id = game_id


class ChannelHasGameError(GameError):
    """`new` in a channel that already has an open game."""

    def __init__(
        self,
        game_id: int,
        guild_id: int | None,
        channel_id: int,
        message_id: int | None,
        *,
        lobby: bool = False,
        seated: bool = False,
    ) -> None:
        super().__init__(f"channel {channel_id} has game {game_id}")
        self.game_id = game_id
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.message_id = message_id
        self.lobby = lobby
        """Whether that game still waits for players (one may join it instead)."""
        self.seated = seated
        """Whether the one who asked holds a seat in it already (nothing to join)."""


class BadOptionError(GameError):
    """A game option or server setting (seats, AI level, turn limit, variant, channel) given a
    value it cannot take."""

    def __init__(self, option: str, value: object) -> None:
        super().__init__(f"bad value {value!r} for {option}")
        self.option = option
        self.value = value


class InvisibleNameError(BadOptionError):
    """A name (a tournament's) that shows nothing: only blanks, or characters drawn as none."""

    def __init__(self, name: str) -> None:
        super().__init__("name", name)


class ChannelNotListedError(BadOptionError):
    """Taking off the list of channels that allow games a channel that is not on it."""

    def __init__(self, channel_id: int) -> None:
        super().__init__("channel", channel_id)
        self.channel_id = channel_id


class LobbyClosedError(GameError):
    """Joining, leaving or starting a game that is no longer a lobby."""

    def __init__(self, *, playing: bool = False, started: bool = False) -> None:
        super().__init__("the game is no longer a lobby")
        self.playing = playing
        """Whether the one who asked to leave plays in the game now running (resigning
        leaves it)."""
        self.started = started
        """Whether the host asked (to start it, say: a second press of Start) of the game
        now running, which is played from its turn messages."""


class LobbyFullError(GameError):
    """Joining (or adding an AI to) a lobby whose seats are all taken."""


class AlreadySeatedError(GameError):
    """Joining a game the user already has a seat in."""


class NotSeatedError(GameError):
    """The user has no seat in this game (or has resigned from it)."""


class HostOnlyError(GameError):
    """Only the host may do this (start, cancel, abort)."""


class TournamentCreatorOnlyError(HostOnlyError):
    """Only the tournament's creator or a moderator may do this: start, cancel or abort the
    tournament, or ask for a seat at one of its tables to be handed over (its creator is named
    each table's host, which its players may not know)."""


class HostOnlyAbortError(HostOnlyError):
    """Only the host may end the game early; a moderator has their own command for it."""


class TournamentTableAbortError(HostOnlyAbortError):
    """A tournament's game has no host to end it early (its tournament's creator is named as
    its host, seated at its table or not): a moderator ends it, with their own command."""


class HostOutError(GameError):
    """The host is out of the game (resigned, or their seat could not pay): ending it early
    would rate no one, their loss included, so only a moderator may now."""


class HostCannotLeaveError(GameError):
    """The host cancels the lobby instead of leaving it."""


class NotEnoughPlayersError(GameError):
    """Starting a lobby with fewer seats taken than the game needs."""

    def __init__(self, seated: int) -> None:
        super().__init__(f"{seated} seated")
        self.seated = seated


class GameNotRunningError(GameError):
    """An action on a game that is not running (still a lobby, over or aborted)."""


class GameNotStartedError(GameNotRunningError):
    """A nudge, a hand-over or a rejoin asked of a game still in its lobby: none acts before
    the game starts. Its `host` (whether the one who asked hosts it) starts it; meanwhile
    players come and go with the lobby's buttons."""

    def __init__(self, *, host: bool) -> None:
        super().__init__("the game has not started")
        self.host = host


class LobbyResignError(GameNotRunningError):
    """Resigning from a game still in its lobby, by one of its seats: its `host` cancels it,
    anyone else leaves it."""

    def __init__(self, *, host: bool) -> None:
        super().__init__("the game has not started")
        self.host = host


class NotWatchableError(GameNotRunningError):
    """Watching a game of this server that is not running: `stage` says what it is instead,
    "lobby" (not started yet), "over" (played to its end: it has a replay) or "aborted"
    (stopped before its end: nothing to watch or replay)."""

    def __init__(self, game_id: int, stage: str) -> None:
        super().__init__(f"game {game_id} is {stage}")
        self.game_id = game_id
        self.stage = stage


class StaleBoardError(GameError):
    """A click on a message that no longer shows the game's current decision."""

    def __init__(self, game_id: int, channel_id: int, guild_id: int | None, message_id: int | None):
        super().__init__(f"game {game_id} has moved on")
        self.game_id = game_id
        self.channel_id = channel_id
        self.guild_id = guild_id
        self.message_id = message_id


class GameDamagedError(GameError):
    """The game's stored rows cannot be trusted (its log has gaps or does not replay): nothing
    can be played in it until a moderator ends it. Other games are not affected."""

    def __init__(self, game_id: int, guild_id: int | None, channel_id: int, reason: str) -> None:
        super().__init__(f"game {game_id} is damaged: {reason}")
        self.game_id = game_id
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.reason = reason


class NotYourTurnError(GameError):
    """A decision by someone other than the player to move (`to_move_user`, None if unknown)."""

    def __init__(self, to_move_user: int | None) -> None:
        super().__init__("not your turn")
        self.to_move_user = to_move_user


class IllegalMoveError(GameError):
    """The engine refused the action; `reason` is its plain-words explanation."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NoAiSeatError(GameError):
    """Removing an AI from a lobby that has none."""


class HandedToAiError(GameError):
    """A click by a player whose seat the AI plays after their timeouts (they must rejoin)."""


class NotHandedToAiError(GameError):
    """`rejoin` by a user whose seat is not played by the AI."""


class ChannelNotAllowedError(GameError):
    """`new` in a channel the server's moderators have not opened to games."""

    def __init__(self, channel_ids: tuple[int, ...]) -> None:
        super().__init__(f"games are allowed in {channel_ids}")
        self.channel_ids = channel_ids


class NotAReplayError(GameError):
    """A replay of a game that is not in this server or has not been played to its end;
    `running` names a game of this server still being played (it may be watched instead)."""

    def __init__(self, running: int | None = None) -> None:
        super().__init__("no replay" if running is None else f"game {running} is running")
        self.running = running


class NoAnalysisYetError(GameError):
    """An analysis of a game of this server that was not played to its end: still being played
    (or a lobby), or stopped early (`stopped`: aborted or abandoned)."""

    def __init__(self, game_id: int, stopped: bool = False) -> None:
        super().__init__(f"game {game_id} was not played to its end")
        self.game_id = game_id
        self.stopped = stopped


class NoTournamentHereError(GameError):
    """The channel (or thread) has no tournament signing up or running."""


class TournamentClosedError(GameError):
    """Joining, leaving, starting or ending a tournament that is past that stage."""


class TournamentGameError(GameError):
    """A rematch of a tournament's game: the tournament pairs its own rounds."""


class ChannelHasTournamentError(GameError):
    """Opening a tournament in a channel that has one signing up or running."""

    def __init__(self, guild_id: int, channel_id: int, message_id: int | None) -> None:
        super().__init__(f"channel {channel_id} has a tournament")
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.message_id = message_id


class AlreadyEnteredError(GameError):
    """Signing up for a tournament one is signed up for already."""


class NotEnteredError(GameError):
    """Leaving a tournament one is not signed up for."""


class TournamentFullError(GameError):
    """Signing up for a tournament that has as many players as it takes."""


class WithdrawError(GameError):
    """Withdrawing a player from a tournament that refuses it: `code` says why (`not_player`:
    they do not play in it; `already`: they withdrew already; `signing_up`: it has not started,
    its sign-up's Leave takes them off; `over`: it is over, cancelled or aborted; `bot`: a bot
    plays in no tournament). `own`: the player asked it themselves, not a moderator."""

    CODES = ("not_player", "already", "signing_up", "over", "bot")

    def __init__(self, code: str, user_id: int, own: bool = False) -> None:
        super().__init__(f"user {user_id} cannot withdraw: {code}")
        self.code = code
        self.user_id = user_id
        self.own = own


class OtherServerGameError(GameError):
    """Watching (or looking at) a game of another server."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id} is not of this server")
        self.game_id = game_id


class UnseenGameError(GameError):
    """Watching, looking at or replaying a game played in a channel the member cannot see."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id} is in a channel the member cannot see")
        self.game_id = game_id


class NotWatchingError(GameError):
    """Stopping, or changing the messages of, a watch the user does not hold."""
