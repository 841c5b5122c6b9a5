"""Budgets: hard stops at its work budget and its deadline; the light levels do fixed work."""

from __future__ import annotations

import time

import pytest

from ai import DEFAULT_BUDGET, Budget, HardPlayer, MediumPlayer, make_player
from ai.budget import Meter
from engine import legal_actions
from engine.model import Phase, Variant
from engine.state import GameState


def _busy(
    positions: list[GameState], phase: Phase, variant: Variant = Variant.STANDARD
) -> GameState:
    """A mid-game position of `phase` and `variant` with many rug options (much to search)."""
    return max(
        (p for p in positions if p.phase is phase and p.variant is variant),
        key=lambda p: (len(legal_actions(p)), -abs(len(p.history) - 40)),
    )


@pytest.mark.parametrize("work", [1, 3, 12, 20, 40])
def test_hard_never_exceeds_its_work_budget(work: int, positions: list[GameState]) -> None:
    for phase in (Phase.ORIENT, Phase.PLACE):
        decision = HardPlayer().decide(_busy(positions, phase), seed=3, budget=Budget(work=work))
        assert decision.work <= work


@pytest.mark.parametrize("work", [1, 3, 13, 21, 41])
def test_hard_never_exceeds_its_work_budget_in_the_variant(
    work: int, positions: list[GameState]
) -> None:
    """In the variant (R12) each rug of ours costs two rival turns, one after each way we may
    then turn Assam: at its rug choice (the variant has no ORIENT) hard stays within any
    budget, odd ones and one below its first pass included."""
    state = _busy(positions, Phase.PLACE, Variant.ROTATE_AFTER)
    decision = HardPlayer().decide(state, seed=3, budget=Budget(work=work))
    assert decision.work <= work


def test_hard_uses_the_whole_work_budget_when_there_is_more_to_search(
    positions: list[GameState],
) -> None:
    state = _busy(positions, Phase.ORIENT)
    for work in (20, 30):
        assert HardPlayer().decide(state, seed=3, budget=Budget(work=work)).work == work


def test_hard_below_its_first_pass_plays_as_medium(positions: list[GameState]) -> None:
    state = _busy(positions, Phase.ORIENT)
    hard = HardPlayer().decide(state, seed=4, budget=Budget(work=1))
    assert hard.work == 0
    assert hard.action == MediumPlayer().decide(state, seed=4).action


class _TickingClock:
    """A fake CPU clock that advances a fixed step each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_hard_stops_at_its_deadline(positions: list[GameState]) -> None:
    state = _busy(positions, Phase.ORIENT)
    clock = _TickingClock(step=0.05)
    timed = HardPlayer(clock=clock).decide(state, seed=5, budget=Budget(seconds=0.2))
    # The first pass (one rug per die face and orientation, at most 12 nodes) always runs; after
    # it every node reads the clock once, so 0.2 s of 0.05 s ticks allow only a few more.
    assert timed.work <= 12 + 4
    assert timed.work < HardPlayer().decide(state, seed=5, budget=Budget(work=30)).work
    assert timed.action in legal_actions(state)


def test_hard_s_default_budget_stops_at_160_rival_turns_or_0_9_s_of_cpu(
    positions: list[GameState],
) -> None:
    """With no budget given, hard searches until 160 simulated rival turns or 0.9 s of CPU,
    whichever comes first: on a clock that ticks 0.1 s a read the deadline binds."""
    state = _busy(positions, Phase.ORIENT)
    ticking = HardPlayer(clock=_TickingClock(step=0.1)).decide(state, seed=5)
    # The first pass (at most 12 nodes) always runs; then 0.9 s of 0.1 s ticks allow 9 more.
    assert ticking.work <= 12 + 9
    assert ticking == HardPlayer(clock=_TickingClock(step=0.1)).decide(
        state, seed=5, budget=Budget(work=160, seconds=0.9)
    )
    # On a clock that stands still only the work budget can stop it: the whole search runs.
    unhurried = HardPlayer(clock=_TickingClock(step=0.0)).decide(state, seed=5)
    assert 12 + 9 < unhurried.work <= 160
    assert unhurried == HardPlayer().decide(state, seed=5, budget=Budget(work=160))
    assert (DEFAULT_BUDGET.work, DEFAULT_BUDGET.seconds) == (160, 0.9)


def test_hard_s_deadline_is_cpu_time_of_the_deciding_thread() -> None:
    """The 0.9 s cap is "one second of one core": the hard player the bot seats reads the CPU
    time of its own thread, so a worker kept waiting by a busy machine (or by the bot, which
    it gives way to) thinks as far as it would alone, not less, as it would on a wall clock."""
    player = make_player("hard")
    assert isinstance(player, HardPlayer)
    assert player.clock is time.thread_time
    assert HardPlayer().clock is time.thread_time


def test_meter_counts_work_and_time() -> None:
    clock = _TickingClock(step=1.0)
    meter = Meter(Budget(work=3, seconds=10.0), clock)
    assert meter.affords(3)
    assert not meter.affords(4)
    meter.spend(2)
    assert meter.affords(1)
    assert not meter.affords(2)
    assert meter.fits(3)
    assert not meter.fits(4)
    late = Meter(Budget(seconds=2.0), _TickingClock(step=1.0))
    assert late.affords(1)
    assert not late.affords(1)


@pytest.mark.parametrize("bad", [{"work": 0}, {"seconds": 0.0}, {"seconds": -1.0}])
def test_budget_rejects_empty_limits(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must"):
        Budget(**bad)  # type: ignore[arg-type]


def test_medium_work_is_bounded(positions: list[GameState]) -> None:
    """Medium appraises at most every rug after every die face of every orientation."""
    for state in positions:
        decision = MediumPlayer().decide(state, seed=0)
        bound = 3 * 4 * 12 if state.phase is Phase.ORIENT else len(legal_actions(state))
        assert decision.evaluations <= bound
