"""The game's buttons as discord.py DynamicItems: the custom_id carries everything.

`mk:<game id>:<seq>:<action>`: the game, the sequence number of the decision the button belongs
to, and the action (a notation such as `L` or `c4c5`, `roll`, or a lobby verb). No state lives
in a View, so buttons keep working after a restart and old ones are recognised as stale.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

CUSTOM_ID_PREFIX = "mk"
CUSTOM_ID_TEMPLATE = re.compile(
    r"mk:(?P<game>[0-9]{1,19}):(?P<seq>[0-9]{1,6}):(?P<action>[A-Za-z0-9]{1,8})"
)
MAX_CUSTOM_ID = 100


class ButtonHandler(Protocol):
    """What a click is handed to (the edge controller)."""

    async def on_button(
        self, interaction: discord.Interaction[Any], game_id: int, seq: int, action: str
    ) -> None: ...


class HasButtonHandler(Protocol):
    buttons: ButtonHandler


def custom_id(game_id: int, seq: int, action: str) -> str:
    value = f"{CUSTOM_ID_PREFIX}:{game_id}:{seq}:{action}"
    if len(value) > MAX_CUSTOM_ID or not CUSTOM_ID_TEMPLATE.fullmatch(value):
        raise ValueError(f"bad custom_id {value!r}")
    return value


class GameButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CUSTOM_ID_TEMPLATE):
    """A button of a game's lobby or turn message."""

    def __init__(
        self,
        game_id: int,
        seq: int,
        action: str,
        *,
        label: str = "",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        emoji: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or None,
                style=style,
                emoji=emoji,
                row=row,
                custom_id=custom_id(game_id, seq, action),
            )
        )
        self.game_id = game_id
        self.seq = seq
        self.action = action

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> GameButton:
        return cls(int(match["game"]), int(match["seq"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_button(interaction, self.game_id, self.seq, self.action)


def dispatchable(message: discord.Message | None, custom_id: str) -> bool:
    """Whether discord.py will hand a click on `custom_id` to a GameButton: the id must match
    the template and still be a component of the message clicked."""
    if message is None or not CUSTOM_ID_TEMPLATE.fullmatch(custom_id):
        return False
    pending: list[Any] = list(message.components)
    while pending:
        component = pending.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        pending.extend(getattr(component, "children", ()))
    return False
