"""Starting a game: the chance draws at setup (R2, R3) and the initial state (R1, R3)."""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any, Protocol

from engine.board import CENTER
from engine.errors import FormatError
from engine.model import (
    COLOR_ORDER,
    PLAYER_COUNTS,
    STARTING_DIRHAMS,
    Color,
    Facing,
    GameConfig,
    Phase,
    Variant,
    rugs_per_color,
    seat_color_indices,
    seat_colors,
)
from engine.state import GameState


class RandomSource(Protocol):
    """What `deal` needs from the caller's RNG (e.g. `random.Random(seed)`)."""

    def randrange(self, stop: int, /) -> int: ...

    def shuffle(self, x: MutableSequence[Any], /) -> None: ...


def deal(
    players: int,
    variant: Variant | str = Variant.STANDARD,
    rng: RandomSource | None = None,
    first_player: int | None = None,
) -> GameConfig:
    """Draw the first player (R3) and, in 2 players, shuffle each seat's pile (R2).

    The engine owns no RNG: the caller passes one, seeded per game (R13). Draws happen in a
    fixed order (first player unless given, then seat 0's pile, then seat 1's) so that the same
    seed always deals the same game.
    """
    try:
        variant = Variant(variant)
    except ValueError:
        raise FormatError('the variant is "standard" or "rotate-after"') from None
    _check_players(players)
    if first_player is None:
        if rng is None:
            raise ValueError("deal needs an RNG to draw the first player")
        first_player = rng.randrange(players)
    piles: tuple[tuple[Color, ...], ...] | None = None
    if players == 2:
        if rng is None:
            raise ValueError("deal needs an RNG to shuffle the 2-player piles")
        shuffled = []
        for seat in range(2):
            pile = [c for c in seat_colors(2, seat) for _ in range(rugs_per_color(2))]
            rng.shuffle(pile)
            shuffled.append(tuple(pile))
        piles = tuple(shuffled)
    config = GameConfig(players, variant, first_player, piles)
    validate_config(config)
    return config


def _check_players(players: object) -> None:
    if type(players) is not int or players not in PLAYER_COUNTS:
        raise FormatError(f"a game has 2, 3 or 4 players, not {players!r}")


def validate_config(config: GameConfig) -> None:
    """Raise FormatError unless `config` describes a game the rules allow."""
    _check_players(config.players)
    if not isinstance(config.variant, Variant):
        raise FormatError(f"unknown variant {config.variant!r}")
    first = config.first_player
    if type(first) is not int or not 0 <= first < config.players:
        raise FormatError(f"first player must be a seat from 0 to {config.players - 1}")
    if config.players != 2:
        if config.piles is not None:
            raise FormatError("only 2-player games have piles")
        return
    if config.piles is None or len(config.piles) != 2:
        raise FormatError("a 2-player game needs a pile for each of the two seats")
    for seat, pile in enumerate(config.piles):
        one, other = seat_colors(2, seat)
        if (
            len(pile) != 24
            or not all(type(c) is Color for c in pile)
            or pile.count(one) != 12
            or pile.count(other) != 12
        ):
            names = " and ".join(c.value for c in seat_colors(2, seat))
            raise FormatError(f"seat {seat}'s pile must hold 12 {names} rugs each")


def new_game(config: GameConfig) -> GameState:
    """The state before the first action: Assam on d4 facing N, 30 dirhams each (R1, R3)."""
    validate_config(config)
    players = config.players
    stock = [0, 0, 0, 0]
    for seat in range(players):
        for index in seat_color_indices(players, seat):
            stock[index] = rugs_per_color(players)
    piles = None
    if config.piles is not None:
        piles = tuple(tuple(COLOR_ORDER.index(c) for c in pile) for pile in config.piles)
    standard = config.variant is Variant.STANDARD
    return GameState(
        config=config,
        turn=1,
        phase=Phase.ORIENT if standard else Phase.ROLL,
        to_move=config.first_player,
        assam=CENTER,
        facing=Facing.N,
        cells=(0,) * 49,
        colors=(-1,) * 49,
        dirhams=(STARTING_DIRHAMS,) * players,
        stock=tuple(stock),
        piles=piles,
        eliminated=(),
        rugs_laid=0,
        last_roll=None,
        outcome=None,
        history=(),
    )
