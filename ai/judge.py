"""The coach's judge: how much winning chance each decision of a game gave away.

A person decides three things in Marrakech: which way to turn Assam before the roll (R4),
which rug to lay after it (R10) and, in the `rotate-after` variant, which way to turn Assam
after the rug (R12). For each such decision the judge values every legal option as the
seat's chance of winning after it, an expectation over all the seat did not choose: the die
(exactly, 1, 2, 2, 3, 3, 4), the next mover's reply, and in 2 players the rival's hidden pile.
The loss of the option taken is the best option's chance less its own, in win-chance points
(0-100): the choice is judged, not the roll. A turn of Assam is judged before the die; a rug
after the die's result is known, from where Assam stands.

The values come from the strongest level's search (`search_chances`, today hard's expectimax
of `ai.hard`: every die face, the seat's rugs best first, the next mover's turn as medium
plays it) with its leaves read as the seat's chance of winning (`ai.chances.win_chances`:
`ai.win_chance` in 2 players, the field model in 3 and 4). The search works on what the seat
could see (`ai.hard.public_view`): the AI never reads a hidden pile. With a work budget alone
the search is deterministic, so the same record always gives the same judgement.

Bands (`band_of`): a loss of at least 5 points is an inaccuracy, 10 a mistake, 15 a blunder
in 2 players (lichess's bands); with n players each threshold is scaled by the spread of a
seat's result at its fair chance p = 1/n against 2 players, 2 * sqrt(p * (1 - p))
(`fair_spread`): 4.7/9.4/14.1 points in 3 players, 4.3/8.7/13.0 in 4. A seat's accuracy in a
game (`game_accuracy`) is the share of what its decisions had at stake that its choices kept:
the sum over its decisions of the option taken's chance less the worst option's, over the sum
of the best option's less the worst's (100 when nothing was at stake). A decision where every
option leaves the same chance (a decided game) weighs nothing, and one with much at stake
weighs much: choosing at random keeps about half, as the worst and the best of a decision lie
on either side of its average. docs/coach.md explains the choices.

Everything here is a pure function of plain data and every result is a frozen dataclass of
numbers, strings and tuples, so the bot's worker processes can compute and pickle them.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass

from ai.budget import Budget
from ai.chances import win_chances
from ai.hard import option_values, public_view
from ai.player import check_decision_node
from ai.tactics import LANDINGS, ORIENT_TURNS, ROTATE_TURNS, expected_toll, payees, toll
from engine.dealing import new_game
from engine.errors import FormatError
from engine.model import Phase, owner_of
from engine.playout import from_state
from engine.record import Record, replay_events
from engine.rules import (
    DIE_FACES,
    ORIENT_ACTIONS,
    ROTATE_ACTIONS,
    apply,
    parse_placement,
    placement_notation,
    region,
)
from engine.state import GameState

JUDGE_WORK = 24
"""Search budget of one decision, in simulated turns of the next mover: at a choice of
facing, the best two rugs of every die face (3 facings x 4 faces); a rug choice always
searches every legal rug, however many (see `search_chances`)."""

BANDS_2P = (5.0, 10.0, 15.0)
"""Inaccuracy, mistake and blunder thresholds in 2 players, in win-chance points."""
DRILL_FLOOR_2P = 2.0
"""The least a decision must give away, in 2 players, to be drilled (`drill_floor`)."""


class Kind(enum.StrEnum):
    """What a decision chose."""

    ORIENT = "orient"
    """Which way to turn Assam before the roll (standard rules, R4): `L`, `S` or `R`."""
    RUG = "rug"
    """Which rug to lay (R10): a placement such as `c4c5`."""
    ROTATE = "rotate"
    """Which way to turn Assam after the rug (`rotate-after`, R12): `L` or `R`."""


class Band(enum.StrEnum):
    """How costly a decision was (see `band_of`)."""

    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


@dataclass(frozen=True, slots=True)
class Facts:
    """What an option does, in numbers, for a factual line of why (never prose).

    Orient options fill `toll`, `worst_toll` and `out_chance`; rug options `squares`, `covered`,
    `cut_owner`, `cut_region` and `grown`; rotate options `income`. The rest stay 0 / None.
    """

    toll: float = 0.0
    """The toll (dirhams) the seat owes on average over the die on the roll this facing
    leads to (R8)."""
    worst_toll: int = 0
    """The largest toll one face of the die would cost it from this facing."""
    out_chance: float = 0.0
    """The chance that the roll from this facing puts the seat out: a toll beyond its
    dirhams (R9)."""
    squares: tuple[int, int] | None = None
    """The rug's two squares (0-48, row * 7 + column)."""
    covered: int = 0
    """Squares of rivals still in that the rug covers."""
    cut_owner: int | None = None
    """The rival whose largest region the rug cuts into (None: it covers none)."""
    cut_region: int = 0
    """That region's size before the rug."""
    grown: int = 0
    """The size, after the rug, of the seat's region the rug lies in."""
    income: float = 0.0
    """The toll the next mover owes the seat on average over the die, rolling in the facing
    this turn of Assam leaves (R12)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One legal option of a decision and the seat's chance of winning after it (0-1)."""

    action: str
    chance: float
    facts: Facts


@dataclass(frozen=True, slots=True)
class Judgement:
    """One decision judged: `taken` against the `best` option, in win-chance points."""

    index: int
    """The index of the action in the record's `actions` (the board before it is
    `state_before(record, index)`); 0 for a live decision outside a record."""
    turn: int
    """The game's turn number (`GameState.turn`) the decision belongs to."""
    seat: int
    kind: Kind
    taken: str
    best: str
    taken_chance: float
    """The seat's chance of winning after the option taken (0-1)."""
    best_chance: float
    """After the best option (0-1)."""
    loss: float
    """`best_chance - taken_chance` in points (0-100); never negative, 0 for the best."""
    band: Band
    accuracy: float
    """This decision's accuracy: the share (0-100) of its stake the option taken kept
    (`decision_accuracy`)."""
    options: tuple[Option, ...]
    """Every legal option, best first (ties in the search's order: medium's ranking)."""

    @property
    def worst_chance(self) -> float:
        """The seat's chance after its worst option (0-1)."""
        return min(option.chance for option in self.options)

    @property
    def stake(self) -> float:
        """What the decision had at stake, in points: the best option's chance less the
        worst's (0 when every option leaves the same chance)."""
        return _points(self.best_chance - self.worst_chance)

    @property
    def kept(self) -> float:
        """What the option taken kept of the stake, in points: its chance less the worst's."""
        return _points(self.taken_chance - self.worst_chance)

    @property
    def forced(self) -> bool:
        """Whether there was only one legal option (never counted against the seat)."""
        return len(self.options) == 1

    def option(self, action: str) -> Option:
        """The option of `action` (KeyError if it is not one)."""
        for option in self.options:
            if option.action == action:
                return option
        raise KeyError(action)

    def loss_of(self, action: str) -> float:
        """What option `action` gives away against the best, in points (a drill's second
        try is good when this is below `drill_floor(players)`, so that the option drilled,
        which gave away at least the floor, never is)."""
        return _points(self.best_chance - self.option(action).chance)


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """One seat's game: its accuracy and its count of costly decisions."""

    seat: int
    decisions: int
    """Decisions judged that had a choice (forced ones are left out)."""
    accuracy: float
    """The share of what those decisions had at stake that the seat's choices kept (0-100;
    100 when nothing was at stake, `game_accuracy`)."""
    inaccuracies: int
    mistakes: int
    blunders: int


@dataclass(frozen=True, slots=True)
class GameJudgement:
    """Every judged decision of a game, in order, and each judged seat's summary."""

    players: int
    decisions: tuple[Judgement, ...]
    seats: tuple[SeatSummary, ...]
    """One per judged seat, in seat order."""

    def of_seat(self, seat: int) -> tuple[Judgement, ...]:
        """The seat's decisions, in order."""
        return tuple(judgement for judgement in self.decisions if judgement.seat == seat)

    def summary(self, seat: int) -> SeatSummary:
        """The seat's summary (KeyError if the seat was not judged)."""
        for summary in self.seats:
            if summary.seat == seat:
                return summary
        raise KeyError(seat)

    def costliest(
        self, seat: int, count: int = 3, among: Container[int] | None = None
    ) -> tuple[Judgement, ...]:
        """The seat's `count` costliest decisions that gave away at least `drill_floor`
        points, costliest first (the earlier first on a tie): what Learn from your mistakes
        teaches. Not only the inaccuracies and worse: a game is often lost a few points at a
        time, each under the inaccuracy threshold, and its worst such decisions are the
        lesson. `among`: only the decisions of these action indices (one person's, in a seat
        that changed hands)."""
        floor = drill_floor(self.players)
        lost = [
            j for j in self.of_seat(seat) if j.loss >= floor and (among is None or j.index in among)
        ]
        lost.sort(key=lambda judgement: (-judgement.loss, judgement.index))
        return tuple(lost[:count])


# -- bands and accuracy ------------------------------------------------------------------


def fair_spread(players: int) -> float:
    """The standard deviation of a seat's result (won or not) at its fair chance 1/n, over
    that of 2 players (1/2): 1 in 2 players, 0.943 in 3, 0.866 in 4 (docs/coach.md)."""
    fair = 1.0 / players
    return 2.0 * math.sqrt(fair * (1.0 - fair))


def drill_floor(players: int) -> float:
    """The least a decision must give away, in win-chance points, to be drilled: 2 points in 2
    players, scaled like the bands (`fair_spread`)."""
    return DRILL_FLOOR_2P * fair_spread(players)


def thresholds(players: int) -> tuple[float, float, float]:
    """The inaccuracy, mistake and blunder thresholds in win-chance points."""
    factor = fair_spread(players)
    inaccuracy, mistake, blunder = BANDS_2P
    return (inaccuracy * factor, mistake * factor, blunder * factor)


def band_of(loss: float, players: int) -> Band:
    """The band of a loss of `loss` points in a game of `players`."""
    inaccuracy, mistake, blunder = thresholds(players)
    if loss >= blunder:
        return Band.BLUNDER
    if loss >= mistake:
        return Band.MISTAKE
    if loss >= inaccuracy:
        return Band.INACCURACY
    return Band.GOOD


def decision_accuracy(taken: float, best: float, worst: float) -> float:
    """The share (0-100) of a decision's stake, from its `worst` option's chance to its `best`
    one's, that the option `taken` kept; 100 when nothing was at stake."""
    stake = best - worst
    if stake <= 0.0:
        return 100.0
    return max(0.0, min(100.0, 100.0 * (taken - worst) / stake))


def game_accuracy(judgements: Iterable[Judgement]) -> float:
    """The share (0-100) of what the decisions that had a choice had at stake that the
    choices kept: each decision weighs what it had at stake, so one where nothing could change
    the result counts for nothing (100 when nothing was at stake)."""
    chosen = [judgement for judgement in judgements if not judgement.forced]
    stake = sum(judgement.stake for judgement in chosen)
    if stake <= 0.0:
        return 100.0
    return 100.0 * sum(judgement.kept for judgement in chosen) / stake


def _points(chance: float) -> float:
    """A difference of chances (0-1) in points (0-100), rounded off float noise."""
    return round(max(0.0, chance) * 100.0, 9)


def summarise(seat: int, judgements: Sequence[Judgement]) -> SeatSummary:
    """The summary of `seat` over its `judgements`."""
    chosen = [judgement for judgement in judgements if not judgement.forced]
    bands = [judgement.band for judgement in chosen]
    return SeatSummary(
        seat=seat,
        decisions=len(chosen),
        accuracy=game_accuracy(chosen),
        inaccuracies=bands.count(Band.INACCURACY),
        mistakes=bands.count(Band.MISTAKE),
        blunders=bands.count(Band.BLUNDER),
    )


# -- the search ------------------------------------------------------------------------


def _chance_leaf(state: GameState, seat: int) -> float:
    """A line's end valued as the seat's chance of winning from there (0-1)."""
    return win_chances(state)[seat]


def search_chances(state: GameState, work: int = JUDGE_WORK) -> tuple[tuple[str, float], ...]:
    """Every option of the seat to move at `state` with its expected chance of winning
    (0-1), in the search's order: the adapter to the strongest level's search.

    Hard's search (`ai.hard.option_values`) on the seat's public view, with its leaves valued
    by `ai.chances.win_chances`: at a choice of facing, every facing's expectation over the die
    of the best searched rug for each face (`work` rival turns in all, at least one rug per
    face); at a rug choice every legal rug; at a turn after the rug both. Raises
    NotADecisionError where no seat decides.
    """
    seat = check_decision_node(state)
    view = public_view(state, seat)
    if view.phase in (Phase.PLACE, Phase.ROTATE):
        return option_values(state, leaf=_chance_leaf)
    # A facing is chosen only in the standard rules (R12 turns Assam after the rug instead).
    least = len(ORIENT_ACTIONS) * len(set(DIE_FACES))  # one rug at every landing
    return option_values(state, leaf=_chance_leaf, budget=Budget(work=max(work, least)))


# -- judging ---------------------------------------------------------------------------


def judge_options(state: GameState, work: int = JUDGE_WORK) -> tuple[Option, ...]:
    """Every legal option of the seat to move, with its chance and facts, best first (ties
    keep the search's order). Raises NotADecisionError where no seat decides."""
    valued = search_chances(state, work)
    ranked = sorted(range(len(valued)), key=lambda i: -valued[i][1])
    return tuple(Option(valued[i][0], valued[i][1], facts_of(state, valued[i][0])) for i in ranked)


def best_option(state: GameState, work: int = JUDGE_WORK) -> Option:
    """The option the coach prefers for the seat to move (the Hint)."""
    return judge_options(state, work)[0]


def judge_decision(
    state: GameState, action: str, work: int = JUDGE_WORK, index: int = 0
) -> Judgement:
    """The judgement of the seat to move at `state` choosing `action` (a verdict in a
    coached game). Raises NotADecisionError where no seat decides, ValueError if `action` is
    not one of its legal options."""
    return judgement_from(state, action, judge_options(state, work), index)


def _canonical(state: GameState, action: str) -> str:
    """The notation the search uses for `action` (a rug's squares in either order)."""
    if state.phase is Phase.PLACE:
        try:
            first, second = parse_placement(action)
        except FormatError:
            return action
        return placement_notation(first, second)
    return action


def judgement_from(
    state: GameState, action: str, options: Sequence[Option], index: int = 0
) -> Judgement:
    """The judgement of the seat to move at `state` choosing `action`, among `options` as
    `judge_options(state)` gave them: a Hint's options serve again for the verdict after the
    click, with no second search. Raises ValueError if `action` is not among them."""
    seat = check_decision_node(state)
    taken = _canonical(state, action)
    chosen = next((option for option in options if option.action == taken), None)
    if chosen is None:
        raise ValueError(f"{taken!r} is not a legal option here")
    best = options[0]
    loss = _points(best.chance - chosen.chance)  # 0.5 - 0.4: 10 points
    worst = min(option.chance for option in options)
    players = state.players
    return Judgement(
        index=index,
        turn=state.turn,
        seat=seat,
        kind=_kind(state),
        taken=taken,
        best=best.action if loss > 0 else taken,
        taken_chance=chosen.chance,
        best_chance=best.chance,
        loss=loss,
        band=band_of(loss, players),
        accuracy=decision_accuracy(chosen.chance, best.chance, worst),
        options=tuple(options),
    )


def _kind(state: GameState) -> Kind:
    if state.phase is Phase.PLACE:
        return Kind.RUG
    if state.phase is Phase.ROTATE:
        return Kind.ROTATE
    return Kind.ORIENT


def decisions(record: Record) -> Iterable[tuple[int, GameState, str]]:
    """(index in `actions`, state before, action) for every decision a seat made in the
    record: each turn of Assam and each rug (die rolls and resignations are not decisions).
    Raises the engine's ReplayError if the record does not replay."""
    state = new_game(record.config)
    for after, _ in replay_events(record):
        if len(after.history) > len(state.history):  # an action, not a resignation
            index = len(state.history)
            if state.phase in (Phase.ORIENT, Phase.PLACE, Phase.ROTATE):
                yield index, state, record.actions[index]
        state = after


def state_before(record: Record, index: int) -> GameState:
    """The state just before action `index` of the record (the board a drill shows),
    with the resignations due before it. Raises IndexError past the last action."""
    if not 0 <= index < len(record.actions):
        raise IndexError(index)
    state = new_game(record.config)
    for after, _ in replay_events(record):
        if len(after.history) > index:
            return state
        state = after
    return state


def judge_game(
    record: Record, seats: Iterable[int] | None = None, work: int = JUDGE_WORK
) -> GameJudgement:
    """Every decision of the record's `seats` (default: all) judged, with each seat's
    summary. Deterministic: the same record always gives the same judgement."""
    wanted = set(range(record.players) if seats is None else seats)
    judged = []
    for index, state, action in decisions(record):
        seat = state.to_move
        if seat is None or seat not in wanted:
            continue
        judged.append(judgement_from(state, action, judge_options(state, work), index))
    summaries = tuple(
        summarise(seat, [judgement for judgement in judged if judgement.seat == seat])
        for seat in sorted(wanted)
    )
    return GameJudgement(record.players, tuple(judged), summaries)


# -- facts -----------------------------------------------------------------------------


def facts_of(state: GameState, action: str) -> Facts:
    """The numbers behind option `action` of the seat to move at `state` (see `Facts`)."""
    seat = state.to_move
    assert seat is not None
    s = from_state(state)
    payee_of = payees(s)
    if state.phase is Phase.ORIENT:
        turn = ORIENT_TURNS[ORIENT_ACTIONS.index(action)]
        pose = s.assam * 4 + ((s.facing + turn) & 3)
        owed = [
            (toll(s, payee_of, seat, landing >> 2)[1], odds) for landing, odds in LANDINGS[pose]
        ]
        return Facts(
            toll=expected_toll(s, payee_of, seat, pose),
            worst_toll=max(amount for amount, _ in owed),
            out_chance=sum(odds for amount, odds in owed if amount > state.dirhams[seat]),
        )
    if state.phase is Phase.ROTATE:
        after, _ = apply(state, action)
        mover = after.to_move
        turn = ROTATE_TURNS[ROTATE_ACTIONS.index(action)]
        pose = s.assam * 4 + ((s.facing + turn) & 3)
        income = 0.0
        if mover is not None and mover != seat:
            for landing, odds in LANDINGS[pose]:
                payee, amount = toll(s, payee_of, mover, landing >> 2)
                if payee == seat:
                    income += odds * amount
        return Facts(income=income)
    squares = parse_placement(action)
    return rug_facts(state, seat, squares)


def rug_facts(state: GameState, seat: int, squares: tuple[int, int]) -> Facts:
    """What `seat` laying its rug on `squares` at `state` does: the rival squares it covers
    (rugs of seats out of the game are neutral, R9), the largest rival region it cuts into
    and the size of its own region after (`Facts`). The analysis of a game tells the same
    of the rug of its turning point."""
    covered = 0
    cut_owner, cut_region = None, 0
    for square in squares:
        color = state.colors[square]
        if color < 0:
            continue
        owner = owner_of(state.players, color)
        if owner == seat or owner >= state.players or state.is_eliminated(owner):
            continue
        covered += 1
        size = len(region(state.colors, square))
        if size > cut_region:
            cut_owner, cut_region = owner, size
    after, _ = apply(state, placement_notation(*squares))
    grown = len(region(after.colors, squares[0]))
    return Facts(
        squares=squares, covered=covered, cut_owner=cut_owner, cut_region=cut_region, grown=grown
    )
