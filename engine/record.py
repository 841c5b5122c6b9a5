"""Game records (`marrakech-record/1`, FORMATS.md 2): read, write, build from a state, replay."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.checks import header
from engine.dealing import new_game, validate_config
from engine.errors import FormatError, IllegalActionError, ReplayError
from engine.events import Event
from engine.model import Color, GameConfig, Variant, rugs_per_color
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
        """The record's header as the GameConfig a game starts from."""
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
        if not isinstance(pile, list):
            raise FormatError(f"pile of seat {seat} must be a list of colours")
        if len(pile) != 2 * rugs_per_color(2):
            raise FormatError(
                f"pile of seat {seat} must list {2 * rugs_per_color(2)} colours, not {len(pile)}"
            )
        try:
            piles.append(tuple(Color(c) for c in pile))
        except (ValueError, TypeError):
            raise FormatError(f"pile of seat {seat} holds something that is not a colour") from None
    return tuple(piles)


def _parse_resignations(raw: object, actions: int, players: int) -> tuple[tuple[int, int], ...]:
    """The `resignations` extra: [action index, seat] pairs, each a seat of the game that
    left once, after at most every action."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > 4:
        raise FormatError('"resignations" must be a list of [action index, seat] pairs')
    pairs: list[tuple[int, int]] = []
    for item in raw:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(type(x) is int for x in item)
            or not 0 <= item[0] <= actions
            or not 0 <= item[1] < players
            or any(seat == item[1] for _, seat in pairs)
        ):
            raise FormatError('"resignations" must be a list of [action index, seat] pairs')
        pairs.append((item[0], item[1]))
    # By action index only: resignations between the same two actions keep their order.
    return tuple(sorted(pairs, key=lambda pair: pair[0]))


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
    _parse_resignations(extras.get("resignations"), len(actions), players)
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


def _replay(record: Record) -> Iterator[tuple[bool, GameState, tuple[Event, ...]]]:
    """(is an action, state after it, its events) for every step: each action, and each
    resignation of the `resignations` extra where it is due. Raises ReplayError."""
    state = new_game(record.config)
    pending = list(
        _parse_resignations(record.extras.get("resignations"), len(record.actions), record.players)
    )
    for index in range(len(record.actions) + 1):
        while pending and pending[0][0] == index:
            _, seat = pending.pop(0)
            try:
                state, events = resign(state, seat)
            except IllegalActionError as error:
                raise ReplayError(index, f"resign {seat}", str(error)) from None
            yield False, state, events
        if index == len(record.actions):
            return
        action = record.actions[index]
        try:
            state, events = apply(state, action)
        except IllegalActionError as error:
            raise ReplayError(index, action, str(error)) from None
        yield True, state, events


def replay_events(record: Record) -> Iterator[tuple[GameState, tuple[Event, ...]]]:
    """Every step of the record in order, as (state after it, the events it caused): each
    action, and each resignation of the `resignations` extra where it is due.

    Raises ReplayError, naming the action's index, notation and the reason, at the first action
    (or resignation) the rules do not allow.
    """
    for _, state, events in _replay(record):
        yield state, events


def replay_steps(record: Record) -> Iterator[GameState]:
    """The state after each action of the record, in order. A resignation due before an action
    shows in that action's state; those due after the last action, in the last state.

    Raises ReplayError like `replay_events`.
    """
    left = len(record.actions)
    last: GameState | None = None
    for is_action, state, _ in _replay(record):
        if is_action:
            left -= 1
            if left:
                yield state
            else:
                last = state
        elif last is not None:  # a resignation after the last action
            last = state
    if last is not None:
        yield last


def replay_record(record: Record) -> GameState:
    """Play the record's actions (and resignations) from the start. Raises ReplayError at the
    first illegal one."""
    state = new_game(record.config)
    for after, _ in replay_events(record):
        state = after
    return state
