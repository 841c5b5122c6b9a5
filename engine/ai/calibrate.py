"""Measure the constants of `engine.ai.win_chance`: `python -m engine.ai.calibrate --games 8000`.

Plays seeded 2-player games of medium against medium (standard rules) and, at the start of
every turn, notes for the seat about to move its leaf value without the win term
(`engine.ai.evaluation.position_value` with `win_stake` 0), the rugs each seat still holds, and
how the game ended for that seat (final margin, win share). From those it prints, per count of
rugs left: how far the final margin lies above the value (the offset, apart for equal hands and
for the mover holding one rug more) and how widely it spreads (the standard deviation); then
the fitted constants (a straight-line fit of the offset on the difference of hands; for the
spread, a straight line through left / variance against left, i.e. variance = a * left /
(1 + left / c)); then how well the chances `win_chance` gives with the constants in use match
the games' results, by tenths of predicted chance.

`--jobs N` plays the games in N processes; the figures do not depend on it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.ai.evaluation import leaf_weights, position_value
from engine.ai.medium import MediumPlayer
from engine.ai.prng import mix_seed
from engine.ai.win_chance import spread, win_chance
from engine.dealing import deal, new_game
from engine.model import Phase, Variant, seat_color_indices
from engine.rules import CHANCE, DIE_FACES, apply, current_player, scores
from engine.state import GameState

PLAIN_LEAF = replace(leaf_weights(2), win_stake=0.0)
"""Hard's 2-player leaf tuning without the win term: the value that `win_chance` reads."""


@dataclass(frozen=True, slots=True)
class TurnStart:
    """One start of a turn, seen from the seat about to move, and how its game ended."""

    value: float
    own_rugs: int
    rival_rugs: int
    margin: float
    """The seat's final total less its rival's."""
    win: float
    """1 for a win, 0 for a loss, 1/2 for a shared first place."""


def play_game(seed: int) -> list[TurnStart]:
    """One medium-against-medium game from `seed` and the turn starts it went through."""
    state = new_game(deal(2, Variant.STANDARD, random.Random(mix_seed(seed, 1))))
    dice = random.Random(mix_seed(seed, 2))
    player = MediumPlayer()
    noted: list[tuple[int, float, int, int]] = []
    while (seat := current_player(state)) is not None:
        if seat == CHANCE:
            action = f"D{DIE_FACES[dice.randrange(len(DIE_FACES))]}"
        else:
            if state.phase is Phase.ORIENT:
                hands = _hands(state)
                value = position_value(state, seat, PLAIN_LEAF)
                noted.append((seat, value, hands[seat], hands[1 - seat]))
            action = player.decide(state, mix_seed(seed, 3, len(state.history))).action
        state = apply(state, action)[0]
    assert state.outcome is not None
    totals = [score.total for score in scores(state)]
    winners = state.outcome.ranking[0]
    return [
        TurnStart(
            value,
            own,
            rival,
            totals[seat] - totals[1 - seat],
            1.0 / len(winners) if seat in winners else 0.0,
        )
        for seat, value, own, rival in noted
    ]


def _hands(state: GameState) -> list[int]:
    """The rugs each seat still holds (the stock of its colours)."""
    return [
        sum(state.stock[color] for color in seat_color_indices(state.players, seat))
        for seat in range(state.players)
    ]


def _play_seeds(seeds: Sequence[int]) -> list[TurnStart]:
    return [start for seed in seeds for start in play_game(seed)]


def gather(games: int, seed: int, jobs: int = 1) -> list[TurnStart]:
    """The turn starts of `games` games, game g seeded with mix_seed(seed, g)."""
    seeds = [mix_seed(seed, game) for game in range(games)]
    if jobs <= 1:
        return _play_seeds(seeds)
    from concurrent.futures import ProcessPoolExecutor  # only here: it loads multiprocessing

    chunks = [seeds[k::jobs] for k in range(jobs)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return [start for part in pool.map(_play_seeds, chunks) for start in part]


@dataclass(frozen=True, slots=True)
class Fit:
    """The constants `engine.ai.win_chance` uses, as measured."""

    base_offset: float
    offset_per_rug: float
    spread_scale: float
    spread_saturation: float


def fit(starts: Sequence[TurnStart]) -> Fit:
    """Least-squares fits of the offset (on the difference of hands) and of the spread (see
    the module docstring) over `starts`, which must cover at least two counts of rugs left."""
    residuals = [s.margin - s.value for s in starts]
    offset_per_rug, base_offset = statistics.linear_regression(
        [float(s.own_rugs - s.rival_rugs) for s in starts], residuals
    )
    by_left: dict[int, list[float]] = defaultdict(list)
    for start, residual in zip(starts, residuals, strict=True):
        left = start.own_rugs + start.rival_rugs
        expected = base_offset + offset_per_rug * (start.own_rugs - start.rival_rugs)
        by_left[left].append(residual - expected)
    lefts = sorted(left for left, rows in by_left.items() if left > 0 and len(rows) > 1)
    ratios = [left / statistics.fmean(r * r for r in by_left[left]) for left in lefts]
    slope, intercept = statistics.linear_regression([float(left) for left in lefts], ratios)
    return Fit(base_offset, offset_per_rug, 1.0 / intercept, intercept / slope)


def report(starts: Sequence[TurnStart]) -> list[str]:
    """The tables and fitted constants described in the module docstring."""
    lines = ["rugs left  turn starts  offset (equal hands, one more)  spread  fitted spread"]
    groups: dict[int, list[TurnStart]] = defaultdict(list)
    for start in starts:
        groups[start.own_rugs + start.rival_rugs].append(start)
    for left in sorted(groups, reverse=True):
        rows = groups[left]
        offsets = [
            [s.margin - s.value for s in rows if s.own_rugs - s.rival_rugs == extra]
            for extra in (0, 1)
        ]
        shown = [f"{statistics.fmean(o):+5.2f}" if o else "    -" for o in offsets]
        deviation = statistics.pstdev(s.margin - s.value for s in rows)
        fitted = spread(left) if left else 0.0
        lines.append(
            f"{left:9d}  {len(rows):11d}  {shown[0]:>14s} {shown[1]:>15s}  {deviation:6.2f}"
            f"  {fitted:13.2f}"
        )
    found = fit(starts)
    lines.append(
        f"fitted: offset {found.base_offset:.2f} + {found.offset_per_rug:.2f} per rug held above"
        f" the rival; spread sqrt({found.spread_scale:.1f} * left / (1 + left / "
        f"{found.spread_saturation:.0f}))"
    )
    lines.append("predicted chance (constants in use)  turn starts  predicted  won")
    tenths: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for s in starts:
        chance = win_chance(s.value, s.own_rugs, s.rival_rugs)
        tenths[min(9, int(chance * 10))].append((chance, s.win))
    for tenth in sorted(tenths):
        pairs = tenths[tenth]
        predicted = statistics.fmean(p for p, _ in pairs)
        won = statistics.fmean(w for _, w in pairs)
        band = f"{tenth / 10:.1f}-{(tenth + 1) / 10:.1f}"
        lines.append(f"{band}  {len(pairs):11d}  {predicted:9.3f}  {won:.3f}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.ai.calibrate",
        description="Measure the win-chance constants from medium-against-medium games.",
    )
    parser.add_argument("--games", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    for line in report(gather(args.games, args.seed, args.jobs)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
