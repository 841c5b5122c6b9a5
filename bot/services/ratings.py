"""Skill ratings per server: which games count, applying them in order, rebuilding them, and
what the stats, the leaderboard and a game's result show of them.

A game counts (`rated_in`) when it was played to its end on a server, was not opened as
casual, and has a person in it: aborted, cancelled and abandoned games have no results, so
they never count. Every seat is rated: a person by their user id, an AI seat as the reference
player of its level on that server ("medium is about 1,450 here"). A seat the AI played for a
person after timeouts is still that person's, and a seat that resigned or was eliminated
counts the place the game gave it. A seat handed to a substitute is rated for the person who
left it, at the place a resignation then would have given them (the results' `rated_place`,
bot.services.loaded.results_of); the substitute is not rated for it.

The rated games of a server are numbered in the order they ended, in the transaction that
writes their results (bot.storage.ratings). The ratings are the fold of those games, one after
the other, from everyone at the start (`fold`). After a game ends the services apply every
game of its server not yet applied (`apply_pending`), guarded by how many were applied: of two
processes ending games at once, one writes and the other reads again, so no game is applied
twice or skipped, and they are always applied in their order. That is also why a rebuild from
the first game (`rebuild`, `marrakech-bot ratings rebuild`) gives exactly the same numbers. A
game applied after its end (applying failed then) is told to the `on_applied_later` listeners,
so that its result, posted without its changes, can show them.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.services import rating_model
from bot.services.actions import AI_LEVELS
from bot.services.rating_model import PROVISIONAL_GAMES, START, Skill
from bot.services.views import (
    AiRecord,
    Leaderboard,
    Player,
    PlayerRating,
    RatedPlayer,
    RatedResult,
    RatingChange,
)
from bot.storage.database import DatabaseUnavailableError
from bot.storage.game_rows import GameRow
from bot.storage.ratings import ChangeRow, PlayerKey, RatedGame, RatingRow, RatingStore

log = logging.getLogger(__name__)

LEADERBOARD_SIZE = 10


def rated_in(game: GameRow, players: Sequence[Player]) -> int | None:
    """The server whose ratings the game counts in once it is over (None: it counts in none:
    casual, played outside a server, or without a person)."""
    if game.casual or game.guild_id is None:
        return None
    if not any(player.user_id is not None for player in players):
        return None
    return game.guild_id


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """What a rebuild did: the servers whose ratings it rebuilt, from how many rated games."""

    guilds: int
    games: int


def fold(
    start: Iterable[RatingRow], games: Sequence[RatedGame]
) -> tuple[list[ChangeRow], list[RatingRow]]:
    """Apply `games`, in order, to the players' ratings `start` (a player not in it starts
    anew): every seat's change, and the new rating of every player the games touched.

    An AI level seated more than once in a game is rated once per seat, against the others,
    and takes the mean of those ratings; the game counts once in its games."""
    standing = {row.player: row for row in start}
    touched: dict[PlayerKey, RatingRow] = {}
    changes: list[ChangeRow] = []
    for game in games:
        before = [_skill(standing.get(seat.player)) for seat in game.seats]
        after = rating_model.rate(before, [seat.place for seat in game.seats])
        by_player: dict[PlayerKey, list[Skill]] = {}
        for seat, skill in zip(game.seats, after, strict=True):
            by_player.setdefault(seat.player, []).append(skill)
        for player, skills in by_player.items():
            old = standing.get(player)
            row = RatingRow(
                user_id=player[0],
                ai_level=player[1],
                mu=math.fsum(skill.mu for skill in skills) / len(skills),
                sigma=math.fsum(skill.sigma for skill in skills) / len(skills),
                games=(old.games if old is not None else 0) + 1,
            )
            standing[player] = touched[player] = row
        for seat, skill in zip(game.seats, before, strict=True):
            new = standing[seat.player]
            changes.append(
                ChangeRow(
                    game_id=game.game_id,
                    seat=seat.seat,
                    number=game.number,
                    user_id=seat.user_id,
                    ai_level=seat.ai_level,
                    place=seat.place,
                    mu_before=skill.mu,
                    sigma_before=skill.sigma,
                    mu_after=new.mu,
                    sigma_after=new.sigma,
                    games=new.games,
                )
            )
    return changes, list(touched.values())


def _skill(row: RatingRow | None) -> Skill:
    return START if row is None else Skill(row.mu, row.sigma)


class RatingService:
    """Applies rated games to the ratings and reads them for the bot's messages."""

    def __init__(self, store: RatingStore) -> None:
        self._store = store
        self._late_listeners: list[Callable[[int], None]] = []

    def on_applied_later(self, listener: Callable[[int], None]) -> None:
        """Call `listener` with the id of each game this service applies after its end (one
        whose applying failed then, applied by the server's next game or a start; or one that
        ended at the same moment in another process), once written: its result may have been
        posted without what it did to the ratings."""
        self._late_listeners.append(listener)

    def _applied_later(self, game_ids: Iterable[int]) -> None:
        for game_id in sorted(set(game_ids)):
            for listener in self._late_listeners:
                listener(game_id)

    # --- applying ----------------------------------------------------------------------------

    async def settle(self, guild_id: int, game_id: int) -> tuple[RatingChange, ...]:
        """After a rated game ended: apply the server's games not yet applied (this one among
        them) and say what this one did. A failure is logged and gives nothing: the game stays
        queued, for the server's next game or the next start to apply."""
        try:
            applied = await self._apply(guild_id)
            self._applied_later(row.game_id for row in applied if row.game_id != game_id)
            mine = tuple(_change(row) for row in applied if row.game_id == game_id)
            # Applied by another process first: read what it wrote.
            return mine or await self.of_game(game_id)
        except DatabaseUnavailableError as error:  # the outage is logged once elsewhere
            log.info("game %s: its ratings wait for the database (%s)", game_id, error)
            return ()
        except Exception:  # the game itself is stored; its rating can wait
            log.exception("game %s: its ratings could not be applied now", game_id)
            return ()

    async def apply_pending(self, guild_id: int) -> int:
        """Apply, in order, the server's rated games that its ratings do not include yet; how
        many this call applied (another process may have applied them first)."""
        applied = {change.game_id for change in await self._apply(guild_id)}
        self._applied_later(applied)
        return len(applied)

    async def _apply(self, guild_id: int) -> list[ChangeRow]:
        """Apply the server's pending rated games; the changes this call wrote."""
        while True:
            pending = await self._store.pending(guild_id)
            if not pending.games:
                return []
            changes, ratings = fold(pending.ratings, pending.games)
            if await self._store.apply(guild_id, pending.applied, changes, ratings):
                return changes

    async def catch_up(self) -> int:
        """Apply every server's rated games not applied yet (at start: games that ended while
        applying failed, and those that ended before ratings were kept); how many."""
        applied = 0
        for guild_id in await self._store.behind():
            applied += await self.apply_pending(guild_id)
        return applied

    async def rebuild(self, guild_id: int | None = None) -> Rebuilt:
        """Recompute the ratings of the server (None: of every server) from its rated games,
        from the first, in their order; the same numbers as applying them one by one."""
        guilds = [guild_id] if guild_id is not None else await self._store.guilds()
        games = 0
        for guild in guilds:
            while True:
                everything = await self._store.everything(guild)
                changes, ratings = fold((), everything.games)
                if await self._store.replace(guild, everything.applied, changes, ratings):
                    games += len(everything.games)
                    break
        return Rebuilt(len(guilds), games)

    # --- reading -----------------------------------------------------------------------------

    async def of_game(self, game_id: int) -> tuple[RatingChange, ...]:
        """What the game did to each seat's rating (empty: not rated, or not applied yet)."""
        return tuple(_change(row) for row in await self._store.of_game(game_id))

    async def player(self, guild_id: int, user_id: int) -> PlayerRating:
        """The member's rating on the server, with its history and their record against each
        AI level (a member without a rated game has the points of a newcomer)."""
        rating = await self._store.rating(guild_id, user_id)
        history = await self._store.history(guild_id, user_id)
        records = await self._store.ai_records(guild_id, user_id)
        results = [
            RatedResult(
                change.game_id,
                change.place,
                seats,
                _points_after(change) - _points_before(change),
            )
            for change, seats in history
        ]
        games = rating.games if rating is not None else 0
        return PlayerRating(
            user_id=user_id,
            points=_skill(rating).points,
            games=games,
            provisional=games < PROVISIONAL_GAMES,
            history=(START.points, *(_points_after(change) for change, _ in history)),
            best=max(results, key=lambda result: result.change, default=None),
            worst=min(results, key=lambda result: result.change, default=None),
            against_ai=tuple(
                AiRecord(record.ai_level, record.ahead, record.level, record.behind)
                for record in sorted(records, key=lambda record: level_rank(record.ai_level))
            ),
            provisional_games=PROVISIONAL_GAMES,
        )

    async def leaderboard(self, guild_id: int) -> Leaderboard:
        """The server's best rated people (those still provisional after the others) and its
        AI levels' ratings."""
        players = await self._store.leaderboard(guild_id, PROVISIONAL_GAMES, LEADERBOARD_SIZE)
        references = await self._store.references(guild_id)
        return Leaderboard(
            players=tuple(_rated(row) for row in players),
            references=tuple(
                _rated(row) for row in sorted(references, key=lambda row: level_rank(row.ai_level))
            ),
            provisional_games=PROVISIONAL_GAMES,
        )


def level_rank(level: str | None) -> int:
    """Where an AI level comes in a list of levels: from the weakest up, as a lobby offers
    them (an unknown level last)."""
    return AI_LEVELS.index(level) if level in AI_LEVELS else len(AI_LEVELS)


def _points_before(change: ChangeRow) -> int:
    return rating_model.points(change.mu_before, change.sigma_before)


def _points_after(change: ChangeRow) -> int:
    return rating_model.points(change.mu_after, change.sigma_after)


def _change(row: ChangeRow) -> RatingChange:
    return RatingChange(
        seat=row.seat,
        user_id=row.user_id,
        ai_level=row.ai_level,
        before=_points_before(row),
        after=_points_after(row),
        provisional=row.games < PROVISIONAL_GAMES,
        place=row.place,
    )


def _rated(row: RatingRow) -> RatedPlayer:
    return RatedPlayer(
        user_id=row.user_id,
        ai_level=row.ai_level,
        points=rating_model.points(row.mu, row.sigma),
        games=row.games,
        provisional=row.games < PROVISIONAL_GAMES,
    )
