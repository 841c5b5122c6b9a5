"""The one error table: expected errors become a short private answer; others get a code.

`describe(error, language)` gives the user-facing text for an expected error, or None for an
unexpected one, which `report` logs with a short code that the user also sees. Both answer in the
language of the user who acted (their Discord locale): these answers are private.

A database that is unavailable is expected: the user is told the game is paused for a moment,
and nothing is logged for the click (the runtime logs the outage once, bot.runtime.outage).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from bot.edge.incidents import DISCORD_FAULTS, failure_level, why
from bot.edge.permissions import MissingPermissionsError
from bot.presentation.links import mention, message_link
from bot.presentation.messages import allowed_channels, text, translation
from bot.services import errors as service_errors
from bot.services.availability import DatabaseUnavailableError
from bot.services.seat_errors import NudgeError, SubstituteError

log = logging.getLogger(__name__)

ANSWER_LIMIT = 2000
"""The most characters Discord takes in a message's text, here an answer's."""


class ModeratorsOnlyError(Exception):
    """A moderator command used by a member without Manage Channels."""


class GuildOnlyError(Exception):
    """A game command outside a server channel."""


class ManagersOnlyError(Exception):
    """A server settings command used by a member without Manage Server."""


class BotStatsError(Exception):
    """`/marrakech stats` of a bot: bots hold no seat, so there is nothing to show."""

    def __init__(self, user_id: int) -> None:
        super().__init__(f"user {user_id} is a bot")
        self.user_id = user_id


class NotATextChannelError(Exception):
    """A tournament opened somewhere other than a text channel (a thread, a forum)."""


Describer = Callable[[Any, str], str]
"""Turns an expected error into its answer in a language."""


def _channel_not_allowed(error: service_errors.ChannelNotAllowedError, language: str) -> str:
    """Names the channels that allow games as far as a message takes them (the rest counted)."""
    return allowed_channels(
        error.channel_ids,
        language,
        lambda channels: text("error.channel_not_allowed", language, channels=channels),
        ANSWER_LIMIT,
    )


def _stale(error: service_errors.StaleBoardError, language: str) -> str:
    if error.message_id is None:
        return text("error.stale_no_link", language)
    link = message_link(error.guild_id, error.channel_id, error.message_id)
    return text("error.stale", language, link=link)


def _channel_has_game(error: service_errors.ChannelHasGameError, language: str) -> str:
    """The channel's open game, linked when its message is known; one still waiting for
    players is offered to join instead, unless the one who asked is in it already."""
    key = "error.channel_has_game"
    if error.lobby:
        key = "error.channel_has_your_lobby" if error.seated else "error.channel_has_lobby"
    game = text("error.channel_game", language, game_id=error.game_id)
    if error.message_id is not None:
        link = message_link(error.guild_id, error.channel_id, error.message_id)
        game = f"[{game}]({link})"
    return text(key, language, game=game)


def _channel_has_tournament(error: service_errors.ChannelHasTournamentError, language: str) -> str:
    if error.message_id is None:
        return text("error.channel_has_tournament", language, link=f"<#{error.channel_id}>")
    link = message_link(error.guild_id, error.channel_id, error.message_id)
    return text("error.channel_has_tournament", language, link=link)


def _not_your_turn(error: service_errors.NotYourTurnError, language: str) -> str:
    if error.to_move_user is None:
        return text("error.not_your_turn_nobody", language)
    return text("error.not_your_turn", language, user=mention(error.to_move_user))


def _bad_option(error: service_errors.BadOptionError, language: str) -> str:
    """Names the option as the user's client shows it (`joueurs` for `seats` in French)."""
    option = translation(f"option_name.{error.option}", language) or error.option
    return text("error.bad_option", language, option=f"`{option}`")


def _missing_permissions(error: MissingPermissionsError, language: str) -> str:
    """What the bot lacks, and where: here, or in the channel the user named."""
    if error.channel_id is None:
        return text("error.missing_permissions", language, permissions=error.label(language))
    return text(
        "error.missing_permissions_there",
        language,
        channel=f"<#{error.channel_id}>",
        permissions=error.label(language),
    )


def _lobby_closed(error: service_errors.LobbyClosedError, language: str) -> str:
    """A lobby that is one no longer: its player is pointed to resigning, its host to the
    game under way; anyone else learns it takes no more players."""
    if error.playing:
        return text("error.lobby_closed_resign", language)
    return text("error.lobby_started" if error.started else "error.lobby_closed", language)


def _invisible_name(error: service_errors.InvisibleNameError, language: str) -> str:
    """What to type instead, naming the option as the user's client shows it."""
    option = translation(f"option_name.{error.option}", language) or error.option
    return text("error.invisible_name", language, option=f"`{option}`")


def _no_analysis_yet(error: service_errors.NoAnalysisYetError, language: str) -> str:
    key = "error.analysis_stopped" if error.stopped else "error.analysis_running"
    return text(key, language, game_id=error.game_id)


def _substitute(error: SubstituteError, language: str) -> str:
    return text(f"error.substitute.{error.code}", language, user=mention(error.user_id))


def _nudge(error: NudgeError, language: str) -> str:
    """Why no nudge: with when the next one may go, or why the person cannot be pinged now."""
    when = "-" if error.until is None else f"<t:{int(error.until.timestamp())}:R>"
    if error.code == "unreachable" and error.why is not None:
        reason = error.why.reason if error.why.reason in ("away", "quiet") else "other"
        return text(f"error.nudge.{reason}", language, user=mention(error.user_id), when=when)
    return text(f"error.nudge.{error.code}", language, when=when)


def _illegal(error: service_errors.IllegalMoveError, language: str) -> str:
    """A move the rules refuse. The engine's reason is English whatever the user speaks (and
    only a forged click carries such a move): it is logged, not shown."""
    log.info("a move refused by the rules: %s", error.reason)
    return text("error.illegal", language)


def _withdraw(error: service_errors.WithdrawError, language: str) -> str:
    """Why a player cannot be withdrawn, said to them (`own`) or of them to a moderator."""
    key = f"error.withdraw.{error.code}"
    if not error.own and error.code in ("not_player", "already", "signing_up"):
        key += ".other"
    return text(key, language, user=mention(error.user_id))


def _fixed(key: str) -> Describer:
    return lambda _error, language: text(key, language)


ERROR_TABLE: dict[type[Exception], Describer] = {
    service_errors.NoGameHereError: _fixed("error.no_game_here"),
    service_errors.GameNotFoundError: lambda error, language: text(
        "error.game_not_found", language, game_id=error.game_id
    ),
    service_errors.ChannelHasGameError: _channel_has_game,
    service_errors.BadOptionError: _bad_option,
    service_errors.InvisibleNameError: _invisible_name,
    service_errors.LobbyClosedError: _lobby_closed,
    service_errors.LobbyFullError: _fixed("error.lobby_full"),
    service_errors.AlreadySeatedError: _fixed("error.already_seated"),
    service_errors.NotSeatedError: _fixed("error.not_seated"),
    service_errors.TournamentGameError: _fixed("error.rematch_in_tournament"),
    service_errors.TournamentTableAbortError: _fixed("error.host_only.abort_tournament"),
    service_errors.TournamentCreatorOnlyError: _fixed("error.host_only.tournament"),
    service_errors.HostOnlyAbortError: _fixed("error.host_only.abort"),
    service_errors.HostOnlyError: _fixed("error.host_only"),
    service_errors.HostOutError: _fixed("error.host_out"),
    service_errors.HostCannotLeaveError: _fixed("error.host_cannot_leave"),
    service_errors.NotEnoughPlayersError: _fixed("error.not_enough_players"),
    service_errors.GameNotRunningError: _fixed("error.game_not_running"),
    service_errors.GameNotStartedError: lambda error, language: text(
        "error.game_not_started_host" if error.host else "error.game_not_started", language
    ),
    service_errors.StaleBoardError: _stale,
    service_errors.NotYourTurnError: _not_your_turn,
    service_errors.GameDamagedError: lambda error, language: text(
        "error.game_damaged", language, game_id=error.game_id
    ),
    service_errors.IllegalMoveError: _illegal,
    MissingPermissionsError: _missing_permissions,
    ModeratorsOnlyError: _fixed("error.moderators_only"),
    ManagersOnlyError: _fixed("error.managers_only"),
    service_errors.NoAiSeatError: _fixed("error.no_ai_seat"),
    service_errors.HandedToAiError: _fixed("error.handed_to_ai"),
    service_errors.NotHandedToAiError: _fixed("error.not_handed_to_ai"),
    service_errors.ChannelNotAllowedError: _channel_not_allowed,
    service_errors.ChannelNotListedError: lambda error, language: text(
        "error.channel_not_listed", language, channel=f"<#{error.channel_id}>"
    ),
    service_errors.NotAReplayError: lambda error, language: (
        text("error.not_a_replay", language)
        if error.running is None
        else text("error.replay_running", language, game_id=error.running)
    ),
    service_errors.LobbyResignError: lambda error, language: text(
        "error.lobby_resign_host" if error.host else "error.lobby_resign", language
    ),
    service_errors.NotWatchableError: lambda error, language: text(
        f"error.not_watchable.{error.stage}", language, game_id=error.game_id
    ),
    service_errors.NoAnalysisYetError: _no_analysis_yet,
    GuildOnlyError: _fixed("error.guild_only"),
    DatabaseUnavailableError: _fixed("error.database_paused"),
    service_errors.NoTournamentHereError: _fixed("error.no_tournament_here"),
    service_errors.TournamentClosedError: _fixed("error.tournament_closed"),
    service_errors.ChannelHasTournamentError: _channel_has_tournament,
    service_errors.AlreadyEnteredError: _fixed("error.already_entered"),
    service_errors.NotEnteredError: _fixed("error.not_entered"),
    service_errors.TournamentFullError: _fixed("error.tournament_full"),
    service_errors.WithdrawError: _withdraw,
    NotATextChannelError: _fixed("error.tournament_in_thread"),
    BotStatsError: lambda error, language: text(
        "error.stats_bot", language, user=mention(error.user_id)
    ),
    SubstituteError: _substitute,
    NudgeError: _nudge,
    service_errors.OtherServerGameError: lambda error, language: text(
        "error.other_server_game", language, game_id=error.game_id
    ),
    service_errors.UnseenGameError: lambda error, language: text(
        "error.unseen_game", language, game_id=error.game_id
    ),
    service_errors.NotWatchingError: _fixed("error.not_watching"),
}


def describe(error: BaseException, language: str) -> str | None:
    """The private answer for an expected error in `language`; None if `error` is unexpected."""
    for kind in type(error).__mro__:
        describer = ERROR_TABLE.get(kind)
        if describer is not None:
            return describer(error, language)
    return None


def report(error: BaseException, context: str, language: str, key: str = "error.unexpected") -> str:
    """Log an unexpected error with a fresh short code and return the user's text (the
    catalogue's `key`, which shows the code). Discord's own fault (a 5xx, a connection cut, no
    answer in time) is one DEBUG line saying so (its outage is logged once,
    bot.edge.incidents); anything else is logged with its traceback."""
    code = secrets.token_hex(3).upper()
    if isinstance(error, DISCORD_FAULTS):
        log.log(failure_level(error), "error %s while %s: %s", code, context, why(error))
    else:
        log.error("error %s while %s", code, context, exc_info=error)
    return text(key, language, code=code)
