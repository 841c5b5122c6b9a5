"""Which buttons a lobby or a turn message carries (never more than Discord allows), labelled in
the game's language like the public message they sit on."""

from __future__ import annotations

import discord

from bot.messages import text
from bot.presenter import placement_labels
from bot.services import AI_LEVELS, ROLL, GameView
from bot.storage import GameStatus
from bot.ui.buttons import GameButton
from engine import Phase

BUTTONS_PER_ROW = 5
MAX_ROWS = 5
MAX_BUTTONS = BUTTONS_PER_ROW * MAX_ROWS

LOBBY_JOIN = "join"
LOBBY_LEAVE = "leave"
LOBBY_START = "start"
LOBBY_CANCEL = "cancel"
LOBBY_REMOVE_AI = "airemove"
LOBBY_ADD_AI = {f"ai{level}": level for level in AI_LEVELS}
"""Lobby actions that seat an AI, by the level they seat (custom_id action -> level)."""
LOBBY_ACTIONS = (LOBBY_JOIN, LOBBY_LEAVE, LOBBY_START, LOBBY_CANCEL, LOBBY_REMOVE_AI, *LOBBY_ADD_AI)


def lobby_buttons(view: GameView) -> discord.ui.View | None:
    """Join, leave, start, cancel, and (host only) add or remove AI seats: only while the game
    is a lobby."""
    if view.status is not GameStatus.LOBBY:
        return None
    row = discord.ui.View(timeout=None)
    specs = (
        (LOBBY_JOIN, "button.join", discord.ButtonStyle.success),
        (LOBBY_LEAVE, "button.leave", discord.ButtonStyle.secondary),
        (LOBBY_START, "button.start", discord.ButtonStyle.primary),
        (LOBBY_CANCEL, "button.cancel", discord.ButtonStyle.danger),
    )
    language = view.game.locale
    for action, key, style in specs:
        label = text(key, language)
        row.add_item(GameButton(view.id, view.seq, action, label=label, style=style, row=0))
    for action, level in LOBBY_ADD_AI.items():
        label = text(f"button.add_ai.{level}", language)
        row.add_item(GameButton(view.id, view.seq, action, label=label, emoji="🤖", row=1))
    remove = text("button.remove_ai", language)
    row.add_item(GameButton(view.id, view.seq, LOBBY_REMOVE_AI, label=remove, row=1))
    return row


def decision_buttons(view: GameView) -> discord.ui.View | None:
    """The buttons for the decision the game waits for; None when it waits for none."""
    state = view.state
    if view.status is not GameStatus.RUNNING or state is None or view.ai_to_move:
        return None
    language = view.game.locale
    blue = discord.ButtonStyle.primary
    specs: list[tuple[str, str, str | None]]  # action, label, emoji
    if state.phase is Phase.ORIENT:
        specs = [
            ("L", text("button.left", language), "↪️"),
            ("S", text("button.straight", language), "⬆️"),
            ("R", text("button.right", language), "↩️"),
        ]
    elif state.phase is Phase.ROLL:
        specs = [(ROLL, text("button.roll", language), "🎲")]
    elif state.phase is Phase.PLACE:
        specs = [
            (notation, str(number), None)
            for number, notation in enumerate(placement_labels(state), start=1)
        ]
    elif state.phase is Phase.ROTATE:
        specs = [
            ("L", text("button.rotate_left", language), "↪️"),
            ("R", text("button.rotate_right", language), "↩️"),
        ]
    else:
        return None
    if len(specs) > MAX_BUTTONS:
        raise ValueError(f"{len(specs)} buttons do not fit in one message")
    buttons = discord.ui.View(timeout=None)
    for index, (action, label, emoji) in enumerate(specs):
        buttons.add_item(
            GameButton(
                view.id,
                view.seq,
                action,
                label=label,
                emoji=emoji,
                style=blue,
                row=index // BUTTONS_PER_ROW,
            )
        )
    return buttons
