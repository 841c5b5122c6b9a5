"""The confirmation, guide, analysis, tournament, withdrawal, drill and watch button ids, read
as the game's: each family's parser takes exactly the ids the bot writes, no id fits two
families, and `dispatchable` (the client's fallback answer) agrees with every family's
`from_custom_id` (discord.py's dispatch)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot.edge import buttons
from bot.edge.buttons import (
    ANALYSIS_TEMPLATE,
    CONFIRM_TEMPLATE,
    CUSTOM_ID_TEMPLATE,
    DRILL_TEMPLATE,
    DYNAMIC_ITEMS,
    GUIDE_TEMPLATE,
    MAX_CUSTOM_ID,
    PARSERS,
    SEAT_TEMPLATE,
    TOURNAMENT_TEMPLATE,
    WATCH_TEMPLATE,
    WITHDRAW_TEMPLATE,
    AnalysisButton,
    Confirmation,
    ConfirmButton,
    ConfirmId,
    DrillButton,
    DrillId,
    GameButton,
    GuideButton,
    GuideId,
    GuideStep,
    RefusedAnalysisButton,
    RefusedConfirmButton,
    RefusedDrillButton,
    RefusedGuideButton,
    RefusedSeatButton,
    RefusedTournamentButton,
    RefusedWatchButton,
    RefusedWithdrawButton,
    SeatAnswer,
    SeatButton,
    SeatId,
    TournamentAction,
    TournamentButton,
    TournamentId,
    WatchAction,
    WatchButton,
    WatchId,
    WithdrawButton,
    WithdrawId,
    analysis_custom_id,
    confirm_custom_id,
    dispatchable,
    drill_custom_id,
    guide_custom_id,
    parse_analysis_id,
    parse_confirm_id,
    parse_custom_id,
    parse_drill_id,
    parse_guide_id,
    parse_seat_id,
    parse_tournament_id,
    parse_watch_id,
    parse_withdraw_id,
    seat_custom_id,
    tournament_custom_id,
    watch_custom_id,
    withdraw_custom_id,
)
from bot.presentation.guide import PAGE_COUNT

LARGEST_GAME = 2**63 - 1
LARGEST_USER = 2**64 - 1
LAST_PAGE = PAGE_COUNT - 1


def message_with(*custom_ids: str) -> discord.Message:
    """A stand-in for a discord.Message whose only buttons have these ids (one action row)."""
    buttons = [
        SimpleNamespace(custom_id=value, type=discord.ComponentType.button) for value in custom_ids
    ]
    row = SimpleNamespace(children=buttons)
    return cast(discord.Message, SimpleNamespace(components=[row]))


VALID_CONFIRM = {
    "mk:confirm:1:resign": ConfirmId(1, Confirmation.RESIGN),
    "mk:confirm:7:abort": ConfirmId(7, Confirmation.ABORT),
    "mk:confirm:12:modabort": ConfirmId(12, Confirmation.MOD_ABORT),
    f"mk:confirm:{LARGEST_GAME}:keep": ConfirmId(LARGEST_GAME, Confirmation.KEEP),
}
VALID_GUIDE = {
    "mk:guide:0:next": GuideId(0, GuideStep.NEXT),
    "mk:guide:0:prev": GuideId(0, GuideStep.PREVIOUS),
    f"mk:guide:{LAST_PAGE}:prev": GuideId(LAST_PAGE, GuideStep.PREVIOUS),
    f"mk:guide:{LAST_PAGE}:next": GuideId(LAST_PAGE, GuideStep.NEXT),
}
VALID_ANALYSIS = {
    "mk:analysis:1": 1,
    "mk:analysis:807": 807,
    f"mk:analysis:{LARGEST_GAME}": LARGEST_GAME,
}
VALID_TOURNAMENT = {
    "mk:tour:1:join": TournamentId(1, TournamentAction.JOIN),
    "mk:tour:8:leave": TournamentId(8, TournamentAction.LEAVE),
    "mk:tour:30:start": TournamentId(30, TournamentAction.START),
    "mk:tour:30:cancel": TournamentId(30, TournamentAction.CANCEL),
    "mk:tour:4:abort": TournamentId(4, TournamentAction.ABORT),
    "mk:tour:4:withdraw": TournamentId(4, TournamentAction.WITHDRAW),
    f"mk:tour:{LARGEST_GAME}:keep": TournamentId(LARGEST_GAME, TournamentAction.KEEP),
}
VALID_WITHDRAW = {
    "mk:withdraw:1:2": WithdrawId(1, 2),
    f"mk:withdraw:{LARGEST_GAME}:{LARGEST_USER}": WithdrawId(LARGEST_GAME, LARGEST_USER),
}
VALID_DRILL = {
    "mk:drill:1:0:open": DrillId(1, 0, "open"),
    "mk:drill:9:1:better": DrillId(9, 1, "better"),
    "mk:drill:9:2:try": DrillId(9, 2, "try"),
    "mk:drill:9:2:S": DrillId(9, 2, "S"),
    "mk:drill:9:0:c4c5": DrillId(9, 0, "c4c5"),
    f"mk:drill:{LARGEST_GAME}:2:g7f7": DrillId(LARGEST_GAME, 2, "g7f7"),
}
VALID_WATCH = {f"mk:watch:1:{action.value}": WatchId(1, action) for action in WatchAction} | {
    f"mk:watch:{LARGEST_GAME}:stop": WatchId(LARGEST_GAME, WatchAction.STOP)
}
SHAPED_BUT_REFUSED = [
    "mk:withdraw:0:2",
    "mk:withdraw:1:0",
    "mk:withdraw:01:2",
    "mk:withdraw:1:02",
    f"mk:withdraw:{LARGEST_GAME + 1}:2",
    f"mk:withdraw:1:{LARGEST_USER + 1}",
    "mk:drill:0:0:open",
    "mk:drill:01:0:open",
    f"mk:drill:{LARGEST_GAME + 1}:0:open",
    "mk:drill:1:3:open",
    "mk:drill:1:9:next",
    "mk:drill:1:0:opens",
    "mk:drill:1:0:OPEN",
    "mk:drill:1:0:X",
    "mk:watch:0:watch",
    "mk:watch:01:refresh",
    f"mk:watch:{LARGEST_GAME + 1}:stop",
    "mk:watch:1:look",
    "mk:watch:1:dm",
    "mk:drill:1:0:c4c8",
    "mk:drill:1:0:h1h2",
    "mk:drill:1:0:c4",
    "mk:drill:1:0:roll",
    "mk:tour:0:join",
    "mk:tour:01:join",
    f"mk:tour:{LARGEST_GAME + 1}:join",
    "mk:tour:1:joins",
    "mk:tour:1:resign",
    "mk:confirm:0:resign",
    "mk:confirm:01:resign",
    f"mk:confirm:{LARGEST_GAME + 1}:abort",
    f"mk:confirm:{10**19 - 1}:keep",
    "mk:confirm:1:yes",
    "mk:confirm:1:resigned",
    "mk:confirm:1:join",
    f"mk:guide:{PAGE_COUNT}:prev",
    "mk:guide:99:next",
    "mk:guide:01:next",
    "mk:guide:00:next",
    "mk:guide:1:back",
    "mk:guide:1:nex",
    "mk:analysis:0",
    "mk:analysis:012",
    f"mk:analysis:{LARGEST_GAME + 1}",
]
"""Ids their family's template matches whose numbers or words the bot never writes."""
JUNK = [
    "",
    "mk:confirm",
    "mk:confirm:1",
    "mk:confirm:1:",
    "mk:confirm::keep",
    "mk:confirm:1:keep:",
    "mk:confirm:1:KEEP",
    "mk:confirm:-1:keep",
    "mk:confirm:+1:keep",
    "mk:confirm: 1:keep",
    "mk:confirm:\u0661:keep",
    "mk:confirm:1:keep\n",
    "\nmk:confirm:1:keep",
    "MK:confirm:1:keep",
    "mk:Confirm:1:keep",
    "mk:guide",
    "mk:guide:1",
    "mk:guide::next",
    "mk:guide:1:next:",
    "mk:guide:-1:prev",
    "mk:guide:1:Next",
    "mk:guide:\uff11:next",
    "mk:guide:1:next\x00",
    "mk:guide:1:next" + " " * 100,
    "mk:1:guide:next",
    "mk:1:confirm:keep",
    "mk:analysis",
    "mk:analysis:",
    "mk:analysis:1:",
    "mk:analysis:-1",
    "mk:analysis:\uff11",
    "mk:analysis:1\n",
    "mk:Analysis:1",
    "mk:1:analysis",
    "mk:tour",
    "mk:tour:1",
    "mk:tour::join",
    "mk:tour:1:join:",
    "mk:tour:1:JOIN",
    "mk:tour:-1:join",
    "mk:Tour:1:join",
    "mk:tour:1:join\n",
    "mk:1:tour:join",
    "mk:withdraw",
    "mk:withdraw:1",
    "mk:withdraw:1:",
    "mk:withdraw::2",
    "mk:withdraw:1:2:",
    "mk:withdraw:1:-2",
    "mk:withdraw:1:x",
    "mk:Withdraw:1:2",
    "mk:drill",
    "mk:drill:1:0",
    "mk:drill:1:0:",
    "mk:drill:1::open",
    "mk:drill:1:10:open",
    "mk:drill:1:0:open:",
    "mk:drill:1:0:c4-c5",
    "mk:drill:1:\uff11:open",
    "mk:Drill:1:0:open",
    "mk:watch",
    "mk:watch:1",
    "mk:watch::stop",
    "mk:watch:1:stop:",
    "mk:watch:1:STOP",
    "mk:Watch:1:stop",
]


VALID_SEAT = {
    "mk:seat:1:agree": SeatId(1, SeatAnswer.AGREE),
    f"mk:seat:{LARGEST_GAME}:refuse": SeatId(LARGEST_GAME, SeatAnswer.REFUSE),
}
REFUSED_SEAT = ["mk:seat:0:agree", "mk:seat:01:agree", "mk:seat:1:maybe", "mk:seat:1:Agree"]


@pytest.mark.parametrize(("value", "parsed"), VALID_SEAT.items())
def test_seat_request_ids_the_bot_writes_are_read_back(value: str, parsed: SeatId) -> None:
    assert parse_seat_id(value) == parsed
    assert seat_custom_id(*parsed) == value


@pytest.mark.parametrize("value", REFUSED_SEAT)
def test_seat_request_ids_the_bot_never_writes_are_refused(value: str) -> None:
    assert all(parse(value) is None for parse in PARSERS)
    assert not dispatchable(message_with(value), value)


def samples() -> Iterator[str]:
    yield from VALID_SEAT
    yield from REFUSED_SEAT
    yield from VALID_CONFIRM
    yield from VALID_GUIDE
    yield from VALID_ANALYSIS
    yield from VALID_TOURNAMENT
    yield from VALID_WITHDRAW
    yield from VALID_DRILL
    yield from VALID_WATCH
    yield from SHAPED_BUT_REFUSED
    yield from JUNK
    for page in range(-2, 101):
        for step in ("prev", "next"):
            yield f"mk:guide:{page}:{step}"
    for length in range(1, 21):
        for digits in ("1" + "0" * (length - 1), "9" * length):
            yield f"mk:confirm:{digits}:keep"
            yield f"mk:analysis:{digits}"


SAMPLES = sorted(set(samples()))


@pytest.mark.parametrize(("value", "parsed"), VALID_CONFIRM.items())
def test_confirmation_ids_the_bot_writes_are_read_back(value: str, parsed: ConfirmId) -> None:
    assert parse_confirm_id(value) == parsed
    assert confirm_custom_id(*parsed) == value
    assert len(value) <= MAX_CUSTOM_ID


@pytest.mark.parametrize(("value", "parsed"), VALID_GUIDE.items())
def test_guide_ids_the_bot_writes_are_read_back(value: str, parsed: GuideId) -> None:
    assert parse_guide_id(value) == parsed
    assert guide_custom_id(*parsed) == value


@pytest.mark.parametrize(("value", "game_id"), VALID_ANALYSIS.items())
def test_analysis_ids_the_bot_writes_are_read_back(value: str, game_id: int) -> None:
    assert parse_analysis_id(value) == game_id
    assert analysis_custom_id(game_id) == value
    assert len(value) <= MAX_CUSTOM_ID


@pytest.mark.parametrize(("value", "parsed"), VALID_TOURNAMENT.items())
def test_tournament_ids_the_bot_writes_are_read_back(value: str, parsed: TournamentId) -> None:
    assert parse_tournament_id(value) == parsed
    assert tournament_custom_id(*parsed) == value


@pytest.mark.parametrize(("value", "parsed"), VALID_WITHDRAW.items())
def test_withdrawal_ids_the_bot_writes_are_read_back(value: str, parsed: WithdrawId) -> None:
    assert parse_withdraw_id(value) == parsed
    assert withdraw_custom_id(*parsed) == value
    assert len(value) <= MAX_CUSTOM_ID


@pytest.mark.parametrize(("value", "parsed"), VALID_DRILL.items())
def test_drill_ids_the_bot_writes_are_read_back(value: str, parsed: DrillId) -> None:
    assert parse_drill_id(value) == parsed
    assert drill_custom_id(*parsed) == value
    assert len(value) <= MAX_CUSTOM_ID


@pytest.mark.parametrize(("value", "parsed"), VALID_WATCH.items())
def test_watch_ids_the_bot_writes_are_read_back(value: str, parsed: WatchId) -> None:
    assert parse_watch_id(value) == parsed
    assert watch_custom_id(*parsed) == value
    assert len(value) <= MAX_CUSTOM_ID


@pytest.mark.parametrize("value", SHAPED_BUT_REFUSED)
def test_ids_a_template_matches_but_the_parser_refuses(value: str) -> None:
    templates = (
        CONFIRM_TEMPLATE,
        GUIDE_TEMPLATE,
        ANALYSIS_TEMPLATE,
        TOURNAMENT_TEMPLATE,
        WITHDRAW_TEMPLATE,
        DRILL_TEMPLATE,
        WATCH_TEMPLATE,
    )
    assert any(template.fullmatch(value) for template in templates)
    assert all(parse(value) is None for parse in PARSERS)
    assert not dispatchable(message_with(value), value)


@pytest.mark.parametrize("value", JUNK)
def test_junk_is_refused_by_every_family(value: str) -> None:
    assert all(parse(value) is None for parse in PARSERS)
    assert not dispatchable(message_with(value), value)


def test_the_bot_never_writes_an_id_it_would_refuse() -> None:
    for game_id in (0, -1, LARGEST_GAME + 1):
        with pytest.raises(ValueError, match="bad custom_id"):
            confirm_custom_id(game_id, Confirmation.KEEP)
    for page in (-1, PAGE_COUNT):
        with pytest.raises(ValueError, match="bad custom_id"):
            guide_custom_id(page, GuideStep.NEXT)
    for game_id in (0, -1, LARGEST_GAME + 1):
        with pytest.raises(ValueError, match="bad custom_id"):
            analysis_custom_id(game_id)
    with pytest.raises(ValueError, match="bad custom_id"):
        tournament_custom_id(0, TournamentAction.JOIN)
    for tournament_id, user_id in ((0, 1), (1, 0), (1, LARGEST_USER + 1)):
        with pytest.raises(ValueError, match="bad custom_id"):
            withdraw_custom_id(tournament_id, user_id)
    for step, move in ((3, "open"), (0, "next"), (0, "c4c9")):
        with pytest.raises(ValueError, match="bad custom_id"):
            drill_custom_id(1, step, move)


def test_no_id_belongs_to_two_families() -> None:
    templates = [item.__discord_ui_compiled_template__ for item in DYNAMIC_ITEMS]
    assert templates == [
        CUSTOM_ID_TEMPLATE,
        CONFIRM_TEMPLATE,
        GUIDE_TEMPLATE,
        ANALYSIS_TEMPLATE,
        TOURNAMENT_TEMPLATE,
        WITHDRAW_TEMPLATE,
        DRILL_TEMPLATE,
        SEAT_TEMPLATE,
        WATCH_TEMPLATE,
    ]
    for value in SAMPLES:
        assert sum(bool(t.fullmatch(value)) for t in templates) <= 1, value
        assert sum(parse(value) is not None for parse in PARSERS) <= 1, value
    assert parse_custom_id("mk:1:0:keep") is not None, "a game's own ids are untouched"


async def test_dispatch_and_the_fallback_answer_agree_on_every_new_id() -> None:
    """For every family but the game's (tests/bot/edge/test_buttons.py), on every sample id its
    template matches: from_custom_id's item acts exactly when dispatchable is true on the
    clicked message, so no click is declined by discord.py and left unanswered by the client."""
    interaction = cast(discord.Interaction[Any], None)
    accepted = 0
    families: list[tuple[Any, type[Any]]] = [
        (ConfirmButton, RefusedConfirmButton),
        (GuideButton, RefusedGuideButton),
        (AnalysisButton, RefusedAnalysisButton),
        (TournamentButton, RefusedTournamentButton),
        (WithdrawButton, RefusedWithdrawButton),
        (DrillButton, RefusedDrillButton),
        (SeatButton, RefusedSeatButton),
        (WatchButton, RefusedWatchButton),
    ]
    assert {family for family, _ in families} == set(DYNAMIC_ITEMS) - {GameButton}
    for value in SAMPLES:
        on_message = dispatchable(message_with("mk:5:5:other", value), value)
        assert not dispatchable(message_with("mk:5:5:other"), value), "not on the message"
        assert not dispatchable(None, value)
        for family, refused in families:
            match = family.__discord_ui_compiled_template__.fullmatch(value)
            if match is None:
                continue
            clicked = discord.ui.Button[Any](custom_id=value)
            item = await family.from_custom_id(interaction, clicked, match)
            acts = await item.interaction_check(interaction)
            assert acts == on_message, value
            if on_message:
                accepted += 1
                assert not isinstance(item, refused)
                assert item.custom_id == value
            else:
                assert isinstance(item, refused)
                assert item.item is clicked
    assert accepted >= (
        len(VALID_CONFIRM)
        + 2 * PAGE_COUNT
        + len(VALID_ANALYSIS)
        + len(VALID_TOURNAMENT)
        + len(VALID_WITHDRAW)
        + len(VALID_DRILL)
        + len(VALID_SEAT)
        + len(VALID_WATCH)
    )


def test_a_confirmation_carries_its_game_and_choice() -> None:
    button = ConfirmButton(42, Confirmation.MOD_ABORT, label="Abort")
    assert (button.game_id, button.choice) == (42, Confirmation.MOD_ABORT)
    assert button.custom_id == "mk:confirm:42:modabort"
    analysis = AnalysisButton(42, label="Analysis")
    assert (analysis.game_id, analysis.custom_id) == (42, "mk:analysis:42")
    guide = GuideButton(3, GuideStep.PREVIOUS, label="Previous", disabled=True)
    assert (guide.page, guide.step, guide.item.disabled) == (3, GuideStep.PREVIOUS, True)


ONE_OF_EACH: dict[type[Any], str] = {
    GameButton: "mk:5:3:roll",
    ConfirmButton: "mk:confirm:5:keep",
    GuideButton: "mk:guide:1:next",
    AnalysisButton: "mk:analysis:5",
    TournamentButton: "mk:tour:5:join",
    WithdrawButton: "mk:withdraw:5:6",
    DrillButton: "mk:drill:5:0:open",
    SeatButton: "mk:seat:5:agree",
    WatchButton: "mk:watch:5:refresh",
}
"""A valid id of every family."""


def malformed(value: str) -> Iterator[str]:
    """Ids the bot never writes, made from a valid one: a part emptied, doubled, written with
    a sign, a leading zero or a non-ASCII digit, or a character no word of the bot has; a part
    more or less; the prefix in capitals; spaces and line ends around it; too long."""
    parts = value.split(":")
    for index, part in enumerate(parts):

        def swap(new: str, index: int = index) -> str:
            return ":".join([*parts[:index], new, *parts[index + 1 :]])

        yield swap("")
        yield swap(f"{part}:{part}")
        yield swap(f"{part}!")
        yield swap(f" {part}")
        if part.isdigit():
            yield swap(f"0{part}")
            yield swap(f"-{part}")
            yield swap(f"+{part}")
            yield swap("\uff11" + part)
            yield swap("9" * 20)
    yield ":".join(parts[:-1])
    yield f"{value}:x"
    yield value.upper()
    yield f"{value}\n"
    yield f" {value}"
    yield value + "1" * MAX_CUSTOM_ID


@pytest.mark.parametrize("family", DYNAMIC_ITEMS, ids=lambda family: family.__name__)
async def test_every_family_refuses_malformed_ids(family: Any) -> None:
    value = ONE_OF_EACH[family]
    template = family.__discord_ui_compiled_template__
    assert set(ONE_OF_EACH) == set(DYNAMIC_ITEMS)
    assert dispatchable(message_with(value), value)
    interaction = cast(discord.Interaction[Any], None)
    for bad in malformed(value):
        assert all(parse(bad) is None for parse in PARSERS), bad
        assert not dispatchable(message_with(bad), bad), bad
        match = template.fullmatch(bad)
        if match is not None:  # shaped like the family's ids: its item declines the click
            item = await family.from_custom_id(interaction, discord.ui.Button(custom_id=bad), match)
            assert not await item.interaction_check(interaction), bad


def test_the_families_are_listed_once_in_the_module_docstring() -> None:
    listed = buttons.__doc__ or ""
    words = {
        2: "Two",
        3: "Three",
        4: "Four",
        5: "Five",
        6: "Six",
        7: "Seven",
        8: "Eight",
        9: "Nine",
    }
    assert f"{words[len(DYNAMIC_ITEMS)]} families of ids" in listed
    for family in DYNAMIC_ITEMS:
        assert f"(`{family.__name__}`)" in listed, family
    architecture = (Path(__file__).resolve().parents[3] / "docs" / "architecture.md").read_text()
    assert "`bot/edge/buttons.py`" in architecture
    assert "mk:confirm:" not in architecture, "the docs point to the docstring, not a copy"
