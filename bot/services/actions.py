"""The actions a player takes by button besides a move's own notation: the lobby's (a closed
set the edge parses a button's action into) and the request to roll the die."""

from __future__ import annotations

from enum import StrEnum

from bot.services.errors import BadOptionError


class LobbyAction(StrEnum):
    """What a player can do in a lobby. The values are short words (at most 8 letters and
    digits), so the edge can carry them in a button's id."""

    JOIN = "join"
    LEAVE = "leave"
    START = "start"
    CANCEL = "cancel"
    ADD_EASY_AI = "aieasy"
    ADD_MEDIUM_AI = "aimedium"
    ADD_HARD_AI = "aihard"
    REMOVE_AI = "airemove"

    @property
    def ai_level(self) -> str | None:
        """The level of the AI this action seats (None: it seats none)."""
        return _LEVEL_SEATED.get(self)

    @classmethod
    def add_ai(cls, level: str) -> LobbyAction:
        """The action that seats an AI of `level`; BadOptionError for a level there is not."""
        for action, seated in _LEVEL_SEATED.items():
            if seated == level:
                return action
        raise BadOptionError("level", level)


_LEVEL_SEATED = {
    LobbyAction.ADD_EASY_AI: "easy",
    LobbyAction.ADD_MEDIUM_AI: "medium",
    LobbyAction.ADD_HARD_AI: "hard",
}
AI_LEVELS = tuple(_LEVEL_SEATED.values())
"""The levels an AI seat can be given in a lobby."""


ROLL = "roll"
"""The player's request to roll the die (variant rotate-after); the roll itself is chance."""
