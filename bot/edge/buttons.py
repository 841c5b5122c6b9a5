"""The bot's buttons as discord.py DynamicItems: the custom_id carries everything.

Four families of ids, each with its own template:

- `mk:<game id>:<seq>:<action>` (`GameButton`): the game, the sequence number of the decision
  the button belongs to, and the action (a notation such as `L` or `c4c5`, `roll`, a lobby
  verb, or `rematch` on a finished game's result).
- `mk:confirm:<game id>:<choice>` (`ConfirmButton`): the answer to a private "are you sure?"
  before resigning or ending a game (`Confirmation`: resign, abort, modabort, keep).
- `mk:guide:<page>:<step>` (`GuideButton`): Previous or Next on a page of the rules guide.
- `mk:analysis:<game id>` (`AnalysisButton`): the analysis of a finished game, asked from its
  result.
- `mk:tour:<tournament id>:<action>` (`TournamentButton`): a tournament's sign-up (join,
  leave, start, cancel) and the private "are you sure?" before aborting one (abort, keep).

No state lives in a View, so buttons keep working after a restart and old ones are recognised
as stale.

A custom_id comes from the client, so each family's parser (`parse_custom_id`,
`parse_confirm_id`, `parse_guide_id`, `parse_analysis_id`, `parse_tournament_id`) reads it
strictly: the template,
then each number in its range (`GAME_IDS`, `SEQS`, the guide's pages) and written as the bot
writes it (no leading zero), and each word one the bot writes. `dispatchable` and every
`from_custom_id` use them, so an id they refuse never reaches a handler: discord.py gets a
refused item (`RefusedButton`, `RefusedConfirmButton`, `RefusedGuideButton`,
`RefusedAnalysisButton`, `RefusedTournamentButton`), which declines the click without a log
line, and the client answers
it as an unknown button.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, NamedTuple, Protocol, cast

import discord

from bot.presentation.guide import PAGE_COUNT

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
CONFIRM_TEMPLATE = re.compile(r"mk:confirm:(?P<game>[0-9]{1,19}):(?P<choice>[a-z]{1,8})")
"""The shape of a confirmation button's id; parse_confirm_id checks the game and the choice."""
GUIDE_TEMPLATE = re.compile(r"mk:guide:(?P<page>[0-9]{1,2}):(?P<step>[a-z]{1,4})")
"""The shape of a guide button's id; parse_guide_id checks the page and the step."""
GUIDE_PAGES = range(PAGE_COUNT)
ANALYSIS_TEMPLATE = re.compile(r"mk:analysis:(?P<game>[0-9]{1,19})")
"""The shape of an analysis button's id; parse_analysis_id checks the game."""
TOURNAMENT_TEMPLATE = re.compile(r"mk:tour:(?P<tournament>[0-9]{1,19}):(?P<action>[a-z]{1,8})")
"""The shape of a tournament button's id; parse_tournament_id checks the number and the word."""


class Confirmation(StrEnum):
    """What a confirmation button answers: go ahead (resign, end the game as its host or as a
    moderator), or keep playing."""

    RESIGN = "resign"
    ABORT = "abort"
    MOD_ABORT = "modabort"
    KEEP = "keep"


class GuideStep(StrEnum):
    """Which way a guide button turns the page."""

    PREVIOUS = "prev"
    NEXT = "next"


class TournamentAction(StrEnum):
    """What a tournament button does: sign up or leave, start or cancel the sign-up (its
    creator or a moderator), or answer the question before aborting it."""

    JOIN = "join"
    LEAVE = "leave"
    START = "start"
    CANCEL = "cancel"
    ABORT = "abort"
    KEEP = "keep"


class TournamentId(NamedTuple):
    """What a valid tournament button's custom_id says."""

    tournament_id: int
    action: TournamentAction


class ButtonId(NamedTuple):
    """What a valid game button's custom_id says."""

    game_id: int
    seq: int
    action: str


class ConfirmId(NamedTuple):
    """What a valid confirmation button's custom_id says."""

    game_id: int
    choice: Confirmation


class GuideId(NamedTuple):
    """What a valid guide button's custom_id says: the page it is on, and the way it turns."""

    page: int
    step: GuideStep


class ButtonHandler(Protocol):
    """What a click is handed to (the edge controller)."""

    async def on_button(
        self, interaction: discord.Interaction[Any], game_id: int, seq: int, action: str
    ) -> None: ...

    async def on_confirm(
        self, interaction: discord.Interaction[Any], game_id: int, choice: Confirmation
    ) -> None: ...

    async def on_guide(
        self, interaction: discord.Interaction[Any], page: int, step: GuideStep
    ) -> None: ...

    async def on_analysis(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...


class HasButtonHandler(Protocol):
    buttons: ButtonHandler


class TournamentButtonHandler(Protocol):
    """What a click on a tournament button is handed to."""

    async def on_tournament_button(
        self, interaction: discord.Interaction[Any], tournament_id: int, action: TournamentAction
    ) -> None: ...


class HasTournamentHandler(Protocol):
    tournaments: TournamentButtonHandler


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


def parse_confirm_id(value: str) -> ConfirmId | None:
    """The game and the choice of a confirmation button's custom_id, or None when the id is
    not one the bot could have written."""
    if len(value) > MAX_CUSTOM_ID:
        return None
    match = CONFIRM_TEMPLATE.fullmatch(value)
    if match is None or match["choice"] not in Confirmation._value2member_map_:
        return None
    game_id = _number(match["game"], GAME_IDS)
    if game_id is None:
        return None
    return ConfirmId(game_id, Confirmation(match["choice"]))


def parse_guide_id(value: str) -> GuideId | None:
    """The page and the step of a guide button's custom_id, or None when the id is not one the
    bot could have written."""
    if len(value) > MAX_CUSTOM_ID:
        return None
    match = GUIDE_TEMPLATE.fullmatch(value)
    if match is None or match["step"] not in GuideStep._value2member_map_:
        return None
    page = _number(match["page"], GUIDE_PAGES)
    if page is None:
        return None
    return GuideId(page, GuideStep(match["step"]))


def parse_analysis_id(value: str) -> int | None:
    """The game of an analysis button's custom_id, or None when the id is not one the bot
    could have written."""
    if len(value) > MAX_CUSTOM_ID:
        return None
    match = ANALYSIS_TEMPLATE.fullmatch(value)
    if match is None:
        return None
    return _number(match["game"], GAME_IDS)


def parse_tournament_id(value: str) -> TournamentId | None:
    """The tournament and the action of a tournament button's custom_id, or None when the id
    is not one the bot could have written."""
    if len(value) > MAX_CUSTOM_ID:
        return None
    match = TOURNAMENT_TEMPLATE.fullmatch(value)
    if match is None or match["action"] not in TournamentAction._value2member_map_:
        return None
    tournament_id = _number(match["tournament"], GAME_IDS)
    if tournament_id is None:
        return None
    return TournamentId(tournament_id, TournamentAction(match["action"]))


def readable(value: str) -> bool:
    """Whether `value` is an id of one of the bot's button families that its parser accepts."""
    return any(parse(value) is not None for parse in PARSERS)


def custom_id(game_id: int, seq: int, action: str) -> str:
    """The custom_id of a game button; ValueError for one `parse_custom_id` would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:{game_id}:{seq}:{action}"
    if parse_custom_id(value) != (game_id, seq, action):
        raise ValueError(f"bad custom_id {value!r}")
    return value


def confirm_custom_id(game_id: int, choice: Confirmation) -> str:
    """The custom_id of a confirmation button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:confirm:{game_id}:{choice.value}"
    if parse_confirm_id(value) != (game_id, choice):
        raise ValueError(f"bad custom_id {value!r}")
    return value


def tournament_custom_id(tournament_id: int, action: TournamentAction) -> str:
    """The custom_id of a tournament button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:tour:{tournament_id}:{action.value}"
    if parse_tournament_id(value) != (tournament_id, action):
        raise ValueError(f"bad custom_id {value!r}")
    return value


def guide_custom_id(page: int, step: GuideStep) -> str:
    """The custom_id of a guide button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:guide:{page}:{step.value}"
    if parse_guide_id(value) != (page, step):
        raise ValueError(f"bad custom_id {value!r}")
    return value


def analysis_custom_id(game_id: int) -> str:
    """The custom_id of an analysis button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:analysis:{game_id}"
    if parse_analysis_id(value) != game_id:
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


class _Refusal:
    """What every refused item is: a click whose id matches its family's template but that
    the family's parser refuses.

    It carries nothing of the id. Its interaction check fails, so discord.py drops the click
    without a log line and without running a callback; `dispatchable` is false for the same id,
    so the client's on_interaction answers it as an unknown button. It is never registered with
    discord.py: only its family's `from_custom_id` creates it."""

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        # DynamicItem's own initialiser: the family's would build an id from valid values.
        discord.ui.DynamicItem.__init__(self, item)  # type: ignore[arg-type]

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return False

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Does nothing: discord.py never runs it (the interaction check fails), and it must not
        hand the id to a handler if it ever did."""


class RefusedButton(_Refusal, GameButton, template=CUSTOM_ID_TEMPLATE):
    """A game button's id that `parse_custom_id` refuses (see `_Refusal`)."""


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CONFIRM_TEMPLATE):
    """A button of a private confirmation: go ahead with resigning or ending a game, or not."""

    def __init__(
        self,
        game_id: int,
        choice: Confirmation,
        *,
        label: str = "",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or None, style=style, custom_id=confirm_custom_id(game_id, choice)
            )
        )
        self.game_id = game_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ConfirmButton:
        """The clicked button, or a `RefusedConfirmButton` when the id only matches the
        template (see GameButton.from_custom_id)."""
        parsed = parse_confirm_id(match.string)
        if parsed is None:
            return RefusedConfirmButton(cast(discord.ui.Button[Any], item))
        return cls(*parsed)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_confirm(interaction, self.game_id, self.choice)


class RefusedConfirmButton(_Refusal, ConfirmButton, template=CONFIRM_TEMPLATE):
    """A confirmation's id that `parse_confirm_id` refuses (see `_Refusal`)."""


class GuideButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=GUIDE_TEMPLATE):
    """Previous or Next on a page of the rules guide."""

    def __init__(
        self,
        page: int,
        step: GuideStep,
        *,
        label: str = "",
        disabled: bool = False,
        emoji: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or None,
                emoji=emoji,
                disabled=disabled,
                style=discord.ButtonStyle.secondary,
                custom_id=guide_custom_id(page, step),
            )
        )
        self.page = page
        self.step = step

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> GuideButton:
        """The clicked button, or a `RefusedGuideButton` when the id only matches the template
        (see GameButton.from_custom_id)."""
        parsed = parse_guide_id(match.string)
        if parsed is None:
            return RefusedGuideButton(cast(discord.ui.Button[Any], item))
        return cls(*parsed)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_guide(interaction, self.page, self.step)


class RefusedGuideButton(_Refusal, GuideButton, template=GUIDE_TEMPLATE):
    """A guide button's id that `parse_guide_id` refuses (see `_Refusal`)."""


class AnalysisButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ANALYSIS_TEMPLATE):
    """Analysis, on a finished game's result: the game's analysis, for the presser alone."""

    def __init__(self, game_id: int, *, label: str = "", emoji: str | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or None,
                emoji=emoji,
                style=discord.ButtonStyle.secondary,
                custom_id=analysis_custom_id(game_id),
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> AnalysisButton:
        """The clicked button, or a `RefusedAnalysisButton` when the id only matches the
        template (see GameButton.from_custom_id)."""
        parsed = parse_analysis_id(match.string)
        if parsed is None:
            return RefusedAnalysisButton(cast(discord.ui.Button[Any], item))
        return cls(parsed)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_analysis(interaction, self.game_id)


class RefusedAnalysisButton(_Refusal, AnalysisButton, template=ANALYSIS_TEMPLATE):
    """An analysis button's id that `parse_analysis_id` refuses (see `_Refusal`)."""


class TournamentButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=TOURNAMENT_TEMPLATE
):
    """A button of a tournament's sign-up, or of the question before aborting one."""

    def __init__(
        self,
        tournament_id: int,
        action: TournamentAction,
        *,
        label: str = "",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or None,
                style=style,
                custom_id=tournament_custom_id(tournament_id, action),
            )
        )
        self.tournament_id = tournament_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> TournamentButton:
        """The clicked button, or a `RefusedTournamentButton` when the id only matches the
        template (see GameButton.from_custom_id)."""
        parsed = parse_tournament_id(match.string)
        if parsed is None:
            return RefusedTournamentButton(cast(discord.ui.Button[Any], item))
        return cls(*parsed)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasTournamentHandler, interaction.client)
        await client.tournaments.on_tournament_button(interaction, self.tournament_id, self.action)


class RefusedTournamentButton(_Refusal, TournamentButton, template=TOURNAMENT_TEMPLATE):
    """A tournament button's id that `parse_tournament_id` refuses (see `_Refusal`)."""


DYNAMIC_ITEMS = (GameButton, ConfirmButton, GuideButton, AnalysisButton, TournamentButton)
"""The button families the client registers with discord.py."""
PARSERS = (
    parse_custom_id,
    parse_confirm_id,
    parse_guide_id,
    parse_analysis_id,
    parse_tournament_id,
)
"""Each family's strict parser, in the order of DYNAMIC_ITEMS."""


def dispatchable(message: discord.Message | None, custom_id: str) -> bool:
    """Whether discord.py will hand a click on `custom_id` to a button that acts on it: the id
    must pass its family's parser and still be a component of the message clicked."""
    if message is None or not readable(custom_id):
        return False
    pending: list[Any] = list(message.components)
    while pending:
        component = pending.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        pending.extend(getattr(component, "children", ()))
    return False
