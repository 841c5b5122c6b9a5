"""A look back at a finished game, from its record alone: `analyse(record) -> GameAnalysis`.

What the analysis holds, all replayed from the record with the checked engine:

- **Chances**: every seat's chance of winning at the start and after every turn
  (`ai.chances.win_chances`, from the AI's leaf estimate), each point summing to 1; the last
  point is the result itself.
- **The turning point**: the turn that moved the chances most (the largest total variation,
  half the sum over the seats of how far each chance moved; the earliest on a tie), which seat
  gained and which lost most, and why. The chances are also taken right after the turn's roll
  (and the toll it led to), so the move splits into the roll's part and the rest's (the rug,
  and in the `rotate-after` variant the turn of Assam after it). The reason given is a
  resignation if there was one; else, when the roll's part is the larger, the toll paid in
  that turn if it went the way the chances did (to the seat that gained most, or from the one
  that lost most; whether it put the payer out, a penniless one's of 0 dirhams too), or the
  toll the mover escaped (it paid nothing where a roll costs `escaped` dirhams on average);
  else the rug laid: the rival region it cut into, or the region of its own it made.
- **Payments**: every toll paid (R8), in the order played; `biggest(n)` ranks them.
- **Dice luck**: for each seat, the sum over its rolls of `ai.luck.roll_luck`: how many points
  better each face rolled was for it than the die's average, on medium's appraisal. It is zero
  on average from any position, so a seat's sum says how kind its dice were.

Pure: standard library, `engine` and `ai` only; the same record always gives the same
analysis. A 4-player game takes a fraction of a second
(`python -m bot.presentation.analysis_bench` times it with its picture).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ai.chances import win_chances
from ai.judge import Facts, rug_facts
from ai.luck import roll_luck
from engine import (
    DieRolled,
    Event,
    GameEnded,
    GameState,
    PlayerEliminated,
    Record,
    RugPlaced,
    TaxPaid,
    TurnStarted,
    apply,
    chance_outcomes,
    new_game,
    replay_events,
    scores,
)


class Cause(enum.Enum):
    """What happened in the turning point's turn."""

    PAYMENT = "payment"
    """A toll was paid (`Swing.payment`; `payment.out` if it put the payer out)."""
    ESCAPE = "escape"
    """The mover rolled `Swing.face` and paid nothing, where a roll costs `Swing.escaped`
    dirhams on average."""
    RESIGNATION = "resignation"
    """A seat resigned (`Swing.resigned`)."""
    RUG = "rug"
    """No toll that tells: the rug laid (`Swing.rug`), the rival region it cut into if any
    (`Swing.cut_owner`, `Swing.cut_region`) and the region of its colour it lies in
    (`Swing.grown`)."""
    NONE = "none"
    """Nothing the analysis can name (a turn with neither payment nor rug)."""


@dataclass(frozen=True, slots=True)
class Point:
    """The chances at the start of the game (`turn` 0, `seat` None) or after a turn."""

    turn: int
    seat: int | None
    """The seat that played the turn."""
    chances: tuple[float, ...]
    """Each seat's chance of winning, in seat order; they sum to 1."""


@dataclass(frozen=True, slots=True)
class Payment:
    """A toll paid in turn `turn`: `paid` of the `owed` dirhams; `out` if it put `payer` out."""

    turn: int
    payer: int
    payee: int
    paid: int
    owed: int
    out: bool


@dataclass(frozen=True, slots=True)
class Swing:
    """The turning point: turn `turn`, played by `seat`, moved the chances from `before` to
    `after`; `gainer` gained most and `loser` lost most. `cause` says which of the other fields
    tells why."""

    turn: int
    seat: int
    before: tuple[float, ...]
    after: tuple[float, ...]
    gainer: int
    loser: int
    cause: Cause
    payment: Payment | None = None
    resigned: int | None = None
    rug: tuple[int, int] | None = None
    """The squares of the rug laid."""
    covered: int = 0
    """Squares of rivals still in that the rug covered."""
    cut_owner: int | None = None
    """The rival whose largest region the rug covered squares of (None: it covered none)."""
    cut_region: int = 0
    """That region's size before the rug."""
    grown: int = 0
    """The size, after the rug, of the region of its colour that it lies in."""
    face: int | None = None
    """The face the mover rolled."""
    escaped: float = 0.0
    """The toll the mover's roll cost on average over the die's faces (from where it rolled)."""
    rolled: tuple[float, ...] | None = None
    """The chances right after the roll and its toll, before the rug."""

    @property
    def moved(self) -> float:
        """How far the chances moved: half the sum of each seat's change (0 to 1)."""
        return _moved(self.before, self.after)


@dataclass(frozen=True, slots=True)
class Luck:
    """The luck of one seat's dice: `rolls` rolls, `total` points above the die's average in
    all (negative: below)."""

    seat: int
    rolls: int
    total: float


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """The analysis of a finished game (see the module)."""

    players: int
    points: tuple[Point, ...]
    swing: Swing | None
    """None when no turn moved the chances (a game with no turn played)."""
    payments: tuple[Payment, ...]
    luck: tuple[Luck, ...]
    totals: tuple[int, ...]
    """The final scores, in seat order."""
    ranking: tuple[tuple[int, ...], ...]
    out: tuple[bool, ...]
    """Whether each seat went out (R9, or resigned)."""

    def places(self) -> tuple[int, ...]:
        """Each seat's final place, in seat order (seats sharing a place share its number)."""
        place: dict[int, int] = {}
        for group in self.ranking:
            first = len(place) + 1
            place.update((seat, first) for seat in group)
        return tuple(place[seat] for seat in range(self.players))

    def point_of(self, turn: int) -> int:
        """The index in `points` of the point after turn `turn`."""
        return next(i for i, point in enumerate(self.points) if i and point.turn == turn)

    def biggest(self, count: int) -> tuple[Payment, ...]:
        """The `count` biggest payments, biggest first (the earlier first on a tie)."""
        ranked = sorted(self.payments, key=lambda payment: (-payment.paid, payment.turn))
        return tuple(ranked[:count])


@dataclass
class _Turn:
    """A turn being read: its number, its mover, its events and what its rug did."""

    number: int
    seat: int
    events: list[Event]
    rug: Facts | None = None
    face: int | None = None
    escaped: float = 0.0
    rolled: tuple[float, ...] | None = None


def analyse(record: Record) -> GameAnalysis:
    """The analysis of the finished game in `record` (ValueError if it is not over; the
    engine's ReplayError if the record does not replay)."""
    state = new_game(record.config)
    players = state.players
    points = [Point(0, None, win_chances(state))]
    turns: list[_Turn] = []
    current = _Turn(state.turn, _mover(state), [])
    luck = [0.0] * players
    rolls = [0] * players
    for after, events in replay_events(record):
        for event in events:
            if isinstance(event, DieRolled):
                luck[event.seat] += roll_luck(state, event.face)
                rolls[event.seat] += 1
                current.face = event.face
                current.escaped = _expected_toll(state)
                current.rolled = win_chances(after)
            elif isinstance(event, RugPlaced):
                current.rug = rug_facts(state, event.seat, event.squares)
            if isinstance(event, TurnStarted | GameEnded):
                turns.append(current)
                points.append(Point(current.number, current.seat, win_chances(after)))
                if isinstance(event, TurnStarted):
                    current = _Turn(event.turn, event.seat, [])
            else:
                current.events.append(event)
        state = after
    if state.outcome is None:
        raise ValueError("the game is not over")
    payments = tuple(payment for turn in turns for payment in _payments(turn.number, turn.events))
    return GameAnalysis(
        players=players,
        points=tuple(points),
        swing=_swing(points, turns),
        payments=payments,
        luck=tuple(Luck(seat, rolls[seat], luck[seat]) for seat in range(players)),
        totals=tuple(score.total for score in scores(state)),
        ranking=state.outcome.ranking,
        out=tuple(state.is_eliminated(seat) for seat in range(players)),
    )


def _mover(state: GameState) -> int:
    if state.to_move is None:
        raise ValueError("the record has no turn to play")
    return state.to_move


def _expected_toll(state: GameState) -> float:
    """What the seat about to roll owes on average over the die's faces (R5, R8)."""
    expected = 0.0
    for action, odds in chance_outcomes(state):
        _, events = apply(state, action)
        expected += odds * sum(e.owed for e in events if isinstance(e, TaxPaid))
    return expected


def _payments(turn: int, events: Sequence[Event]) -> list[Payment]:
    """The tolls of the turn that moved dirhams (see `_tolls`)."""
    return [payment for payment in _tolls(turn, events) if payment.paid > 0]


def _tolls(turn: int, events: Sequence[Event]) -> list[Payment]:
    """Every toll due in the turn, a penniless payer's included (it pays 0 and is out, R9);
    `out` where the toll put its payer out: a seat that paid in full and then resigned in the
    same turn went out by its own choice, not for its toll."""
    out = {e.seat for e in events if isinstance(e, PlayerEliminated) and not e.resigned}
    return [
        Payment(turn, event.payer, event.payee, event.paid, event.owed, event.payer in out)
        for event in events
        if isinstance(event, TaxPaid)
    ]


def _swing(points: Sequence[Point], turns: Sequence[_Turn]) -> Swing | None:
    """The turn that moved the chances most (see the module)."""
    best: Swing | None = None
    for turn, before, after in zip(turns, points[:-1], points[1:], strict=True):
        changes = [a - b for a, b in zip(after.chances, before.chances, strict=True)]
        gainer = max(range(len(changes)), key=lambda seat: (changes[seat], -seat))
        loser = min(range(len(changes)), key=lambda seat: (changes[seat], seat))
        swing = _why(turn, before.chances, after.chances, gainer, loser)
        if swing.moved > 0 and (best is None or swing.moved > best.moved):
            best = swing
    return best


def _why(
    turn: _Turn,
    before: tuple[float, ...],
    after: tuple[float, ...],
    gainer: int,
    loser: int,
) -> Swing:
    """The swing of `turn`, with its cause read from its events."""
    base = Swing(
        turn.number,
        turn.seat,
        before,
        after,
        gainer,
        loser,
        Cause.NONE,
        face=turn.face,
        escaped=turn.escaped,
        rolled=turn.rolled,
    )
    resigned = [e.seat for e in turn.events if isinstance(e, PlayerEliminated) and e.resigned]
    if resigned:
        return replace(base, cause=Cause.RESIGNATION, resigned=resigned[0])
    if turn.rolled is None or _moved(before, turn.rolled) >= _moved(turn.rolled, after):
        paid = [
            p for p in _tolls(turn.number, turn.events) if p.payee == gainer or p.payer == loser
        ]
        if paid:
            return replace(base, cause=Cause.PAYMENT, payment=max(paid, key=lambda p: p.paid))
        mover_paid = any(isinstance(e, TaxPaid) and e.payer == turn.seat for e in turn.events)
        if turn.face is not None and not mover_paid and turn.escaped >= ESCAPED_TOLL:
            return replace(base, cause=Cause.ESCAPE)
    rugs = [event for event in turn.events if isinstance(event, RugPlaced)]
    if rugs and turn.rug is not None:
        laid = turn.rug
        return replace(
            base,
            cause=Cause.RUG,
            rug=rugs[-1].squares,
            covered=laid.covered,
            cut_owner=laid.cut_owner,
            cut_region=laid.cut_region,
            grown=laid.grown,
        )
    return base


ESCAPED_TOLL = 1.0
"""The average toll (dirhams) a roll must have risked for escaping it to be the reason given."""


def _moved(before: Sequence[float], after: Sequence[float]) -> float:
    """Half the sum of how far each chance moved."""
    return sum(abs(a - b) for a, b in zip(after, before, strict=True)) / 2
