"""How the bot names things in its messages: a player (a mention, or an AI and its level), a
seat of a game, a colour of rug, the way Assam faces, and squares by their names ("c2-c3").

Every post names things the same way, so these live apart from the posts that use them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import engine
from bot.presentation.links import mention
from bot.presentation.messages import text
from engine import Color

if TYPE_CHECKING:  # annotations only: these modules name no service at run time
    from bot.services.views import GameView, Player


def player_name(player: Player, language: str) -> str:
    """A human's mention, or the AI's name and level; a seat the AI plays for a human says so."""
    if player.ai_level is not None:
        return ai_name(player.ai_level, language)
    if player.autoplay:
        return text("ai.playing_for", language, user=mention(player.user_id))
    return mention(player.user_id)


def ai_name(level: str, language: str) -> str:
    return text("ai.name", language, level=text(f"ai.level.{level}", language))


def seat_name(view: GameView, seat: int, language: str) -> str:
    player = view.player_at(seat)
    return player_name(player, language) if player is not None else "?"


def squares_label(squares: Iterable[int]) -> str:
    """Squares by name, joined: "c2-c3"."""
    return "-".join(engine.square_name(square) for square in squares)


def color_name(color: Color, language: str) -> str:
    return text(f"color.{color.value}", language)


def facing_name(facing: int, language: str) -> str:
    return text(f"facing.{engine.Facing(facing).name}", language)
