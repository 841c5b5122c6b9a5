"""Promises of docs/tournaments.md held through the service on a real database (each back end)
and through the pure standings: the 64-player cap (two sign-ups at once for the last place
too), the default number of Swiss rounds at 3-seat tables, finished tournament games in the
stats, and an aborted game's players counting as having met, for Buchholz and for the pairing
of the next round."""

from __future__ import annotations

import asyncio

import pytest

from bot.services import pairing
from bot.services.errors import TournamentFullError
from bot.services.standings import SeatResult, TableOutcome, standings
from bot.services.stats import StatsService
from bot.services.tournament_views import TournamentView
from bot.storage import Database, StatsStore
from tests.bot.services.test_tournaments import (
    GUILD,
    MOD,
    end_by_resignations,
    opened,
    services,
    set_up,
)
from tests.races import Race

DOCUMENTED_CAP = 64
"""The cap docs/tournaments.md states ("at most 64 players")."""


async def test_a_tournament_takes_at_most_64_players(database: Database) -> None:
    _, tournaments = services(database)
    players = tuple(range(6000, 6000 + DOCUMENTED_CAP))
    view = await opened(tournaments, players)
    assert len(view.entrants) == DOCUMENTED_CAP
    with pytest.raises(TournamentFullError):
        await tournaments.join(view.id, 7000, "one too many")
    await tournaments.leave(view.id, players[0])
    view = await tournaments.join(view.id, 7000, "a freed place")
    assert len(view.entrants) == DOCUMENTED_CAP


async def test_two_sign_ups_at_once_for_the_64th_place_take_it_once(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two people press Sign up at the same moment for the last place: the first takes it, the
    other is told the tournament is full, and it holds 64 players."""
    _, tournaments = services(database)
    view = await opened(tournaments, tuple(range(6000, 6000 + DOCUMENTED_CAP - 1)))
    race = Race()
    locks = tournaments._locks
    store = tournaments._store
    monkeypatch.setattr(locks, "holding", race.lock(locks.holding))
    monkeypatch.setattr(store, "join", race.write(store.join))
    results = await asyncio.gather(
        race.run(tournaments.join(view.id, 7000, "one")),
        race.run(tournaments.join(view.id, 7001, "other")),
        return_exceptions=True,
    )
    assert [type(result) for result in results] == [TournamentView, TournamentFullError], results
    entrants = (await tournaments.look(view.id)).entrants
    assert len(entrants) == DOCUMENTED_CAP
    assert 7001 not in [entrant.user_id for entrant in entrants]


@pytest.mark.parametrize(
    ("players", "rounds"), [(2, 1), (3, 1), (4, 2), (9, 2), (10, 3), (27, 3), (28, 4), (64, 4)]
)
def test_the_default_number_of_swiss_rounds_at_three_seats_is_log3(
    players: int, rounds: int
) -> None:
    assert pairing.swiss_rounds(players, 3) == rounds


async def test_a_swiss_tournament_at_three_seats_left_without_rounds_plays_log3_rounds(
    database: Database,
) -> None:
    _, tournaments = services(database)
    view = await opened(tournaments, tuple(range(6000, 6010)), seats=3, rounds=None)
    await tournaments.start(view.id, MOD, moderator=True)
    assert (await tournaments.look(view.id)).rounds == 3, "10 players: log3(10) is 2.1"


def test_an_aborted_game_s_players_count_as_met_for_buchholz() -> None:
    a, b, c = 1, 2, 3
    aborted = TableOutcome(1, (a, b), closed=True)
    b_beats_c = TableOutcome(
        2, (b, c), closed=True, results=(SeatResult(b, 1, 40, 20), SeatResult(c, 2, 30, 10))
    )
    lines = {line.user_id: line for line in standings([a, b, c], [aborted, b_beats_c], 2)}
    assert lines[b].half_points == 2
    assert lines[a].half_buchholz == 2, "a met b in the aborted game: b's point counts"
    assert lines[a].half_points == 0


async def test_an_aborted_game_s_players_are_not_paired_again_when_others_can_be(
    database: Database,
) -> None:
    """Round 1 of six: the first table's game is aborted, the two others are played out. The
    standings then rank the aborted pair last and side by side, so a pairing that forgot they
    had met would seat them together again."""
    games, tournaments = services(database)
    view = await opened(tournaments, tuple(range(6000, 6006)), rounds=2)
    await tournaments.start(view.id, MOD, moderator=True)
    aborted, *played = await set_up(tournaments, view.id)
    for game in played:
        await end_by_resignations(games, game)
        await tournaments.game_closed(game.id)
    await games.play.abort(aborted.id, MOD, moderator=True)
    progress = await tournaments.game_closed(aborted.id)
    assert progress is not None
    assert progress.paired == 2
    pair = {player.user_id for player in aborted.players}
    second_round = [set(t.seats) for t in progress.view.tables if t.round == 2]
    assert len(second_round) == 3
    assert pair not in second_round, "the aborted game's players have met"


async def test_finished_tournament_games_count_in_the_stats(database: Database) -> None:
    games, tournaments = services(database)
    view = await opened(tournaments, tuple(range(6000, 6004)), rounds=2)
    await tournaments.start(view.id, MOD, moderator=True)
    first, _ = await set_up(tournaments, view.id)
    over = await end_by_resignations(games, first)
    stats = StatsService(StatsStore(database))
    for player in over.players:
        assert player.user_id is not None
        mine = await stats.player(GUILD, player.user_id)
        assert mine.games == 1
    assert sum([(await stats.player(GUILD, p.user_id or 0)).wins for p in over.players]) == 1
