"""Small helpers that build engine states for tests: boards with chosen rugs, and play-through."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypedDict, TypeVar

from engine import (
    Color,
    Event,
    Facing,
    GameConfig,
    GameState,
    Phase,
    Variant,
    apply,
    lay_rug,
    new_game,
    parse_placement,
    parse_square,
    seat_colors,
)

T = TypeVar("T")


class AssamAt(TypedDict):
    """Where Assam stands and faces, as `board` takes them."""

    assam: str
    facing: str


ONTO_D4: AssamAt = {"assam": "d3", "facing": "S"}
"""Assam on d3 facing S: a roll of 1 lands him on d4."""


def two_player_piles() -> tuple[tuple[Color, ...], ...]:
    """Fixed 2-player piles: each seat alternates its two colours (red, blue, red, ...)."""
    return tuple(tuple(seat_colors(2, seat)[i % 2] for i in range(24)) for seat in range(2))


def start(
    players: int = 4, variant: Variant = Variant.STANDARD, first_player: int = 0
) -> GameState:
    """A new game with fixed piles in 2 players."""
    piles = two_player_piles() if players == 2 else None
    return new_game(GameConfig(players, variant, first_player, piles))


def board(
    players: int = 4,
    rugs: Iterable[tuple[str, str]] = (),
    *,
    assam: str = "d4",
    facing: str = "N",
    phase: Phase = Phase.ROLL,
    to_move: int = 0,
    dirhams: Sequence[int] | None = None,
    variant: Variant = Variant.STANDARD,
) -> GameState:
    """A game with `rugs` ((placement, colour) pairs, laid in order) on the board.

    Assam stands on `assam` facing `facing`; `to_move` is about to act in `phase`. Rugs come out
    of their colour's stock as if laid in earlier turns.
    """
    state = start(players, variant, to_move)
    for placement, color in rugs:
        state = lay_rug(state, Color(color).order, parse_placement(placement))
    return state._replace(
        assam=parse_square(assam),
        facing=Facing[facing],
        phase=phase,
        to_move=to_move,
        dirhams=tuple(dirhams) if dirhams is not None else state.dirhams,
    )


def play(state: GameState, *actions: str) -> tuple[GameState, list[Event]]:
    """Apply `actions` in order; return the final state and every event."""
    events: list[Event] = []
    for action in actions:
        state, new_events = apply(state, action)
        events.extend(new_events)
    return state, events


def of_type(events: Iterable[object], kind: type[T]) -> list[T]:
    """The events of one type, in order."""
    return [event for event in events if isinstance(event, kind)]
