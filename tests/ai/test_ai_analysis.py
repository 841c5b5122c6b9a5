"""The analysis of a finished game, on the golden game records (tests/engine/golden) and a
game of random moves whose turning point is a toll escaped: chances that sum to 1 after every
turn, the turn that moved them most and why, the payments and the luck of each seat's dice,
checked against the engine's own events and facts worked out by hand.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from ai.analysis import (
    ESCAPED_TOLL,
    Cause,
    GameAnalysis,
    Payment,
    Point,
    _expected_toll,
    _swing,
    _Turn,
    analyse,
)
from ai.chances import win_chances
from ai.luck import face_values, roll_luck
from engine import (
    Color,
    DieRolled,
    GameEnded,
    GameState,
    PlayerEliminated,
    Record,
    RugPlaced,
    TaxPaid,
    TurnStarted,
    Variant,
    apply,
    new_game,
    parse_square,
    record_from_json,
    replay_events,
    replay_record,
    square_name,
)
from tests.engine.golden.generate import GOLDEN

FOLDER = Path(__file__).resolve().parents[1] / "engine" / "golden"
NAMES = sorted(GOLDEN)


@cache
def record(name: str) -> Record:
    return record_from_json(json.loads((FOLDER / f"{name}.json").read_text()))


@cache
def analysis(name: str) -> GameAnalysis:
    return analyse(record(name))


def turns_of(name: str) -> list[tuple[int, int, list[object], GameState]]:
    """Each turn of a golden game read straight from the engine: (number, mover, its events,
    the state it ended in)."""
    state = new_game(record(name).config)
    assert state.to_move is not None
    number, mover = state.turn, state.to_move
    events: list[object] = []
    found = []
    for after, step in replay_events(record(name)):
        for event in step:
            if isinstance(event, TurnStarted | GameEnded):
                found.append((number, mover, events, after))
                if isinstance(event, TurnStarted):
                    number, mover, events = event.turn, event.seat, []
            else:
                events.append(event)
    return found


@pytest.mark.parametrize("name", NAMES)
def test_every_point_is_a_chance_for_each_seat_summing_to_one(name: str) -> None:
    found = analysis(name)
    turns = turns_of(name)
    assert len(found.points) == len(turns) + 1, "the start, then one point per turn"
    assert (found.points[0].turn, found.points[0].seat) == (0, None)
    assert [(p.turn, p.seat) for p in found.points[1:]] == [(t[0], t[1]) for t in turns]
    for point in found.points:
        assert len(point.chances) == found.players
        assert all(0.0 <= chance <= 1.0 for chance in point.chances)
        assert sum(point.chances) == pytest.approx(1.0, abs=1e-9)
    for point, (_, _, _, state) in zip(found.points[1:], turns, strict=True):
        for seat in state.eliminated:
            assert point.chances[seat] == 0.0, "a seat that is out cannot win"


@pytest.mark.parametrize("name", NAMES)
def test_the_last_point_is_the_result(name: str) -> None:
    found = analysis(name)
    winners = found.ranking[0]
    assert found.points[-1].chances == tuple(
        1.0 / len(winners) if seat in winners else 0.0 for seat in range(found.players)
    )
    assert found.places()[winners[0]] == 1


def test_seats_sharing_a_place_share_its_number_and_the_next_counts_every_seat_ahead() -> None:
    """Each seat's final place, in seat order: two seats sharing first are both 1, and the
    seat after them is 3, as two seats finished ahead of it."""

    def ranked(ranking: tuple[tuple[int, ...], ...]) -> GameAnalysis:
        players = sum(len(group) for group in ranking)
        return GameAnalysis(
            players=players,
            points=(),
            swing=None,
            payments=(),
            luck=(),
            totals=(0,) * players,
            ranking=ranking,
            out=(False,) * players,
        )

    assert ranked(((2, 0), (1,), (3,))).places() == (1, 3, 1, 4)
    assert ranked(((1,), (0, 2), (3,))).places() == (2, 1, 2, 4)
    assert ranked(((0,), (1,), (2,))).places() == (1, 2, 3)


@pytest.mark.parametrize("name", [n for n in NAMES if not n.startswith("2p")])
def test_three_or_four_seats_start_even(name: str) -> None:
    """Nothing on the board and as many rugs each: every seat's estimate is the same."""
    start = analysis(name).points[0].chances
    assert start == pytest.approx([1.0 / len(start)] * len(start))


@pytest.mark.parametrize("name", NAMES)
def test_the_turning_point_is_the_turn_that_moved_the_chances_most(name: str) -> None:
    found = analysis(name)
    swing = found.swing
    assert swing is not None
    moves = [
        sum(abs(a - b) for a, b in zip(after.chances, before.chances, strict=True)) / 2
        for before, after in zip(found.points, found.points[1:], strict=False)
    ]
    biggest = max(moves)
    first = moves.index(biggest)
    assert swing.turn == found.points[first + 1].turn
    assert found.point_of(swing.turn) == first + 1
    assert swing.moved == pytest.approx(biggest)
    assert swing.before == found.points[first].chances
    assert swing.after == found.points[first + 1].chances
    changes = [a - b for a, b in zip(swing.after, swing.before, strict=True)]
    assert changes[swing.gainer] == max(changes)
    assert changes[swing.loser] == min(changes)

    number, mover, events, _ = turns_of(name)[first]
    assert (swing.turn, swing.seat) == (number, mover)
    assert swing.rolled is not None
    assert sum(swing.rolled) == pytest.approx(1.0)
    roll_part = sum(abs(a - b) for a, b in zip(swing.rolled, swing.before, strict=True))
    rest_part = sum(abs(a - b) for a, b in zip(swing.after, swing.rolled, strict=True))
    taxes = [e for e in events if isinstance(e, TaxPaid) and e.paid > 0]
    telling = [t for t in taxes if t.payee == swing.gainer or t.payer == swing.loser]
    if swing.cause is Cause.PAYMENT:
        assert roll_part >= rest_part
        assert swing.payment is not None
        (tax,) = telling
        assert (swing.payment.payer, swing.payment.payee, swing.payment.paid) == (
            tax.payer,
            tax.payee,
            tax.paid,
        )
    elif swing.cause is Cause.ESCAPE:
        assert roll_part >= rest_part
        assert not any(t.payer == mover for t in taxes)
        assert swing.escaped >= 1.0
    else:
        assert swing.cause is Cause.RUG
        assert rest_part > roll_part or not telling, "a telling toll is the reason when it can be"
        (rug,) = [e for e in events if isinstance(e, RugPlaced)]
        assert swing.rug == rug.squares
        assert swing.grown >= 2


@pytest.mark.parametrize("name", NAMES)
def test_the_roll_s_part_of_the_turning_point_ends_right_after_the_roll_and_its_toll(
    name: str,
) -> None:
    """The chances the turning point's move splits at are every seat's chance in the state
    right after that turn's die roll and the toll it brought, read from the engine."""
    swing = analysis(name).swing
    assert swing is not None
    state = new_game(record(name).config)
    rolled = []
    for after, events in replay_events(record(name)):
        if state.turn == swing.turn and any(isinstance(e, DieRolled) for e in events):
            rolled.append(win_chances(after))
        state = after
    assert [swing.rolled] == rolled


def test_the_golden_turning_points() -> None:
    """What the analysis says of three golden games (read from their events by hand): in the
    3-player game, turn 30's toll of 10 dirhams from seat 1 to seat 0 put seat 0 far ahead; in
    the 4-player games, a rug that cut into a rival's region did (seat 1's on b3-b4 over seat
    0's 7 squares; seat 0's on f4-f5 over seat 1's 4 squares, making a red region of 6)."""
    three = analysis("3p-elimination").swing
    assert three is not None
    assert (three.turn, three.cause, three.gainer, three.loser) == (30, Cause.PAYMENT, 0, 1)
    assert three.payment == Payment(30, 1, 0, 10, 10, out=False)
    four = analysis("4p-standard").swing
    assert four is not None
    assert (four.turn, four.seat, four.cause) == (27, 1, Cause.RUG)
    assert four.rug == (parse_square("b3"), parse_square("b4"))
    assert (four.cut_owner, four.cut_region) == (0, 7)
    variant = analysis("4p-rotate-after-elimination").swing
    assert variant is not None
    assert (variant.turn, variant.seat, variant.cause, variant.covered) == (21, 0, Cause.RUG, 1)
    assert (variant.cut_owner, variant.cut_region, variant.grown) == (1, 4, 6)


def test_the_toll_a_roll_risks_by_hand() -> None:
    """Before the 2-player golden game's last roll (seat 0 on d1 facing west): a 2, a 3 or a 4
    stops in the 9-square brown region, a 1 on c1; so a roll owes 9 five times in six."""
    state = replay_record(_one_step_record("2p-last-player-standing", 127))
    after_one, events = apply(state, "D1")
    on_c1 = sum(e.owed for e in events if isinstance(e, TaxPaid))
    assert square_name(after_one.assam) == "c1"
    assert _expected_toll(state) == pytest.approx(9 * 5 / 6 + on_c1 / 6)


@pytest.mark.parametrize("name", NAMES)
def test_the_payments_are_the_tolls_paid_and_move_every_dirham(name: str) -> None:
    found = analysis(name)
    expected = [
        (number, e.payer, e.payee, e.paid, e.owed)
        for number, _, events, _ in turns_of(name)
        for e in events
        if isinstance(e, TaxPaid) and e.paid > 0
    ]
    assert [(p.turn, p.payer, p.payee, p.paid, p.owed) for p in found.payments] == expected
    final = turns_of(name)[-1][3]
    for seat in range(found.players):
        paid = sum(p.paid for p in found.payments if p.payer == seat)
        received = sum(p.paid for p in found.payments if p.payee == seat)
        assert final.dirhams[seat] == 30 + received - paid
    biggest = found.biggest(3)
    assert list(biggest) == sorted(found.payments, key=lambda p: (-p.paid, p.turn))[:3]


def test_payments_that_put_a_seat_out_by_hand() -> None:
    """The eliminations test_golden.py checks by hand: in the 3-player game seat 1 owed 14 and
    paid its last 13; in the 2-player one seat 0 owed 9 and paid its last 6, the last payment of
    the game, after which seat 1 has won for sure."""
    three = analysis("3p-elimination")
    (out,) = [p for p in three.payments if p.out]
    assert (out.payer, out.payee, out.owed, out.paid) == (1, 0, 14, 13)
    assert three.out == (False, True, False)
    two = analysis("2p-last-player-standing")
    assert two.payments[-1] == Payment(two.points[-1].turn, 0, 1, 6, 9, out=True)
    assert two.points[-1].chances == (0.0, 1.0)
    four = analysis("4p-rotate-after-elimination")
    assert four.payments[0] == Payment(4, 3, 0, 2, 2, out=False), "brown pays red 2 on turn 4"


def test_a_toll_paid_in_full_by_a_seat_that_then_resigned_did_not_put_it_out() -> None:
    """In the 3-player golden game seat 0 rolls a 3 on turn 11 and pays seat 2 its 3 dirhams in
    full; it resigns before laying its rug, then seat 1 resigns and seat 2 has won. Seat 0 is
    out, but not for want of dirhams: its payment reads as paid, never as "3 of 3 and is out"."""
    cut = _one_step_record("3p-elimination", 32)
    state = replay_record(cut)
    assert (state.turn, state.to_move, state.dirhams[0] > 0) == (11, 0, True)
    resigned = replace(cut, extras={"resignations": [[32, 0], [32, 1]]})
    found = analyse(resigned)
    assert found.out == (True, True, False)
    assert found.payments[-1] == Payment(11, 0, 2, 3, 3, out=False)
    assert [p for p in found.payments if p.out] == []


@pytest.mark.parametrize("name", NAMES)
def test_each_seats_luck_is_the_sum_over_its_rolls(name: str) -> None:
    found = analysis(name)
    luck = [0.0] * found.players
    rolls = [0] * found.players
    state = new_game(record(name).config)
    for action in record(name).actions:
        if action.startswith("D"):
            assert state.to_move is not None
            luck[state.to_move] += roll_luck(state, int(action[1:]))
            rolls[state.to_move] += 1
        state, _ = apply(state, action)
    assert [seat.rolls for seat in found.luck] == rolls
    assert [seat.total for seat in found.luck] == pytest.approx(luck)
    assert sum(rolls) == sum(1 for action in record(name).actions if action.startswith("D"))


def test_the_luck_of_the_roll_that_put_a_seat_out_by_hand() -> None:
    """Seat 0, on d1 facing west with 6 dirhams, rolled a 4 in the 2-player golden game's last
    turn. A 1 stops on c1; a 2, a 3 and a 4 stop on b1, a1 and (by the west arc) a2, all in
    the 9-square brown region: each puts it out, the same way. So the 4 was worth what the 1
    was not, on five rolls out of six: its luck is (value of a 4 - value of a 1) / 6."""
    state = replay_record(_one_step_record("2p-last-player-standing", 127))
    values = {face: value for face, _, value in face_values(state)}
    assert values[2] == values[3] == values[4] < values[1]
    assert roll_luck(state, 4) == pytest.approx((values[4] - values[1]) / 6)
    luck = analysis("2p-last-player-standing").luck[0]
    assert luck.total < 0


def _one_step_record(name: str, actions: int) -> Record:
    """The golden record cut after its first `actions` actions."""
    whole = record(name)
    return Record(
        whole.players, whole.variant, whole.first_player, whole.piles, whole.actions[:actions]
    )


def test_an_unfinished_game_has_no_analysis() -> None:
    with pytest.raises(ValueError, match="not over"):
        analyse(_one_step_record("4p-standard", 30))


def test_a_resignation_is_named_as_the_turning_point_when_it_is() -> None:
    """Three seats left in a 4-player game resign at once: the game ends on the spot and the
    last seat in wins; the resignation moved the chances most."""
    whole = record("4p-standard")
    cut = _one_step_record("4p-standard", 3)
    config_state = new_game(whole.config)
    assert config_state.to_move is not None
    stays = config_state.to_move
    others = [seat for seat in range(4) if seat != stays]
    resigned = Record(
        cut.players,
        cut.variant,
        cut.first_player,
        cut.piles,
        cut.actions,
        {"resignations": [[3, seat] for seat in others]},
    )
    found = analyse(resigned)
    assert found.ranking[0] == (stays,)
    swing = found.swing
    assert swing is not None
    assert swing.cause is Cause.RESIGNATION
    assert swing.resigned in others
    assert found.points[-1].chances[stays] == 1.0
    steps = list(replay_events(resigned))
    out = [e for _, events in steps for e in events if isinstance(e, PlayerEliminated)]
    assert all(e.resigned for e in out)


ESCAPE_ACTIONS = """
    R D3 e4f4 R D3 f6g6 R D2 e5e6 S D2 c6d6 S D2 a5a6 S D4 a5b5 L D3 c1c2 R D1 c5d5 L D2 e2e3
    R D3 e6f6 L D2 f6f7 L D3 g5g6 S D3 f2g2 S D4 c2d2 L D2 b3c3 S D2 c5c6 L D3 g3g4 R D1 f5f6
    R D2 e4e5 L D4 b5c5 R D3 f4g4 R D3 d7e7 S D2 f6f7 S D1 e5f5 S D1 g2g3 L D2 c2c3 S D2 c3d3
    L D4 c7d7 R D2 a6b6 S D1 a7b7 R D3 c5c6 L D1 e5e6 S D3 c1d1 L D3 a1b1 S D4 e1f1 S D3 f2g2
    L D3 f1f2 L D2 e2f2 R D4 a4a5 L D1 a3b3 S D2 b6c6 R D2 a6b6 L D3 b1c1 R D2 d3e3 R D2 c5d5
"""
ESCAPE_GAME = Record(3, Variant.STANDARD, 2, None, tuple(ESCAPE_ACTIONS.split()))
"""A 3-player game of uniformly random moves (`ai.arena.play_seeded`, game seed 26) whose last
roll is its turning point."""


def test_a_toll_escaped_is_named_as_the_turning_point_when_it_is() -> None:
    """In ESCAPE_GAME's last turn (45) seat 1 rolls from d2: a 1 stops in seat 0's 7-square
    region, a 3 in its 5-square one, a 4 in seat 2's 4-square one; only a 2 (d4) costs nothing.
    A roll costs (7 + 2 * 5 + 4) / 6 = 3.5 dirhams on average; seat 1 rolled the 2, paid
    nothing and went on to win: the roll moved the chances most, so the escape is the reason."""
    before_roll = replay_record(replace(ESCAPE_GAME, actions=ESCAPE_GAME.actions[:133]))
    assert (before_roll.turn, before_roll.to_move, square_name(before_roll.assam)) == (45, 1, "d2")
    assert ESCAPE_GAME.actions[133] == "D2"
    tolls: dict[str, list[tuple[int, int, int]]] = {}
    for face in (1, 2, 3, 4):
        landed, events = apply(before_roll, f"D{face}")
        tolls[square_name(landed.assam)] = [
            (e.payer, e.payee, e.owed) for e in events if isinstance(e, TaxPaid)
        ]
    assert tolls == {"d3": [(1, 0, 7)], "d4": [], "d5": [(1, 0, 5)], "d6": [(1, 2, 4)]}
    assert _expected_toll(before_roll) == pytest.approx(3.5)

    found = analyse(ESCAPE_GAME)
    assert found.ranking[0] == (1,)
    swing = found.swing
    assert swing is not None
    assert (swing.turn, swing.seat, swing.face, swing.gainer) == (45, 1, 2, 1)
    assert swing.cause is Cause.ESCAPE
    assert swing.escaped == pytest.approx(3.5)
    assert swing.escaped >= ESCAPED_TOLL
    assert swing.payment is None
    assert swing.rolled is not None
    roll_part = sum(abs(a - b) for a, b in zip(swing.rolled, swing.before, strict=True))
    rest_part = sum(abs(a - b) for a, b in zip(swing.after, swing.rolled, strict=True))
    assert roll_part >= rest_part


def test_a_toll_that_went_against_the_chances_is_not_the_turning_point_s_reason() -> None:
    """In 4 players seat 1 rolls and pays seat 2 a toll, while the roll moves the chances most
    from seat 3 to seat 0: the toll went neither to the seat that gained most nor from the one
    that lost most, so it is not the reason. The mover paid, so it escaped nothing, however
    costly a roll was on average (the same roll with nothing paid is an escape), and no rug was
    read: no reason. Paid to seat 0, the same toll is the reason. Any toll of the turn taken as
    the reason would blame one that went against the chances."""
    toll = TaxPaid(payer=1, payee=2, owed=5, paid=5, color=Color.BLUE, region=frozenset({3}))
    before = (0.25, 0.25, 0.25, 0.25)
    after = (0.45, 0.24, 0.26, 0.05)
    points = [Point(6, 0, before), Point(7, 1, after)]
    # All of it the roll's, and a roll from there costs 3.5 dirhams on average.
    turn = _Turn(7, 1, [toll], face=2, escaped=3.5, rolled=after)
    swing = _swing(points, [turn])
    assert swing is not None
    assert (swing.gainer, swing.loser) == (0, 3)
    assert swing.cause is Cause.NONE, swing.payment
    assert swing.payment is None
    escaped = _Turn(7, 1, [], face=2, escaped=3.5, rolled=after)
    swing = _swing(points, [escaped])
    assert swing is not None
    assert swing.cause is Cause.ESCAPE, "the same roll with nothing paid is an escape"
    to_the_gainer = _Turn(7, 1, [replace(toll, payee=0)], face=2, escaped=3.5, rolled=after)
    swing = _swing(points, [to_the_gainer])
    assert swing is not None
    assert swing.cause is Cause.PAYMENT, "the same toll paid to the seat that gained most"


def test_a_toll_from_the_seat_that_lost_most_is_the_reason_whoever_it_went_to() -> None:
    """In 4 players seat 3 rolls and pays seat 2 a toll, while the roll moves the chances most
    from seat 3 to seat 0: the toll went from the seat that lost most, so it is the reason,
    though seat 2, not seat 0, took it."""
    toll = TaxPaid(payer=3, payee=2, owed=5, paid=5, color=Color.BLUE, region=frozenset({3}))
    before = (0.25, 0.25, 0.25, 0.25)
    after = (0.45, 0.24, 0.26, 0.05)
    points = [Point(6, 2, before), Point(7, 3, after)]
    swing = _swing(points, [_Turn(7, 3, [toll], face=2, escaped=3.5, rolled=after)])
    assert swing is not None
    assert (swing.gainer, swing.loser) == (0, 3)
    assert swing.cause is Cause.PAYMENT, swing
    assert swing.payment == Payment(7, 3, 2, 5, 5, out=False)


def test_a_toll_that_put_a_penniless_mover_out_is_the_turning_point_s_reason() -> None:
    """Seat 0 rolls with no dirham left into seat 2's 11-square region: it owes 11, pays its
    0 (R9) and is out, which ends the game for seat 2. That toll, to the seat that gained most,
    is the reason, saying what was owed and that the payer went out; nothing was paid, yet the
    turn was no mere "seat 0 played turn 45"."""
    toll = TaxPaid(payer=0, payee=2, owed=11, paid=0, color=Color.BLUE, region=frozenset({8}))
    before = (0.0, 0.36, 0.64)
    after = (0.0, 0.0, 1.0)
    points = [Point(44, 2, before), Point(45, 0, after)]
    out = PlayerEliminated(seat=0, rugs_lost=1, resigned=False)
    swing = _swing(points, [_Turn(45, 0, [toll, out], face=2, escaped=11.0, rolled=after)])
    assert swing is not None
    assert (swing.gainer, swing.loser) == (2, 1)
    assert swing.cause is Cause.PAYMENT, swing
    assert swing.payment == Payment(45, 0, 2, 0, 11, out=True)


def test_a_toll_escaped_is_the_reason_only_where_a_roll_cost_at_least_a_dirham() -> None:
    """The same roll, all of the turn's move, nothing paid: where a roll from there cost half
    a dirham on average the mover escaped nothing worth naming; from a dirham on, it did."""
    before = (0.25, 0.25, 0.25, 0.25)
    after = (0.45, 0.24, 0.26, 0.05)
    points = [Point(6, 0, before), Point(7, 1, after)]
    cheap = _swing(points, [_Turn(7, 1, [], face=2, escaped=0.5, rolled=after)])
    assert cheap is not None
    assert cheap.cause is Cause.NONE, cheap
    dear = _swing(points, [_Turn(7, 1, [], face=2, escaped=ESCAPED_TOLL, rolled=after)])
    assert dear is not None
    assert dear.cause is Cause.ESCAPE, dear
    assert ESCAPED_TOLL == 1.0


def test_of_two_equal_moves_the_earlier_is_the_turning_point() -> None:
    """Turn 1 moves the chances 25 points, turn 2 moves them back as far: the earlier is the
    turning point."""
    points = [Point(0, None, (0.5, 0.5)), Point(1, 0, (0.75, 0.25)), Point(2, 1, (0.5, 0.5))]
    swing = _swing(points, [_Turn(1, 0, []), _Turn(2, 1, [])])
    assert swing is not None
    assert swing.turn == 1
