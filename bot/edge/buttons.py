"""The bot's buttons as discord.py DynamicItems: the custom_id carries everything.

This docstring is the one list of the button families; docs/architecture.md points here.

Nine families of ids, each with its own template:

- `mk:<game id>:<seq>:<action>` (`GameButton`): the game, the sequence number of the decision
  the button belongs to, and the action (a notation such as `L` or `c4c5`, `roll`, a lobby
  verb, or `rematch` on a finished game's result).
- `mk:confirm:<game id>:<choice>` (`ConfirmButton`): the answer to a private "are you sure?"
  before resigning or ending a game (`Confirmation`: resign, abort, modabort, keep).
- `mk:guide:<page>:<step>` (`GuideButton`): Previous or Next on a page of the rules guide.
- `mk:analysis:<game id>` (`AnalysisButton`): the analysis of a finished game, asked from its
  result.
- `mk:tour:<tournament id>:<action>` (`TournamentButton`): a tournament's sign-up (join,
  leave, start, cancel), Withdraw on its standings (withdraw), and the private "are you sure?"
  before aborting one (abort, keep).
- `mk:withdraw:<tournament id>:<user id>` (`WithdrawButton`): the answer to the private "are
  you sure?" before withdrawing a player from a running tournament (the player themselves, or
  a moderator); its Keep is the tournament family's.
- `mk:drill:<game id>:<step>:<move>` (`DrillButton`): Learn from your mistakes on a finished
  game, for the presser's own seat: its step (0-2, the costliest decision first) and what the
  click does (`DrillMove`: open the step, show the better option, try again) or the option
  picked on a second try (`L`, `S`, `R` or a rug such as `c4c5`).
- `mk:seat:<request id>:<answer>` (`SeatButton`): a player's answer (`SeatAnswer`: agree or
  refuse) to a host's request to hand a seat to a substitute (docs/async.md#substitutes).
- `mk:watch:<game id>:<action>` (`WatchButton`): a spectator's buttons (docs/watching.md),
  which act on their own watch, never on the game (`WatchAction`: watch from the game's
  message, refresh the private view, direct messages on or off, stop watching).

No state lives in a View, so buttons keep working after a restart and old ones are recognised
as stale.

A custom_id comes from the client, so each family's parser (`parse_custom_id`,
`parse_confirm_id`, `parse_guide_id`, `parse_analysis_id`, `parse_tournament_id`,
`parse_withdraw_id`, `parse_drill_id`, `parse_seat_id`, `parse_watch_id`, all made by `_read`)
reads it strictly: the template, then each number in its
range (`GAME_IDS`, `SEQS`, the guide's pages) and written as the bot writes it (no leading zero),
and each word one the bot writes. Every family is a `ButtonFamily`: its parser, its `from_custom_id`
and its refusal are the base's, and the family adds only its template, its fields and the handler
its click goes to. `dispatchable` and every `from_custom_id` use the parsers, so an id they refuse
never reaches a handler: discord.py gets the family's refused item (`RefusedButton`,
`RefusedConfirmButton`, ...), which declines the click without a log line, and the client answers it
as an unknown button.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple, Protocol, Self, TypedDict, Unpack, cast

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
WITHDRAW_TEMPLATE = re.compile(r"mk:withdraw:(?P<tournament>[0-9]{1,19}):(?P<user>[0-9]{1,20})")
"""The shape of a withdrawal's confirmation id; parse_withdraw_id checks both numbers."""
USER_IDS = range(1, 2**64)
"""Discord user ids: snowflakes, unsigned 64-bit integers."""
DRILL_TEMPLATE = re.compile(
    r"mk:drill:(?P<game>[0-9]{1,19}):(?P<step>[0-9]):(?P<move>[A-Za-z0-9]{1,6})"
)
"""The shape of a drill button's id; parse_drill_id checks the game, the step and the move."""
SEAT_TEMPLATE = re.compile(r"mk:seat:(?P<request>[0-9]{1,19}):(?P<answer>[a-z]{1,8})")
"""The shape of a seat request's button id; parse_seat_id checks the request and the answer."""
DRILL_STEPS = range(3)
"""A drill's steps: the seat's three costliest decisions, costliest first."""
DRILL_PICK = re.compile(r"[LSR]|[a-g][1-7][a-g][1-7]")
"""An option picked on a second try: a way to turn Assam or a rug's two squares."""
WATCH_TEMPLATE = re.compile(r"mk:watch:(?P<game>[0-9]{1,19}):(?P<action>[a-z]{1,8})")
"""The shape of a watch button's id; parse_watch_id checks the game and the word."""


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
    creator or a moderator), withdraw from it once it runs (asked first), or answer the
    question before aborting it or withdrawing from it (keep)."""

    JOIN = "join"
    LEAVE = "leave"
    START = "start"
    CANCEL = "cancel"
    WITHDRAW = "withdraw"
    ABORT = "abort"
    KEEP = "keep"


class SeatAnswer(StrEnum):
    """A player's answer to a host's request to hand a seat to a substitute."""

    AGREE = "agree"
    REFUSE = "refuse"


class SeatId(NamedTuple):
    """What a valid seat request button's custom_id says."""

    request_id: int
    answer: SeatAnswer


class DrillMove(StrEnum):
    """What a drill button does, besides picking an option on a second try."""

    OPEN = "open"
    """Show the step: the board before the decision and what the player did."""
    BETTER = "better"
    """Show the step with the better option too."""
    TRY = "try"
    """Offer the step's options again, to pick one."""
    DONE = "done"
    """End the drill (on its last step): it says so, with no picture and no button."""


class WatchAction(StrEnum):
    """What a spectator's button does: to their own watch, never to the game."""

    WATCH = "watch"
    """Start watching (on the running game's message) and see the private view."""
    REFRESH = "refresh"
    DMS_ON = "dmon"
    DMS_OFF = "dmoff"
    STOP = "stop"


class WatchId(NamedTuple):
    """What a valid watch button's custom_id says."""

    game_id: int
    action: WatchAction


class DrillId(NamedTuple):
    """What a valid drill button's custom_id says: the game, the step and the move (a
    `DrillMove`, or an option's notation picked on a second try)."""

    game_id: int
    step: int
    move: str


class TournamentId(NamedTuple):
    """What a valid tournament button's custom_id says."""

    tournament_id: int
    action: TournamentAction


class WithdrawId(NamedTuple):
    """What a valid withdrawal confirmation's custom_id says: the tournament, and the player
    to withdraw."""

    tournament_id: int
    user_id: int


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

    async def on_withdraw(
        self, interaction: discord.Interaction[Any], tournament_id: int, user_id: int
    ) -> None: ...


class HasTournamentHandler(Protocol):
    tournaments: TournamentButtonHandler


class DrillButtonHandler(Protocol):
    """What a click on a drill button is handed to."""

    async def on_drill(
        self, interaction: discord.Interaction[Any], game_id: int, step: int, move: str
    ) -> None: ...


class HasDrillHandler(Protocol):
    drills: DrillButtonHandler


class SeatButtonHandler(Protocol):
    """What a click on a seat request's button is handed to."""

    async def on_seat_answer(
        self, interaction: discord.Interaction[Any], request_id: int, answer: SeatAnswer
    ) -> None: ...


class HasSeatHandler(Protocol):
    seats: SeatButtonHandler


class WatchButtonHandler(Protocol):
    """What a click on a spectator's button is handed to."""

    async def on_watch(
        self, interaction: discord.Interaction[Any], game_id: int, action: WatchAction
    ) -> None: ...


class HasWatchHandler(Protocol):
    watchers: WatchButtonHandler


def _number(valid: range) -> Callable[[str], int | None]:
    """A field's reader: the value of its digits if it lies in `valid` and is written without a
    leading zero."""

    def read(digits: str) -> int | None:
        value = int(digits)
        return value if value in valid and str(value) == digits else None

    return read


def _word(words: type[StrEnum]) -> Callable[[str], StrEnum | None]:
    """A field's reader: the member of `words` it names."""
    return lambda text: words(text) if text in words._value2member_map_ else None


def _any(text: str) -> str:
    """A field's reader for what the template alone checks (a game button's action)."""
    return text


def _read(
    value: str, template: re.Pattern[str], **fields: Callable[[str], Any]
) -> list[Any] | None:
    """The values of `template`'s groups in `value`, each read by its reader in `fields` (in
    their order), or None when the id is not one the bot could have written: too long, not of
    the template's shape, or a field its reader refuses."""
    if len(value) > MAX_CUSTOM_ID:
        return None
    match = template.fullmatch(value)
    if match is None:
        return None
    values = [read(match[name]) for name, read in fields.items()]
    return None if any(field is None for field in values) else values


def parse_custom_id(value: str) -> ButtonId | None:
    """The game, seq and action of a game button's custom_id, or None when the id is not one
    the bot could have written (wrong shape, a number out of range or with a leading zero)."""
    fields = _read(
        value, CUSTOM_ID_TEMPLATE, game=_number(GAME_IDS), seq=_number(SEQS), action=_any
    )
    return None if fields is None else ButtonId._make(fields)


def parse_confirm_id(value: str) -> ConfirmId | None:
    """The game and the choice of a confirmation button's custom_id, or None when the id is
    not one the bot could have written."""
    fields = _read(value, CONFIRM_TEMPLATE, game=_number(GAME_IDS), choice=_word(Confirmation))
    return None if fields is None else ConfirmId._make(fields)


def parse_guide_id(value: str) -> GuideId | None:
    """The page and the step of a guide button's custom_id, or None when the id is not one the
    bot could have written."""
    fields = _read(value, GUIDE_TEMPLATE, page=_number(GUIDE_PAGES), step=_word(GuideStep))
    return None if fields is None else GuideId._make(fields)


def parse_analysis_id(value: str) -> int | None:
    """The game of an analysis button's custom_id, or None when the id is not one the bot
    could have written."""
    fields = _read(value, ANALYSIS_TEMPLATE, game=_number(GAME_IDS))
    return None if fields is None else int(fields[0])


def parse_tournament_id(value: str) -> TournamentId | None:
    """The tournament and the action of a tournament button's custom_id, or None when the id
    is not one the bot could have written."""
    fields = _read(
        value, TOURNAMENT_TEMPLATE, tournament=_number(GAME_IDS), action=_word(TournamentAction)
    )
    return None if fields is None else TournamentId._make(fields)


def parse_withdraw_id(value: str) -> WithdrawId | None:
    """The tournament and the player of a withdrawal confirmation's custom_id, or None when the
    id is not one the bot could have written."""
    fields = _read(value, WITHDRAW_TEMPLATE, tournament=_number(GAME_IDS), user=_number(USER_IDS))
    return None if fields is None else WithdrawId._make(fields)


def _drill_move(word: str) -> str | None:
    """A drill button's move: a `DrillMove`, or an option's notation."""
    if word in DrillMove._value2member_map_:
        return word
    return word if DRILL_PICK.fullmatch(word) else None


def parse_drill_id(value: str) -> DrillId | None:
    """The game, the step and the move of a drill button's custom_id, or None when the id is
    not one the bot could have written."""
    fields = _read(
        value, DRILL_TEMPLATE, game=_number(GAME_IDS), step=_number(DRILL_STEPS), move=_drill_move
    )
    return None if fields is None else DrillId._make(fields)


def parse_seat_id(value: str) -> SeatId | None:
    """The request and answer of a seat request button's id, or None if the bot never writes
    it."""
    fields = _read(value, SEAT_TEMPLATE, request=_number(GAME_IDS), answer=_word(SeatAnswer))
    return None if fields is None else SeatId(*fields)


def parse_watch_id(value: str) -> WatchId | None:
    """The game and the action of a watch button's custom_id, or None when the id is not one
    the bot could have written."""
    fields = _read(value, WATCH_TEMPLATE, game=_number(GAME_IDS), action=_word(WatchAction))
    return None if fields is None else WatchId._make(fields)


def readable(value: str) -> bool:
    """Whether `value` is an id of one of the bot's button families that its parser accepts."""
    return any(parse(value) is not None for parse in PARSERS)


def _written(value: str, parse: Callable[[str], object], fields: object) -> str:
    """`value`, once `parse` reads it back as `fields`; ValueError for an id it would refuse."""
    if parse(value) != fields:
        raise ValueError(f"bad custom_id {value!r}")
    return value


def custom_id(game_id: int, seq: int, action: str) -> str:
    """The custom_id of a game button; ValueError for one `parse_custom_id` would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:{game_id}:{seq}:{action}"
    return _written(value, parse_custom_id, (game_id, seq, action))


def confirm_custom_id(game_id: int, choice: Confirmation) -> str:
    """The custom_id of a confirmation button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:confirm:{game_id}:{choice.value}"
    return _written(value, parse_confirm_id, (game_id, choice))


def tournament_custom_id(tournament_id: int, action: TournamentAction) -> str:
    """The custom_id of a tournament button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:tour:{tournament_id}:{action.value}"
    return _written(value, parse_tournament_id, (tournament_id, action))


def withdraw_custom_id(tournament_id: int, user_id: int) -> str:
    """The custom_id of a withdrawal confirmation; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:withdraw:{tournament_id}:{user_id}"
    return _written(value, parse_withdraw_id, (tournament_id, user_id))


def guide_custom_id(page: int, step: GuideStep) -> str:
    """The custom_id of a guide button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:guide:{page}:{step.value}"
    return _written(value, parse_guide_id, (page, step))


def analysis_custom_id(game_id: int) -> str:
    """The custom_id of an analysis button; ValueError for one the parser would refuse."""
    return _written(f"{CUSTOM_ID_PREFIX}:analysis:{game_id}", parse_analysis_id, game_id)


def seat_custom_id(request_id: int, answer: SeatAnswer) -> str:
    """The custom_id of a seat request's button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:seat:{request_id}:{answer.value}"
    return _written(value, parse_seat_id, (request_id, answer))


def drill_custom_id(game_id: int, step: int, move: str) -> str:
    """The custom_id of a drill button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:drill:{game_id}:{step}:{move}"
    return _written(value, parse_drill_id, (game_id, step, move))


def watch_custom_id(game_id: int, action: WatchAction) -> str:
    """The custom_id of a watch button; ValueError for one the parser would refuse."""
    value = f"{CUSTOM_ID_PREFIX}:watch:{game_id}:{action.value}"
    return _written(value, parse_watch_id, (game_id, action))


class Look(TypedDict, total=False):
    """How a button looks (discord.ui.Button's own arguments); its id is its family's."""

    label: str
    style: discord.ButtonStyle
    emoji: str | None
    row: int | None
    disabled: bool


NEVER = re.compile(r"(?!)")
"""The template of the base family: it matches no id (the base is never registered)."""


class ButtonFamily(discord.ui.DynamicItem[discord.ui.Button[Any]], template=NEVER):
    """What every family of buttons shares: a button made from its id, and the click read back
    from the id by the family's strict parser (`fields`), or declined by its refused item.

    A family (a subclass) names its template, its `fields` (a parser of the module, as a
    staticmethod, whose result are the arguments of the family's constructor), and its
    `callback` (the handler the click goes to); its refused item subclasses it with `_Refusal`.
    """

    refused: ClassVar[type[Any]]
    """The family's refused item (set by `_Refusal`)."""

    @staticmethod
    def fields(value: str) -> Sequence[Any] | None:
        """The family's parser: the id's fields, or None for one the bot never writes."""
        raise NotImplementedError

    def __init__(self, custom_id: str, **look: Unpack[Look]) -> None:
        super().__init__(
            discord.ui.Button(
                custom_id=custom_id,
                label=look.get("label") or None,
                style=look.get("style", discord.ButtonStyle.secondary),
                emoji=look.get("emoji"),
                row=look.get("row"),
                disabled=look.get("disabled", False),
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        """The clicked button, or the family's refused item when the id only matches the
        template.

        discord.py logs whatever this raises at ERROR, so an id it must not act on gets an item
        that declines the click instead."""
        fields = cls.fields(match.string)
        if fields is None:
            return cast(Self, cls.refused(cast(discord.ui.Button[Any], item)))
        return cls(*fields)


class _Refusal:
    """What every refused item is: a click whose id matches its family's template but that
    the family's parser refuses.

    It carries nothing of the id. Its interaction check fails, so discord.py drops the click
    without a log line and without running a callback; `dispatchable` is false for the same id,
    so the client's on_interaction answers it as an unknown button. It is never registered with
    discord.py: only its family's `from_custom_id` creates it. Subclassing it names the refused
    item of the family it is also a subclass of."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        family = next(base for base in cls.__mro__[1:] if issubclass(base, ButtonFamily))
        family.refused = cls

    def __init__(self, item: discord.ui.Button[Any]) -> None:
        # DynamicItem's own initialiser: the family's would build an id from valid values.
        discord.ui.DynamicItem.__init__(self, item)  # type: ignore[arg-type]

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return False

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Does nothing: discord.py never runs it (the interaction check fails), and it must not
        hand the id to a handler if it ever did."""


class GameButton(ButtonFamily, template=CUSTOM_ID_TEMPLATE):
    """A button of a game's lobby or turn message."""

    fields = staticmethod(parse_custom_id)

    def __init__(self, game_id: int, seq: int, action: str, **look: Unpack[Look]) -> None:
        super().__init__(custom_id(game_id, seq, action), **look)
        self.game_id = game_id
        self.seq = seq
        self.action = action

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_button(interaction, self.game_id, self.seq, self.action)


class RefusedButton(_Refusal, GameButton, template=CUSTOM_ID_TEMPLATE):
    """A game button's id that `parse_custom_id` refuses (see `_Refusal`)."""


class ConfirmButton(ButtonFamily, template=CONFIRM_TEMPLATE):
    """A button of a private confirmation: go ahead with resigning or ending a game, or not."""

    fields = staticmethod(parse_confirm_id)

    def __init__(self, game_id: int, choice: Confirmation, **look: Unpack[Look]) -> None:
        super().__init__(confirm_custom_id(game_id, choice), **look)
        self.game_id = game_id
        self.choice = choice

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_confirm(interaction, self.game_id, self.choice)


class RefusedConfirmButton(_Refusal, ConfirmButton, template=CONFIRM_TEMPLATE):
    """A confirmation's id that `parse_confirm_id` refuses (see `_Refusal`)."""


class GuideButton(ButtonFamily, template=GUIDE_TEMPLATE):
    """Previous or Next on a page of the rules guide."""

    fields = staticmethod(parse_guide_id)

    def __init__(self, page: int, step: GuideStep, **look: Unpack[Look]) -> None:
        super().__init__(guide_custom_id(page, step), **look)
        self.page = page
        self.step = step

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_guide(interaction, self.page, self.step)


class RefusedGuideButton(_Refusal, GuideButton, template=GUIDE_TEMPLATE):
    """A guide button's id that `parse_guide_id` refuses (see `_Refusal`)."""


def _analysis_fields(value: str) -> tuple[int] | None:
    game_id = parse_analysis_id(value)
    return None if game_id is None else (game_id,)


class AnalysisButton(ButtonFamily, template=ANALYSIS_TEMPLATE):
    """Analysis, on a finished game's result: the game's analysis, for the presser alone."""

    fields = staticmethod(_analysis_fields)

    def __init__(self, game_id: int, **look: Unpack[Look]) -> None:
        super().__init__(analysis_custom_id(game_id), **look)
        self.game_id = game_id

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasButtonHandler, interaction.client)
        await client.buttons.on_analysis(interaction, self.game_id)


class RefusedAnalysisButton(_Refusal, AnalysisButton, template=ANALYSIS_TEMPLATE):
    """An analysis button's id that `parse_analysis_id` refuses (see `_Refusal`)."""


class TournamentButton(ButtonFamily, template=TOURNAMENT_TEMPLATE):
    """A button of a tournament's sign-up, or of the question before aborting one."""

    fields = staticmethod(parse_tournament_id)

    def __init__(self, tournament_id: int, action: TournamentAction, **look: Unpack[Look]) -> None:
        super().__init__(tournament_custom_id(tournament_id, action), **look)
        self.tournament_id = tournament_id
        self.action = action

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasTournamentHandler, interaction.client)
        await client.tournaments.on_tournament_button(interaction, self.tournament_id, self.action)


class RefusedTournamentButton(_Refusal, TournamentButton, template=TOURNAMENT_TEMPLATE):
    """A tournament button's id that `parse_tournament_id` refuses (see `_Refusal`)."""


class WithdrawButton(ButtonFamily, template=WITHDRAW_TEMPLATE):
    """Withdraw, on the private question before withdrawing a player from a tournament."""

    fields = staticmethod(parse_withdraw_id)

    def __init__(self, tournament_id: int, user_id: int, **look: Unpack[Look]) -> None:
        super().__init__(withdraw_custom_id(tournament_id, user_id), **look)
        self.tournament_id = tournament_id
        self.user_id = user_id

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasTournamentHandler, interaction.client)
        await client.tournaments.on_withdraw(interaction, self.tournament_id, self.user_id)


class RefusedWithdrawButton(_Refusal, WithdrawButton, template=WITHDRAW_TEMPLATE):
    """A withdrawal confirmation's id that `parse_withdraw_id` refuses (see `_Refusal`)."""


class DrillButton(ButtonFamily, template=DRILL_TEMPLATE):
    """A button of Learn from your mistakes: open a step, show the better option, try again,
    or an option picked on the second try."""

    fields = staticmethod(parse_drill_id)

    def __init__(self, game_id: int, step: int, move: str, **look: Unpack[Look]) -> None:
        super().__init__(drill_custom_id(game_id, step, move), **look)
        self.game_id = game_id
        self.step = step
        self.move = move

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasDrillHandler, interaction.client)
        await client.drills.on_drill(interaction, self.game_id, self.step, self.move)


class RefusedDrillButton(_Refusal, DrillButton, template=DRILL_TEMPLATE):
    """A drill button's id that `parse_drill_id` refuses (see `_Refusal`)."""


class SeatButton(ButtonFamily, template=SEAT_TEMPLATE):
    """Agree or Refuse, on a host's request to hand a seat to a substitute."""

    fields = staticmethod(parse_seat_id)

    def __init__(self, request_id: int, answer: SeatAnswer, **look: Unpack[Look]) -> None:
        super().__init__(seat_custom_id(request_id, answer), **look)
        self.request_id = request_id
        self.answer = answer

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasSeatHandler, interaction.client)
        await client.seats.on_seat_answer(interaction, self.request_id, self.answer)


class RefusedSeatButton(_Refusal, SeatButton, template=SEAT_TEMPLATE):
    """A seat request button's id that `parse_seat_id` refuses (see `_Refusal`)."""


class WatchButton(ButtonFamily, template=WATCH_TEMPLATE):
    """A spectator's button: watch a running game, refresh the private view, direct messages
    on or off, stop watching."""

    fields = staticmethod(parse_watch_id)

    def __init__(self, game_id: int, action: WatchAction, **look: Unpack[Look]) -> None:
        super().__init__(watch_custom_id(game_id, action), **look)
        self.game_id = game_id
        self.action = action

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = cast(HasWatchHandler, interaction.client)
        await client.watchers.on_watch(interaction, self.game_id, self.action)


class RefusedWatchButton(_Refusal, WatchButton, template=WATCH_TEMPLATE):
    """A watch button's id that `parse_watch_id` refuses (see `_Refusal`)."""


DYNAMIC_ITEMS = (
    GameButton,
    ConfirmButton,
    GuideButton,
    AnalysisButton,
    TournamentButton,
    WithdrawButton,
    DrillButton,
    SeatButton,
    WatchButton,
)
"""The button families the client registers with discord.py."""
PARSERS = (
    parse_custom_id,
    parse_confirm_id,
    parse_guide_id,
    parse_analysis_id,
    parse_tournament_id,
    parse_withdraw_id,
    parse_drill_id,
    parse_seat_id,
    parse_watch_id,
)
"""Each family's strict parser, in the order of DYNAMIC_ITEMS."""


def dispatchable(
    message: discord.Message | None,
    custom_id: str,
    component_type: object = discord.ComponentType.button.value,
) -> bool:
    """Whether discord.py will hand a click on `custom_id` to a button that acts on it: the id
    must pass its family's parser and still be a component of the message clicked, of the kind
    the click names (`component_type`, the payload's number: discord.py looks for the item by
    kind and id, and drops a click that names another kind without a word)."""
    if message is None or not readable(custom_id):
        return False
    pending: list[Any] = list(message.components)
    while pending:
        component = pending.pop()
        if getattr(component, "custom_id", None) == custom_id:
            kind = getattr(component, "type", None)
            return getattr(kind, "value", kind) == component_type
        pending.extend(getattr(component, "children", ()))
    return False
