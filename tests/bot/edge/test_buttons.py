"""Game button ids read strictly: the ranges `parse_custom_id` accepts, and that the two places
that decide about a click (`dispatchable` for the client's fallback answer, `from_custom_id` for
discord.py's dispatch) always agree, so every click gets exactly one answer.

The last tests run the bot's client in process and hand discord.py clicks on a message that
carries a forged id, as the gateway would: the click is answered as an unknown button, the
database is untouched and nothing is logged at ERROR.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest

from bot.edge.buttons import (
    CUSTOM_ID_TEMPLATE,
    GAME_IDS,
    MAX_CUSTOM_ID,
    SEQS,
    ButtonId,
    GameButton,
    RefusedButton,
    custom_id,
    dispatchable,
    parse_custom_id,
)
from bot.edge.inflight import HANDLERS
from bot.storage import GameStatus
from tests.bot.edge.test_edge import Edge, running_edge
from tests.e2e.fakecord import FakeMessage
from tests.e2e.fakecord.interaction_payloads import component_data
from tests.e2e.fakecord.interactions import MESSAGE_COMPONENT

LARGEST_GAME = 2**63 - 1
"""SQLite's largest INTEGER."""
LARGEST_SEQ = 999_999


def message_with(*custom_ids: str) -> discord.Message:
    """A stand-in for a discord.Message whose only buttons have these ids (one action row)."""
    buttons = [
        SimpleNamespace(custom_id=value, type=discord.ComponentType.button) for value in custom_ids
    ]
    row = SimpleNamespace(children=buttons)
    return cast(discord.Message, SimpleNamespace(components=[row]))


def expected(value: str) -> ButtonId | None:
    """What the id says, worked out without the module's helpers: the shape, then each number
    in its range and written without a leading zero."""
    parts = value.split(":")
    if len(value) > MAX_CUSTOM_ID or len(parts) != 4 or parts[0] != "mk":
        return None
    game, seq, action = parts[1:]
    numbers = (game, seq)
    if not all(n and set(n) <= set("0123456789") and str(int(n)) == n for n in numbers):
        return None
    if not (1 <= int(game) <= LARGEST_GAME and 0 <= int(seq) <= LARGEST_SEQ):
        return None
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    if not 1 <= len(action) <= 8 or not set(action) <= set(letters):
        return None
    return ButtonId(int(game), int(seq), action)


def ids_of_every_number_length() -> Iterator[str]:
    """Ids whose game or seq has every length that fits in the 100-character limit (the
    smallest and the largest number of each length), ids that fill all 100 characters, and
    bare numbers of every length from 1 to 100."""
    room = MAX_CUSTOM_ID - len("mk::0:L")
    for length in range(1, room + 1):
        for digits in ("1" + "0" * (length - 1), "9" * length):
            yield f"mk:{digits}:0:L"
            yield f"mk:1:{digits}:L"
    yield "mk:1:0:" + "A" * (MAX_CUSTOM_ID - len("mk:1:0:"))
    for length in range(1, MAX_CUSTOM_ID + 1):
        yield "9" * length
    yield "mk:1:0:L" + "9" * (MAX_CUSTOM_ID + 1 - len("mk:1:0:L"))


AROUND_THE_LIMITS = [
    f"mk:{LARGEST_GAME - 1}:0:L",
    f"mk:{LARGEST_GAME}:0:L",
    f"mk:{LARGEST_GAME + 1}:0:aieasy",
    f"mk:{LARGEST_GAME + 2}:0:L",
    f"mk:{2**64 - 1}:0:L",
    f"mk:{2**64}:0:L",
    f"mk:{10**19 - 1}:0:L",
    f"mk:{LARGEST_GAME}:{LARGEST_SEQ}:ABCDEFGH",
    f"mk:1:{LARGEST_SEQ + 1}:L",
    "mk:0:0:L",
    "mk:1:0:L",
    "mk:2:1:L",
]

JUNK = [
    "",
    "mk",
    "mk:1:0",
    "mk:1:0:",
    "mk::0:L",
    "mk:1::L",
    "MK:1:0:L",
    "mk:1:0:L:x",
    "mk:1:0:L\n",
    "\nmk:1:0:L",
    "mk:1:0:ABCDEFGHI",
    "mk:1:0:c4-c5",
    "mk:1:0:é",
    "mk:-1:0:L",
    "mk:+1:0:L",
    "mk: 1:0:L",
    "mk:1 :0:L",
    "mk:1_000:0:L",
    "mk:0x1f:0:L",
    "mk:1e3:0:L",
    "mk:1.0:0:L",
    "mk:1:-1:L",
    "mk:\u0661:0:L",  # ARABIC-INDIC DIGIT ONE: int() reads it as 1
    "mk:\uff11:0:L",  # FULLWIDTH DIGIT ONE
    "mk:\u00b9:0:L",  # SUPERSCRIPT ONE
    f"mk:0{LARGEST_GAME}:0:L",
    "'; DROP TABLE games; --",
    "mk:1:0:L" + "\x00",
]

SHAPED_BUT_OUT_OF_RANGE = [
    "mk:0:0:L",
    f"mk:{LARGEST_GAME + 1}:0:L",
    f"mk:{LARGEST_GAME + 1}:0:aieasy",
    f"mk:{10**19 - 1}:0:L",
    "mk:01:0:L",
    "mk:00:0:L",
    "mk:1:00:L",
    "mk:1:01:L",
    "mk:0000000000000000001:0:L",
]
"""Ids the template matches whose numbers are out of range or have a leading zero."""

SAMPLES = sorted(
    {*AROUND_THE_LIMITS, *JUNK, *SHAPED_BUT_OUT_OF_RANGE, *ids_of_every_number_length()}
)


def test_the_ranges_are_sqlite_integers_and_six_digits() -> None:
    assert (GAME_IDS.start, GAME_IDS.stop - 1) == (1, LARGEST_GAME)
    assert (SEQS.start, SEQS.stop - 1) == (0, LARGEST_SEQ)


@pytest.mark.parametrize(
    ("value", "game_id", "seq"),
    [
        ("mk:1:0:L", 1, 0),
        (f"mk:{LARGEST_GAME}:0:L", LARGEST_GAME, 0),
        (f"mk:1:{LARGEST_SEQ}:L", 1, LARGEST_SEQ),
        (f"mk:{LARGEST_GAME}:{LARGEST_SEQ}:ABCDEFGH", LARGEST_GAME, LARGEST_SEQ),
    ],
)
def test_the_boundaries_are_accepted(value: str, game_id: int, seq: int) -> None:
    parsed = parse_custom_id(value)
    assert parsed is not None
    assert (parsed.game_id, parsed.seq) == (game_id, seq)
    assert custom_id(*parsed) == value


@pytest.mark.parametrize("value", SHAPED_BUT_OUT_OF_RANGE)
def test_ids_the_template_matches_but_the_ranges_refuse(value: str) -> None:
    assert CUSTOM_ID_TEMPLATE.fullmatch(value), "the template lets the digits through"
    assert parse_custom_id(value) is None
    assert not dispatchable(message_with(value), value)


def test_a_seq_past_six_digits_is_refused() -> None:
    value = f"mk:1:{LARGEST_SEQ + 1}:L"
    assert parse_custom_id(value) is None
    assert not dispatchable(message_with(value), value)


@pytest.mark.parametrize("value", JUNK)
def test_junk_is_refused(value: str) -> None:
    assert parse_custom_id(value) is None
    assert not dispatchable(message_with(value), value)


@pytest.mark.parametrize(
    ("game_id", "seq", "action"),
    [(0, 0, "L"), (LARGEST_GAME + 1, 0, "L"), (1, -1, "L"), (1, LARGEST_SEQ + 1, "L"), (1, 0, "")],
)
def test_the_bot_never_writes_an_id_it_would_refuse(game_id: int, seq: int, action: str) -> None:
    with pytest.raises(ValueError, match="bad custom_id"):
        custom_id(game_id, seq, action)


def test_every_number_length_up_to_the_limit_is_read_as_its_value() -> None:
    lengths = {len(value) for value in SAMPLES}
    assert set(range(1, MAX_CUSTOM_ID + 2)) <= lengths
    for value in SAMPLES:
        assert parse_custom_id(value) == expected(value), value


async def test_dispatch_and_the_fallback_answer_agree_on_every_id() -> None:
    """On the clicked message: dispatchable is true exactly when from_custom_id gives an item
    that acts, with the parsed numbers; elsewhere neither acts."""
    interaction = cast(discord.Interaction[Any], None)
    accepted = 0
    for value in SAMPLES:
        parsed = parse_custom_id(value)
        on_message = dispatchable(message_with("mk:5:5:other", value), value)
        assert on_message == (parsed is not None), value
        assert not dispatchable(message_with("mk:5:5:other"), value), "not on the message"
        assert not dispatchable(None, value)
        match = CUSTOM_ID_TEMPLATE.fullmatch(value)
        if match is None:
            continue  # discord.py hands only template matches to from_custom_id
        clicked = discord.ui.Button[Any](custom_id=value)
        item = await GameButton.from_custom_id(interaction, clicked, match)
        acts = await item.interaction_check(interaction)
        assert acts == on_message, value
        if parsed is None:
            assert isinstance(item, RefusedButton)
            assert item.item is clicked
        else:
            accepted += 1
            assert not isinstance(item, RefusedButton)
            assert (item.game_id, item.seq, item.action) == parsed
            assert item.custom_id == value
    assert accepted >= 10


# --- through discord.py's own dispatch --------------------------------------------------------


@pytest.fixture
async def edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Edge]:
    async with running_edge(tmp_path, monkeypatch) as running:
        yield running


def forged(message: FakeMessage, value: str) -> FakeMessage:
    """The message as a forged payload would show it: one more button, with id `value`."""
    row = {"type": 1, "components": [{"type": 2, "style": 2, "label": "x", "custom_id": value}]}
    return dataclasses.replace(message, components=[*message.components, row])


async def dynamic_items_done() -> None:
    """Wait for discord.py's dynamic item tasks (from_custom_id, then the callback)."""
    running = [
        task
        for task in asyncio.all_tasks()
        if task.get_name().startswith("discord-ui-dynamic-item-")
    ]
    await asyncio.gather(*running)


@pytest.mark.parametrize(
    "value",
    [
        f"mk:{LARGEST_GAME + 1}:0:aieasy",
        f"mk:{10**19 - 1}:0:join",
        "mk:0:0:join",
        "mk:01:0:join",
        "mk:1:00:start",
    ],
)
async def test_a_forged_id_on_the_message_is_refused_without_an_error(
    edge: Edge, value: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[tuple[str, bool]] = []
    check = RefusedButton.interaction_check

    async def spy(item: RefusedButton, interaction: discord.Interaction[Any], /) -> bool:
        acts = await check(item, interaction)
        checked.append((item.custom_id, acts))
        return acts

    monkeypatch.setattr(RefusedButton, "interaction_check", spy)
    lobby = await edge.slash(edge.host, "marrakech", "new").answer()
    message = forged(edge.fake.world.messages[lobby.id], value)
    data = component_data(message, value, None, validate=True)
    with caplog.at_level(logging.DEBUG):
        handle = edge.dispatch(
            edge.fake.interaction_from_payload(
                MESSAGE_COMPONENT, edge.guest, edge.channel, data, message=message
            )
        )
        answer = await handle.answer()
        await dynamic_items_done()
    assert checked == [(value, False)], "dispatched to a RefusedButton, whose own check declined"
    assert answer.ephemeral
    assert answer.content == "This button no longer does anything."
    assert not handle.refusals
    assert [e.kind for e in handle.events] == ["callback"]
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in errors]
    game = await edge.store.get(1)
    assert game is not None
    assert game.status is GameStatus.LOBBY
    assert game.seq == 0
    assert await edge.service.open_game_id(edge.channel.id) == 1


async def test_a_valid_id_on_a_forged_message_still_reaches_the_game(edge: Edge) -> None:
    """The check is on the id, not on the message: an in-range id is handled as a click."""
    lobby = await edge.slash(edge.host, "marrakech", "new").answer()
    value = f"mk:{LARGEST_GAME}:0:join"
    message = forged(edge.fake.world.messages[lobby.id], value)
    data = component_data(message, value, None, validate=True)
    handle = edge.dispatch(
        edge.fake.interaction_from_payload(
            MESSAGE_COMPONENT, edge.guest, edge.channel, data, message=message
        )
    )
    answer = await handle.answer()
    await dynamic_items_done()
    assert answer.ephemeral
    assert answer.content != "This button no longer does anything."
    assert "error code" not in answer.content


@pytest.mark.parametrize("component_type", [3, 5, 8])
async def test_a_click_naming_another_kind_of_component_is_answered_as_an_unknown_button(
    edge: Edge, component_type: int
) -> None:
    """discord.py hands a click to a button only if the component on the message is of the
    kind the payload names: a forged click that calls the lobby's Join a select menu reaches
    no handler, and is answered as a button no longer on its message, changing nothing."""
    lobby = await edge.slash(edge.host, "marrakech", "new").answer()
    message = edge.fake.world.messages[lobby.id]
    join = message.button(label="Join").custom_id
    assert join is not None
    data = component_data(message, join, None, validate=True)
    data.update(component_type=component_type, values=[])
    handle = edge.dispatch(
        edge.fake.interaction_from_payload(
            MESSAGE_COMPONENT, edge.guest, edge.channel, data, message=message
        )
    )
    answer = await handle.answer()
    await dynamic_items_done()
    assert await HANDLERS.drained(30.0), "a handler is still running"
    assert [e.kind for e in handle.events] == ["callback"], "answered once"
    assert answer.ephemeral
    assert answer.content == "This button no longer does anything."
    assert [seat.user_id for seat in await edge.store.seats(1)] == [edge.host.id]
