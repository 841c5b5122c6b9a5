"""Which buttons a lobby, a turn or a finished game's final message carries (never more than
Discord allows), labelled in the game's language like the public message they sit on, and which
lobby action a clicked button names (`lobby_action`: the edge reads a button's action into a
LobbyAction here). The final message's buttons: Rematch (`REMATCH`) opens a new lobby with the
finished game's settings; Analysis (bot.edge.analysis) shows the game's analysis privately. A
coached game's decision also carries Hint (`HINT`), answered privately (docs/coach.md)."""

from __future__ import annotations

import discord

from bot.edge.buttons import AnalysisButton, DrillButton, DrillMove, GameButton
from bot.presentation.messages import text
from bot.presentation.presenter import Choice, orientation_choices, placement_choices
from bot.services.actions import ROLL, LobbyAction
from bot.services.hints import HINTS_PER_GAME
from bot.services.views import GameStatus, GameView
from engine import GameState, Phase

BUTTONS_PER_ROW = 5
MAX_ROWS = 5
MAX_BUTTONS = BUTTONS_PER_ROW * MAX_ROWS
HINT = "hint"
"""The action of a coached game's Hint button (never a notation: notations are L, S, R, a die
roll or four characters of squares)."""

LOBBY_ROW = (
    (LobbyAction.JOIN, "button.join", discord.ButtonStyle.success),
    (LobbyAction.LEAVE, "button.leave", discord.ButtonStyle.secondary),
    (LobbyAction.START, "button.start", discord.ButtonStyle.primary),
    (LobbyAction.CANCEL, "button.cancel", discord.ButtonStyle.danger),
)
"""The lobby's first row: what a lobby button does, its label's key and its style."""
ADD_AI_ACTIONS = (LobbyAction.ADD_EASY_AI, LobbyAction.ADD_MEDIUM_AI, LobbyAction.ADD_HARD_AI)
REMATCH = "rematch"
"""The action of the final message's Rematch button (no move's notation nor lobby action)."""


def lobby_action(action: str) -> LobbyAction | None:
    """The lobby action a button's action names (a lobby button carries the action's value);
    None if it names none (a move, or an id the bot never wrote)."""
    try:
        return LobbyAction(action)
    except ValueError:
        return None


def lobby_buttons(view: GameView) -> discord.ui.View | None:
    """Join, leave, start, cancel, and (host only) add or remove AI seats: only while the game
    is a lobby."""
    if view.status is not GameStatus.LOBBY:
        return None
    row = discord.ui.View(timeout=None)
    language = view.game.locale
    for action, key, style in LOBBY_ROW:
        label = text(key, language)
        row.add_item(GameButton(view.id, view.seq, action.value, label=label, style=style, row=0))
    for action in ADD_AI_ACTIONS:
        label = text(f"button.add_ai.{action.ai_level}", language)
        row.add_item(GameButton(view.id, view.seq, action.value, label=label, emoji="🤖", row=1))
    remove = text("button.remove_ai", language)
    row.add_item(GameButton(view.id, view.seq, LobbyAction.REMOVE_AI.value, label=remove, row=1))
    return row


def final_buttons(view: GameView) -> discord.ui.View | None:
    """Rematch (but for a tournament's game: the tournament pairs the next round), Analysis
    and Learn from your mistakes, on the final message of a game that finished (not of one
    aborted)."""
    if view.status is not GameStatus.OVER:
        return None
    buttons = discord.ui.View(timeout=None)
    if view.game.tournament_id is None:
        label = text("button.rematch", view.game.locale)
        style = discord.ButtonStyle.primary
        rematch = GameButton(view.id, view.seq, REMATCH, label=label, emoji="🔁", style=style)
        buttons.add_item(rematch)
    analysis = text("button.analysis", view.game.locale)
    buttons.add_item(AnalysisButton(view.id, label=analysis, emoji="📈"))
    buttons.add_item(drill_entry(view.id, view.game.locale))
    return buttons


def drill_entry(game_id: int, language: str) -> DrillButton:
    """The button that opens the drill of game `game_id` (on its result and its analysis)."""
    label = text("drill.button.open", language)
    return DrillButton(game_id, 0, DrillMove.OPEN.value, label=label, emoji="🎯")


def drill_view(game_id: int, player: bool, language: str) -> discord.ui.View:
    """Under a finished game's analysis: the drill's button for one of its players (`player`),
    nothing for anyone else."""
    buttons = discord.ui.View(timeout=None)
    if player:
        buttons.add_item(drill_entry(game_id, language))
    return buttons


def _hint_offered(view: GameView, state: GameState) -> bool:
    """A coached game's decision (a roll is none) offers Hint while its person has one left."""
    if not view.game.coach or state.phase is Phase.ROLL or state.to_move is None:
        return False
    mover = view.player_at(state.to_move)
    return mover is None or mover.hints_used < HINTS_PER_GAME


def decision_buttons(view: GameView) -> discord.ui.View | None:
    """The buttons for the decision the game waits for; None when it waits for none."""
    state = view.state
    if view.status is not GameStatus.RUNNING or state is None or view.ai_to_move:
        return None
    language = view.game.locale
    blue = discord.ButtonStyle.primary
    specs: list[Choice]
    if state.phase in (Phase.ORIENT, Phase.ROTATE):
        # Named by the direction Assam will face, in screen order (presenter.orientation_choices).
        specs = orientation_choices(state, language)
    elif state.phase is Phase.ROLL:
        specs = [Choice(ROLL, text("button.roll", language), "🎲")]
    elif state.phase is Phase.PLACE:
        specs = placement_choices(state, language)
    else:
        return None
    if len(specs) > MAX_BUTTONS:
        raise ValueError(f"{len(specs)} buttons do not fit in one message")
    if _hint_offered(view, state) and len(specs) < MAX_BUTTONS:
        specs = [*specs, Choice(HINT, text("button.hint", language), "💡")]
    buttons = discord.ui.View(timeout=None)
    for index, choice in enumerate(specs):
        buttons.add_item(
            GameButton(
                view.id,
                view.seq,
                choice.action,
                label=choice.label,
                emoji=choice.emoji,
                style=discord.ButtonStyle.secondary if choice.action == HINT else blue,
                row=index // BUTTONS_PER_ROW,
            )
        )
    return buttons
