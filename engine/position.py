"""Positions (`marrakech-position/1`, FORMATS.md 3): export a state, import and check one."""

from __future__ import annotations

from typing import Any

from engine.board import NEIGHBOURS, SIZE, SQUARES, parse_square, square_name
from engine.checks import fields, grid, header, whole_number
from engine.errors import FormatError
from engine.model import (
    COLOR_ORDER,
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
from engine.rules import REASON_LAST_PLAYER, REASON_RUGS_EXHAUSTED, end_reason, rank, scores
from engine.state import GameState

POSITION_FORMAT = "marrakech-position/1"
ELIMINATED_ORDER = "eliminated_order"
"""Optional extra: the seats that are out, in the order they went out (written while the game
goes on and two or more are out; a finished game's ranking gives that order)."""
MAX_TURN = 10_000
_REQUIRED = (
    "format",
    "players",
    "variant",
    "turn",
    "to_move",
    "phase",
    "assam",
    "cells",
    "seats",
)


def to_position(state: GameState) -> dict[str, Any]:
    """The state as a `marrakech-position/1` JSON-ready dict."""
    players = state.config.players
    shown = [
        None if number == 0 else [COLOR_ORDER[color].value, number]
        for number, color in zip(state.cells, state.colors, strict=True)
    ]
    cells = [shown[row * SIZE : (row + 1) * SIZE] for row in range(SIZE)]
    seats = []
    for seat in range(players):
        pile = state.pile(seat)
        seats.append(
            {
                "seat": seat,
                "colors": [c.value for c in seat_colors(players, seat)],
                "dirhams": state.dirhams[seat],
                "rugs_left": {c.value: n for c, n in state.rugs_left(seat).items()},
                "eliminated": state.is_eliminated(seat),
                "pile": None if pile is None else [c.value for c in pile],
            }
        )
    outcome = None
    if state.outcome is not None:
        outcome = {
            "ranking": [list(group) for group in state.outcome.ranking],
            "reason": state.outcome.reason,
        }
    body: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "players": players,
        "variant": state.config.variant.value,
        "turn": state.turn,
        "to_move": state.to_move,
        "phase": state.phase.value,
        "assam": {"square": square_name(state.assam), "facing": state.facing.name},
        "cells": cells,
        "seats": seats,
        "scores": _scores(state),
        "outcome": outcome,
    }
    if outcome is None and len(state.eliminated) > 1:
        # Which seat went out first decides the ranking at the end (R9): an optional extra.
        body[ELIMINATED_ORDER] = list(state.eliminated)
    return body


def _scores(state: GameState) -> list[dict[str, int]]:
    return [
        {"seat": s.seat, "dirhams": s.dirhams, "visible": s.visible, "total": s.total}
        for s in scores(state)
    ]


def _color(value: object, what: str) -> Color:
    if isinstance(value, str) and value in Color._value2member_map_:
        return Color(value)
    raise FormatError(f"{what} must be a colour (red, yellow, blue, brown)")


def _parse_cells(raw: object, players: int) -> tuple[list[int], list[int]]:
    numbers = [0] * SQUARES
    colors = [-1] * SQUARES
    in_play = {i for s in range(players) for i in seat_color_indices(players, s)}
    for square, cell in grid(raw, '"cells"'):
        where = f"cell {square_name(square)}"
        if not isinstance(cell, list) or len(cell) != 2:
            raise FormatError(f"{where} must be null or [colour, rug number]")
        color = _color(cell[0], where)
        if color.order not in in_play:
            raise FormatError(f"{where} shows {color.value}, a colour not in this game")
        numbers[square] = whole_number(cell[1], f"{where}'s rug number", 1, 48)
        colors[square] = color.order
    squares_of: dict[int, list[int]] = {}
    for square, number in enumerate(numbers):
        if number:
            squares_of.setdefault(number, []).append(square)
    for number, squares in squares_of.items():
        if len(squares) > 2:
            raise FormatError(f"rug {number} shows on more than two squares")
        if len(squares) == 2:
            first, second = squares
            if second not in NEIGHBOURS[first] or colors[first] != colors[second]:
                raise FormatError(f"rug {number} shows on two squares that cannot be one rug")
    return numbers, colors


def _parse_seat(raw: object, seat: int, players: int, variant_piles: bool) -> dict[str, Any]:
    raw = fields(raw, f"seat {seat}", ("seat", "dirhams", "rugs_left", "eliminated"))
    if type(raw["seat"]) is not int or raw["seat"] != seat:
        raise FormatError(f'"seats" must list seats 0 to {players - 1} in order')
    if "colors" in raw and raw["colors"] != [c.value for c in seat_colors(players, seat)]:
        raise FormatError(f"seat {seat} has the wrong colours for a {players}-player game")
    dirhams = whole_number(raw["dirhams"], f"seat {seat}'s dirhams", 0, STARTING_DIRHAMS * players)
    eliminated = raw["eliminated"]
    if not isinstance(eliminated, bool):
        raise FormatError(f"seat {seat}'s eliminated must be true or false")
    own = seat_colors(players, seat)
    rugs_left = raw["rugs_left"]
    if not isinstance(rugs_left, dict) or set(rugs_left) != {c.value for c in own}:
        names = ", ".join(c.value for c in own)
        raise FormatError(f"seat {seat}'s rugs_left must give a count for {names}")
    stock = {
        Color(name).order: whole_number(n, f"seat {seat}'s {name} rugs", 0, rugs_per_color(players))
        for name, n in rugs_left.items()
    }
    pile = None
    if variant_piles:
        raw_pile = raw.get("pile")
        if not isinstance(raw_pile, list) or len(raw_pile) > 2 * rugs_per_color(2):
            raise FormatError(f"seat {seat}'s pile must be a list of its colours")
        pile = tuple(_color(c, f"seat {seat}'s pile").order for c in raw_pile)
        # Exactly the rugs its rugs_left counts: no more, no fewer, and none of another colour.
        if sorted(pile) != sorted(index for index, n in stock.items() for _ in range(n)):
            raise FormatError(f"seat {seat}'s pile does not match its rugs_left")
    elif raw.get("pile") is not None:
        raise FormatError("only 2-player games have piles")
    if eliminated and (dirhams or any(stock.values())):
        raise FormatError(f"eliminated seat {seat} must have 0 dirhams and no rugs")
    return {"dirhams": dirhams, "eliminated": eliminated, "stock": stock, "pile": pile}


def _holds_rugs(seat: dict[str, Any]) -> bool:
    return any(seat["stock"].values())


def from_position(obj: object) -> GameState:
    """Build a state from a position. Raises FormatError saying what is wrong or impossible.

    What can be worked out from the rest (`scores`, each seat's `colors`) may be left out,
    but if given must agree with it. A position does not say how the game began: the state's
    config has `first_player` set to the seat to move and no piles, and its history is empty.
    """
    obj, players, variant = header(obj, "position", POSITION_FORMAT, _REQUIRED)
    try:
        phase = Phase(obj["phase"])
    except (ValueError, TypeError):
        raise FormatError('"phase" must be "orient", "roll", "place", "rotate" or "over"') from None
    turn = whole_number(obj["turn"], '"turn"', 1, MAX_TURN)
    assam = obj["assam"]
    if not isinstance(assam, dict) or "square" not in assam or "facing" not in assam:
        raise FormatError('"assam" must be {"square": "d4", "facing": "N"}')
    square = parse_square(assam["square"])
    if assam["facing"] not in ("N", "E", "S", "W"):
        raise FormatError("Assam's facing must be N, E, S or W")
    facing = Facing[assam["facing"]]
    numbers, colors = _parse_cells(obj["cells"], players)
    raw_seats = obj["seats"]
    if not isinstance(raw_seats, list) or len(raw_seats) != players:
        raise FormatError(f'"seats" must list all {players} seats')
    seats = [_parse_seat(raw, s, players, players == 2) for s, raw in enumerate(raw_seats)]
    if sum(s["dirhams"] for s in seats) > STARTING_DIRHAMS * players:
        raise FormatError("the seats hold more dirhams than the game began with")
    stock = [0, 0, 0, 0]
    for seat in seats:
        for index, count in seat["stock"].items():
            stock[index] = count
    eliminated = _eliminated_order(obj.get(ELIMINATED_ORDER), seats)
    to_move = obj["to_move"]
    if phase is Phase.OVER:
        if to_move is not None:
            raise FormatError('"to_move" must be null when the game is over')
    else:
        to_move = whole_number(to_move, '"to_move"', 0, players - 1)
        if to_move in eliminated:
            raise FormatError(f"seat {to_move} is eliminated and cannot move")
        if phase is Phase.ORIENT and variant is Variant.ROTATE_AFTER:
            raise FormatError("the rotate-after variant has no orient phase")
        if phase is Phase.ROTATE and variant is Variant.STANDARD:
            raise FormatError("standard rules have no rotate phase")
    if phase is not Phase.OVER:
        holding = [s for s in range(players) if s not in eliminated and _holds_rugs(seats[s])]
        if len(eliminated) >= players - 1:
            raise FormatError("a game with fewer than two players still in is over")
        if not holding:
            raise FormatError("a game in which no player still in holds a rug is over")
        if phase is not Phase.ROTATE and to_move not in holding:
            raise FormatError(f"seat {to_move} is to move but holds no rug")
    for index in range(4):
        if colors.count(index) > 2 * (rugs_per_color(players) - stock[index]):
            raise FormatError(
                f"more {COLOR_ORDER[index].value} squares show than rugs_left says were laid"
            )
    # The newest rug always shows, so the highest rug number counts the rugs laid.
    rugs_laid = max(numbers)
    # The rugs gone from each seat's hands (a seat out has none left, laid or not).
    gone = [
        sum(rugs_per_color(players) - stock[index] for index in seat_color_indices(players, seat))
        for seat in range(players)
    ]
    from_hands = sum(gone[seat] for seat in range(players) if seat not in eliminated)
    if rugs_laid < max(from_hands, turn - 1 - len(eliminated)):
        raise FormatError(
            f"the board's rug numbers count {rugs_laid} rugs laid: too few for turn {turn} "
            "and the rugs the seats have left"
        )
    most = sum(gone)
    if rugs_laid > most:
        raise FormatError(
            f"the board's rug numbers count {rugs_laid} rugs laid: more than the {most} "
            "gone from the rugs_left of the seats"
        )
    # A turn lays at most one rug; the current one has laid its rug once it is past placing.
    laid_by_turns = turn if phase in (Phase.ROTATE, Phase.OVER) else turn - 1
    if rugs_laid > laid_by_turns:
        raise FormatError(
            f"the board's rug numbers count {rugs_laid} rugs laid: more than turn {turn} "
            "can have laid (one rug a turn)"
        )
    piles = None
    if players == 2:
        piles = tuple(seats[s]["pile"] or () for s in range(2))
    config = GameConfig(players, variant, to_move if to_move is not None else 0, None)
    state = GameState(
        config=config,
        turn=turn,
        phase=phase,
        to_move=to_move,
        assam=square,
        facing=facing,
        cells=tuple(numbers),
        colors=tuple(colors),
        dirhams=tuple(s["dirhams"] for s in seats),
        stock=tuple(stock),
        piles=piles,
        eliminated=tuple(eliminated),
        rugs_laid=rugs_laid,
        last_roll=None,
        outcome=None,
        history=(),
    )
    if phase is Phase.OVER:
        state = _with_outcome(state, obj.get("outcome"))
        if obj.get(ELIMINATED_ORDER) is not None and list(state.eliminated) != eliminated:
            raise FormatError(f'"{ELIMINATED_ORDER}" does not follow from "outcome.ranking"')
    elif obj.get("outcome") is not None:
        raise FormatError('"outcome" must be null until the game is over')
    if "scores" in obj and obj["scores"] != _scores(state):
        raise FormatError('"scores" do not follow from the dirhams and the cells (R11)')
    return state


def _eliminated_order(raw: object, seats: list[dict[str, Any]]) -> list[int]:
    """The seats that are out, in the order the `eliminated_order` extra gives (in seat order
    without it)."""
    out = [s for s, seat in enumerate(seats) if seat["eliminated"]]
    if raw is None:
        return out
    if not isinstance(raw, list) or not all(type(s) is int for s in raw) or sorted(raw) != out:
        raise FormatError(
            f'"{ELIMINATED_ORDER}" must list each eliminated seat once, in the order they went out'
        )
    return list(raw)


def _with_outcome(state: GameState, raw: object) -> GameState:
    if not isinstance(raw, dict) or not isinstance(raw.get("ranking"), list):
        raise FormatError('a finished game needs an "outcome" with a "ranking"')
    reason = raw.get("reason")
    if reason not in (REASON_RUGS_EXHAUSTED, REASON_LAST_PLAYER):
        raise FormatError('"outcome.reason" must be "rugs-exhausted" or "last-player-standing"')
    due = end_reason(state)
    if due is None:
        raise FormatError("the game is not over: two or more players are in and one holds a rug")
    if reason != due:
        raise FormatError(f'the game ended by "{due}" (R9, R11), not "{reason}"')
    ranking = raw["ranking"]
    if not all(isinstance(g, list) and all(type(s) is int for s in g) for g in ranking):
        raise FormatError('"outcome.ranking" must be a list of lists of seats')
    order = [s for group in ranking for s in group]
    if sorted(order) != list(range(state.config.players)):
        raise FormatError('"outcome.ranking" must list every seat once')
    # Eliminated seats rank in reverse elimination order, which gives the elimination order.
    eliminated = [s for s in reversed(order) if s in state.eliminated]
    state = state._replace(eliminated=tuple(eliminated))
    outcome = rank(state, due)
    if [list(g) for g in outcome.ranking] != ranking:
        raise FormatError('"outcome.ranking" does not follow from the scores (R9, R11)')
    return state._replace(outcome=outcome)
