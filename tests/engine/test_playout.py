"""The fast playout path (engine.playout) plays the same games as the checked API."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from engine import (
    GameConfig,
    GameState,
    Phase,
    Variant,
    apply,
    deal,
    legal_actions,
    new_game,
    placements,
    rank,
    record_of,
    replay_record,
    scores,
    to_position,
)
from engine.board import PAIRS
from engine.playout import (
    ORIENT,
    PAIR_BIT,
    PLACE,
    ROTATE,
    FastState,
    checked_playout,
    from_state,
    new_fast_game,
    playout,
    refresh_rugs,
    run,
)
from tests.engine.builders import ONTO_D4, board, play

COMBOS = [(players, variant) for players in (2, 3, 4) for variant in Variant]


@pytest.mark.parametrize(("players", "variant"), COMBOS)
def test_fast_and_checked_paths_play_identical_games(players: int, variant: Variant) -> None:
    """Same seeds and choices: same actions, same final scores, ranking and reason."""
    for seed in range(25):
        config = deal(players, variant, random.Random(seed))
        fast_trace: list[str] = []
        checked_trace: list[str] = []
        result = playout(new_game(config), random.Random(1000 + seed), trace=fast_trace)
        final = checked_playout(new_game(config), random.Random(1000 + seed), checked_trace)
        assert fast_trace == checked_trace
        assert result.actions == len(checked_trace)
        assert result.totals == tuple(s.total for s in scores(final))
        assert result.dirhams == final.dirhams
        assert final.outcome is not None
        assert (result.ranking, result.reason) == (final.outcome.ranking, final.outcome.reason)
        # The record of the fast game replays, through the checked API, to the same position.
        replayed = replay_record(replace(record_of(new_game(config)), actions=tuple(fast_trace)))
        assert to_position(replayed) == to_position(final)


def test_fast_path_from_the_middle_of_a_game() -> None:
    """from_state at any phase (orient, roll, place, rotate) continues exactly like apply."""
    phases_seen = set()
    for seed in range(12):
        variant = list(Variant)[seed % 2]
        rng = random.Random(seed)
        state = new_game(deal(2 + seed % 3, variant, rng))
        for _ in range(rng.randrange(1, 90)):
            if state.is_over:
                break
            actions = legal_actions(state)
            state, _ = apply(state, actions[int(rng.random() * len(actions))])
        phases_seen.add(state.phase)
        fast_trace: list[str] = []
        checked_trace: list[str] = []
        result = playout(state, random.Random(seed), trace=fast_trace)
        final = checked_playout(state, random.Random(seed), checked_trace)
        assert fast_trace == checked_trace
        assert result.totals == tuple(s.total for s in scores(final))
    assert len(phases_seen) >= 3


def test_new_fast_game_equals_from_state_of_new_game() -> None:
    for players, variant in COMBOS:
        config = deal(players, variant, random.Random(players))
        fresh, converted = new_fast_game(config), from_state(new_game(config))
        for name in FastState.__slots__:
            assert getattr(fresh, name) == getattr(converted, name), name


def test_playout_leaves_its_start_unchanged_and_copies_are_independent() -> None:
    """A playout plays on a copy of the FastState it is given, and leaves every slot of it as
    it was. A copy holds every slot of its original, the rugs whole on the board (`intact`,
    R10) too, so a playout from a FastState of a game under way plays the game one from the
    GameState plays."""
    rng = random.Random(3)
    state = new_game(deal(4, Variant.STANDARD, rng))
    for _ in range(60):
        actions = legal_actions(state)
        state, _ = apply(state, actions[int(rng.random() * len(actions))])
    assert not state.is_over
    fast = from_state(state)
    assert fast.intact, "whole rugs lie on the board"
    before = {name: repr(getattr(fast, name)) for name in FastState.__slots__}
    assert {name: repr(getattr(fast.copy(), name)) for name in FastState.__slots__} == before
    assert playout(fast, random.Random(1)) == playout(state, random.Random(1))
    assert {name: repr(getattr(fast, name)) for name in FastState.__slots__} == before


def test_a_two_player_playout_leaves_its_start_and_its_piles_unchanged() -> None:
    """In 2 players the piles are lists too: a playout, from `new_fast_game` or `from_state`,
    leaves every slot of its start as it was, so a second playout plays the same game, and a
    copy's piles are its own. A copy sharing its piles would empty the start's as it plays."""
    for variant in Variant:
        config = deal(2, variant, random.Random(3))
        for fast in (new_fast_game(config), from_state(new_game(config))):
            before = {name: repr(getattr(fast, name)) for name in FastState.__slots__}
            first = playout(fast, random.Random(1))
            assert {name: repr(getattr(fast, name)) for name in FastState.__slots__} == before
            assert playout(fast, random.Random(1)) == first
            copy = fast.copy()
            assert copy.piles is not None
            assert fast.piles is not None
            copy.piles[0].pop()
            assert len(fast.piles[0]) == 24


def test_policy_sees_the_legal_options_and_steers_the_game() -> None:
    """A policy gets the options in legal_actions order and its choice is played."""
    config = deal(3, Variant.ROTATE_AFTER, random.Random(5))
    seen: list[tuple[int, int]] = []

    def last_option(state: FastState, kind: int, options: Sequence[Any]) -> int:
        seen.append((kind, len(options)))
        if kind == PLACE:
            assert list(options) == placements(checked_state(state))
        return len(options) - 1

    trace: list[str] = []
    result = playout(new_game(config), random.Random(2), policy=last_option, trace=trace)
    kinds = {kind for kind, _ in seen}
    assert kinds == {PLACE, ROTATE}
    # Replaying the trace through the checked API confirms every choice was the last option.
    state = new_game(config)
    for action in trace:
        if not action.startswith("D"):
            assert action == legal_actions(state)[-1]
        state, _ = apply(state, action)
    assert state.outcome is not None
    assert state.outcome.ranking == result.ranking
    orient_seen: list[int] = []

    def straight(state: FastState, kind: int, options: Sequence[Any]) -> int:
        orient_seen.append(kind)
        return 1 if kind == ORIENT else 0

    trace = []
    playout(
        new_game(deal(4, Variant.STANDARD, random.Random(1))), random.Random(1), straight, trace
    )
    assert ORIENT in orient_seen
    assert trace[0] == "S"


UP_TO_DATE_FOR_A_POLICY = (
    "phase",
    "to_move",
    "assam",
    "facing",
    "cells",
    "colors",
    "masks",
    "dirhams",
    "stock",
    "hand",
    "piles",
    "alive",
    "eliminated",
)
"""The FastState slots a policy may read: the phase, the seat to move, Assam, the board lists,
the dirhams, the rugs and the seats (`intact`, `in_hand`, `rugs_laid` and `turn` are written
back only at the end)."""


class _Follower:
    """A policy that checks the FastState it is shown against the checked API's state after
    the trace so far, then chooses at random."""

    def __init__(self, config: GameConfig, trace: list[str]) -> None:
        self.state = new_game(config)
        self.trace = trace
        self.played = 0
        self.choices = random.Random(7)
        self.calls = 0

    def __call__(self, fast: FastState, kind: int, options: Sequence[Any]) -> int:
        for action in self.trace[self.played :]:
            self.state, _ = apply(self.state, action)
        self.played = len(self.trace)
        assert fast.phase == kind
        expected = from_state(self.state)
        for name in UP_TO_DATE_FOR_A_POLICY:
            assert getattr(fast, name) == getattr(expected, name), (name, self.trace[-4:])
        self.calls += 1
        return self.choices.randrange(len(options))


@pytest.mark.parametrize(("players", "variant"), COMBOS)
def test_a_policy_sees_the_state_of_the_game_so_far(players: int, variant: Variant) -> None:
    """Whenever a policy is called, the FastState's phase, seat to move, Assam's square and
    facing, board lists, dirhams, rugs and seats are those of the game so far (the checked
    API's after the trace so far). A policy asked for a rug after Assam turned or walked round
    a border (R7) sees his new facing, not the one he had before."""
    config = deal(players, variant, random.Random(players))
    trace: list[str] = []
    follower = _Follower(config, trace)
    playout(new_game(config), random.Random(players), follower, trace)
    assert follower.calls > 20


def checked_state(fast: FastState) -> GameState:
    """Only for the policy test: the board part of a fast state as a GameState."""
    state = new_game(deal(fast.players, Variant.STANDARD, random.Random(0)))
    return state._replace(
        cells=tuple(fast.cells), assam=fast.assam, phase=Phase.PLACE, to_move=fast.to_move
    )


def test_result_ranking_matches_rank() -> None:
    config = deal(4, Variant.STANDARD, random.Random(9))
    final = checked_playout(new_game(config), random.Random(4))
    result = playout(new_game(config), random.Random(4))
    assert final.outcome is not None
    assert rank(final, final.outcome.reason).ranking == result.ranking
    assert result.winners == final.outcome.ranking[0]


class _RollsOne:
    """An RNG whose die always shows 1 (DIE_FACES[0])."""

    def random(self) -> float:
        return 0.0


def _pays_its_last_dirham() -> GameState:
    return board(4, [("d4d5", "yellow"), ("e4e5", "yellow")], dirhams=(4, 30, 30, 30), **ONTO_D4)


def _owes_more_than_it_holds() -> GameState:
    return board(4, [("d4d5", "yellow"), ("e4e5", "yellow")], dirhams=(3, 30, 30, 30), **ONTO_D4)


def _lands_on_a_seat_that_is_out() -> GameState:
    state = board(4, [("d4d5", "yellow"), ("e4e5", "yellow")], **ONTO_D4)
    return state._replace(eliminated=(1,), dirhams=(30, 0, 30, 60), stock=(12, 0, 12, 12))


def _goes_out_before_the_last_rug_of_the_variant() -> GameState:
    rugs = [("d4d5", "yellow")]
    state = board(3, rugs, dirhams=(1, 30, 59), variant=Variant.ROTATE_AFTER, **ONTO_D4)
    return state._replace(stock=(15, 1, 0, 0))


def _a_seat_with_no_rugs_left() -> GameState:
    return board(3, **ONTO_D4)._replace(stock=(2, 0, 2, 0))


def _goes_out_after_another_seat() -> GameState:
    state = board(3, [("d4d5", "red")], to_move=1, **ONTO_D4)
    return state._replace(dirhams=(88, 1, 0), eliminated=(2,), stock=(14, 15, 0, 0))


def _a_two_player_seat_goes_out() -> GameState:
    return board(2, [("d4d5", "yellow")], dirhams=(1, 59), **ONTO_D4)


def _seat_after(state: GameState) -> int | None:
    """Who moves after the mover lays the first legal rug."""
    return play(state, legal_actions(state)[0])[0].to_move


RULE_EDGES: dict[str, tuple[Callable[[], GameState], Callable[[GameState], bool]]] = {
    # R9: owing exactly what one holds leaves the mover in, with 0 dirhams, laying a rug.
    "pays-its-last-dirham": (
        _pays_its_last_dirham,
        lambda s: (s.dirhams, s.eliminated, s.phase) == ((0, 34, 30, 30), (), Phase.PLACE),
    ),
    # R9: owing more, the mover pays what it holds (not what it owes) and is out.
    "owes-more-than-it-holds": (
        _owes_more_than_it_holds,
        lambda s: (s.dirhams, s.eliminated) == ((0, 33, 30, 30), (0,)),
    ),
    # R8, R9: the rugs of a seat that is out charge nobody.
    "lands-on-a-seat-that-is-out": (
        _lands_on_a_seat_that_is_out,
        lambda s: s.dirhams == (30, 0, 30, 60) and s.phase is Phase.PLACE,
    ),
    # R9, R11, R12: the mover goes out holding rugs; the last rug of the seats still in then
    # ends the game, with no turn of Assam after it.
    "goes-out-before-the-last-rug-of-the-variant": (
        _goes_out_before_the_last_rug_of_the_variant,
        lambda s: (s.eliminated, s.to_move, s.rugs_in_hand(1)) == ((0,), 1, 1),
    ),
    # R11: a seat that has laid all its rugs takes no more turns.
    "a-seat-with-no-rugs-left": (_a_seat_with_no_rugs_left, lambda s: _seat_after(s) == 2),
    # R9: the later elimination ranks above the earlier one.
    "goes-out-after-another-seat": (
        _goes_out_after_another_seat,
        lambda s: s.outcome is not None and s.outcome.ranking == ((0,), (1,), (2,)),
    ),
    # R2, R9: a 2-player seat that goes out loses its whole pile.
    "a-two-player-seat-goes-out": (
        _a_two_player_seat_goes_out,
        lambda s: s.eliminated == (0,) and s.pile(0) == (),
    ),
}
"""Positions at a roll where one rule turns on one comparison, each with what the roll of 1
onto d4 does there by the checked API (so that the case is what its name says)."""


@pytest.mark.parametrize("name", list(RULE_EDGES))
def test_the_fast_path_plays_the_edge_cases_of_the_rules_as_the_checked_api(name: str) -> None:
    """R8, R9, R11, R12 at their edges (paying one's last dirham, owing more than one holds, a
    seat out being landed on, going out while holding rugs in the variant, a seat with no rugs
    left, a second elimination, a 2-player seat going out): from each position the fast path
    plays the game the checked API plays, action for action, and ends with every FastState
    slot (but `rug_pair`) and the result of the checked API's final state."""
    build, after_the_roll = RULE_EDGES[name]
    start_state = build()
    assert after_the_roll(play(start_state, "D1")[0]), name
    fast = from_state(start_state)
    fast_trace: list[str] = []
    checked_trace: list[str] = []
    actions = run(fast, _RollsOne(), trace=fast_trace)
    final = checked_playout(start_state, _RollsOne(), checked_trace)
    assert fast_trace == checked_trace
    expected = from_state(final)
    for slot in FastState.__slots__:
        if slot != "rug_pair":
            assert getattr(fast, slot) == getattr(expected, slot), slot
    assert final.outcome is not None
    result = fast.result(actions)
    assert (result.ranking, result.reason) == (final.outcome.ranking, final.outcome.reason)
    assert (result.totals, result.dirhams) == (tuple(s.total for s in scores(final)), final.dirhams)


def test_refresh_rugs_rebuilds_the_intact_rug_masks() -> None:
    """After cells change by hand, refresh_rugs makes the rug masks right again (R10): a rug
    position is intact exactly when both its squares show the same rug, counted here from the
    cells pair by pair."""
    rng = random.Random(8)
    state = new_game(deal(4, Variant.STANDARD, rng))
    for _ in range(60):
        actions = legal_actions(state)
        state, _ = apply(state, actions[int(rng.random() * len(actions))])
    cells = state.cells
    whole = {cells[a]: (a, b) for a, b in PAIRS if cells[a] and cells[a] == cells[b]}
    assert whole
    assert len(whole) < state.rugs_laid
    fast = from_state(state)
    fast.intact, fast.rug_pair = 0, [0]
    refresh_rugs(fast)
    assert fast.intact == sum(PAIR_BIT[pair] for pair in whole.values())
    for number in range(1, state.rugs_laid + 1):
        expected = PAIR_BIT[whole[number]] if number in whole else 0
        assert fast.rug_pair[number] == expected, number


WRITTEN_BACK_AT_THE_END = ("assam", "facing", "intact", "in_hand", "rugs_laid", "turn")
"""The FastState slots `run` keeps in local variables while it plays and writes back when the
game ends."""


@pytest.mark.parametrize(("players", "variant"), COMBOS)
def test_run_leaves_the_fast_state_as_the_checked_api_ends_the_game(
    players: int, variant: Variant
) -> None:
    """After `run`, every slot of the FastState (those written back only at the end too:
    Assam's square and facing, the intact rugs, the rugs in hand, the rugs laid and the turn)
    is what `from_state` gives for the checked API's final state of the same game. Only
    `rug_pair` may differ: `run` keeps the pair of every rug laid, `from_state` only those
    still whole."""
    for seed in range(4):
        config = deal(players, variant, random.Random(seed))
        fast = new_fast_game(config)
        run(fast, random.Random(50 + seed))
        expected = from_state(checked_playout(new_game(config), random.Random(50 + seed)))
        for name in FastState.__slots__:
            if name != "rug_pair":
                assert getattr(fast, name) == getattr(expected, name), (name, seed)


def test_a_playout_from_a_finished_game_gives_its_outcome() -> None:
    """`from_state` takes a GameState in any phase, a finished one too: a playout from it plays
    no action and gives the game's own reason, ranking and scores."""
    config = deal(3, Variant.STANDARD, random.Random(6))
    final = checked_playout(new_game(config), random.Random(6))
    assert final.outcome is not None
    result = playout(final, random.Random(1))
    assert result.actions == 0
    assert (result.reason, result.ranking) == (final.outcome.reason, final.outcome.ranking)
    assert result.totals == tuple(s.total for s in scores(final))


def test_refresh_rugs_counts_a_rug_laid_by_hand_above_the_rugs_laid() -> None:
    """A search that writes a new rug's number into `cells` without counting it in `rugs_laid`
    gets it counted by refresh_rugs: `rugs_laid` rises to the highest number on the board and
    the new rug is whole (R10), so a later rug laid in `run` gets the next number."""
    rng = random.Random(8)
    state = new_game(deal(4, Variant.STANDARD, rng))
    for _ in range(30):
        actions = legal_actions(state)
        state, _ = apply(state, actions[int(rng.random() * len(actions))])
    fast = from_state(state)
    a, b = next((a, b) for a, b in PAIRS if not fast.cells[a] and not fast.cells[b])
    number = state.rugs_laid + 1
    fast.cells[a] = fast.cells[b] = number
    refresh_rugs(fast)
    assert fast.rugs_laid == number
    assert fast.rug_pair[number] == PAIR_BIT[a, b]
    assert fast.intact & PAIR_BIT[a, b]


def test_a_playout_in_which_a_seat_goes_out_leaves_its_start_unchanged() -> None:
    """A playout from a FastState plays on a copy: a seat going out in it (R9) leaves the
    start's seats (`alive`, `eliminated`) and every other slot as they were, so a second
    playout from the same start plays the same game."""
    start_state = board(3, [("d4d5", "red")], assam="d3", facing="S", to_move=1)
    start_state = start_state._replace(dirhams=(88, 1, 1), stock=(14, 15, 15, 0))
    fast = from_state(start_state)
    before = {name: repr(getattr(fast, name)) for name in FastState.__slots__}
    first = playout(fast, _RollsOne())
    assert first.ranking[-1] == (1,), "seat 1 owes 2 with 1 dirham: it goes out"
    assert {name: repr(getattr(fast, name)) for name in FastState.__slots__} == before
    assert playout(fast, _RollsOne()) == first


def test_the_result_of_a_game_still_being_played_is_refused() -> None:
    """`FastState.result()` ranks a finished game only: asked before the end (a fresh game, or
    one part-played by the checked API) it raises ValueError instead of ranking the seats as
    they stand; after `run` it gives the game's result."""
    config = deal(4, Variant.STANDARD, random.Random(2))
    state, _ = play(new_game(config), "S", "D3")
    state, _ = play(state, legal_actions(state)[0])
    for fast in (new_fast_game(config), from_state(state)):
        with pytest.raises(ValueError, match="has not ended"):
            fast.result()
        actions = run(fast, random.Random(3))
        assert fast.result(actions).actions == actions > 0
