"""The AI's fast helpers agree with the checked engine on tolls, landings and placements."""

from __future__ import annotations

from fractions import Fraction

from ai.tactics import (
    DIE_ODDS,
    LANDINGS,
    ZONE,
    expected_toll,
    lay,
    legal_placements,
    next_mover,
    payees,
    toll,
    unlay,
    weights,
)
from engine import (
    CANDIDATES,
    SQUARES,
    TaxPaid,
    apply,
    chance_outcomes,
    legal_actions,
    placements,
    walk,
)
from engine.model import Phase
from engine.playout import from_state
from engine.state import GameState


def test_die_odds_are_the_engines_chance_outcomes(positions: list[GameState]) -> None:
    rolling = next(p for p in positions if p.phase is Phase.ORIENT)
    rolled = apply(rolling, "S")[0]
    engine_odds = dict(chance_outcomes(rolled))
    assert {f"D{face}": Fraction(odds).limit_denominator(6) for face, odds in DIE_ODDS} == (
        engine_odds
    )


def test_landings_follow_assams_walk() -> None:
    for square in range(SQUARES):
        for facing in range(4):
            for (pose, _), (face, _) in zip(LANDINGS[square * 4 + facing], DIE_ODDS, strict=True):
                end = walk(square, facing, face)[-1]
                assert pose == end.square * 4 + end.facing


def test_zone_is_every_square_a_rug_can_cover() -> None:
    for square in range(SQUARES):
        covered = {q for pair in CANDIDATES[square] for q in pair}
        assert {q for q in range(SQUARES) if ZONE[square] >> q & 1} == covered


def test_placements_match_the_engine(positions: list[GameState]) -> None:
    for state in positions:
        if state.phase is Phase.PLACE:
            assert legal_placements(from_state(state), state.assam) == placements(state)


def test_tolls_match_the_engines_payments(positions: list[GameState]) -> None:
    checked = 0
    for state in positions:
        if state.phase is not Phase.ORIENT:
            continue
        mover = state.to_move
        assert mover is not None
        for turn in ("L", "S", "R"):
            turned = apply(state, turn)[0]
            s = from_state(turned)
            payee_of = payees(s)
            expected = 0.0
            for action, odds in chance_outcomes(turned):
                after, events = apply(turned, action)
                paid = [e for e in events if isinstance(e, TaxPaid)]
                payee, amount = toll(s, payee_of, mover, after.assam)
                if paid:
                    assert (payee, amount) == (paid[0].payee, paid[0].owed)
                    checked += 1
                else:
                    assert amount == 0
                expected += float(odds) * amount
            pose = s.assam * 4 + s.facing
            assert abs(expected_toll(s, payee_of, mover, pose) - expected) < 1e-9
    assert checked > 10


def test_the_next_mover_is_the_seat_the_engine_hands_the_turn_to(
    positions: list[GameState],
) -> None:
    """After a seat's rug (and its turn of Assam in the variant, R12) the engine hands the turn
    to the next seat still in and holding rugs (R9, R11); after the last rug of a game, to
    none (-1): no one rolls again."""
    last_rugs = 0
    for state in positions:
        if state.phase is not Phase.PLACE:
            continue
        seat = state.to_move
        assert seat is not None
        after = apply(state, legal_actions(state)[0])[0]
        if after.phase is Phase.ROTATE:
            after = apply(after, "L")[0]
        last_rugs += after.outcome is not None
        expected = -1 if after.outcome is not None else after.to_move
        assert next_mover(from_state(state), seat) == expected, (state.players, state.turn)
    assert last_rugs >= 3


def test_lay_and_unlay_leave_the_board_as_it_was(positions: list[GameState]) -> None:
    for state in positions:
        if state.phase is not Phase.PLACE:
            continue
        s = from_state(state)
        before = (s.cells[:], s.colors[:], s.masks[:], s.rugs_laid)
        for a, b in legal_placements(s, s.assam):
            saved = lay(s, a, b, 2)
            assert s.colors[a] == s.colors[b] == 2
            assert s.masks[2] >> a & 1
            unlay(s, a, b, saved)
            assert (s.cells, s.colors, s.masks, s.rugs_laid) == before


def test_weights_balance_the_seat_against_its_rivals(positions: list[GameState]) -> None:
    for state in positions:
        s = from_state(state)
        for seat in range(s.players):
            weight = weights(s, seat)
            assert weight[seat] == 1.0
            rivals = [other for other in range(s.players) if other != seat and s.alive[other]]
            if rivals:
                assert abs(sum(weight[o] for o in rivals) + 1.0) < 1e-9
            assert all(weight[o] == 0.0 for o in range(s.players) if o != seat and not s.alive[o])
