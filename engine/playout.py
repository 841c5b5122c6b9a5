"""Fast playouts: whole games played on mutable lists and int bitmasks, for benchmarks and AI.

The checked API (`engine.rules.apply`) builds a new immutable state and events for every
action; that is right for the bot but too slow for Monte Carlo search. This module plays the
same rules (RULES.md R4-R12) on a mutable `FastState`, sharing the rule tables of
`engine.board` (WALK_END for Assam's walks, CANDIDATES for rug positions, region_mask for
the R8 flood fill) and the ranking of `engine.rules` (R9, R11).

Stable API (the AI players build on it):

- `from_state(state) -> FastState`: a fast copy of any GameState, in any phase;
  `new_fast_game(config)`: the start of a game, directly.
- `FastState.copy()`: an independent copy (a playout never changes the state it is given).
- `refresh_rugs(fast)`: after changing a FastState's cells by hand, before playing it out.
- `playout(state_or_fast, rng, policy=None, trace=None) -> PlayoutResult`: plays to the end.
  `rng` is anything with `random() -> float in [0, 1)` (e.g. `random.Random(seed)`); the
  engine owns no RNG. Chance: the die face is `DIE_FACES[int(rng.random() * 6)]`.
  Decisions: without a policy each decision takes `options[int(rng.random() * len(options))]`,
  the options being in `legal_actions` order (orient L, S, R; placements in reading order;
  rotate L, R), so the checked API driven by the same RNG plays the same game
  (`checked_playout` does exactly that). A `policy(state, kind, options) -> index` replaces the
  uniform choice: `kind` is ORIENT, PLACE or ROTATE, `options` the notations ("L", "S", "R")
  or ("L", "R"), or the legal rug positions as (square, square) pairs. When it is called the
  FastState's `phase`, `to_move`, `assam`, `facing`, board lists, dirhams, rugs and seats are
  up to date; `intact`, `in_hand`, `rugs_laid` and `turn` are written back only at the end.
- `run(fast, rng, policy=None, trace=None) -> actions played`: `playout` without the copy,
  changing `fast` in place (then `fast.result()` gives the PlayoutResult).
- `trace`: a list that receives every action's notation (chance included), for tests.
- `PlayoutResult`: `totals` and `dirhams` per seat, `ranking` (groups of seats, best first),
  `reason` ("rugs-exhausted" or "last-player-standing") and `actions` (how many were played).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from engine.board import (
    BIT,
    CANDIDATES,
    CENTER,
    PAIR_INDEX,
    PAIR_NOTATION,
    SQUARES,
    WALK_END,
    region_mask,
)
from engine.model import (
    PLAYER_COUNTS,
    STARTING_DIRHAMS,
    Facing,
    GameConfig,
    Phase,
    Variant,
    owner_of,
    rugs_per_color,
    seat_color_indices,
)
from engine.rules import (
    CHANCE,
    DIE_FACES,
    ORIENT_ACTIONS,
    REASON_LAST_PLAYER,
    REASON_RUGS_EXHAUSTED,
    ROTATE_ACTIONS,
    apply,
    current_player,
    legal_actions,
    orient,
    ranking_of,
)
from engine.state import GameState

ORIENT = 0
ROLL = 1
PLACE = 2
ROTATE = 3
OVER = 4
"""FastState.phase values (and the `kind` a policy is asked about: ORIENT, PLACE, ROTATE)."""
_TURN_END = 5  # inside `run` only: the mover was eliminated, so the turn ends without a rug

_PHASE_CODES = {Phase.ORIENT: ORIENT, Phase.ROLL: ROLL, Phase.PLACE: PLACE, Phase.ROTATE: ROTATE}
ORIENT_OPTIONS = ORIENT_ACTIONS
"""What a policy is offered at ORIENT: "L", "S", "R" (R4), in `legal_actions` order."""
ROTATE_OPTIONS = ROTATE_ACTIONS
"""What a policy is offered at ROTATE: "L", "R" (R12)."""
ORIENT_TURNS: tuple[int, ...] = tuple(int(orient(Facing.N, a)) for a in ORIENT_OPTIONS)
"""How each ORIENT option changes the facing, clockwise quarter turns mod 4: (3, 0, 1)."""
ROTATE_TURNS: tuple[int, ...] = tuple(int(orient(Facing.N, a)) for a in ROTATE_OPTIONS)
"""How each ROTATE option changes the facing: (3, 1)."""
_ORIENT_TURNED: tuple[int, ...] = tuple(
    (pose & ~3) | ((pose + turn) & 3) for pose in range(SQUARES * 4) for turn in ORIENT_TURNS
)
"""_ORIENT_TURNED[pose * 3 + k]: the pose after turning L, S or R (k = 0, 1, 2) (R4)."""
_ROTATE_TURNED: tuple[int, ...] = tuple(
    (pose & ~3) | ((pose + turn) & 3) for pose in range(SQUARES * 4) for turn in ROTATE_TURNS
)
"""_ROTATE_TURNED[pose * 2 + k]: the pose after a quarter turn L or R (k = 0, 1) (R12)."""

PAIR_SHIFT = 6
"""Pair masks keep bits 0-5 free (see _LEGAL_CACHE): position i of board.PAIRS is bit i + 6."""

PAIR_BIT: dict[tuple[int, int], int] = {
    pair: 1 << (index + PAIR_SHIFT) for pair, index in PAIR_INDEX.items()
}
"""PAIR_BIT[(low, high)]: the bit of a rug position in a pair mask such as FastState.intact."""

_PLACEMENTS: tuple[tuple[tuple[int, int, int, int], ...], ...] = tuple(
    tuple((a, b, BIT[a] | BIT[b], PAIR_BIT[a, b]) for a, b in CANDIDATES[sq])
    for sq in range(SQUARES)
)
"""Per Assam square: the CANDIDATES rug positions as (square, square, square mask, pair bit)."""

_PLACEMENT_PAIRS: tuple[int, ...] = tuple(
    sum(p[3] for p in _PLACEMENTS[sq]) for sq in range(SQUARES)
)
"""Per Assam square: the pair mask (bits of PAIRS) of its candidate rug positions."""

_LEGAL_CACHE: dict[int, tuple[tuple[int, int, int, int], ...]] = {}
"""Legal rug positions by (blocked pair mask | Assam's square): `blocked` holds the candidates
that would exactly cover a whole rug (R10). Pair bits start at bit PAIR_SHIFT, so the square
(below 64) and the mask never overlap. Filled as playouts meet new cases, up to a limit."""
_LEGAL_CACHE_LIMIT = 200_000

_OWNER = {n: tuple(owner_of(n, c) for c in range(4)) for n in PLAYER_COUNTS}
_SEAT_COLORS = {n: tuple(seat_color_indices(n, seat) for seat in range(n)) for n in PLAYER_COUNTS}
_NEXT_SEATS = {
    n: tuple(tuple((seat + k) % n for k in range(1, n + 1)) for seat in range(n))
    for n in PLAYER_COUNTS
}


class RandomSource(Protocol):
    """What a playout needs from the caller's RNG (e.g. `random.Random(seed)`)."""

    def random(self) -> float: ...


Policy = Callable[["FastState", int, Sequence[Any]], int]
"""`policy(state, kind, options) -> index into options` (kind: ORIENT, PLACE or ROTATE)."""


class PlayoutResult(NamedTuple):
    """The end of a playout: per-seat totals and dirhams, ranking, reason, actions played."""

    totals: tuple[int, ...]
    dirhams: tuple[int, ...]
    ranking: tuple[tuple[int, ...], ...]
    reason: str
    actions: int

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats in first place (more than one for a shared win)."""
        return self.ranking[0]


class FastState:
    """A mutable game state for playouts.

    `cells[sq]` rug number (0 empty), `colors[sq]` colour index (-1 empty), `masks[c]` the
    49-bit mask of squares showing colour c, `intact` the pair mask (PAIR_BIT bits) of
    rugs whose two halves both show (R10: those positions may not be covered exactly),
    `rug_pair[n]` rug n's pair bit, `stock[c]` unplaced rugs of colour c, `hand[seat]`
    unplaced rugs of a seat, `in_hand` those of all seats still in, `alive[seat]`,
    `eliminated` seats in elimination order, `piles[seat]` (2 players) colour indices with the
    TOP OF THE PILE LAST (so laying pops from the end), or None. `to_move` is -1 when over.

    Code that changes `cells` outside `run` (e.g. a search laying and lifting rugs) must call
    `refresh_rugs(state)` before handing the state to `run` or `playout`.
    """

    __slots__ = (
        "alive",
        "assam",
        "cells",
        "colors",
        "dirhams",
        "eliminated",
        "facing",
        "hand",
        "in_hand",
        "intact",
        "masks",
        "phase",
        "piles",
        "players",
        "reason",
        "rotate_after",
        "rug_pair",
        "rugs_laid",
        "stock",
        "to_move",
        "turn",
    )

    players: int
    rotate_after: bool
    phase: int
    to_move: int
    assam: int
    facing: int
    turn: int
    cells: list[int]
    colors: list[int]
    masks: list[int]
    intact: int
    rug_pair: list[int]
    dirhams: list[int]
    stock: list[int]
    hand: list[int]
    in_hand: int
    alive: list[bool]
    eliminated: list[int]
    piles: list[list[int]] | None
    rugs_laid: int
    reason: str | None

    def copy(self) -> FastState:
        """An independent copy."""
        other = FastState.__new__(FastState)
        other.players = self.players
        other.rotate_after = self.rotate_after
        other.phase = self.phase
        other.to_move = self.to_move
        other.assam = self.assam
        other.facing = self.facing
        other.turn = self.turn
        other.cells = self.cells[:]
        other.colors = self.colors[:]
        other.masks = self.masks[:]
        other.intact = self.intact
        other.rug_pair = self.rug_pair[:]
        other.dirhams = self.dirhams[:]
        other.stock = self.stock[:]
        other.hand = self.hand[:]
        other.in_hand = self.in_hand
        other.alive = self.alive[:]
        other.eliminated = self.eliminated[:]
        other.piles = None if self.piles is None else [p[:] for p in self.piles]
        other.rugs_laid = self.rugs_laid
        other.reason = self.reason
        return other

    def totals(self) -> tuple[int, ...]:
        """Every seat's score (R11): dirhams plus visible squares of its colours."""
        return tuple(
            self.dirhams[seat] + sum(self.masks[c].bit_count() for c in colors)
            for seat, colors in enumerate(_SEAT_COLORS[self.players])
        )

    def result(self, actions: int = 0) -> PlayoutResult:
        """The PlayoutResult of a finished game (`reason` set)."""
        if self.reason is None:
            raise ValueError("the playout has not ended")
        totals = self.totals()
        seats_in = [s for s in range(self.players) if self.alive[s]]
        ranking, _ = ranking_of(totals, self.dirhams, seats_in, self.eliminated)
        return PlayoutResult(totals, tuple(self.dirhams), ranking, self.reason, actions)


def _intact_rugs(cells: list[int], rugs_laid: int) -> tuple[int, list[int]]:
    """(intact pair mask, rug number -> pair bit) for a board of rug numbers."""
    rug_pair = [0] * (rugs_laid + 1)
    intact = 0
    first_square: dict[int, int] = {}
    for square, number in enumerate(cells):
        if number:
            other = first_square.setdefault(number, square)
            if other != square:
                bit = PAIR_BIT.get((other, square), 0)
                rug_pair[number] = bit
                intact |= bit
    return intact, rug_pair


def refresh_rugs(fast: FastState) -> None:
    """Recompute `intact` and `rug_pair` (and `rugs_laid` if too low) from `cells`."""
    fast.rugs_laid = max(fast.rugs_laid, *fast.cells)
    fast.intact, fast.rug_pair = _intact_rugs(fast.cells, fast.rugs_laid)


def from_state(state: GameState) -> FastState:
    """A FastState equal to `state` (any phase; a finished game gives phase OVER)."""
    fast = FastState.__new__(FastState)
    players = state.config.players
    fast.players = players
    fast.rotate_after = state.config.variant is Variant.ROTATE_AFTER
    fast.phase = OVER if state.phase is Phase.OVER else _PHASE_CODES[state.phase]
    fast.to_move = -1 if state.to_move is None else state.to_move
    fast.assam = state.assam
    fast.facing = int(state.facing)
    fast.turn = state.turn
    fast.cells = list(state.cells)
    fast.colors = list(state.colors)
    masks = [0, 0, 0, 0]
    for square, color in enumerate(state.colors):
        if color >= 0:
            masks[color] |= BIT[square]
    fast.masks = masks
    fast.rugs_laid = state.rugs_laid
    refresh_rugs(fast)
    fast.dirhams = list(state.dirhams)
    fast.stock = list(state.stock)
    stock = state.stock
    fast.hand = [sum(stock[c] for c in colors) for colors in _SEAT_COLORS[players]]
    fast.alive = [seat not in state.eliminated for seat in range(players)]
    fast.in_hand = sum(hand for hand, alive in zip(fast.hand, fast.alive, strict=True) if alive)
    fast.eliminated = list(state.eliminated)
    fast.piles = None if state.piles is None else [list(reversed(p)) for p in state.piles]
    fast.reason = None if state.outcome is None else state.outcome.reason
    return fast


def new_fast_game(config: GameConfig) -> FastState:
    """The start of a game (R1, R3) as a FastState, like `from_state(new_game(config))`.

    `config` is trusted (e.g. from `deal`); check others with `validate_config` first.
    """
    players = config.players
    fast = FastState.__new__(FastState)
    fast.players = players
    fast.rotate_after = config.variant is Variant.ROTATE_AFTER
    fast.phase = ROLL if fast.rotate_after else ORIENT
    fast.to_move = config.first_player
    fast.assam = CENTER
    fast.facing = Facing.N
    fast.turn = 1
    fast.cells = [0] * SQUARES
    fast.colors = [-1] * SQUARES
    fast.masks = [0, 0, 0, 0]
    fast.intact = 0
    fast.rug_pair = [0]
    fast.rugs_laid = 0
    fast.dirhams = [STARTING_DIRHAMS] * players
    each = rugs_per_color(players)
    owned = {c for colors in _SEAT_COLORS[players] for c in colors}
    fast.stock = [each if c in owned else 0 for c in range(4)]
    fast.hand = [each * len(colors) for colors in _SEAT_COLORS[players]]
    fast.in_hand = sum(fast.hand)
    fast.alive = [True] * players
    fast.eliminated = []
    fast.piles = None
    if config.piles is not None:
        fast.piles = [[c.order for c in reversed(pile)] for pile in config.piles]
    fast.reason = None
    return fast


def playout(
    start: GameState | FastState,
    rng: RandomSource,
    policy: Policy | None = None,
    trace: list[str] | None = None,
) -> PlayoutResult:
    """Play the game from `start` to its end; `start` itself is left unchanged."""
    state = start.copy() if isinstance(start, FastState) else from_state(start)
    actions = run(state, rng, policy, trace)
    return state.result(actions)


def run(
    s: FastState,
    rng: RandomSource,
    policy: Policy | None = None,
    trace: list[str] | None = None,
) -> int:
    """Play `s` to the end IN PLACE and return how many actions were played."""
    if s.phase == OVER:
        return 0
    random = rng.random
    players = s.players
    rotate_after = s.rotate_after
    cells, colors, masks = s.cells, s.colors, s.masks
    dirhams, stock, hand, alive = s.dirhams, s.stock, s.hand, s.alive
    rug_pair = s.rug_pair
    piles = s.piles
    owner = _OWNER[players]
    seat_colors = _SEAT_COLORS[players]
    next_seats = _NEXT_SEATS[players]
    die = DIE_FACES
    placements_at = _PLACEMENTS
    placement_pairs = _PLACEMENT_PAIRS
    legal_cache = _LEGAL_CACHE
    walk_end = WALK_END
    orient_turned = _ORIENT_TURNED
    rotate_turned = _ROTATE_TURNED
    phase = s.phase
    mover = s.to_move
    pose = s.assam * 4 + s.facing
    intact = s.intact
    in_hand = s.in_hand
    rugs_laid = s.rugs_laid
    turn = s.turn
    actions = 0
    reason = ""
    while True:
        if phase == ORIENT:
            if policy is None:
                k = int(random() * 3)
            else:
                s.phase, s.to_move, s.assam, s.facing = phase, mover, pose >> 2, pose & 3
                k = policy(s, ORIENT, ORIENT_OPTIONS)
            pose = orient_turned[pose * 3 + k]
            actions += 1
            if trace is not None:
                trace.append(ORIENT_OPTIONS[k])
            phase = ROLL
        if phase == ROLL:
            face = die[int(random() * 6)]
            pose = walk_end[pose * 5 + face]
            actions += 1
            if trace is not None:
                trace.append(f"D{face}")
            phase = PLACE
            square = pose >> 2
            color = colors[square]
            if color >= 0:
                payee = owner[color]
                if payee != mover and alive[payee]:
                    owed = region_mask(masks[color], square).bit_count()
                    purse = dirhams[mover]
                    if owed <= purse:
                        dirhams[mover] = purse - owed
                        dirhams[payee] += owed
                    else:
                        # R9: pay everything, leave the game, lay no rug this turn.
                        dirhams[payee] += purse
                        dirhams[mover] = 0
                        alive[mover] = False
                        s.eliminated.append(mover)
                        in_hand -= hand[mover]
                        hand[mover] = 0
                        for c in seat_colors[mover]:
                            stock[c] = 0
                        if piles is not None:
                            piles[mover].clear()
                        if alive.count(True) <= 1:
                            reason = REASON_LAST_PLAYER
                            break
                        phase = _TURN_END
        if phase == PLACE:
            square = pose >> 2
            blocked = intact & placement_pairs[square]
            if blocked:
                key = blocked | square
                legal = legal_cache.get(key)
                if legal is None:
                    legal = tuple(p for p in placements_at[square] if not blocked & p[3])
                    if len(legal_cache) < _LEGAL_CACHE_LIMIT:
                        legal_cache[key] = legal
            else:
                legal = placements_at[square]
            if policy is None:
                a, b, pair, pair_bit = legal[int(random() * len(legal))]
            else:
                s.phase, s.to_move, s.assam, s.facing = phase, mover, square, pose & 3
                options = [(p[0], p[1]) for p in legal]
                a, b, pair, pair_bit = legal[policy(s, PLACE, options)]
            color = mover if piles is None else piles[mover].pop()
            rugs_laid += 1
            # The rugs partly covered stop being intact; the new one is.
            old = cells[a]
            if old:
                intact &= ~rug_pair[old]
                masks[colors[a]] &= ~BIT[a]
            old = cells[b]
            if old:
                intact &= ~rug_pair[old]
                masks[colors[b]] &= ~BIT[b]
            intact |= pair_bit
            rug_pair.append(pair_bit)
            masks[color] |= pair
            colors[a] = colors[b] = color
            cells[a] = cells[b] = rugs_laid
            stock[color] -= 1
            hand[mover] -= 1
            in_hand -= 1
            actions += 1
            if trace is not None:
                trace.append(PAIR_NOTATION[a, b])
            if not in_hand:
                reason = REASON_RUGS_EXHAUSTED
                break
            if rotate_after:
                phase = ROTATE
        if phase == ROTATE:
            if policy is None:
                k = int(random() * 2)
            else:
                s.phase, s.to_move, s.assam, s.facing = phase, mover, pose >> 2, pose & 3
                k = policy(s, ROTATE, ROTATE_OPTIONS)
            pose = rotate_turned[pose * 2 + k]
            actions += 1
            if trace is not None:
                trace.append(ROTATE_OPTIONS[k])
        # The next turn (R9, R11): the next seat still in that holds rugs.
        for seat in next_seats[mover]:
            if alive[seat] and hand[seat]:
                mover = seat
                break
        else:
            reason = REASON_RUGS_EXHAUSTED
            break
        turn += 1
        phase = ROLL if rotate_after else ORIENT
    s.phase = OVER
    s.to_move = -1
    s.assam, s.facing = pose >> 2, pose & 3
    s.intact = intact
    s.in_hand = in_hand
    s.rugs_laid = rugs_laid
    s.turn = turn
    s.reason = reason
    return actions


def checked_playout(
    state: GameState, rng: RandomSource, trace: list[str] | None = None
) -> GameState:
    """The reference for `playout`: the same uniform random choices through the checked API.

    Chance takes `DIE_FACES[int(rng.random() * 6)]`; a decision takes
    `legal_actions(state)[int(rng.random() * n)]`. Given equal RNGs, this and `playout` with no
    policy play the same game (tests/engine/test_playout.py checks it).
    """
    while True:
        seat = current_player(state)
        if seat is None:
            return state
        if seat == CHANCE:
            action = f"D{DIE_FACES[int(rng.random() * 6)]}"
        else:
            options = legal_actions(state)
            action = options[int(rng.random() * len(options))]
        state, _ = apply(state, action)
        if trace is not None:
            trace.append(action)


__all__ = [
    "ORIENT",
    "ORIENT_OPTIONS",
    "ORIENT_TURNS",
    "OVER",
    "PLACE",
    "ROLL",
    "ROTATE",
    "ROTATE_OPTIONS",
    "ROTATE_TURNS",
    "FastState",
    "PlayoutResult",
    "Policy",
    "checked_playout",
    "from_state",
    "new_fast_game",
    "playout",
    "refresh_rugs",
    "run",
]
