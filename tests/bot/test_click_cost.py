"""A click costs the database at most MOST_ROUND_TRIPS round trips, on each back end: whole
games played through the bot's own client with a turn limit, every click counted with all it
sets off (tests/bot/click_cost.py), the turn clock's scheduler included. A click between people
does not wake the scheduler at all; a click that hands the turn to an AI wakes it once, and
the AI's turn it then plays is a move of its own, held to the same bound.

The last click of a rated game also numbers the game in its server's rated games and applies
it to the ratings (bot.services.ratings), asks whether a tournament moves on, closes the seat
requests still open (bot.services.substitutes), and sets off the judging of the game for the
stats (bot.services.accuracy, in the background, waited for here): work done once a game, held
to LAST_CLICK_ROUND_TRIPS; the judging itself gives the golden game's judgement (the `judged`
fixture), as its round trips, not its CPU, are counted here. A Join on a lobby reads how
reliably its people play (the note beside each name) in one round trip of its own."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.services.reliability import Reliability
from tests.bot.click_cost import play_and_count, settled
from tests.bot.edge.test_edge import running_edge
from tests.postgres import backend, database_target, postgres_server, postgres_url
from tests.round_trips import counting

__all__ = ["backend", "database_target", "postgres_server", "postgres_url"]

MOST_ROUND_TRIPS = 10
ACCURACY_ROUND_TRIPS = 10
"""The stats' judging of a finished game: the games left to judge, the game's record read, its
stored judgement looked up and, judged anew, kept (bot.services.judgements), and its people's
accuracy written."""
LAST_CLICK_ROUND_TRIPS = MOST_ROUND_TRIPS + 10 + ACCURACY_ROUND_TRIPS
"""Numbering the game (2), reading what is pending (2), applying it (at most 6, less the reads
a game's end no longer needs), asking whether the game was a tournament's (1), closing the
host's seat requests it left open (1), and judging it for the stats."""
KINDS = {"a move within the turn", "a move that ends the turn", "the last move"}


async def test_a_click_between_people_costs_at_most_ten_round_trips(
    database_target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judged: list[int]
) -> None:
    async with running_edge(tmp_path, monkeypatch, database_target=database_target) as edge:
        clicks = await play_and_count(edge)
    assert clicks[-1].ends_game
    assert len(judged) == 1, "the finished game judged for the stats"
    assert {click.kind for click in clicks} == KINDS
    during_play = clicks[:-1]
    assert [click for click in during_play if click.round_trips > MOST_ROUND_TRIPS] == []
    assert clicks[-1].round_trips <= LAST_CLICK_ROUND_TRIPS
    assert [click for click in clicks if click.wakes] == [], "the scheduler slept through"


async def test_a_click_and_the_ai_turn_it_sets_off_cost_at_most_ten_each(
    database_target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judged: list[int]
) -> None:
    """Against the easy AI: each click and each AI turn it hands over costs at most
    MOST_ROUND_TRIPS, the AI's turn in one scheduler pass; the click that ends the game, its
    game-end work included, at most LAST_CLICK_ROUND_TRIPS."""
    async with running_edge(tmp_path, monkeypatch, database_target=database_target) as edge:
        clicks = await play_and_count(edge, against="easy")
    assert len(judged) == 1, "the finished game judged for the stats"
    assert {click.kind for click in clicks} <= KINDS
    handing_over = [click for click in clicks if click.wakes]
    assert handing_over, "the AI played"
    assert all(click.wakes == 1 for click in handing_over), "one pass plays the AI's turn"
    assert clicks[-1].ends_game
    own = [click.round_trips - click.scheduler_round_trips for click in clicks[:-1]]
    assert max(own) <= MOST_ROUND_TRIPS
    assert clicks[-1].round_trips <= LAST_CLICK_ROUND_TRIPS
    assert max(click.scheduler_round_trips for click in clicks) <= MOST_ROUND_TRIPS


async def test_a_lobby_s_join_reads_how_reliably_its_people_play_in_one_round_trip(
    database_target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_edge(tmp_path, monkeypatch, database_target=database_target) as edge:
        display = edge.bot.display
        look = display._reliability
        assert look is not None
        lobby = await edge.slash(edge.host, "marrakech", "new", seats=2).answer()
        await settled(edge)
        reads: list[int] = []
        with counting(edge.bot.store.database) as trips:

            async def counted(guild_id: int, people: Sequence[int]) -> Sequence[Reliability]:
                before = trips.count
                found = await look(guild_id, people)
                reads.append(trips.count - before)
                return found

            display._reliability = counted
            await edge.click(edge.guest, lobby, "Join").response()
            await settled(edge)
    assert reads == [1], "one round trip for the lobby's people"
    assert trips.count <= MOST_ROUND_TRIPS
