"""Measure the constants of hard's 2-player leaf: `python -m ai.calibrate --games 8000`.

Plays seeded 2-player games of medium against medium (standard rules) and, at the start of
every turn, notes for the seat about to move its leaf value without the win term
(`ai.evaluation.position_value` with `win_stake` 0), the parts that value is made of
(its lead in dirhams and in visible squares, the coming toll, the potential of its own regions
and of its rival's), the rugs each seat still holds, and how the game ended for that seat
(final margin, win share). From those it prints:

- per count of rugs left: how far the final margin lies above the value (the offset, apart
  for equal hands and for the mover holding one rug more) and how widely it spreads (the
  standard deviation), beside the spread `ai.win_chance` uses;
- the fitted constants of `win_chance` (a straight-line fit of the offset on the difference
  of hands; for the spread, a straight line through left / variance against left, i.e.
  variance = a * left / (1 + left / c));
- how well the chances `win_chance` gives with the constants in use match the games' results,
  by tenths of predicted chance;
- by stage of the game, the least-squares weights of the parts in a fit of the final margin
  (a dirham counts 1 at the end; the leaf weighs a square `square`, the coming toll
  `coming_toll`, the potentials `region` and `rival_region`), then the same weights as
  straight lines in the rugs left, fitted at once over all turn starts: the lines that
  `ai.evaluation.DUEL_LEAF` rounds.

`--games` is at least 2 (the spread is measured across games); a few games make a quick run
whose figures mean little, and a stage whose parts they cannot tell apart (at the start every
seat holds the same dirhams) is reported as not fitted. `--jobs N` plays the games in N
processes; the figures do not depend on it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ai.arena import in_processes, play_seeded
from ai.evaluation import DUEL_RUGS, leaf_weights, position_value
from ai.greedy import GreedyWeights
from ai.medium import MediumPlayer
from ai.prng import mix_seed
from ai.win_chance import spread, win_chance
from engine.cli import run_cli
from engine.model import Phase, Variant
from engine.rules import scores
from engine.state import GameState


def plain_leaf(rugs_left: int) -> GreedyWeights:
    """Hard's 2-player leaf tuning without the win term: the value that `win_chance` reads."""
    return replace(leaf_weights(2, rugs_left), win_stake=0.0)


NO_EXTRAS = GreedyWeights(region=0.0, rival_region=0.0, coming_toll=0.0)
"""A leaf of the scores alone: each tuning below adds one part to it at weight 1."""

PART_TUNINGS = (
    ("coming toll", replace(NO_EXTRAS, coming_toll=1.0)),
    ("own regions", replace(NO_EXTRAS, region=1.0)),
    ("rival regions", replace(NO_EXTRAS, rival_region=1.0)),
)

PART_NAMES = ("dirhams", "squares", *(name for name, _ in PART_TUNINGS))
"""The parts of the leaf, in `TurnStart.parts` order (`leaf_parts`)."""

FIT_NAMES = (*PART_NAMES, "rugs held")
"""What the final margin is regressed on: the parts, then the rugs the seat holds above its
rival (which the leaf does not count)."""

STAGES = ((37, 48), (25, 36), (13, 24), (1, 12))
"""Bands of rugs left (both seats) over which the parts are fitted apart."""


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
    parts: tuple[float, ...] = ()
    """The seat's leads and values named by `PART_NAMES`."""


def play_game(seed: int) -> list[TurnStart]:
    """One medium-against-medium game from `seed` (seeded as the arena seeds its games) and
    the turn starts it went through."""
    player = MediumPlayer()
    noted: list[tuple[int, float, int, int, tuple[float, ...]]] = []

    def decide(state: GameState, seat: int, ai_seed: int) -> str:
        if state.phase is Phase.ORIENT:
            own, rival = state.rugs_in_hand(seat), state.rugs_in_hand(1 - seat)
            value = position_value(state, seat, plain_leaf(own + rival))
            noted.append((seat, value, own, rival, tuple(leaf_parts(state, seat))))
        return player.decide(state, ai_seed).action

    final = play_seeded(2, Variant.STANDARD, seed, decide)
    assert final.outcome is not None
    totals = [score.total for score in scores(final)]
    winners = final.outcome.ranking[0]
    return [
        TurnStart(
            value,
            own,
            rival,
            totals[seat] - totals[1 - seat],
            1.0 / len(winners) if seat in winners else 0.0,
            parts,
        )
        for seat, value, own, rival, parts in noted
    ]


def leaf_parts(state: GameState, seat: int) -> list[float]:
    """The seat's lead in dirhams and in visible squares, then each part of `PART_TUNINGS` as
    the leaf counts it at weight 1 (a running 2-player game)."""
    by_seat = {part.seat: part for part in scores(state)}
    own, rival = by_seat[seat], by_seat[1 - seat]
    lead = position_value(state, seat, NO_EXTRAS)
    return [
        float(own.dirhams - rival.dirhams),
        float(own.visible - rival.visible),
        *(position_value(state, seat, tuning) - lead for _, tuning in PART_TUNINGS),
    ]


def _play_seeds(seeds: Sequence[int]) -> list[TurnStart]:
    return [start for seed in seeds for start in play_game(seed)]


def gather(games: int, seed: int, jobs: int = 1) -> list[TurnStart]:
    """The turn starts of `games` games, game g seeded with mix_seed(seed, g), played in
    `jobs` processes (the same turn starts in the same order whatever `jobs`)."""
    return list(in_processes(_play_seeds, seed_chunks(games, seed, jobs), jobs))


def seed_chunks(games: int, seed: int, jobs: int) -> list[list[int]]:
    """The seeds of `games` games, game g seeded with mix_seed(seed, g), in `jobs` chunks of
    consecutive games (fewer when there are fewer games)."""
    seeds = [mix_seed(seed, game) for game in range(games)]
    step = max(1, -(-games // jobs))
    return [seeds[k : k + step] for k in range(0, games, step)]


@dataclass(frozen=True, slots=True)
class Fit:
    """The constants `ai.win_chance` uses, as measured."""

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


def least_squares(rows: Sequence[Sequence[float]], targets: Sequence[float]) -> list[float]:
    """Coefficients b minimising sum((row . b - target)^2), rows with a trailing 1 for an
    intercept (normal equations, Gaussian elimination with partial pivoting)."""
    size = len(rows[0])
    normal = [[0.0] * (size + 1) for _ in range(size)]
    for row, target in zip(rows, targets, strict=True):
        for i in range(size):
            line = normal[i]
            for j in range(size):
                line[j] += row[i] * row[j]
            line[size] += row[i] * target
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(normal[r][col]))
        normal[col], normal[pivot] = normal[pivot], normal[col]
        if normal[col][col] == 0.0:
            raise ValueError("the parts are linearly dependent over these turn starts")
        for r in range(size):
            if r != col:
                factor = normal[r][col] / normal[col][col]
                normal[r] = [a - factor * b for a, b in zip(normal[r], normal[col], strict=True)]
    return [normal[i][size] / normal[i][i] for i in range(size)]


def part_weights(
    starts: Sequence[TurnStart],
) -> list[tuple[tuple[int, int], list[float] | None]]:
    """Per band of `STAGES` with turn starts enough: the least-squares weight of each of
    `FIT_NAMES` (then the intercept) in a fit of the final margin, or None where the parts
    are linearly dependent over the band's turn starts (a few games: at the start every seat
    holds the same dirhams)."""
    fits: list[tuple[tuple[int, int], list[float] | None]] = []
    for low, high in STAGES:
        band = [s for s in starts if low <= s.own_rugs + s.rival_rugs <= high]
        if len(band) > 4 * len(FIT_NAMES):
            rows = [[*s.parts, float(s.own_rugs - s.rival_rugs), 1.0] for s in band]
            try:
                weights: list[float] | None = least_squares(rows, [s.margin for s in band])
            except ValueError:
                weights = None
            fits.append(((low, high), weights))
    return fits


def staged_weights(starts: Sequence[TurnStart]) -> list[tuple[str, float, float]]:
    """The weight of each part but the dirhams, and of the rugs held, as a straight line in
    the rugs left: (name, value with none left, rise to all `DUEL_RUGS` left), from one
    least-squares fit of the final margin less the dirham lead (a dirham counts 1) over all
    `starts`, each part entered as is and times the share of rugs left (with an intercept
    that may move with the stage too). `DUEL_LEAF` rounds these lines."""
    rows = []
    for s in starts:
        share = (s.own_rugs + s.rival_rugs) / DUEL_RUGS
        xs = [*s.parts[1:], float(s.own_rugs - s.rival_rugs), 1.0]
        rows.append([x * factor for x in xs for factor in (1.0, share)])
    coefficients = least_squares(rows, [s.margin - s.parts[0] for s in starts])
    names = FIT_NAMES[1:]
    return [(name, coefficients[2 * k], coefficients[2 * k + 1]) for k, name in enumerate(names)]


def by_tenths(chances: Sequence[tuple[float, float]], *, count_width: int) -> list[str]:
    """A reliability table of (predicted chance, result) pairs: one line per tenth of
    predicted chance, with how many fell in it, their mean prediction and how often they won."""
    tenths: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for chance, won in chances:
        tenths[min(9, int(chance * 10))].append((chance, won))
    lines = []
    for tenth in sorted(tenths):
        pairs = tenths[tenth]
        predicted = statistics.fmean(p for p, _ in pairs)
        won = statistics.fmean(w for _, w in pairs)
        band = f"{tenth / 10:.1f}-{(tenth + 1) / 10:.1f}"
        lines.append(f"{band}  {len(pairs):{count_width}d}  {predicted:9.3f}  {won:.3f}")
    return lines


def report(starts: Sequence[TurnStart]) -> list[str]:
    """The tables and fitted constants described in the module docstring."""
    lines = ["rugs left  turn starts  offset (equal hands, one more)  spread  spread in use"]
    groups: dict[int, list[TurnStart]] = defaultdict(list)
    for start in starts:
        groups[start.own_rugs + start.rival_rugs].append(start)
    for left in sorted(groups, reverse=True):
        rows = groups[left]
        offsets = [
            [s.margin - s.value for s in rows if s.own_rugs - s.rival_rugs == extra]
            for extra in (0, 1)
        ]
        offset_text = [f"{statistics.fmean(o):+5.2f}" if o else "    -" for o in offsets]
        deviation = statistics.pstdev(s.margin - s.value for s in rows)
        in_use = spread(left) if left else 0.0
        lines.append(
            f"{left:9d}  {len(rows):11d}  {offset_text[0]:>14s} {offset_text[1]:>15s}"
            f"  {deviation:6.2f}  {in_use:13.2f}"
        )
    found = fit(starts)
    lines.append(
        f"fitted: offset {found.base_offset:.2f} + {found.offset_per_rug:.2f} per rug held above"
        f" the rival; spread sqrt({found.spread_scale:.1f} * left / (1 + left / "
        f"{found.spread_saturation:.0f}))"
    )
    lines.append("predicted chance (constants in use)  turn starts  predicted  won")
    chances = [(win_chance(s.value, s.own_rugs, s.rival_rugs), s.win) for s in starts]
    lines.extend(by_tenths(chances, count_width=11))
    lines.append("weights of the parts in a fit of the final margin, by rugs left:")
    lines.append("rugs left  " + "  ".join(f"{name:>13s}" for name in FIT_NAMES))
    for (low, high), weights in part_weights(starts):
        if weights is None:
            shown = "not fitted: too few games to tell the parts apart"
        else:
            shown = "  ".join(f"{weight:13.2f}" for weight in weights[:-1])
        lines.append(f"{low:2d}-{high:2d}      {shown}")
    lines.append("the same as straight lines in the rugs left (a dirham counts 1):")
    lines.append(f"part             none left  all {DUEL_RUGS} left")
    for name, end, rise in staged_weights(starts):
        lines.append(f"{name:15s}  {end:9.3f}  {end + rise:11.3f}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ai.calibrate",
        description="Measure the constants of hard's 2-player leaf on medium self-play.",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=8000,
        help=(
            "games to play, at least 2 (the spread is measured across games); a few games give "
            "a quick run whose figures mean little, and a stage whose parts they cannot tell "
            "apart is reported as not fitted"
        ),
    )
    parser.add_argument("--seed", type=int, default=1, help="game g is seeded mix_seed(SEED, g)")
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes to play in; the figures do not depend on it"
    )
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    for line in report(gather(args.games, args.seed, args.jobs)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
