"""A tournament's standings: points per game, tie-breaks and ranks, as pure functions of its
players and of its tables' results (docs/tournaments.md says the same in words).

- Points: a game gives each player one point for every opponent who finished below them and
  half a point for every opponent who shared their place, AI seats included (at a 2-seat table:
  1 for a win, ½ for a shared win, 0 for a loss). A game that did not finish (aborted by a
  moderator, or abandoned) gives nobody a point. Points are kept in halves (`half_points`), so
  sums stay exact.
- Tie-breaks, in order: Buchholz (the points of every human opponent met, once per game
  together, aborted games included), then the total of the player's game scores (dirhams plus
  visible squares), then their dirhams; players equal on all of these share a rank. Listing
  order among them follows the seeding (the order drawn at the start).
- A player who withdrew keeps their points and their place among the others, tie-breaks
  unchanged; they have no game left to play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bot.services.pairing import Seat


@dataclass(frozen=True, slots=True)
class SeatResult:
    """How one seat of a finished game ended: whose seat (None: an AI), place, score, dirhams."""

    user_id: int | None
    place: int
    score: int
    dirhams: int


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """A table of a round as the standings read it: who sat there, whether its game is closed,
    and (if it was played to its end) each seat's result."""

    round: int
    seats: tuple[Seat, ...]
    closed: bool
    results: tuple[SeatResult, ...] = ()

    @property
    def finished(self) -> bool:
        return self.closed and bool(self.results)


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in the standings. Points and Buchholz are in halves."""

    user_id: int
    half_points: int
    half_buchholz: int
    score: int
    dirhams: int
    played: int
    left: int
    rank: int = 0
    withdrew_after: int | None = None
    """The round after which the player withdrew (None: still in)."""

    @property
    def tie_key(self) -> tuple[int, int, int, int]:
        """What orders the standings: points, then Buchholz, score and dirhams (all higher
        first)."""
        return (self.half_points, self.half_buchholz, self.score, self.dirhams)


def half_points(results: Sequence[SeatResult], user_id: int) -> int:
    """The points (in halves) a finished game gives `user_id`: 2 per opponent below them, 1
    per opponent sharing their place."""
    mine = next(result for result in results if result.user_id == user_id)
    total = 0
    for other in results:
        if other is mine:
            continue
        if mine.place < other.place:
            total += 2
        elif mine.place == other.place:
            total += 1
    return total


def standings(
    seeding: Sequence[int],
    tables: Sequence[TableOutcome],
    rounds: int,
    withdrawn: Mapping[int, int] | None = None,
) -> list[Standing]:
    """The standings of the players in `seeding` (the order drawn at the start) after
    `tables`, in a tournament of `rounds` rounds (each player plays one game a round);
    `withdrawn` gives the round after which each player who withdrew did so."""
    out = withdrawn or {}
    points = dict.fromkeys(seeding, 0)
    score = dict.fromkeys(seeding, 0)
    dirhams = dict.fromkeys(seeding, 0)
    played = dict.fromkeys(seeding, 0)
    opponents: dict[int, list[int]] = {player: [] for player in seeding}
    for table in tables:
        humans = [seat for seat in table.seats if seat is not None and seat in points]
        for player in humans:
            if table.closed:  # met: a game paired but not over is not yet
                opponents[player].extend(other for other in humans if other != player)
                played[player] += 1
            if table.finished and any(r.user_id == player for r in table.results):
                points[player] += half_points(table.results, player)
                mine = next(r for r in table.results if r.user_id == player)
                score[player] += mine.score
                dirhams[player] += mine.dirhams
    lines = [
        Standing(
            user_id=player,
            half_points=points[player],
            half_buchholz=sum(points[other] for other in opponents[player]),
            score=score[player],
            dirhams=dirhams[player],
            played=played[player],
            left=0 if player in out else max(0, rounds - played[player]),
            withdrew_after=out.get(player),
        )
        for player in seeding
    ]
    order = {player: index for index, player in enumerate(seeding)}
    lines.sort(key=lambda line: (tuple(-value for value in line.tie_key), order[line.user_id]))
    ranked: list[Standing] = []
    for index, line in enumerate(lines):
        shared = bool(ranked) and ranked[-1].tie_key == line.tie_key
        ranked.append(replace(line, rank=ranked[-1].rank if shared else index + 1))
    return ranked


def winners(lines: Sequence[Standing]) -> tuple[int, ...]:
    """The players ranked first (more than one when they are equal on every tie-break)."""
    return tuple(line.user_id for line in lines if line.rank == 1)


def ranking(lines: Sequence[Standing]) -> list[int]:
    """The players in standings order (what the next Swiss round is paired from)."""
    return [line.user_id for line in lines]
