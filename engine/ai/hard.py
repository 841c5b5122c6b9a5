"""Hard: Monte Carlo search over whole games, spending the whole budget.

1. Candidates: every legal action, valued by medium's one-turn appraisal; at PLACE only the
   best `max_candidates` rugs go on (a rug medium ranks low is rarely right).
2. Each candidate is applied with the checked engine (`engine.rules.apply`), and games are
   played out from there to the end with `engine.playout.run` and the medium-lite policy of
   `engine.ai.policy`. Each playout round uses one seed for every candidate (common random
   numbers: the same dice, the same re-shuffled hidden piles, the same policy noise), so
   candidates are compared on equal luck.
3. Successive halving: the playout budget is split into rounds; after each round the worse
   half of the candidates is dropped, so most playouts go to the close contenders.
4. A playout scores its share of first place (a shared win counts 1/k for k winners) plus a
   small bonus for the score margin over the best rival, which separates candidates that win
   or lose alike. The candidate with the best mean among the last survivors is played.

Hidden information stays hidden: below the revealed top rug (R2) the 2-player piles are
re-shuffled in every playout. With a work budget (`Budget.playouts`) the decision depends only
on state and seed; `Budget.seconds` is a safety cap checked between playouts.
"""

from __future__ import annotations

import math
import time

from engine.ai.budget import Budget, Clock, Meter
from engine.ai.medium import appraise
from engine.ai.player import Decision, best_index, check_decision_node
from engine.ai.policy import lite_policy
from engine.ai.prng import SplitMix64
from engine.playout import PLACE, ROLL, FastState, from_state, run
from engine.rules import apply
from engine.state import GameState

DEFAULT_BUDGET = Budget(playouts=240, seconds=0.95)
"""Hard's default: 240 playouts, never more than 0.95 s (checked between playouts)."""

MARGIN_WEIGHT = 0.01
"""Value of one point of score margin over the best rival, next to a whole win (1.0)."""
MARGIN_CAP = 30


def playout_value(s: FastState, seat: int) -> float:
    """How good a finished playout is for `seat`: share of first place plus a margin bonus."""
    result = s.result()
    winners = result.winners
    share = 1.0 / len(winners) if seat in winners else 0.0
    totals = result.totals
    rival = max(totals[other] for other in range(s.players) if other != seat)
    margin = max(-MARGIN_CAP, min(MARGIN_CAP, totals[seat] - rival))
    return share + MARGIN_WEIGHT * margin


def hide_piles(s: FastState, seat: int, rng: SplitMix64) -> None:
    """Re-shuffle what `seat` cannot know of the 2-player piles (R2), in place.

    Only the top rug of the mover's own pile is revealed, and only during its turn before it
    lays that rug; everything else is shuffled (piles keep their top LAST in a FastState).
    """
    if s.piles is None:
        return
    for owner, pile in enumerate(s.piles):
        if owner == seat and s.to_move == seat and s.phase in (ROLL, PLACE) and pile:
            hidden = pile[:-1]
            rng.shuffle(hidden)
            pile[:-1] = hidden
        else:
            rng.shuffle(pile)


class HardPlayer:
    """The `hard` level: Monte Carlo playouts with successive halving over candidates."""

    level = "hard"

    def __init__(self, max_candidates: int = 6, clock: Clock = time.perf_counter) -> None:
        self.max_candidates = max_candidates
        self.clock = clock

    def decide(self, state: GameState, seed: int, budget: Budget | None = None) -> Decision:
        seat = check_decision_node(state)
        if budget is None or (budget.playouts is None and budget.seconds is None):
            budget = DEFAULT_BUDGET
        meter = Meter(budget, self.clock)
        actions, values, evaluations = appraise(state)
        order = sorted(range(len(actions)), key=lambda i: -values[i])
        order = order[: self.max_candidates]
        rng = SplitMix64(seed)
        if len(order) == 1:
            return Decision(actions[order[0]], self.level, evaluations=evaluations)
        starts = [from_state(apply(state, actions[i])[0]) for i in order]
        totals, counts = self._search(starts, seat, rng, meter)
        most = max(counts)
        finalists = [
            totals[k] / counts[k] if counts[k] == most else -math.inf for k in range(len(order))
        ]
        choice = order[best_index(finalists, rng)]
        return Decision(
            actions[choice],
            self.level,
            playouts=meter.used,
            evaluations=evaluations,
            values=tuple(
                (actions[order[k]], totals[k] / counts[k] if counts[k] else -math.inf)
                for k in range(len(order))
            ),
        )

    def _search(
        self, starts: list[FastState], seat: int, rng: SplitMix64, meter: Meter
    ) -> tuple[list[float], list[int]]:
        """Successive halving: ceil(log2 k) rounds, each with an equal share of the budget
        spread over the surviving candidates; the worse half is dropped after each round."""
        totals = [0.0] * len(starts)
        counts = [0] * len(starts)
        survivors = list(range(len(starts)))
        rounds = math.ceil(math.log2(len(starts)))
        for done in range(rounds):
            if meter.capacity() is None:
                self._batch(starts, survivors, seat, rng, meter, totals, counts)
            capacity = meter.capacity()
            assert capacity is not None
            share = (capacity - meter.used) // (rounds - done)
            for _ in range(share // len(survivors)):
                self._batch(starts, survivors, seat, rng, meter, totals, counts)
            if meter.exhausted():
                break
            survivors.sort(key=lambda k: -totals[k] / max(1, counts[k]))
            survivors = survivors[: (len(survivors) + 1) // 2]
        if not any(counts):
            self._batch(starts, survivors[:1], seat, rng, meter, totals, counts)
        return totals, counts

    def _batch(
        self,
        starts: list[FastState],
        survivors: list[int],
        seat: int,
        rng: SplitMix64,
        meter: Meter,
        totals: list[float],
        counts: list[int],
    ) -> None:
        """One playout per surviving candidate, all with the same seed (common random numbers)."""
        round_seed = rng.next64()
        for k in survivors:
            if meter.exhausted() and any(counts):
                return
            totals[k] += self._playout(starts[k], seat, round_seed)
            counts[k] += 1
            meter.spend()

    @staticmethod
    def _playout(start: FastState, seat: int, seed: int) -> float:
        rng = SplitMix64(seed)
        s = start.copy()
        hide_piles(s, seat, rng)
        run(s, rng, lite_policy(rng))
        return playout_value(s, seat)
