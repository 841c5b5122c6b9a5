"""The rating method: Weng and Lin's Bayesian approximation with the Plackett-Luce model (the
`openskill` library), and the one number players read.

A player's skill is a belief: a normal distribution of mean `mu` and deviation `sigma`. Everyone
starts at mu 25, sigma 25/3 (openskill's defaults). After a game every seat's belief moves by
how its place compares with what the beliefs expected: beating stronger players moves it more,
and a seat the model knows little about (a large sigma) moves most. Places come from the game's
final ranking (1 is first; seats on the same place tied; a seat out of the game ranks after
those still in, the latest out first), so two to four seats, ties and eliminations all fit.

A tie is rated as every order of the tied seats being equally likely: the game is rated once
per order and the results averaged, so a last place behind tied seats moves as a last place
(openskill's own ties let it off lightly: docs/ratings.md gives the numbers).

What is shown is a conservative estimate, mu - 3 sigma (the skill the player is almost surely
above), on a familiar scale: POINTS_START + POINTS_PER_SKILL * (mu - 3 sigma), which is 1,500
for a newcomer (docs/ratings.md says what a gap in points means). The estimate climbs while
sigma shrinks, so a rating is called provisional until PROVISIONAL_GAMES rated games.

Everything here is a pure function of its inputs: the same games in the same order give the
same floating-point numbers, which is what lets the ratings be rebuilt exactly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MU = 25.0
"""A newcomer's mean skill (openskill's default)."""
SIGMA = 25.0 / 3.0
"""A newcomer's uncertainty (openskill's default: mu / 3)."""
POINTS_START = 1500
"""The points of a newcomer: mu - 3 sigma is 0 at the start."""
POINTS_PER_SKILL = 25
"""Points per unit of skill (mu); docs/ratings.md says what a gap in points means."""
PROVISIONAL_GAMES = 10
"""A rating with fewer rated games than this is provisional."""

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True, slots=True)
class Skill:
    """A belief about a player's skill: mean and deviation."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def points(self) -> int:
        """The number shown: the conservative estimate on the familiar scale."""
        return points(self.mu, self.sigma)


START = Skill()
"""Every player's skill before their first rated game."""


def points(mu: float, sigma: float) -> int:
    """POINTS_START + POINTS_PER_SKILL * (mu - 3 sigma), rounded to a whole number."""
    return round(POINTS_START + POINTS_PER_SKILL * (mu - 3.0 * sigma))


def rate(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """Each entry's skill after a game where entry i, of skill `skills[i]`, finished at
    `places[i]` (1 first; equal places are a tie). Needs two entries or more."""
    if len(skills) != len(places) or len(skills) < 2:
        raise ValueError("a rated game needs two entries or more, each with its place")
    orders = _strict_orders(places)
    if len(orders) == 1:
        return _rate_once(skills, orders[0])
    outcomes = [_rate_once(skills, order) for order in orders]
    return [
        Skill(
            math.fsum(outcome[entry].mu for outcome in outcomes) / len(outcomes),
            math.fsum(outcome[entry].sigma for outcome in outcomes) / len(outcomes),
        )
        for entry in range(len(skills))
    ]


def _strict_orders(places: Sequence[int]) -> list[list[int]]:
    """Every way to break the ties of `places` into a strict order (ranks 1, 2, 3...): one
    per ordering of each group of tied entries, in a fixed order."""
    groups = [
        [entry for entry, place in enumerate(places) if place == shared]
        for shared in sorted(set(places))
    ]
    orders = []
    for arrangement in itertools.product(*(itertools.permutations(group) for group in groups)):
        ranks = [0] * len(places)
        for rank, entry in enumerate(itertools.chain.from_iterable(arrangement), start=1):
            ranks[entry] = rank
        orders.append(ranks)
    return orders


def _rate_once(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    teams = [[_MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in skills]
    rated = _MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]
