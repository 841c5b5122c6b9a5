"""Every sentence the bot writes, by message key (English; other languages come later).

Code never writes user-facing text inline: it asks `text(key, **params)`. A test checks that every
key used in bot/ exists here and that every placeholder is filled.
"""

from __future__ import annotations

from discord import app_commands

ENGLISH: dict[str, str] = {
    # slash commands (names stay English; descriptions and choices are translatable)
    "command.marrakech": "Play Marrakech, the rug market board game, in this channel",
    "command.new": "Open a game lobby in this channel",
    "command.new.seats": "How many players (2 to 4)",
    "command.new.variant": "Rules variant",
    "command.new.turn_limit": "Time each player has for a turn",
    "command.join": "Join the lobby in this channel",
    "command.leave": "Leave the lobby in this channel",
    "command.start": "Start the game in this channel (host)",
    "command.board": "Show the current board and scores, privately",
    "command.rules": "A short summary of the rules",
    "command.resign": "Leave the running game (your rugs turn neutral)",
    "command.abort": "End the game you host in this channel",
    "command.mod": "Moderate Marrakech games",
    "command.mod.abort": "End the game in this channel (moderators)",
    "choice.variant.standard": "standard",
    "choice.variant.rotate-after": "rotate-after (Assam turns after the rug)",
    "choice.turn_limit.0": "none",
    "choice.turn_limit.300": "5 minutes",
    "choice.turn_limit.3600": "1 hour",
    "choice.turn_limit.43200": "12 hours",
    "choice.turn_limit.86400": "1 day",
    "choice.turn_limit.259200": "3 days",
    "choice.turn_limit.604800": "7 days",
    # lobby
    "lobby.title": "Marrakech: game #{game_id} (lobby)",
    "lobby.body": "{host} opened a game. Join with the button below or `/marrakech join`.",
    "lobby.options": "{seats} seats · {variant} · {turn_limit}",
    "lobby.players": "Players ({count}/{seats})",
    "lobby.commitment": "Dice commitment (SHA-256 of the secret seed): `{sha}`",
    "lobby.cancelled": "This lobby was cancelled by {user}.",
    "lobby.started": "The game has started: see the turn messages below.",
    "lobby.aborted": "This game was aborted by {user}.",
    "lobby.you_joined": "You joined game #{game_id}.",
    "lobby.you_left": "You left game #{game_id}.",
    "lobby.game_started": "Game #{game_id} has started.",
    "lobby.cancel_done": "Game #{game_id} was cancelled.",
    "variant.standard": "standard rules",
    "variant.rotate-after": "variant: Assam turns after the rug",
    "turn_limit.none": "no turn time limit",
    "turn_limit.some": "{hours} h per turn",
    "turn_limit.minutes": "{minutes} min per turn",
    # buttons
    "button.join": "Join",
    "button.leave": "Leave",
    "button.start": "Start",
    "button.cancel": "Cancel",
    "button.left": "Turn left",
    "button.straight": "Straight on",
    "button.right": "Turn right",
    "button.roll": "Roll the die",
    "button.rotate_left": "Turn Assam left",
    "button.rotate_right": "Turn Assam right",
    # turns
    "turn.title": "Marrakech: game #{game_id} · turn {turn}",
    "turn.ping": "{user}, it is your turn (game #{game_id}).",
    "turn.prompt.orient": "{user}: turn Assam left, keep him straight or turn him right.",
    "turn.prompt.roll": "{user}: roll the die.",
    "turn.prompt.place": "{user}: lay your {color} rug: pick a numbered placement.",
    "turn.prompt.rotate": "{user}: turn Assam a quarter turn left or right.",
    "turn.must_lay": "{user} must lay a {color} rug.",
    "turn.done": "Turn {turn} is over.",
    "turn.table_title": "Players",
    "turn.seat_line": "{dot} {user}: {dirhams} dirhams · {rugs} rugs left · score {score}",
    "turn.seat_line_out": "{dot} ~~{user}~~: out · score {score}",
    "turn.footer": "Game #{game_id} · move {seq} · seed SHA-256 {sha}",
    # narration
    "event.turned.L": "{user} turned Assam left (now facing {facing}).",
    "event.turned.S": "{user} kept Assam facing {facing}.",
    "event.turned.R": "{user} turned Assam right (now facing {facing}).",
    "event.rolled": "The die shows **{face}**.",
    "event.moved": "Assam walked {path}.",
    "event.paid": "{payer} paid {payee} **{paid}** dirhams for a {color} region of {owed}.",
    "event.paid_short": "{payer} owed {payee} {owed} dirhams but had only {paid}.",
    "event.eliminated": "{user} is out of the game; their rugs on the board are neutral now.",
    "event.resigned": "{user} resigned; their rugs on the board are neutral now.",
    "event.placed": "{user} laid a {color} rug on {squares}.",
    "event.rotated.L": "{user} turned Assam left (now facing {facing}).",
    "event.rotated.R": "{user} turned Assam right (now facing {facing}).",
    "event.no_payment": "No payment.",
    "facing.N": "north",
    "facing.E": "east",
    "facing.S": "south",
    "facing.W": "west",
    "color.red": "red",
    "color.yellow": "yellow",
    "color.blue": "blue",
    "color.brown": "brown",
    # the end
    "end.title": "Marrakech: game #{game_id} is over",
    "end.reason.rugs-exhausted": "All the rugs have been laid.",
    "end.reason.last-player-standing": "Only one player is left in the game.",
    "end.rank_line": "**{place}.** {dot} {user}: {total} points ({dirhams} dirhams + {visible} "
    "visible squares)",
    "end.rank_line_out": "**{place}.** {dot} {user}: out of the game",
    "end.tie_break.score": "Decided by score.",
    "end.tie_break.dirhams": "Tie on score, decided by dirhams.",
    "end.tie_break.shared": "Tie on score and dirhams: the win is shared.",
    "end.record": "The game record (with the seed, to check every roll) is attached.",
    "end.winner": "Congratulations {users}!",
    "abort.done": "Game #{game_id} was aborted by {user}. It is kept in the records.",
    # private answers
    "board.title": "Game #{game_id}: the board now",
    "rules.title": "Marrakech in short",
    "rules.body": (
        "Each turn: turn Assam left, right or keep him straight (never back), roll the die "
        "(faces 1, 2, 2, 3, 3, 4) and he walks that far, following the border arcs at the edge. "
        "If he stops on another player's rug, pay them one dirham per square of that colour's "
        "region touching him. Then lay one of your rugs (two squares) next to Assam, not under "
        "him and not exactly on top of a single rug. Who cannot pay is out, and their rugs "
        "turn neutral. When all rugs are laid, score = dirhams + visible squares of your "
        "colour; a tie goes to more dirhams.\n"
        "Commands: `/marrakech new`, `join`, `leave`, `start`, `board`, `resign`, `abort`."
    ),
    "resign.done": "You resigned from game #{game_id}.",
    # errors
    "error.no_game_here": "There is no Marrakech game in this channel. Start one with "
    "`/marrakech new`.",
    "error.game_not_found": "That game no longer exists.",
    "error.channel_has_game": "This channel already has a game: {link}",
    "error.bad_option": "That value is not allowed for {option}.",
    "error.lobby_closed": "This game is no longer taking players.",
    "error.lobby_full": "This game is full.",
    "error.already_seated": "You are already in this game.",
    "error.not_seated": "You are not playing in this game.",
    "error.host_only": "Only the host can do that.",
    "error.host_cannot_leave": "You are the host: cancel the lobby instead of leaving it.",
    "error.not_enough_players": "At least 2 players are needed to start.",
    "error.game_not_running": "This game is not running.",
    "error.stale": "This board has moved on. The current one is here: {link}",
    "error.stale_no_link": "This board has moved on.",
    "error.unknown_button": "This button no longer does anything.",
    "error.not_your_turn": "It is not your turn: {user} is to play.",
    "error.not_your_turn_nobody": "It is not your turn.",
    "error.illegal": "That move is not allowed: {reason}.",
    "error.missing_permissions": "I cannot play here: I am missing the {permissions} "
    "permission in this channel. Ask a moderator to grant it.",
    "error.moderators_only": "Only members with the Manage Channels permission can do that.",
    "error.guild_only": "Marrakech games run in server channels, not in direct messages.",
    "error.unexpected": "Something went wrong on my side (error code {code}). "
    "The game is unchanged; please try again.",
    "permission.send_messages": "Send Messages",
    "permission.send_messages_in_threads": "Send Messages in Threads",
    "permission.embed_links": "Embed Links",
    "permission.attach_files": "Attach Files",
    "permission.view_channel": "View Channel",
}


class MissingMessageError(KeyError):
    """A message key that the catalogue does not have."""


def command_text(key: str, /) -> app_commands.locale_str:
    """A command description or choice name: English text, carrying its key for translators."""
    return app_commands.locale_str(text(key), key=key)


def text(key: str, /, **params: object) -> str:
    """The message `key` with its {placeholders} filled from `params`."""
    try:
        template = ENGLISH[key]
    except KeyError:
        raise MissingMessageError(key) from None
    return template.format(**params)
