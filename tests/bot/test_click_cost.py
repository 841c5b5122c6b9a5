"""A click costs the database at most MOST_ROUND_TRIPS round trips, on each back end: whole
games played through the bot's own client with a turn limit, every click counted with all it
sets off (tests/bot/click_cost.py), the turn clock's scheduler included. A click between people
does not wake the scheduler at all; a click that hands the turn to an AI wakes it once, and
the AI's turn it then plays is a move of its own, held to the same bound. Each kind of click
costs exactly what docs/performance.md's table gives (CLICK_ROUND_TRIPS, and with an AI seat
HANDING_OVER_ROUND_TRIPS and AI_TURN_ROUND_TRIPS): the counts do not depend on the machine, so
a round trip more or less is a change the page must tell.

The last click of a rated game also numbers the game in its server's rated games and applies
it to the ratings (bot.services.ratings), asks whether a tournament moves on, closes the seat
requests still open (bot.services.substitutes), and sets off the judging of the game for the
stats (bot.services.accuracy, in the background, waited for here): work done once a game, held
to `last_click_round_trips`; the judging itself gives the golden game's judgement (the `judged`
fixture), as its round trips, not its CPU, are counted here. A Join on a lobby reads how
reliably its people play (the note beside each name) in one round trip of its own."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.services.reliability import Reliability
from tests.bot import click_cost
from tests.bot.click_cost import play_and_count, settled
from tests.bot.edge.test_edge import running_edge
from tests.postgres import backend, database_target, postgres_server, postgres_url
from tests.round_trips import counting

__all__ = ["backend", "database_target", "postgres_server", "postgres_url"]

MOST_ROUND_TRIPS = 10
CLICK_ROUND_TRIPS = {"a move within the turn": 6, "a move that ends the turn": 8}
"""A move within the turn: one read of the game's row, the move in one transaction of four
(BEGIN, the guarded UPDATE returning the row, the log's rows, COMMIT) and the message that shows
it. A move that ends the turn adds the check for the next player's direct message: the game,
then that player's choices and those of the one after them, in one statement."""
HANDING_OVER_ROUND_TRIPS = 7
"""A move that hands the turn to an AI, less the scheduler's pass it sets off: a move within the
turn, and the game read for the direct message check, which ends there (an AI's turn has none)."""
AI_TURN_ROUND_TRIPS = 10
"""The AI's turn in one scheduler pass: the claim, the move, its message, the direct message
check, the release of the claim and the scheduler's next look."""


def last_click_round_trips(people: int, ai_levels: int = 0) -> int:
    """The click that ends a rated game of `people` people and `ai_levels` AI levels, with the
    work it sets off once a game:

    - the last move, 8: the game's row read, the move and its results in one transaction
      (BEGIN, the guarded UPDATE, the log's rows, the results, COMMIT), the record read for the
      result's message, and that message recorded;
    - the rated game's end, 10: numbering the game among its server's rated games, in the
      move's transaction (2); reading the games pending and their players' ratings (2);
      applying them in one transaction (BEGIN, the guard on how many are applied, the seats'
      changes, the people's ratings, COMMIT), each AI level's ratings one statement more;
      asking whether the game was a tournament's table (1);
    - closing the seat requests the game left open, 1;
    - judging it for the stats, 10 and one a person: the games left to judge and their people in
      one read (BEGIN, two statements, its end), the game's record, who made each of its moves,
      its stored judgement looked up and the new one kept, and the people's accuracy written in
      one transaction (BEGIN, a row a person, COMMIT).

    So 31 between two people, and 31 for a person against an AI level."""
    return 8 + 10 + ai_levels + 1 + 10 + people


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
    costs = [(click.kind, click.round_trips) for click in during_play]
    assert [(kind, trips) for kind, trips in costs if trips != CLICK_ROUND_TRIPS[kind]] == []
    assert clicks[-1].round_trips == last_click_round_trips(people=2)
    assert [click for click in clicks if click.wakes] == [], "the scheduler slept through"


async def test_a_click_and_the_ai_turn_it_sets_off_cost_at_most_ten_each(
    database_target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judged: list[int]
) -> None:
    """Against the easy AI: each click and each AI turn it hands over costs at most
    MOST_ROUND_TRIPS, the AI's turn in one scheduler pass; each kind exactly what
    docs/performance.md gives, and the click that ends the game, its game-end work included,
    `last_click_round_trips` of one person and one AI level."""
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
    assert max(click.scheduler_round_trips for click in clicks) <= MOST_ROUND_TRIPS
    stated = {
        ("a move within the turn", CLICK_ROUND_TRIPS["a move within the turn"], 0),
        ("a move that ends the turn", HANDING_OVER_ROUND_TRIPS, AI_TURN_ROUND_TRIPS),
    }
    costs = [
        (click.kind, click.round_trips - click.scheduler_round_trips, click.scheduler_round_trips)
        for click in clicks[:-1]
    ]
    assert [cost for cost in costs if cost not in stated] == []
    assert clicks[-1].round_trips == last_click_round_trips(people=1, ai_levels=1)


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


def test_the_command_s_help_gives_its_usage_and_plays_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def measured() -> None:
        raise AssertionError("--help played games")

    monkeypatch.setattr(click_cost, "measure", measured)
    with pytest.raises(SystemExit) as stopped:
        click_cost.main(["--help"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python -m tests.bot.click_cost [-h]")
