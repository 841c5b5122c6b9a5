"""The game's buttons as discord.py DynamicItems: the custom_id carries everything.

`mk:<game id>:<seq>:<action>`: the game, the sequence number of the decision the button belongs
to, and the action (a notation such as `L` or `c4c5`, `roll`, or a lobby verb). No state lives
in a View, so buttons keep working after a restart and old ones are recognised as stale.

A custom_id comes from the client, so `parse_custom_id` reads it strictly: the template, then
each number in its range (`GAME_IDS`, `SEQS`) and written as the bot writes it (no leading
zero). `dispatchable` and `GameButton.from_custom_id` both use it, so the numbers of an id it
refuses never reach the game's handler: discord.py gets a `RefusedButton`, which declines the
click without a log line, and the client answers it as an unknown button.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Protocol, cast

import discord

CUSTOM_ID_PREFIX = "mk"
CUSTOM_ID_TEMPLATE = re.compile(
    r"mk:(?P<game>[0-9]{1,19}):(?P<seq>[0-9]{1,6}):(?P<action>[A-Za-z0-9]{1,8})"
)
"""The shape of a game button's id; digits only, their values are checked by parse_custom_id."""
MAX_CUSTOM_ID = 100
GAME_IDS = range(1, 2**63)
"""Game ids the database can hold: SQLite's INTEGER rowid is a signed 64-bit integer, and
rowids start at 1. A larger number would overflow the driver before any lookup."""
SEQS = range(10**6)
"""Decision sequence numbers: 0 (the lobby) up to what the template's 6 digits allow."""


class ButtonId(NamedTuple):
    """What a valid game button's custom_id says."""

    game_id: int
    seq: int
    action: str


class ButtonHandler(Protocol):
    """What a click is handed to (the edge controller)."""

    async def on_button(
        self, interaction: discord.Interaction[Any], game_id: int, seq: int, action: str
    ) -> None: ...


class HasButtonHandler(Protocol):
    buttons: ButtonHandler


def _number(digits: str, valid: range) -> int | None:
    """The value of `digits` if it lies in `valid` and is written without a leading zero."""
    value = int(digits)
    if value not in valid or str(value) != digits:
        return None
    return value


def parse_custom_id(value: str) -> ButtonId | None:
    """The game, seq and action of a game button's custom_id, or None when the id is not one
    the bot could have written (wrong shape, a number out of range or with a leading zero)."""
    if len(value) > MAX_CUSTOM_ID:
        return None
    match = CUSTOM_ID_TEMPLATE.fullmatch(value)
    if match is None:
        return None
    game_id = _number(match["game"], GAME_IDS)
    seq = _number(match["seq"], SEQS)
    if game_id is None or seq is None:
        return None
    return ButtonId(game_id, seq, match["action"])


def custom_id(game_id: int, seq: int, action: str) -> str:
    """The custom_id of a game button; ValueError for one `parse_custom_id` would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:{game_id}:{seq}:{action}"
    if parse_custom_id(value) != (game_id, seq, action):
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
        """The clicked button, or a `RefusedButton` when the id only matches the template.

        discord.py logs whatever this raises at ERROR, so an id it must not act on gets an item
        that declines the click instead."""
        parsed = parse_custom_id(match.string)
        if parsed is None:
            return RefusedButton(cast(discord.ui.Button[Any], item))
        return cls(*parsed)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_button(interaction, self.game_id, self.seq, self.action)


class RefusedButton(GameButton, template=CUSTOM_ID_TEMPLATE):
    """A click whose id matches the template but that `parse_custom_id` refuses.

    It carries no game, seq or action. Its interaction check fails, so discord.py drops the
    click without a log line and without running a callback; `dispatchable` is false for the
    same id, so the client's on_interaction answers it as an unknown button. It is never
    registered with discord.py: only `GameButton.from_custom_id` creates it."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        # DynamicItem's own initialiser: GameButton's would build an id from valid numbers.
        discord.ui.DynamicItem.__init__(self, item)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return False

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Does nothing: discord.py never runs it (the interaction check fails), and it must not
        hand the id to the game's handler if it ever did."""


def dispatchable(message: discord.Message | None, custom_id: str) -> bool:
    """Whether discord.py will hand a click on `custom_id` to a GameButton that acts on it: the
    id must pass `parse_custom_id` and still be a component of the message clicked."""
    if message is None or parse_custom_id(custom_id) is None:
        return False
    pending: list[Any] = list(message.components)
    while pending:
        component = pending.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        pending.extend(getattr(component, "children", ()))
    return False
