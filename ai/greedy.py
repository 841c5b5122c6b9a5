"""The one-turn appraisal behind `medium` (and hard's candidate ordering).

`Greedy(s, seat)` values the seat's options on a FastState over the exact die distribution:

- a toll paid or received counts at its size, for the payer and the payee (R8), and a seat
  that cannot pay is out (R9): a large loss for the mover, a large gain against a rival;
- laying a rug gains the squares it newly shows in the mover's colours and takes away those
  it covers of rivals still in (R11 counts visible squares);
- region growth: the sum of squared region sizes of each colour, times how many rival turns
  are left, estimates future tolls (a region of size n is hit with probability ~ n/49 and then
  pays n); merging own regions raises it, splitting a rival's lowers theirs;
- the next mover's reply: which way they will turn to pay least (standard rules) or which way
  we turn Assam for them (variant R12), and the tolls they then expect to pay us;
- the risk of being covered: squares of ours inside the reach of the next mover's rug.

A point for a rival counts -1/(n-1) of a point for the seat itself (see `tactics.weights`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ai.player import best_indices
from ai.tactics import (
    LANDINGS,
    ORIENT_TURNS,
    ROTATE_TURNS,
    ZONE,
    lay,
    legal_placements,
    next_color,
    next_mover,
    own_mask,
    payees,
    toll,
    unlay,
    weights,
)
from engine.board import BIT, NEIGHBOURS, SQUARES, region_mask
from engine.model import owner_of
from engine.playout import FastState

NEAR: tuple[int, ...] = tuple(
    BIT[sq] | sum(BIT[n] for n in NEIGHBOURS[sq]) for sq in range(SQUARES)
)
"""NEAR[square]: the square and its orthogonal neighbours, as a mask."""


@dataclass(frozen=True, slots=True)
class GreedyWeights:
    """Tuning of the appraisal (defaults measured in the arena)."""

    region: float = 0.5
    """Weight of the squared-region-size potential, per rival turn left, per square."""
    horizon: int = 12
    """Rival turns counted at most for the potential."""
    cover_risk: float = 0.5
    """Loss per own square inside the next mover's reach (at most two per landing)."""
    elimination: float = 40.0
    """Value of a seat going out (R9), on top of the dirhams it pays."""
    rival_region: float | None = None
    """Hard's leaf only (`ai.evaluation`): the potential weight of the rivals' colours
    when it differs from `region` (None: the same)."""
    win_stake: float = 0.0
    """Hard's 2-player leaf only: the value of a win, added times the chance of winning
    (`ai.win_chance`) to the running game's estimated margin (0: margin alone)."""
    square: float = 1.0
    """Hard's leaf only: what a visible square is worth, in points (a dirham is worth 1)."""
    coming_toll: float = 1.0
    """Hard's leaf only: the weight of the toll the seat to move expects on its coming roll."""


DEFAULT_WEIGHTS = GreedyWeights()


def _regions_square_sum(mask: int, seeds: int) -> int:
    """Sum of squared sizes of the distinct regions of `mask` that meet `seeds`."""
    total = 0
    todo = mask & seeds
    while todo:
        square = (todo & -todo).bit_length() - 1
        found = region_mask(mask, square)
        total += found.bit_count() ** 2
        todo &= ~found
    return total


def _region_table(s: FastState) -> tuple[list[int], list[int]]:
    """Per square: the mask and size of its region on the board as it is (0 when empty)."""
    region = [0] * SQUARES
    size = [0] * SQUARES
    for mask in s.masks:
        todo = mask
        while todo:
            found = region_mask(mask, (todo & -todo).bit_length() - 1)
            count = found.bit_count()
            todo &= ~found
            rest = found
            while rest:
                low = rest & -rest
                member = low.bit_length() - 1
                region[member] = found
                size[member] = count
                rest ^= low
    return region, size


class Greedy:
    """Appraises orientations, placements and rotations for `seat` on `s` (left unchanged)."""

    def __init__(self, s: FastState, seat: int, tuning: GreedyWeights = DEFAULT_WEIGHTS) -> None:
        self.s = s
        self.seat = seat
        self.tuning = tuning
        self.weight = weights(s, seat)
        self.payee_of = payees(s)
        self.owner = tuple(owner_of(s.players, color) for color in range(4))
        self.color = next_color(s, seat)
        self.reply_seat = next_mover(s, seat)
        rival_turns = sum(
            s.hand[other] for other in range(s.players) if other != seat and s.alive[other]
        )
        self.potential = tuning.region * min(rival_turns, tuning.horizon) / SQUARES
        self.evaluations = 0
        self.base_region, self.base_size = _region_table(s)
        self.best_at: dict[int, tuple[float, tuple[int, ...]]] = {}
        self.dirty = 0
        """Squares whose regions may differ from the base tables (around a rug being tried)."""

    # -- tolls ---------------------------------------------------------------------------

    def toll_value(self, payer: int, payee: int, amount: int) -> float:
        """What `payer` owing `amount` to `payee` is worth to our seat (R8, R9)."""
        if payee < 0 or amount == 0:
            return 0.0
        purse = self.s.dirhams[payer]
        paid = min(amount, purse)
        value = (self.weight[payee] - self.weight[payer]) * paid
        if amount > purse:
            value -= self.weight[payer] * self.tuning.elimination
        return value

    def reply_value(self, pose: int, mine: int | None = None) -> tuple[float, float]:
        """(cost to the next mover, value to us) of the next mover rolling from `pose`.

        `mine`: the squares showing our colours (computed when not given).
        """
        s = self.s
        rival = self.reply_seat
        if rival < 0:
            return 0.0, 0.0
        if mine is None:
            mine = own_mask(s, self.seat)
        purse = s.dirhams[rival]
        colors, masks = s.colors, s.masks
        payee_of, weight, dirty = self.payee_of, self.weight, self.dirty
        base_region, base_size = self.base_region, self.base_size
        w_rival = weight[rival]
        elimination = self.tuning.elimination
        risk = self.tuning.cover_risk
        cost = value = 0.0
        for landing, odds in LANDINGS[pose]:
            square = landing >> 2
            color = colors[square]
            if color >= 0:
                payee = payee_of[color]
                if payee >= 0 and payee != rival:
                    if (base_region[square] | BIT[square]) & dirty:
                        amount = region_mask(masks[color], square).bit_count()
                    else:
                        amount = base_size[square]
                    if amount > purse:  # the rival pays all, is out and lays no rug (R9)
                        cost += odds * (amount + elimination)
                        value += odds * ((weight[payee] - w_rival) * purse - w_rival * elimination)
                        continue
                    cost += odds * amount
                    value += odds * (weight[payee] - w_rival) * amount
            exposed = (mine & ZONE[square]).bit_count()
            if exposed:
                value -= odds * risk * (2 if exposed > 1 else 1)
        return cost, value

    def handover_value(
        self, square: int, facing: int, rotate_after: bool, mine: int | None = None
    ) -> tuple[float, int]:
        """Value of leaving Assam on `square` after our rug, and the best rotation (variant).

        Standard rules: the next mover turns the way that costs them least. Variant (R12): we
        turn Assam, left (0) or right (1), to the facing that is best for us.
        """
        if self.reply_seat < 0:
            return 0.0, 0
        if rotate_after:
            options = [square * 4 + ((facing + turn) & 3) for turn in ROTATE_TURNS]
            values = [self.reply_value(pose, mine)[1] for pose in options]
            best = 0 if values[0] >= values[1] else 1
            return values[best], best
        replies = [
            self.reply_value(square * 4 + ((facing + turn) & 3), mine) for turn in ORIENT_TURNS
        ]
        return min(replies)[1], 0

    # -- rugs ----------------------------------------------------------------------------

    def placement_value(self, square: int, facing: int, a: int, b: int) -> float:
        """Value of laying our next rug on (a, b) with Assam on `square`, then handing over."""
        s = self.s
        self.evaluations += 1
        color = self.color
        seat = self.seat
        weight = self.weight
        colors, masks = s.colors, s.masks
        gain = 0.0
        covered: list[tuple[int, int]] = []
        for q in (a, b):
            old = colors[q]
            if old < 0:
                gain += 1.0
            elif self.owner[old] != seat:
                gain += 1.0
                payee = self.payee_of[old]
                if payee >= 0:
                    gain -= weight[payee]
                    covered.append((old, q))
        potential = self.potential
        reach = NEAR[a] | NEAR[b]
        before = after = 0.0
        if potential:
            before = _regions_square_sum(masks[color], reach) * weight[seat]
            for old, q in covered:
                before += region_mask(masks[old], q).bit_count() ** 2 * weight[self.payee_of[old]]
        saved = lay(s, a, b, color)
        if potential:
            after = region_mask(masks[color], a).bit_count() ** 2 * weight[seat]
            for old, q in covered:
                after += _regions_square_sum(masks[old], NEAR[q]) * weight[self.payee_of[old]]
        self.dirty = reach
        handover, _ = self.handover_value(square, facing, s.rotate_after, own_mask(s, seat))
        self.dirty = 0
        unlay(s, a, b, saved)
        return gain + potential * (after - before) + handover

    def best_placements(self, square: int, facing: int) -> tuple[float, tuple[int, ...]]:
        """(value, indices) of the best legal placements with Assam on `square` facing
        `facing`: every placement whose value equals the best (`best_indices`; medium picks
        among them with its seeded generator), as indices into `legal_placements` order.
        Remembered per landing."""
        pose = square * 4 + facing
        known = self.best_at.get(pose)
        if known is None:
            options = legal_placements(self.s, square)
            values = [self.placement_value(square, facing, a, b) for a, b in options]
            best = best_indices(values)
            known = self.best_at[pose] = (values[best[0]], tuple(best))
        return known

    # -- orientation ---------------------------------------------------------------------

    def orientation_value(self, pose: int) -> float:
        """Expected value of rolling from `pose`: the toll we pay, then our best rug."""
        return sum(odds * self.landing_value(landing) for landing, odds in LANDINGS[pose])

    def landing_value(self, landing: int) -> float:
        """Value of our roll ending on `landing` (a pose): the toll we pay there (R8, R9), then
        the best rug we can lay from there (none if the toll puts us out or we hold no rug)."""
        s = self.s
        seat = self.seat
        square = landing >> 2
        payee, amount = toll(s, self.payee_of, seat, square)
        value = self.toll_value(seat, payee, amount)
        if amount <= s.dirhams[seat] and self.color >= 0:
            value += self.best_placements(square, landing & 3)[0]
        return value
