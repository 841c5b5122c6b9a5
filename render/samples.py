"""Sample games for the demo, the benchmark and the tests: the engine driven by a seeded
`random.Random`, so every sample is the same on every run. Rules all come from the engine."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engine import (
    Event,
    GameState,
    Phase,
    PlayerEliminated,
    TurnStarted,
    Variant,
    apply,
    deal,
    from_position,
    legal_actions,
    new_game,
    to_position,
)


@dataclass(frozen=True)
class Moment:
    """A state with the events of the turn that led to it (since the last TurnStarted)."""

    state: GameState
    events: tuple[Event, ...]


def moments(state: GameState, rng: random.Random) -> Iterator[Moment]:
    """Every state from `state` to the end of the game, playing uniformly random legal actions
    (chance included) drawn from `rng`, each with the events of its turn so far."""
    turn: list[Event] = []
    yield Moment(state, ())
    while not state.is_over:
        state, events = apply(state, rng.choice(legal_actions(state)))
        started = [i for i, event in enumerate(events) if isinstance(event, TurnStarted)]
        if started:
            # Events up to the start of the next turn belong to the turn just finished.
            yield Moment(state, (*turn, *events))
            turn = list(events[started[-1] + 1 :])
        else:
            turn.extend(events)
            yield Moment(state, tuple(turn))


def new_sample(
    players: int, seed: int, variant: Variant = Variant.STANDARD
) -> tuple[GameState, random.Random]:
    """A new game dealt from `seed`, and the generator that goes on to play it."""
    rng = random.Random(seed)
    return new_game(deal(players, variant, rng)), rng


def at_turn(
    players: int,
    seed: int,
    turn: int,
    phase: Phase = Phase.PLACE,
    variant: Variant = Variant.STANDARD,
) -> Moment:
    """The first moment of turn `turn` (or later) in phase `phase` of a random sample game;
    the game's last moment if it ends before."""
    state, rng = new_sample(players, seed, variant)
    last = Moment(state, ())
    for moment in moments(state, rng):
        last = moment
        if moment.state.turn >= turn and moment.state.phase is phase:
            return moment
    return last


def first_moment(
    players: int,
    seeds: range,
    wanted: Callable[[Moment], bool],
    variant: Variant = Variant.STANDARD,
) -> Moment:
    """The first moment, in the first of `seeds` that has one, for which `wanted` is true.
    Raises LookupError if no sample game has such a moment."""
    for seed in seeds:
        state, rng = new_sample(players, seed, variant)
        for moment in moments(state, rng):
            if wanted(moment):
                return moment
    raise LookupError("no sample game has the moment wanted")


def finished(players: int, seed: int, variant: Variant = Variant.STANDARD) -> Moment:
    """The end of a random sample game, with its last turn's events."""
    state, rng = new_sample(players, seed, variant)
    *_, last = moments(state, rng)
    return last


def elimination(seed: int, *, turn: int = 16, poor_seat: int = 2) -> Moment:
    """A 4-player sample game in which `poor_seat` is left with 1 dirham at the start of turn
    `turn` (the rest going to seat 0) and play goes on until a seat is eliminated (R9): the
    moment right after it, its rugs now neutral. Falls back to the game's end if no one is."""
    state, rng = new_sample(4, seed)
    for moment in moments(state, rng):
        state = moment.state
        if state.turn >= turn and state.phase is Phase.ORIENT:
            break
    position = to_position(state)
    seats = position["seats"]
    seats[0]["dirhams"] += seats[poor_seat]["dirhams"] - 1
    seats[poor_seat]["dirhams"] = 1
    del position["scores"]  # derived from the dirhams, which changed: let the engine count them
    last = Moment(from_position(position), ())
    for moment in moments(last.state, rng):
        last = moment
        if any(isinstance(event, PlayerEliminated) for event in moment.events) and (
            moment.state.phase is Phase.ORIENT or moment.state.is_over
        ):
            return moment
    return last
