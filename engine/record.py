"""Game records (`marrakech-record/1`, FORMATS.md 2): read, write, build from a state, replay."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.checks import header
from engine.dealing import new_game, validate_config
from engine.errors import FormatError, IllegalActionError, ReplayError
from engine.model import Color, GameConfig, Variant
from engine.rules import apply, resign
from engine.state import GameState

RECORD_FORMAT = "marrakech-record/1"
MAX_ACTIONS = 2000
"""Far more than any game needs (4 players: at most 48 turns of 3 actions)."""

_REQUIRED = ("format", "players", "variant", "first_player", "piles", "actions")


@dataclass(frozen=True, slots=True)
class Record:
    """A whole game: its config and every action in order (chance rolls included)."""

    players: int
    variant: Variant
    first_player: int
    piles: tuple[tuple[Color, ...], ...] | None
    actions: tuple[str, ...]
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def config(self) -> GameConfig:
        return GameConfig(self.players, self.variant, self.first_player, self.piles)


def record_to_json(record: Record) -> dict[str, Any]:
    """The record as a JSON-ready dict, extras after the required fields."""
    piles = None
    if record.piles is not None:
        piles = {str(seat): [c.value for c in pile] for seat, pile in enumerate(record.piles)}
    body: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "players": record.players,
        "variant": record.variant.value,
        "first_player": record.first_player,
        "piles": piles,
        "actions": list(record.actions),
    }
    for key, value in record.extras.items():
        if key not in body:
            body[key] = value
    return body


def _parse_piles(raw: object, players: int) -> tuple[tuple[Color, ...], ...] | None:
    if raw is None:
        return None
    if players != 2:
        raise FormatError('only 2-player games have piles: "piles" must be null')
    if not isinstance(raw, dict) or set(raw) != {str(s) for s in range(players)}:
        raise FormatError('"piles" must be null or {"0": [...], "1": [...]}')
    piles = []
    for seat in range(players):
        pile = raw[str(seat)]
        if not isinstance(pile, list) or len(pile) > 48:
            raise FormatError(f"pile of seat {seat} must be a list of colours")
        try:
            piles.append(tuple(Color(c) for c in pile))
        except (ValueError, TypeError):
            raise FormatError(f"pile of seat {seat} holds something that is not a colour") from None
    return tuple(piles)


def _parse_resignations(raw: object, actions: int) -> tuple[tuple[int, int], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > 4:
        raise FormatError('"resignations" must be a list of [action index, seat] pairs')
    pairs = []
    for item in raw:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(type(x) is int for x in item)
            or not 0 <= item[0] <= actions
            or not 0 <= item[1] < 4
        ):
            raise FormatError('"resignations" must be a list of [action index, seat] pairs')
        pairs.append((item[0], item[1]))
    return tuple(sorted(pairs))


def record_from_json(obj: object) -> Record:
    """Parse and check a record. Raises FormatError saying what is wrong."""
    obj, players, variant = header(obj, "record", RECORD_FORMAT, _REQUIRED)
    actions = obj["actions"]
    if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
        raise FormatError(f'"actions" must be a list of at most {MAX_ACTIONS} notations')
    for index, action in enumerate(actions):
        if (
            not isinstance(action, str)
            or not 0 < len(action) <= 8
            or ":" in action
            or " " in action
        ):
            raise FormatError(f"action {index} {action!r} is not an action notation")
    extras = {k: v for k, v in obj.items() if k not in _REQUIRED}
    record = Record(
        players=players,
        variant=variant,
        first_player=obj["first_player"],
        piles=_parse_piles(obj["piles"], players),
        actions=tuple(actions),
        extras=extras,
    )
    validate_config(record.config)
    _parse_resignations(extras.get("resignations"), len(actions))
    return record


def record_of(state: GameState, **extras: Any) -> Record:
    """The record of the game that led to `state` (resignations kept as an extra)."""
    config = state.config
    if state.resignations:
        extras = {"resignations": [list(pair) for pair in state.resignations], **extras}
    return Record(
        config.players,
        config.variant,
        config.first_player,
        config.piles,
        state.history,
        dict(extras),
    )


def replay_steps(record: Record) -> Iterator[GameState]:
    """The state after each action of the record, in order (resignations applied where due).

    Raises ReplayError, naming the action's index, notation and the reason, at the first action
    the rules do not allow.
    """
    state = new_game(record.config)
    resignations = _parse_resignations(record.extras.get("resignations"), len(record.actions))
    pending = list(resignations)
    for index, action in enumerate(record.actions):
        state = _resign_due(state, pending, index)
        try:
            state, _ = apply(state, action)
        except IllegalActionError as error:
            raise ReplayError(index, action, str(error)) from None
        if index == len(record.actions) - 1:
            state = _resign_due(state, pending, len(record.actions))
        yield state


def replay_record(record: Record) -> GameState:
    """Play the record's actions from the start. Raises ReplayError at the first illegal one."""
    state = new_game(record.config)
    if not record.actions:
        pending = list(_parse_resignations(record.extras.get("resignations"), 0))
        return _resign_due(state, pending, 0)
    for step in replay_steps(record):
        state = step
    return state


def _resign_due(state: GameState, pending: list[tuple[int, int]], index: int) -> GameState:
    while pending and pending[0][0] == index:
        _, seat = pending.pop(0)
        try:
            state, _ = resign(state, seat)
        except IllegalActionError as error:
            raise ReplayError(index, f"resign {seat}", str(error)) from None
    return state
