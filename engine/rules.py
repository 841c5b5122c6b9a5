"""The rules of a turn (RULES.md R4-R12): legal actions, chance, and the checked `apply`."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import groupby

from engine.board import (
    BIT,
    CANDIDATES,
    NEIGHBOURS,
    PAIR_NOTATION,
    PAIR_OF_NOTATION,
    SQUARES,
    parse_square,
    region_mask,
    square_name,
    squares_of,
    turn_left,
    turn_right,
    walk,
)
from engine.errors import FormatError, IllegalActionError
from engine.events import (
    AssamMoved,
    AssamRotated,
    AssamTurned,
    DieRolled,
    Event,
    GameEnded,
    PlayerEliminated,
    RugPlaced,
    TaxPaid,
    TurnStarted,
)
from engine.model import (
    COLOR_ORDER,
    Facing,
    Outcome,
    Phase,
    Score,
    Variant,
    owner_of,
    seat_color_indices,
)
from engine.state import GameState

CHANCE = -1
"""What `current_player` returns when the next action is a die roll."""

DIE_FACES = (1, 2, 2, 3, 3, 4)
ROLL_ACTIONS = ("D1", "D2", "D3", "D4")
ORIENT_ACTIONS = ("L", "S", "R")
ROTATE_ACTIONS = ("L", "R")
CHANCE_OUTCOMES: tuple[tuple[str, Fraction], ...] = tuple(
    (f"D{face}", Fraction(DIE_FACES.count(face), len(DIE_FACES))) for face in (1, 2, 3, 4)
)

REASON_RUGS_EXHAUSTED = "rugs-exhausted"
REASON_LAST_PLAYER = "last-player-standing"


def current_player(state: GameState) -> int | None:
    """The seat to act, CHANCE for a die roll, or None when the game is over."""
    if state.phase is Phase.OVER:
        return None
    if state.phase is Phase.ROLL:
        return CHANCE
    return state.to_move


def chance_outcomes(state: GameState) -> list[tuple[str, Fraction]]:
    """Die outcomes with exact probabilities (R5: faces 1, 2, 2, 3, 3, 4); [] if no roll is due."""
    return list(CHANCE_OUTCOMES) if state.phase is Phase.ROLL else []


def placement_notation(first: int, second: int) -> str:
    """`(23, 30)` -> `c4c5`: the lower square index first (FORMATS.md)."""
    low, high = (first, second) if first < second else (second, first)
    notation = PAIR_NOTATION.get((low, high))
    return notation if notation is not None else square_name(low) + square_name(high)


def parse_placement(text: str) -> tuple[int, int]:
    """`c4c5` or `c5c4` -> `(23, 30)`. Raises FormatError if it does not name two squares."""
    pair = PAIR_OF_NOTATION.get(text) if isinstance(text, str) else None
    if pair is not None:
        return pair
    if not isinstance(text, str) or len(text) != 4:
        raise FormatError(f"{text!r} is not a rug placement (two squares, e.g. 'c4c5')")
    first, second = parse_square(text[:2]), parse_square(text[2:])
    return (first, second) if first < second else (second, first)


def placement_problem(cells: Sequence[int], assam: int, first: int, second: int) -> str | None:
    """Why a rug may not lie on squares `first` and `second` (R10), in plain words; None if it may.

    `cells[sq]` is the number of the visible rug on each square (0 = empty) and `assam` Assam's
    square. Only the geometry counts here: whose turn it is and which rugs are left do not.
    """
    for square in (first, second):
        if type(square) is not int or not 0 <= square < SQUARES:
            return "a rug must lie on the board"
    if second not in NEIGHBOURS[first]:
        return "a rug covers two squares side by side"
    if assam in (first, second):
        return "a rug cannot cover Assam's square"
    if first not in NEIGHBOURS[assam] and second not in NEIGHBOURS[assam]:
        return "a rug must touch Assam's square"
    if cells[first] and cells[first] == cells[second]:
        return "a rug cannot exactly cover another rug (both halves of one rug)"
    return None


def placements_at(cells: Sequence[int], assam: int) -> list[tuple[int, int]]:
    """Legal rug placements (R10) with Assam on `assam`, in reading order of their squares.

    `cells[sq]` is the number of the visible rug on each square (0 = empty), as in
    `placement_problem`; for boards that are not a GameState (e.g. a search's own lists).
    """
    return [(a, b) for a, b in CANDIDATES[assam] if not (cells[a] and cells[a] == cells[b])]


def placements(state: GameState) -> list[tuple[int, int]]:
    """Legal rug placements (R10), in reading order of their squares; [] outside the PLACE phase."""
    if state.phase is not Phase.PLACE:
        return []
    return placements_at(state.cells, state.assam)


def legal_actions(state: GameState) -> list[str]:
    """Every legal action in a fixed order (turn left, straight, right; D1-D4; placements)."""
    phase = state.phase
    if phase is Phase.ORIENT:
        return list(ORIENT_ACTIONS)
    if phase is Phase.ROLL:
        return list(ROLL_ACTIONS)
    if phase is Phase.PLACE:
        return [PAIR_NOTATION[pair] for pair in placements(state)]
    if phase is Phase.ROTATE:
        return list(ROTATE_ACTIONS)
    return []


def region(colors: Sequence[int], square: int) -> frozenset[int]:
    """Squares joined orthogonally to `square` through the same visible colour (R8).

    `colors[sq]` is the colour index shown on each square; `square` is Assam's.
    """
    color = colors[square]
    mask = sum(BIT[sq] for sq in range(SQUARES) if colors[sq] == color)
    return squares_of(region_mask(mask, square))


def scores(state: GameState) -> tuple[Score, ...]:
    """Every seat's score (R11): dirhams + visible squares of its colours, eliminated seats too."""
    result = []
    for seat in range(state.config.players):
        visible = state.visible_squares(seat)
        dirhams = state.dirhams[seat]
        result.append(Score(seat, dirhams, visible, dirhams + visible))
    return tuple(result)


def ranking_of(
    totals: Sequence[int],
    dirhams: Sequence[int],
    seats_in: Sequence[int],
    eliminated: Sequence[int],
) -> tuple[tuple[tuple[int, ...], ...], str]:
    """The ranking (R9, R11) and what decided first place ("score", "dirhams" or "shared").

    Seats still in rank by total, then dirhams; equal on both is a shared place. Eliminated
    seats follow, the latest elimination first. Shared by `rank` and the fast playouts.
    """
    standing = sorted(seats_in, key=lambda s: (-totals[s], -dirhams[s], s))
    groups = [tuple(group) for _, group in groupby(standing, lambda s: (totals[s], dirhams[s]))]
    if groups and len(groups[0]) > 1:
        tie_break = "shared"
    elif len(groups) > 1 and totals[groups[0][0]] == totals[groups[1][0]]:
        tie_break = "dirhams"
    else:
        tie_break = "score"
    return (*groups, *((seat,) for seat in reversed(eliminated))), tie_break


def rank(state: GameState, reason: str) -> Outcome:
    """The final ranking (R9, R11): score, then dirhams, then shared; eliminated seats last."""
    by_seat = scores(state)
    ranking, tie_break = ranking_of(
        [s.total for s in by_seat], state.dirhams, state.seats_in(), state.eliminated
    )
    return Outcome(ranking, reason, tie_break)


def end_reason(state: GameState) -> str | None:
    """Whether the game is over by the rules (R9, R11) and why; None while it goes on.

    Over when at most one player is still in ("last-player-standing"), or when no player
    still in holds a rug ("rugs-exhausted"). Reads only seats, dirhams and rugs, not the phase.
    """
    seats_in = state.seats_in()
    if len(seats_in) <= 1:
        return REASON_LAST_PLAYER
    if not any(state.rugs_in_hand(seat) for seat in seats_in):
        return REASON_RUGS_EXHAUSTED
    return None


def payment_region(state: GameState) -> frozenset[int]:
    """The region under Assam (R8): his square and every square joined to it through squares
    showing the same colour; empty when his square is empty. Who pays is not considered."""
    if state.colors[state.assam] < 0:
        return frozenset()
    return region(state.colors, state.assam)


def orient(facing: int, rotation: str) -> Facing:
    """Assam's facing after turning left ("L"), keeping straight ("S") or turning right ("R").

    R4: he never turns around (180 degrees); anything else raises IllegalActionError.
    """
    if rotation == "L":
        return turn_left(facing)
    if rotation == "R":
        return turn_right(facing)
    if rotation == "S":
        return Facing(facing)
    raise IllegalActionError(
        f"{rotation!r} is not a turn: Assam turns left (L), keeps straight (S) or turns right "
        "(R); he cannot turn around"
    )


def orientations(state: GameState) -> list[tuple[str, Facing]]:
    """The ways Assam may be turned now, each with the facing it gives, in `legal_actions`
    order: L, S, R before the roll (R4), L, R after laying in the variant (R12); [] otherwise."""
    if state.phase is not Phase.ORIENT and state.phase is not Phase.ROTATE:
        return []
    return [(action, orient(state.facing, action)) for action in legal_actions(state)]


def lay_rug(state: GameState, color: int, squares: tuple[int, int]) -> GameState:
    """`state` with a rug of colour index `color` on `squares` (R10: on top of what was there).

    The new rug gets the next rug number, that colour's stock loses one rug and, in 2 players,
    the owner's pile loses its top rug. Nothing is checked: `apply` checks before calling it.
    """
    number = state.rugs_laid + 1
    cells = list(state.cells)
    colors = list(state.colors)
    for square in squares:
        cells[square] = number
        colors[square] = color
    stock = list(state.stock)
    stock[color] -= 1
    piles = state.piles
    if piles is not None:
        owner = owner_of(state.config.players, color)
        piles = tuple(pile[1:] if s == owner else pile for s, pile in enumerate(piles))
    return state._replace(
        cells=tuple(cells),
        colors=tuple(colors),
        stock=tuple(stock),
        piles=piles,
        rugs_laid=number,
    )


def _finish(state: GameState, reason: str, events: list[Event]) -> GameState:
    outcome = rank(state, reason)
    events.append(GameEnded(reason, outcome.ranking, scores(state), outcome.tie_break))
    return state._replace(phase=Phase.OVER, to_move=None, outcome=outcome)


def _next_turn(state: GameState, mover: int, events: list[Event]) -> GameState:
    """End the mover's turn: finish the game (R9, R11) or hand the turn on."""
    reason = end_reason(state)
    if reason is not None:
        return _finish(state, reason, events)
    players = state.config.players
    for offset in range(1, players + 1):
        seat = (mover + offset) % players
        if not state.is_eliminated(seat) and state.rugs_in_hand(seat):
            break
    phase = Phase.ROLL if state.config.variant is Variant.ROTATE_AFTER else Phase.ORIENT
    turn = state.turn + 1
    events.append(TurnStarted(seat, turn))
    return state._replace(turn=turn, phase=phase, to_move=seat, last_roll=None)


def _eliminate(state: GameState, seat: int, resigned: bool, events: list[Event]) -> GameState:
    """Take `seat` out (R9): no dirhams, unplaced rugs gone, its rugs on the board neutral."""
    stock = list(state.stock)
    lost = 0
    for index in seat_color_indices(state.config.players, seat):
        lost += stock[index]
        stock[index] = 0
    piles = state.piles
    if piles is not None:
        piles = tuple(() if s == seat else pile for s, pile in enumerate(piles))
    dirhams = tuple(0 if s == seat else d for s, d in enumerate(state.dirhams))
    events.append(PlayerEliminated(seat, lost, resigned))
    return state._replace(
        stock=tuple(stock), piles=piles, dirhams=dirhams, eliminated=(*state.eliminated, seat)
    )


def _apply_orient(state: GameState, action: str, events: list[Event]) -> GameState:
    if action in ROLL_ACTIONS:
        raise IllegalActionError("it is not time to roll: first turn Assam (L, S or R)")
    facing = orient(state.facing, action)
    seat = state.to_move
    assert seat is not None
    events.append(AssamTurned(seat, action, facing))
    return state._replace(facing=facing, phase=Phase.ROLL)


def _apply_roll(state: GameState, action: str, events: list[Event]) -> GameState:
    if action not in ROLL_ACTIONS:
        raise IllegalActionError(f"{action!r} is not allowed now: it is time to roll (D1-D4)")
    mover = state.to_move
    assert mover is not None
    face = int(action[1])
    path = walk(state.assam, state.facing, face)
    end = path[-1]
    events.append(DieRolled(mover, face))
    events.append(AssamMoved(mover, state.assam, state.facing, path))
    state = state._replace(assam=end.square, facing=end.facing, last_roll=face)
    color = state.colors[end.square]
    if color >= 0:
        owner = owner_of(state.config.players, color)
        if owner != mover and owner not in state.eliminated:
            paid_region = region(state.colors, end.square)
            owed = len(paid_region)
            paid = min(owed, state.dirhams[mover])
            dirhams = list(state.dirhams)
            dirhams[mover] -= paid
            dirhams[owner] += paid
            events.append(TaxPaid(mover, owner, owed, paid, COLOR_ORDER[color], paid_region))
            state = state._replace(dirhams=tuple(dirhams))
            if owed > paid:
                state = _eliminate(state, mover, False, events)
                return _next_turn(state, mover, events)
    return state._replace(phase=Phase.PLACE)


def _apply_place(state: GameState, action: str, events: list[Event]) -> GameState:
    try:
        squares = parse_placement(action)
    except FormatError:
        raise IllegalActionError(
            f"{action!r} is not allowed now: lay a rug on two squares, e.g. 'c4c5'"
        ) from None
    problem = placement_problem(state.cells, state.assam, *squares)
    if problem is not None:
        raise IllegalActionError(problem)
    mover = state.to_move
    assert mover is not None
    color = state.next_color_index(mover)
    assert color is not None, "a seat with no rugs never gets a turn"
    state = lay_rug(state, color, squares)
    events.append(RugPlaced(mover, COLOR_ORDER[color], squares, state.rugs_laid))
    reason = end_reason(state)
    if reason is not None:
        return _finish(state, reason, events)
    if state.config.variant is Variant.ROTATE_AFTER:
        return state._replace(phase=Phase.ROTATE)
    return _next_turn(state, mover, events)


def _apply_rotate(state: GameState, action: str, events: list[Event]) -> GameState:
    if action not in ROTATE_ACTIONS:
        raise IllegalActionError(
            f"{action!r} is not allowed now: turn Assam a quarter turn left (L) or right (R)"
        )
    mover = state.to_move
    assert mover is not None
    facing = orient(state.facing, action)
    events.append(AssamRotated(mover, action, facing))
    return _next_turn(state._replace(facing=facing), mover, events)


_HANDLERS = {
    Phase.ORIENT: _apply_orient,
    Phase.ROLL: _apply_roll,
    Phase.PLACE: _apply_place,
    Phase.ROTATE: _apply_rotate,
}


def apply(state: GameState, action: str) -> tuple[GameState, tuple[Event, ...]]:
    """Apply one action (FORMATS.md notation) and return the new state and what happened.

    Raises IllegalActionError, saying why, if the rules do not allow `action` now.
    """
    if not isinstance(action, str):
        raise IllegalActionError(
            f"an action is a notation such as 'L', 'D3' or 'c4c5', not {action!r}"
        )
    if state.phase is Phase.OVER:
        raise IllegalActionError("the game is over")
    events: list[Event] = []
    new_state = _HANDLERS[state.phase](state, action, events)
    if state.phase is Phase.PLACE:
        action = placement_notation(*parse_placement(action))  # the written form: lower first
    return new_state._replace(history=(*state.history, action)), tuple(events)


def resign(state: GameState, seat: int) -> tuple[GameState, tuple[Event, ...]]:
    """`seat` leaves a running game, as if eliminated (R9): its rugs on the board turn neutral.

    If it was that seat's turn, the turn passes on. Not part of the action notation: a record
    keeps resignations in its `resignations` extra.
    """
    if state.phase is Phase.OVER:
        raise IllegalActionError("the game is over")
    if not 0 <= seat < state.config.players or seat in state.eliminated:
        raise IllegalActionError(f"seat {seat} is not in the game")
    events: list[Event] = []
    state = _eliminate(state, seat, True, events)
    state = state._replace(resignations=(*state.resignations, (len(state.history), seat)))
    if seat == state.to_move:
        state = _next_turn(state, seat, events)
    else:
        reason = end_reason(state)
        if reason is not None:
            state = _finish(state, reason, events)
    return state, tuple(events)
