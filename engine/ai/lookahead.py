"""Our coming turn, searched one step past a leaf of hard's two-turn search (2 players).

At a leaf of `engine.ai.hard`'s search the next mover has played and we move next.
`next_turn_value(state, seat)` searches that turn exactly instead of estimating it: every way
we may turn Assam (standard rules; in the variant R12 we roll in Assam's facing), every die
face with its probability (R5), the toll we pay (R8, R9), every legal rug of the colour we
lay next (R10) and, in the variant, both ways we may rotate Assam after it (R12). Each end is
scored as `engine.ai.evaluation.position_value` scores a position where the rival moves next:

- the scores (R11) after our toll and our rug;
- the region potential, the mover's colours (now the rival's) weighted `region` and ours
  `rival_region`, as at hard's leaves where the mover is us;
- the toll the rival expects on its coming roll (it turns the way that costs it least; in
  the variant we rotate Assam the way that is best for us);
- a game that our toll or our rug ends counts as decided (`DECIDED`, as in position_value).

We take the best rug for every landing and the best way of turning Assam, as we will when we
play. Nothing is built per rug: the rug is laid on a FastState and lifted again, and only
what a rug changes is recomputed (the squared region sizes of the colours it touches, the
region sizes near it), so a leaf costs about a millisecond or two.
"""

from __future__ import annotations

from engine.ai.evaluation import DECIDED, leaf_weights, position_value
from engine.ai.greedy import NEAR, GreedyWeights, region_table, regions_square_sum
from engine.ai.tactics import (
    LANDINGS,
    ORIENT_TURNS,
    ROTATE_TURNS,
    lay,
    legal_placements,
    next_color,
    payees,
    toll,
    unlay,
)
from engine.board import BIT, SQUARES, region_mask
from engine.model import Phase, owner_of
from engine.playout import FastState, from_state
from engine.state import GameState

ALL_SQUARES = (1 << SQUARES) - 1


def searchable(state: GameState, seat: int) -> bool:
    """True if `state` is a running 2-player game where `seat` rolls next (and has a rug)."""
    if state.config.players != 2 or state.outcome is not None or state.to_move != seat:
        return False
    if state.phase not in (Phase.ORIENT, Phase.ROLL):
        return False
    return not state.is_eliminated(seat) and not state.is_eliminated(1 - seat)


def next_turn_value(state: GameState, seat: int, tuning: GreedyWeights | None = None) -> float:
    """The value for `seat` of `state` after searching its coming turn (see the module).

    Where there is no such turn to search (more than 2 players, a decided game, the rival to
    move, no rug left to lay) this is `position_value(state, seat, tuning)`.
    """
    if tuning is None:
        tuning = leaf_weights(state.config.players)
    if not searchable(state, seat):
        return position_value(state, seat, tuning)
    s = from_state(state)
    if next_color(s, seat) < 0:
        return position_value(state, seat, tuning)
    return _NextTurn(s, seat, tuning).value()


class _NextTurn:
    """The search of one coming turn of `seat` on `s` (restored after every rug)."""

    def __init__(self, s: FastState, seat: int, tuning: GreedyWeights) -> None:
        self.s = s
        self.seat = seat
        self.rival = 1 - seat
        self.tuning = tuning
        self.color = next_color(s, seat)
        self.payee_of = payees(s)
        owners = [owner_of(2, color) for color in range(4)]
        self.sign = [1 if owner == seat else -1 for owner in owners]
        hands = list(s.hand)
        hands[seat] -= 1
        left = sum(hands)
        self.game_ends = left == 0
        self.rival_rolls = hands[self.rival] > 0
        mover = self.rival if self.rival_rolls else seat
        mover_region = tuning.region
        other_region = tuning.region if tuning.rival_region is None else tuning.rival_region
        self.factor = []
        for color, owner in enumerate(owners):
            horizon = min(left - hands[owner], tuning.horizon)
            region = mover_region if owner == mover else other_region
            self.factor.append(self.sign[color] * region * max(horizon, 0) / SQUARES)
        self.square_sums = [regions_square_sum(mask, ALL_SQUARES) for mask in s.masks]
        self.base_region, self.base_size = region_table(s)
        self.landings: dict[int, float] = {}

    def value(self) -> float:
        """Our best way of rolling: the expected value over the die of our best rug."""
        s = self.s
        if s.rotate_after:
            poses = [s.assam * 4 + s.facing]
        else:
            poses = [s.assam * 4 + ((s.facing + turn) & 3) for turn in ORIENT_TURNS]
        return max(self._roll(pose) for pose in poses)

    def _roll(self, pose: int) -> float:
        total = 0.0
        for landing, odds in LANDINGS[pose]:
            known = self.landings.get(landing)
            if known is None:
                known = self.landings[landing] = self._landing(landing)
            total += odds * known
        return total

    def _landing(self, landing: int) -> float:
        """Value of Assam ending our roll on `landing` (pose): the toll, then our best rug."""
        s, seat, rival, color = self.s, self.seat, self.rival, self.color
        square = landing >> 2
        _, amount = toll(s, self.payee_of, seat, square)
        purse, rival_purse = s.dirhams[seat], s.dirhams[rival]
        colors, masks, sign, factor = s.colors, s.masks, self.sign, self.factor
        shown = sum(sign[c] * masks[c].bit_count() for c in range(4))
        if amount > purse:  # we pay all we have and are out: the rival wins (R9)
            return shown - rival_purse - purse - DECIDED
        ours, theirs = purse - amount, rival_purse + amount
        best = float("-inf")
        for a, b in legal_placements(s, square):
            old_a, old_b = colors[a], colors[b]
            # R11: our rug shows on both squares, hiding whatever showed there
            margin = ours - theirs + shown + 2 * sign[color]
            margin -= (sign[old_a] if old_a >= 0 else 0) + (sign[old_b] if old_b >= 0 else 0)
            if self.game_ends:
                best = max(best, margin + _decided(margin, ours - theirs))
                continue
            value = float(margin)
            saved = lay(s, a, b, color)
            for c in range(4):
                if factor[c]:
                    if c in (color, old_a, old_b):
                        value += factor[c] * regions_square_sum(masks[c], ALL_SQUARES)
                    else:
                        value += factor[c] * self.square_sums[c]
            if self.rival_rolls:
                value += self._rival_roll(landing, NEAR[a] | NEAR[b], theirs)
            unlay(s, a, b, saved)
            best = max(best, value)
        return best

    def _rival_roll(self, landing: int, dirty: int, purse: int) -> float:
        """Value for us of the rival's coming roll with Assam left on `landing`."""
        base = (landing >> 2) * 4
        facing = landing & 3
        if self.s.rotate_after:  # we turn Assam for the rival, the way best for us (R12)
            return max(
                self._toll_from(base + ((facing + turn) & 3), dirty, purse)[1]
                for turn in ROTATE_TURNS
            )
        # standard rules: the rival turns the way that costs it least (R4); ties: the first
        seat, elimination = self.seat, self.tuning.elimination
        colors, masks, payee_of = self.s.colors, self.s.masks, self.payee_of
        base_region, base_size = self.base_region, self.base_size
        best_cost = best_value = 0.0
        for k, turn in enumerate(ORIENT_TURNS):
            cost = value = 0.0
            for end, odds in LANDINGS[base + ((facing + turn) & 3)]:
                square = end >> 2
                color = colors[square]
                if color < 0 or payee_of[color] != seat:
                    continue
                if (base_region[square] | BIT[square]) & dirty:
                    amount = region_mask(masks[color], square).bit_count()
                else:
                    amount = base_size[square]
                cost += odds * amount
                value += odds * 2 * (amount if amount < purse else purse)
                if amount > purse:
                    cost += odds * elimination
                    value += odds * elimination
            if k == 0 or cost < best_cost:
                best_cost, best_value = cost, value
        return best_value

    def _toll_from(self, pose: int, dirty: int, purse: int) -> tuple[float, float]:
        """(expected cost to the rival, value to us) of the rival rolling from `pose`."""
        s, seat = self.s, self.seat
        colors, masks, payee_of = s.colors, s.masks, self.payee_of
        elimination = self.tuning.elimination
        cost = value = 0.0
        for landing, odds in LANDINGS[pose]:
            square = landing >> 2
            color = colors[square]
            if color < 0 or payee_of[color] != seat:
                continue
            if (self.base_region[square] | BIT[square]) & dirty:
                amount = region_mask(masks[color], square).bit_count()
            else:
                amount = self.base_size[square]
            cost += odds * amount
            value += odds * 2 * min(amount, purse)  # our point and the rival's lost point
            if amount > purse:
                cost += odds * elimination
                value += odds * elimination
        return cost, value


def _decided(margin: int, dirham_margin: int) -> float:
    """What a finished 2-player game adds to its margin: a win, a loss or a shared first (R11:
    equal totals are decided by dirhams, then shared)."""
    if margin == 0:
        margin = dirham_margin
        if margin == 0:
            return DECIDED / 2
    return DECIDED if margin > 0 else -DECIDED
