"""Tournaments through the service on a real database (each back end): sign-up, the start,
every round paired as soon as the one before is over (once, whichever process tries), tables
set up once, the standings (a seat handed to a substitute among them), the end, a cancel and an
abort. Games are ended by resignations and aborts here (and a bye won against the AI, in the
store): a game's own play is tested elsewhere. A Swiss round's pairing from the tournament's
snapshot (`swiss_round`: the ranking it pairs, the byes it counts) is tested on snapshots built
here, without a database."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.presentation.images import seat_names
from bot.services import GameService, GameStatus, GameView, dice, pairing
from bot.services.errors import (
    AlreadyEnteredError,
    BadOptionError,
    ChannelHasTournamentError,
    GameNotRunningError,
    HostOnlyError,
    NotEnoughPlayersError,
    NotEnteredError,
    NoTournamentHereError,
    TournamentClosedError,
    TournamentCreatorOnlyError,
    TournamentGameError,
    TournamentTableAbortError,
)
from bot.services.guilds import MAX_TURN_LIMIT_SECONDS, MIN_TURN_LIMIT_SECONDS
from bot.services.seat_errors import SubstituteError
from bot.services.tournament_views import (
    TableView,
    TournamentFormat,
    TournamentStatus,
    TournamentView,
)
from bot.services.tournaments import MAX_ROUNDS, TournamentService, seeded, swiss_round
from bot.services.views import AutoTurn, TurnReason
from bot.storage import Database, EndReason, GameStore, ResultRow, open_database
from bot.storage.tournaments import (
    EntrantRow,
    TableResultRow,
    TableRow,
    TournamentRow,
    TournamentSnapshot,
    TournamentStore,
)
from bot.workers.pool import Lane, WorkerPool
from tests.bot.services.conftest import FreshTargets
from tests.bot.services.dice_check import readme_check
from tests.bot.services.test_async_play import ManualClock
from tests.bot.services.test_service import fixed_clock, step
from tests.bot.workers.lanes import lanes_noted
from tests.round_trips import counting

GUILD, CHANNEL, MOD = 9, 700, 5000
PLAYERS = (5001, 5002, 5003, 5004, 5005)
THREADS = itertools.count(80_000)

SNAPSHOT_ROUND_TRIPS = 5
"""Reading a tournament in one snapshot: BEGIN, its row, its players, its tables with their
results, the end of the read."""
ADVANCE_ROUND_TRIPS = SNAPSHOT_ROUND_TRIPS + 6
"""An advance that pairs a round: the snapshot, then BEGIN, the tournament's row taken (its
time stamp), the players withdrawn checked against those the pairing left out, the round, its
tables, COMMIT."""
ENDING_ROUND_TRIPS = SNAPSHOT_ROUND_TRIPS + 1
"""The advance that ends the tournament: the snapshot, then the one guarded statement that ends
it."""
START_TABLE_ROUND_TRIPS = 1 + 7 + 6
"""Setting a table's game up: the table and its players' names (one statement), creating the
game (BEGIN, the check that the tournament runs, the check that the table has none, the game,
its seats, the table, COMMIT), and
loading the game for its view (as any game is loaded)."""


def seed_source() -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"{next(counter):032x}"


def services(
    database: Database,
    owner: str = "one",
    workers: WorkerPool | None = None,
    clock: Callable[[], datetime] = fixed_clock,
) -> tuple[GameService, TournamentService]:
    seeds = seed_source()
    games = GameService(GameStore(database), clock=clock, seeds=seeds, owner=owner)
    return games, TournamentService(TournamentStore(database), games, seeds=seeds, workers=workers)


async def opened(
    tournaments: TournamentService,
    players: tuple[int, ...] = PLAYERS,
    *,
    format: str = "swiss",
    seats: int = 2,
    rounds: int | None = 3,
    turn_limit_seconds: int | None = 3600,
    name: str = "  Spring   cup ",
    variant: str = "standard",
) -> TournamentView:
    view = await tournaments.open(
        guild_id=GUILD,
        channel_id=CHANNEL,
        moderator_id=MOD,
        name=name,
        format=format,
        seats=seats,
        rounds=rounds,
        variant=variant,
        turn_limit_seconds=turn_limit_seconds,
        locale="fr",
    )
    for player in players:
        view = await tournaments.join(view.id, player, f"player {player}")
    return view


async def set_up(tournaments: TournamentService, tournament_id: int) -> list[GameView]:
    """What the edge does for each table still to set up: a thread, then the game."""
    games = []
    for table in await tournaments.claim_tables(tournament_id):
        await tournaments.set_thread(tournament_id, table, next(THREADS))
        table = next(
            t
            for t in (await tournaments.look(tournament_id)).tables
            if (t.round, t.number) == (table.round, table.number)
        )
        games.append(await tournaments.start_table(tournament_id, table))
        await tournaments.release_table(tournament_id, table)
    return games


async def end_by_resignations(games: GameService, view: GameView) -> GameView:
    """Every human but the last one seated resigns (an AI seat stays in)."""
    humans = [player.user_id for player in view.players if player.user_id is not None]
    if len(humans) == len(view.players):
        humans = humans[:-1]
    for user in humans:
        view = await games.play.resign(view.id, user)
    assert view.status is GameStatus.OVER
    return view


async def test_a_swiss_tournament_of_five_with_byes_is_played_to_its_end(
    database: Database,
) -> None:
    games, tournaments = services(database)
    closed: list[int] = []
    games.on_game_closed(closed.append)
    view = await opened(tournaments)
    assert view.name == "Spring cup"
    assert view.status is TournamentStatus.SIGNUP
    assert [entrant.user_id for entrant in view.entrants] == list(PLAYERS)

    begun = await tournaments.start(view.id, MOD, moderator=False)
    assert begun.paired == 1
    assert begun.view.rounds == 3
    seeding = [entrant.user_id for entrant in begun.view.entrants]
    assert sorted(seeding) == sorted(PLAYERS)
    assert len(begun.view.standings) == 5

    for round_no in (1, 2, 3):
        tables = (await tournaments.look(view.id)).round_tables(round_no)
        assert [len(table.seats) for table in tables] == [2, 2, 2]
        assert tables[-1].seats[1] is None, "the bye is the last table, an AI in its seat"
        started = await set_up(tournaments, view.id)
        assert len(started) == 3
        assert await set_up(tournaments, view.id) == [], "each table is set up once"
        for game in started:
            assert game.status is GameStatus.RUNNING
            assert game.game.locale == "fr"
            assert game.game.host_id == MOD
            assert game.game.turn_limit_seconds == 3600
            ended = await end_by_resignations(games, game)
            assert closed[-1] == ended.id
            progress = await tournaments.game_closed(ended.id)
            assert progress is not None
        assert progress is not None
        if round_no < 3:
            assert progress.paired == round_no + 1
        else:
            assert progress.finished
            assert progress.paired is None

    final = await tournaments.look(view.id)
    assert final.status is TournamentStatus.OVER
    assert final.current_round == 3
    assert all(line.played == 3 and line.left == 0 for line in final.standings)
    assert final.winners
    byes = [table.seats[0] for table in final.tables if None in table.seats]
    assert len(set(byes)) == 3, "byes rotate"
    met = [frozenset(table.humans) for table in final.tables if len(table.humans) == 2]
    assert len(met) == len(set(met)) == 6, "no rematch while one can be avoided"
    assert await tournaments.game_closed(final.tables[0].game_id or 0) is not None
    assert (await tournaments.look(view.id)).status is TournamentStatus.OVER
    assert await tournaments.game_closed(123_456) is None, "not a tournament's game"


async def test_the_player_with_the_bye_plays_the_round_against_the_medium_ai(
    database: Database,
) -> None:
    _, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:3])
    begun = await tournaments.start(view.id, MOD, moderator=True)
    (bye,) = [table for table in begun.view.tables if None in table.seats]
    games = await set_up(tournaments, view.id)
    assert len(games) == 2
    (game,) = [game for game in games if any(p.user_id is None for p in game.players)]
    assert [p.user_id for p in game.players if p.user_id is not None] == list(bye.humans)
    assert [p.ai_level for p in game.players if p.user_id is None] == ["medium"]


@pytest.mark.parametrize("limit", [3600, None])
async def test_a_bye_s_ai_dealt_the_first_turn_plays_it_at_once(
    database: Database, limit: int | None
) -> None:
    """As every AI seat, with a turn limit or without: no reminder, and its turn is due as soon
    as the table's game starts, not when a person's clock would run out."""
    clock = ManualClock()
    games, tournaments = services(database, clock=clock)
    first = None
    for attempt in range(12):  # each game's seed deals the first turn: find a bye's AI dealt it
        view = await tournaments.open(
            guild_id=GUILD,
            channel_id=CHANNEL + attempt,
            moderator_id=MOD,
            name=f"cup {attempt}",
            format="swiss",
            seats=2,
            rounds=3,
            variant="standard",
            turn_limit_seconds=limit,
            locale="en",
        )
        for player in PLAYERS:
            await tournaments.join(view.id, player, f"player {player}")
        await tournaments.start(view.id, MOD, moderator=False)
        first = next((g for g in await set_up(tournaments, view.id) if g.ai_to_move), None)
        if first is not None:
            break
    assert first is not None, "a bye whose AI has the first turn"
    row = await GameStore(database).get(first.id)
    assert row is not None
    assert row.remind_at is None, "an AI is never reminded"
    assert row.due_at == clock.now, "due at once"
    turn = await games.turns.play_due(first.id, first.seq)  # with no time passed
    assert isinstance(turn, AutoTurn)
    assert turn.reason is TurnReason.AI


SNAPSHOT_TIME = datetime(2026, 1, 1, tzinfo=UTC)


def swiss_snapshot(
    seeding: Sequence[int], rounds: int, tables: Sequence[TableRow] = (), *, seats: int = 2
) -> TournamentSnapshot:
    """A running Swiss tournament at tables of `seats` (2 unless told) of `seeding`, over
    `rounds` rounds, with `tables` paired: what `swiss_round` pairs the next round from."""
    row = TournamentRow(
        id=1,
        guild_id=GUILD,
        channel_id=CHANNEL,
        name="cup",
        format=TournamentFormat.SWISS.value,
        seats=seats,
        rounds=rounds,
        variant="standard",
        turn_limit_seconds=None,
        locale="en",
        status="running",
        created_by=MOD,
        ended_by=None,
        seed="00" * 16,
        message_id=None,
        created_at=SNAPSHOT_TIME,
        updated_at=SNAPSHOT_TIME,
    )
    entrants = tuple(
        EntrantRow(user, None, SNAPSHOT_TIME, seed) for seed, user in enumerate(seeding, 1)
    )
    return TournamentSnapshot(row, entrants, tuple(tables))


def won(
    round_no: int, number: int, seats: tuple[int | None, ...], winner: int | None, score: int = 40
) -> TableRow:
    """Table `number` of round `round_no` (2 seats), its game over: `winner` first with `score`
    points and 10 dirhams, the other seat second with 20 and 5."""
    (loser,) = [seat for seat in seats if seat != winner]
    results = (TableResultRow(winner, 1, score, 10), TableResultRow(loser, 2, 20, 5))
    game_id = 100 * round_no + number
    return TableRow(round_no, number, seats, None, game_id, GameStatus.OVER.value, results)


def test_a_swiss_round_after_the_first_is_paired_by_the_standings() -> None:
    seeding = [1, 2, 3, 4, 5, 6]
    assert swiss_round(swiss_snapshot(seeding, 3), 1) == [(1, 2), (3, 4), (5, 6)]
    # Round 1: 2 beat 1, 4 beat 3 and 6 beat 5, 2 scoring most, then 4, then 6. The standings:
    # 2, 4, 6 (a point each, in order of score), then 1, 3, 5 (equal on all, the seeding's order).
    first_round = [won(1, 1, (1, 2), 2, 60), won(1, 2, (3, 4), 4, 50), won(1, 3, (5, 6), 6, 40)]
    assert swiss_round(swiss_snapshot(seeding, 3, first_round), 2) == [(2, 4), (6, 1), (3, 5)]


def test_a_swiss_round_avoids_a_rematch_of_any_earlier_round_not_only_the_last() -> None:
    """Four players over three rounds, the lower number winning every game. Round 3 ranks 1
    first and 4 last with 2 and 3 between, so by the ranking alone it would seat 1 with 2 and
    3 with 4 again, as in round 1; the only seating without a rematch is 1-4 and 2-3."""
    seeding = [1, 2, 3, 4]
    first_round = [won(1, 1, (1, 2), 1), won(1, 2, (3, 4), 3)]
    assert swiss_round(swiss_snapshot(seeding, 3, first_round), 2) == [(1, 3), (2, 4)]
    second_round = [won(2, 1, (1, 3), 1), won(2, 2, (2, 4), 2)]
    third = swiss_round(swiss_snapshot(seeding, 3, first_round + second_round), 3)
    assert third == [(1, 4), (2, 3)]


@pytest.mark.parametrize("count", [5, 7])
def test_byes_keep_rotating_once_every_player_has_had_one(count: int) -> None:
    """Twice as many rounds as players, the lower number winning every game (the AI of a bye
    included): after every round the players' byes differ by one at most, and in the end each
    player has had two."""
    seeding = list(range(1, count + 1))
    rounds = 2 * count
    tables: list[TableRow] = []
    byes = dict.fromkeys(seeding, 0)
    for round_no in range(1, rounds + 1):
        paired = swiss_round(swiss_snapshot(seeding, rounds, tables), round_no)
        for number, seats in enumerate(paired, 1):
            humans = [seat for seat in seats if seat is not None]
            if len(humans) == 1:
                byes[humans[0]] += 1
            tables.append(won(round_no, number, seats, min(humans) if len(humans) == 2 else None))
        assert max(byes.values()) - min(byes.values()) <= 1, f"round {round_no}: {byes}"
    assert set(byes.values()) == {2}


def test_a_bye_whose_game_was_aborted_still_counts_as_the_player_s_bye() -> None:
    """Five players: in round 1, 1 beats 2 and 3 beats 4, and the game of 5's bye against the
    AI is aborted. Round 2 ranks 5 last; had that bye not counted, 5 would take the bye again
    (a bye to 5 or to 4 leaves the round without a rematch). It goes to 4, the lowest-ranked of
    the players who have had none."""
    seeding = [1, 2, 3, 4, 5]
    first_round = swiss_round(swiss_snapshot(seeding, 3), 1)
    assert first_round == [(1, 2), (3, 4), (5, None)]
    aborted = TableRow(1, 3, (5, None), None, 103, GameStatus.ABORTED.value)
    tables = [won(1, 1, (1, 2), 1, 60), won(1, 2, (3, 4), 3, 50), aborted]
    second_round = swiss_round(swiss_snapshot(seeding, 3, tables), 2)
    assert second_round[-1] == (4, None), second_round


async def test_a_round_robin_of_four_at_one_table_of_four(database: Database) -> None:
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:4], format="round-robin", seats=4, rounds=7)
    begun = await tournaments.start(view.id, MOD, moderator=True)
    assert begun.view.rounds == 1, "a round-robin's rounds come from its schedule"
    (table,) = begun.view.tables
    assert sorted(table.humans) == sorted(PLAYERS[:4])
    (game,) = await set_up(tournaments, view.id)
    assert len(game.players) == 4
    ended = await end_by_resignations(games, game)
    progress = await tournaments.game_closed(ended.id)
    assert progress is not None
    assert progress.finished
    lines = progress.view.standings
    winner = next(player.user_id for player in ended.players if not player.resigned)
    assert progress.view.winners == (winner,)
    assert [line.half_points for line in lines] == [6, 4, 2, 0]


async def test_a_round_robin_of_five_seats_the_bye_at_the_round_s_last_table(
    database: Database,
) -> None:
    """The bye's table is numbered after the tables of two players, as the standings list it
    and its thread is named."""
    _, tournaments = services(database)
    view = await opened(tournaments, format="round-robin")
    begun = await tournaments.start(view.id, MOD, moderator=True)
    tables = begun.view.round_tables(1)
    assert [table.number for table in tables] == [1, 2, 3]
    assert [None in table.seats for table in tables] == [False, False, True], tables


async def test_signing_up_and_who_may_start_or_cancel(database: Database) -> None:
    _, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:1])
    with pytest.raises(ChannelHasTournamentError):
        await opened(tournaments, ())
    with pytest.raises(AlreadyEnteredError):
        await tournaments.join(view.id, PLAYERS[0], "again")
    with pytest.raises(NotEnteredError):
        await tournaments.leave(view.id, PLAYERS[1])
    with pytest.raises(TournamentCreatorOnlyError):
        await tournaments.start(view.id, PLAYERS[0], moderator=False)
    with pytest.raises(NotEnoughPlayersError):
        await tournaments.start(view.id, MOD, moderator=False)
    view = await tournaments.join(view.id, PLAYERS[1], "two")
    view = await tournaments.leave(view.id, PLAYERS[0])
    assert [entrant.user_id for entrant in view.entrants] == [PLAYERS[1]]
    with pytest.raises(TournamentCreatorOnlyError):
        await tournaments.cancel(view.id, PLAYERS[1], moderator=False)
    cancelled = await tournaments.cancel(view.id, PLAYERS[1], moderator=True)
    assert cancelled.status is TournamentStatus.CANCELLED
    assert cancelled.ended_by == PLAYERS[1]
    with pytest.raises(TournamentClosedError):
        await tournaments.join(view.id, PLAYERS[2], "late")
    with pytest.raises(TournamentClosedError):
        await tournaments.start(view.id, MOD, moderator=True)
    again = await opened(tournaments, ())
    assert again.id != view.id


@pytest.mark.parametrize("seats", [1, 5])
async def test_tables_of_other_than_2_to_4_seats_are_refused_and_open_nothing(
    database: Database, seats: int
) -> None:
    """Discord offers `seats` from 2 to 4 only; the service refuses any other count itself (a
    forged payload passes Discord's range), and the channel stays free."""
    _, tournaments = services(database)
    with pytest.raises(BadOptionError) as refused:
        await opened(tournaments, (), seats=seats)
    assert refused.value.option == "seats"
    view = await opened(tournaments, (), seats=4)
    assert view.seats == 4, "nothing was opened: the channel takes a tournament of 4 seats"


@pytest.mark.parametrize("blank", ["   ", "\t \n"])
async def test_a_tournament_named_only_with_blanks_is_refused_and_opens_nothing(
    database: Database, blank: str
) -> None:
    """Discord's 1 to 100 characters let blanks through; the service refuses a name with no
    other character itself (it would be a blank standings title and blank thread names), and
    the channel stays free."""
    _, tournaments = services(database)
    with pytest.raises(BadOptionError) as refused:
        await opened(tournaments, (), name=blank)
    assert refused.value.option == "name"
    view = await opened(tournaments, ())
    assert view.name == "Spring cup", "nothing was opened: the channel takes this one"


@pytest.mark.parametrize(("refused", "taken"), [(0, 1), (MAX_ROUNDS + 1, MAX_ROUNDS)])
async def test_swiss_rounds_of_1_to_20_both_included_are_taken_and_others_refused(
    database: Database, refused: int, taken: int
) -> None:
    """Discord offers `rounds` from 1 to 20; the service refuses 0 and 21 itself (a forged
    payload passes Discord's range), opening nothing, and opens a tournament of 1 or of 20."""
    assert MAX_ROUNDS == 20, "the most rounds the command offers"
    _, tournaments = services(database)
    with pytest.raises(BadOptionError) as refusal:
        await opened(tournaments, (), rounds=refused)
    assert refusal.value.option == "rounds"
    view = await opened(tournaments, (), rounds=taken)
    assert view.rounds == taken, "nothing was opened: the channel takes the tournament"


async def test_a_round_robin_opens_whatever_rounds_says_and_keeps_none(database: Database) -> None:
    """`rounds` is for Swiss only: a round-robin given any, even one a Swiss tournament is
    refused, opens, its rounds left to the schedule (so its sign-up says every pair meets)."""
    _, tournaments = services(database)
    view = await opened(tournaments, (), format="round-robin", rounds=MAX_ROUNDS + 1)
    assert view.rounds is None


@pytest.mark.parametrize(
    ("refused", "taken"),
    [
        (MIN_TURN_LIMIT_SECONDS - 1, MIN_TURN_LIMIT_SECONDS),
        (MAX_TURN_LIMIT_SECONDS + 1, MAX_TURN_LIMIT_SECONDS),
    ],
)
async def test_a_turn_limit_of_five_minutes_to_seven_days_is_taken_and_any_other_refused(
    database: Database, refused: int, taken: int
) -> None:
    """The bounds of `/marrakech new`: Discord offers only the choices, and the service refuses
    any other limit itself (a forged payload), opening nothing."""
    _, tournaments = services(database)
    with pytest.raises(BadOptionError) as refusal:
        await opened(tournaments, (), turn_limit_seconds=refused)
    assert refusal.value.option == "turn_limit"
    view = await opened(tournaments, (), turn_limit_seconds=taken)
    assert view.turn_limit_seconds == taken, "nothing was opened: the channel takes this one"


async def test_the_seeding_is_drawn_from_the_tournament_s_seed(database: Database) -> None:
    """The start shuffles the sign-up order with the tournament's own seed: not the sign-up
    order, and another seed draws another one."""
    _, tournaments = services(database)
    sign_ups = tuple(range(6000, 6008))
    view = await opened(tournaments, sign_ups)
    await tournaments.start(view.id, MOD, moderator=True)
    seeding = [entrant.user_id for entrant in (await tournaments.look(view.id)).entrants]
    row = await TournamentStore(database).get(view.id)
    assert row is not None
    assert seeding == seeded(row.seed, list(sign_ups))
    assert seeding != list(sign_ups), "drawn, not taken in sign-up order"
    others = {tuple(seeded(f"{n:032x}", list(sign_ups))) for n in range(1, 11)}
    assert len(others) > 1, "another seed, another draw"


async def test_every_table_s_game_has_a_secret_seed_of_its_own_in_every_round(
    database: Database,
) -> None:
    """As a lobby's game (R13): each table's game, round after round, is dealt and rolled from
    a seed of its own, neither the tournament's nor another table's, committed at its start.
    The seed a finished table's record reveals is that game's alone: it tells nothing of the
    dice of a table still played or of a round to come."""
    games, tournaments = services(database)
    store = GameStore(database)
    view = await opened(tournaments)  # five players at tables of two: two tables and a bye
    await tournaments.start(view.id, MOD, moderator=False)
    tournament = await TournamentStore(database).get(view.id)
    assert tournament is not None
    seeds: dict[int, tuple[str, str]] = {}
    records: dict[int, str] = {}
    for _ in range(3):
        started = await set_up(tournaments, view.id)
        assert len(started) == 3
        for game in started:
            row = await store.get(game.id)
            assert row is not None
            assert row.seed_sha256 == game.game.seed_sha256 == dice.commitment(row.seed)
            seeds[game.id] = (row.seed, row.seed_sha256)
        for game in started:
            ended = await end_by_resignations(games, game)
            record = await games.play.record(ended.id)
            assert record["seed"] == seeds[ended.id][0], "the record reveals the game's own seed"
            records[ended.id] = json.dumps(record)
            await tournaments.game_closed(ended.id)
    assert len(seeds) == 9, "three rounds of three tables"
    assert len({seed for seed, _ in seeds.values()}) == 9, "a seed per table"
    assert len({sha for _, sha in seeds.values()}) == 9, "a commitment per table"
    assert tournament.seed not in {seed for seed, _ in seeds.values()}
    for game_id, text in records.items():
        assert tournament.seed not in text
        for other, (seed, _) in seeds.items():
            assert other == game_id or seed not in text, (game_id, other)


async def test_a_table_s_record_checks_out_as_engine_readme_shows(
    database: Database, repo_root: Path
) -> None:
    """A table's game is dealt as engine/README.md tells a player to check it, like a lobby's:
    the seats shuffled from its seed first, then the deal; its rolls are the seed's too."""
    games, tournaments = services(database)
    check = readme_check(repo_root)
    view = await opened(tournaments)  # five players at tables of two: two tables and a bye
    await tournaments.start(view.id, MOD, moderator=False)
    started = await set_up(tournaments, view.id)
    assert len(started) == 3
    for game in started:
        for _ in range(4):
            if game.user_to_move is not None:
                game = await step(games, game)
        ended = await end_by_resignations(games, game)
        record = await games.play.record(ended.id)
        assert any(action.startswith("D") for action in record["actions"]), "a roll to check"
        check.check_dice(record)


async def test_an_abort_ends_the_tournament_and_its_games(database: Database) -> None:
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:4])
    await tournaments.start(view.id, MOD, moderator=False)
    first, second = await set_up(tournaments, view.id)
    await end_by_resignations(games, first)
    with pytest.raises(HostOnlyError):
        await tournaments.abort(view.id, PLAYERS[0], moderator=False)
    aborted_view, aborted = await tournaments.abort(view.id, PLAYERS[0], moderator=True)
    assert aborted_view.status is TournamentStatus.ABORTED
    assert [game.id for game in aborted] == [second.id]
    assert aborted[0].status is GameStatus.ABORTED
    progress = await tournaments.game_closed(second.id)
    assert progress is not None
    assert progress.paired is None
    assert not progress.finished
    with pytest.raises(TournamentClosedError):
        await tournaments.abort(view.id, MOD, moderator=True)
    with pytest.raises(GameNotRunningError):
        await games.play.resign(second.id, PLAYERS[0])


async def test_an_abort_as_another_process_starts_the_tournament_aborts_it_running(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The abort reads the tournament still signing up, and another process starts it before
    the sign-up is cancelled: the abort ends the running tournament, not refusing as if it were
    past that stage."""
    _, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:4])
    cancel = tournaments.cancel

    async def started_meanwhile(*args: Any, **kwargs: Any) -> Any:
        await tournaments.start(view.id, MOD, moderator=False)
        return await cancel(*args, **kwargs)

    monkeypatch.setattr(tournaments, "cancel", started_meanwhile)
    aborted_view, _ = await tournaments.abort(view.id, MOD, moderator=True)
    assert aborted_view.status is TournamentStatus.ABORTED


async def test_an_abort_asked_in_one_of_the_tournament_s_threads_finds_the_tournament(
    database: Database,
) -> None:
    """`/marrakech-mod tournament-abort` finds the tournament where it is asked: in its channel
    or in the thread of any of its tables (a thread of none of them has none)."""
    _, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:4])
    await tournaments.start(view.id, MOD, moderator=False)
    first, second = await set_up(tournaments, view.id)
    threads = [t.thread_id for t in (await tournaments.look(view.id)).tables if t.thread_id]
    assert sorted(threads) == sorted([first.game.channel_id, second.game.channel_id])
    for place in (CHANNEL, *threads):
        assert (await tournaments.open_at(place)).id == view.id, place
    with pytest.raises(NoTournamentHereError):
        await tournaments.open_at(next(THREADS))

    found = await tournaments.open_at(second.game.channel_id)
    aborted_view, aborted = await tournaments.abort(found.id, MOD, moderator=True)
    assert aborted_view.status is TournamentStatus.ABORTED
    assert sorted(game.id for game in aborted) == sorted([first.id, second.id])
    with pytest.raises(NoTournamentHereError):
        await tournaments.open_at(second.game.channel_id)


async def test_an_aborted_game_counts_for_nobody_and_the_round_goes_on(
    database: Database,
) -> None:
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:4], rounds=2)
    await tournaments.start(view.id, MOD, moderator=False)
    first, second = await set_up(tournaments, view.id)
    await end_by_resignations(games, first)
    await tournaments.game_closed(first.id)
    await games.play.abort(second.id, MOD, moderator=True)
    progress = await tournaments.game_closed(second.id)
    assert progress is not None
    assert progress.paired == 2
    points = {line.user_id: line.half_points for line in progress.view.standings}
    assert sorted(points.values()) == [0, 0, 0, 2]
    assert all(line.played == 1 for line in progress.view.standings)


async def test_a_table_s_game_is_ended_by_a_moderator_not_by_its_creator_as_its_host(
    database: Database,
) -> None:
    """A table's game is hosted by nobody who plays it: the tournament's creator, seated at a
    table or not, is refused the players' abort (at the question and at the click) and the
    game goes on; as a moderator they end it."""
    games, tournaments = services(database)
    view = await opened(tournaments, (MOD, *PLAYERS[:3]), rounds=2)
    await tournaments.start(view.id, MOD, moderator=False)
    tables = await set_up(tournaments, view.id)
    assert sorted(MOD in {p.user_id for p in table.players} for table in tables) == [
        False,
        True,
    ]
    for table in tables:
        with pytest.raises(TournamentTableAbortError):
            await games.play.check_abort(table.id, MOD)
        with pytest.raises(TournamentTableAbortError):
            await games.play.abort(table.id, MOD)
        assert (await games.play.look(table.id)).status is GameStatus.RUNNING
    ended = await games.play.abort(tables[0].id, MOD, moderator=True)
    assert ended.status is GameStatus.ABORTED


@pytest.mark.parametrize("seats", [2, 3, 4])
async def test_a_player_who_hands_their_seat_over_counts_as_resigned_then_and_scores_nothing(
    database: Database, seats: int
) -> None:
    """A moderator hands the first player's seat to a substitute, then every other player
    resigns: the substitute's seat is left standing and wins on the board. The player who left
    counts as out when they left, behind everyone who stayed (who rank among themselves in the
    order they went out), and gets no score or dirhams from the game, whatever the seat ended
    with: the last to resign wins the tournament."""
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:seats], seats=seats, rounds=1)
    await tournaments.start(view.id, MOD, moderator=True)
    (game,) = await set_up(tournaments, view.id)
    leaver, *stayers = [player.user_id for player in game.players if player.user_id is not None]
    handed = await games.substitutes.substitute(game.id, leaver, 6001, "Sub", in_bot=False)
    over = handed.view
    for stayer in stayers:
        over = await games.play.resign(over.id, stayer)
    assert over.status is GameStatus.OVER
    assert over.state is not None
    (seat,) = [p.seat for p in over.players if p.stands_in_for == leaver]
    assert seat is not None
    assert engine.scores(over.state)[seat].total > 0
    progress = await tournaments.game_closed(over.id)
    assert progress is not None
    assert progress.finished
    lines = {line.user_id: line for line in progress.view.standings}
    # In halves: the i-th to resign is ahead of the i - 1 before them and of the leaver.
    assert {user: line.half_points for user, line in lines.items()} == {
        leaver: 0,
        **{stayer: 2 * index for index, stayer in enumerate(stayers, 1)},
    }
    assert (lines[leaver].score, lines[leaver].dirhams) == (0, 0), "none of the seat's end"
    assert lines[leaver].rank == seats
    assert progress.view.winners == (stayers[-1],)


async def test_the_tournament_s_creator_who_does_not_play_at_a_table_cannot_ask_for_its_seats(
    database: Database,
) -> None:
    """The tournament's creator is named each table's host, but plays at none of them: their
    request to hand a seat over is refused as made by someone who holds no seat at the table
    (a moderator decides), never as by a host who is out of the game, and nothing is opened."""
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:2], rounds=1)
    await tournaments.start(view.id, MOD, moderator=True)
    (game,) = await set_up(tournaments, view.id)
    assert game.game.host_id == MOD
    leaver = next(player.user_id for player in game.players if player.user_id is not None)
    with pytest.raises(SubstituteError) as refused:
        await games.substitutes.ask(game.id, MOD, leaver, 6001, "Sub", in_bot=False)
    assert refused.value.code == "host_not_seated"
    assert await games.substitutes.after_seats_changed(game.id) == []
    assert await games.play.look(game.id) == game


async def test_a_table_s_player_asking_for_a_seat_is_told_only_the_creator_may(
    database: Database,
) -> None:
    """At a tournament's table the host is the tournament's creator, whom its players may not
    know as such: a player's request to hand a seat over is refused as for the creator (or a
    moderator) to make, not for a "host", and nothing is opened."""
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:2], rounds=1)
    await tournaments.start(view.id, MOD, moderator=True)
    (game,) = await set_up(tournaments, view.id)
    asker, leaver = (player.user_id for player in game.players if player.user_id is not None)
    assert asker is not None
    assert leaver is not None
    with pytest.raises(TournamentCreatorOnlyError):
        await games.substitutes.ask(game.id, asker, leaver, 6001, "Sub", in_bot=False)
    assert await games.play.look(game.id) == game


@pytest.mark.parametrize("seats", [3, 4])
async def test_a_player_who_hands_their_seat_over_after_a_resignation_scores_over_that_seat(
    database: Database, seats: int
) -> None:
    """One player resigns, then a moderator hands the next player's seat to a substitute, then
    the others resign. The player who left counts as out when they left: behind everyone who
    stayed on after them, but ahead of the seat already out, which earns them its point."""
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:seats], seats=seats, rounds=1)
    await tournaments.start(view.id, MOD, moderator=True)
    (game,) = await set_up(tournaments, view.id)
    first_out, leaver, *stayers = [p.user_id for p in game.players if p.user_id is not None]
    await games.play.resign(game.id, first_out)
    handed = await games.substitutes.substitute(game.id, leaver, 6001, "Sub", in_bot=False)
    over = handed.view
    for stayer in stayers:
        over = await games.play.resign(over.id, stayer)
    assert over.status is GameStatus.OVER
    progress = await tournaments.game_closed(over.id)
    assert progress is not None
    lines = {line.user_id: line for line in progress.view.standings}
    # In halves: each ahead of everyone out before them, the leaver of the first out alone.
    assert {user: line.half_points for user, line in lines.items()} == {
        first_out: 0,
        leaver: 2,
        **{stayer: 2 * index for index, stayer in enumerate(stayers, 2)},
    }
    assert (lines[leaver].score, lines[leaver].dirhams) == (0, 0), "none of the seat's end"
    assert lines[leaver].rank == seats - 1
    assert 6001 not in lines, "the substitute gets nothing from the game"


@pytest.mark.parametrize(("ai_place", "half_points"), [(2, 2), (1, 1)])
async def test_a_bye_won_against_the_ai_gives_its_point_and_a_shared_place_half(
    database: Database, ai_place: int, half_points: int
) -> None:
    """The AI of a bye counts as an opponent for points. The bye's game is ended in the store,
    its player first and the AI second or alongside: a game's own play is tested elsewhere, and
    resignations cannot put the AI behind."""
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:3], rounds=1)
    await tournaments.start(view.id, MOD, moderator=True)
    started = await set_up(tournaments, view.id)
    (bye,) = [game for game in started if any(p.user_id is None for p in game.players)]
    (duel,) = [game for game in started if game is not bye]
    await tournaments.game_closed((await end_by_resignations(games, duel)).id)
    (player,) = [p for p in bye.players if p.user_id is not None]
    (ai,) = [p for p in bye.players if p.user_id is None]
    assert player.seat is not None
    assert ai.seat is not None
    ai_dirhams = 20 if ai_place == 1 else 15  # a shared place: equal score and dirhams
    store = GameStore(database)
    await store.add_results(
        bye.id,
        [
            ResultRow(player.seat, player.user_id, None, "red", 50, 20, 1, True),
            ResultRow(ai.seat, None, "medium", "blue", 50, ai_dirhams, ai_place, False),
        ],
    )
    await store.end(bye.id, GameStatus.OVER, EndReason.FINISHED, None, fixed_clock())
    progress = await tournaments.game_closed(bye.id)
    assert progress is not None
    assert progress.finished
    (line,) = [line for line in progress.view.standings if line.user_id == player.user_id]
    assert (line.half_points, line.played) == (half_points, 1)


async def test_processes_racing_over_a_round_pair_it_once_and_split_its_tables(
    database_target: str,
) -> None:
    first_db = await open_database(database_target)
    second_db = await open_database(database_target)
    try:
        games, one = services(first_db, "one")
        _, two = services(second_db, "two")
        view = await opened(one, PLAYERS[:4])
        await one.start(view.id, MOD, moderator=False)
        claimed = await asyncio.gather(one.claim_tables(view.id), two.claim_tables(view.id))
        assert sorted(len(tables) for tables in claimed) in ([0, 2], [1, 1])
        both: list[TableView] = [table for tables in claimed for table in tables]
        assert sorted((t.round, t.number) for t in both) == [(1, 1), (1, 2)]
        for table in claimed[0]:
            await one.release_table(view.id, table)
        for table in claimed[1]:
            await two.release_table(view.id, table)
        for game in await set_up(one, view.id):
            await end_by_resignations(games, game)
        results = await asyncio.gather(
            *(service.advance(view.id) for service in (one, two, one, two, two))
        )
        assert sorted(progress.paired or 0 for progress in results) == [0, 0, 0, 0, 2]
        tables = (await two.look(view.id)).round_tables(2)
        assert len(tables) == 2
    finally:
        await first_db.close()
        await second_db.close()


async def test_processes_racing_over_the_last_round_end_the_tournament_once(
    database_target: str,
) -> None:
    """Of the advances racing over the end of the last round, one ends the tournament: only
    that one's progress is `finished`, so the winner is announced once."""
    first_db = await open_database(database_target)
    second_db = await open_database(database_target)
    try:
        games, one = services(first_db, "one")
        _, two = services(second_db, "two")
        view = await opened(one, PLAYERS[:2], rounds=1)
        await one.start(view.id, MOD, moderator=False)
        for game in await set_up(one, view.id):
            await end_by_resignations(games, game)
        results = await asyncio.gather(
            *(service.advance(view.id) for service in (one, two, one, two))
        )
        assert sum(progress.finished for progress in results) == 1, "the winner told once"
        assert (await two.look(view.id)).status is TournamentStatus.OVER
    finally:
        await first_db.close()
        await second_db.close()


async def test_a_restarted_process_pairs_the_round_that_the_last_one_left(
    database_target: str,
) -> None:
    database = await open_database(database_target)
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:2], rounds=2)
    await tournaments.start(view.id, MOD, moderator=False)
    (game,) = await set_up(tournaments, view.id)
    await end_by_resignations(games, game)  # the process stops before it moves the round on
    await database.close()

    database = await open_database(database_target)
    try:
        _, restarted = services(database)
        assert await restarted.running() == [view.id]
        progress = await restarted.advance(view.id)
        assert progress.paired == 2
        (again,) = await set_up(restarted, view.id)
        assert again.id != game.id
    finally:
        await database.close()


async def test_a_start_looks_at_the_tournaments_that_ended_within_the_last_day(
    database: Database,
) -> None:
    """A process that ends a tournament may die before it draws the end: the next start draws
    it for the tournaments that ended within the last day. One that ended an hour ago is among
    them; two days later it is not (a window that starts now would find none at all)."""
    clock = ManualClock()
    games, tournaments = services(database, clock=clock)
    view = await opened(tournaments, PLAYERS[:2], rounds=1)
    await tournaments.start(view.id, MOD, moderator=False)
    (game,) = await set_up(tournaments, view.id)
    await end_by_resignations(games, game)
    assert (await tournaments.advance(view.id)).finished
    clock.advance(timedelta(hours=1).total_seconds())
    assert await tournaments.ended_within(timedelta(days=1)) == [view.id]
    clock.advance(timedelta(days=2).total_seconds())
    assert await tournaments.ended_within(timedelta(days=1)) == []


async def play_round(
    games: GameService, tournaments: TournamentService, tournament_id: int
) -> None:
    """Set every table of the round up and end each game, without moving the tournament on."""
    for game in await set_up(tournaments, tournament_id):
        await end_by_resignations(games, game)


async def test_an_advance_reads_the_tournament_once(database: Database) -> None:
    """Whatever the round, an advance reads the tournament, its players and its tables in one
    snapshot: it pairs the next round in ADVANCE_ROUND_TRIPS, and finds nothing to do in one
    snapshot's round trips."""
    games, tournaments = services(database)
    view = await opened(tournaments)
    await tournaments.start(view.id, MOD, moderator=False)
    for round_no in (2, 3):
        await play_round(games, tournaments, view.id)
        with counting(database) as trips:
            progress = await tournaments.advance(view.id)
        assert progress.paired == round_no
        assert trips.count <= ADVANCE_ROUND_TRIPS, f"round {round_no}: {trips.count} round trips"
        assert progress.view == await tournaments.look(view.id), "the view is as stored"
        with counting(database) as trips:
            idle = await tournaments.advance(view.id)
        assert idle.paired is None
        assert trips.count <= SNAPSHOT_ROUND_TRIPS, f"nothing to do: {trips.count} round trips"


async def test_the_advance_that_ends_a_tournament_reads_it_once_and_ends_it_in_one_statement(
    database: Database,
) -> None:
    """After the last round, the advance ends the tournament in ENDING_ROUND_TRIPS: the view it
    returns is built from its snapshot and the end it wrote. Reading the tournament again for
    that view would double the cost of the step."""
    games, tournaments = services(database)
    view = await opened(tournaments)
    await tournaments.start(view.id, MOD, moderator=False)
    for round_no in (2, 3):
        await play_round(games, tournaments, view.id)
        assert (await tournaments.advance(view.id)).paired == round_no
    await play_round(games, tournaments, view.id)
    with counting(database) as trips:
        progress = await tournaments.advance(view.id)
    assert progress.finished
    assert trips.count <= ENDING_ROUND_TRIPS, f"the end: {trips.count} round trips"
    assert progress.view == await tournaments.look(view.id), "the view is as stored"


async def test_setting_a_table_up_reads_that_table_only(database: Database) -> None:
    """start_table reads the one table it sets up (not every table of every round): the same
    round trips in the last round as in the first."""
    games, tournaments = services(database)
    view = await opened(tournaments)
    await tournaments.start(view.id, MOD, moderator=False)
    for round_no in (1, 2, 3):
        if round_no > 1:
            await tournaments.advance(view.id)
        for table in await tournaments.claim_tables(view.id):
            await tournaments.set_thread(view.id, table, next(THREADS))
            (table,) = [
                t
                for t in (await tournaments.look(view.id)).round_tables(round_no)
                if t.number == table.number
            ]
            with counting(database) as trips:
                game = await tournaments.start_table(view.id, table)
            assert trips.count <= START_TABLE_ROUND_TRIPS, (
                f"round {round_no}, table {table.number}: {trips.count} round trips"
            )
            await end_by_resignations(games, game)


def recording_threads(monkeypatch: pytest.MonkeyPatch, *names: str) -> list[tuple[str, int]]:
    """Wrap pairing's `names` to record (name, thread) at each call."""
    calls: list[tuple[str, int]] = []
    for name in names:
        original = getattr(pairing, name)

        def recorded(
            *args: Any, _name: str = name, _original: Any = original, **options: Any
        ) -> Any:
            calls.append((_name, threading.get_ident()))
            return _original(*args, **options)

        monkeypatch.setattr(pairing, name, recorded)
    return calls


async def pair_a_swiss_round_and_a_round_robin(
    database: Database, workers: WorkerPool | None = None
) -> None:
    """Pair a Swiss tournament's second round, then start a round-robin (its schedule)."""
    games, tournaments = services(database, workers=workers)
    swiss = await opened(tournaments, PLAYERS[:4], rounds=2)
    await tournaments.start(swiss.id, MOD, moderator=False)
    await play_round(games, tournaments, swiss.id)
    assert (await tournaments.advance(swiss.id)).paired == 2
    await tournaments.abort(swiss.id, MOD, moderator=True)
    robin = await opened(tournaments, PLAYERS[:4], format="round-robin")
    await tournaments.start(robin.id, MOD, moderator=False)


async def test_pairing_runs_off_the_event_loop(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Swiss pairing and a round-robin's schedule take up to a second of CPU at 64 players:
    they run in the worker pool (here without processes: in its threads), never in the event
    loop's thread, which keeps serving every other game."""
    calls = recording_threads(monkeypatch, "swiss_tables", "round_robin_schedule")
    loop_thread = threading.get_ident()
    await pair_a_swiss_round_and_a_round_robin(database)
    assert {name for name, _ in calls} == {"swiss_tables", "round_robin_schedule"}
    assert [name for name, thread in calls if thread == loop_thread] == []


async def test_pairing_runs_in_the_worker_pool_s_slow_lane(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Swiss round and a round-robin's schedule are paired in the slow lane, which may hold
    every worker but one: a long pairing never keeps a picture waiting for a worker."""
    workers = WorkerPool(workers=0)
    lanes = lanes_noted(workers, monkeypatch)
    await pair_a_swiss_round_and_a_round_robin(database, workers)
    assert {name for name, _ in lanes} >= {"swiss_round", "round_robin_schedule"}
    assert [(name, lane) for name, lane in lanes if lane is not Lane.SLOW] == []


async def test_a_round_robins_schedule_is_worked_out_once(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The schedule is worked out at the start and stored; each round reads its tables."""
    calls = recording_threads(monkeypatch, "round_robin_schedule")
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:4], format="round-robin")
    progress = await tournaments.start(view.id, MOD, moderator=False)
    assert progress.view.rounds == 3
    for _ in range(3):
        await play_round(games, tournaments, view.id)
        progress = await tournaments.advance(view.id)
    assert progress.finished
    met = {frozenset(table.humans) for table in progress.view.tables}
    assert len(met) == 6, "every pair met"
    assert len(calls) == 1


@pytest.mark.parametrize("seats", [2, 3])
async def test_a_round_robin_started_without_a_stored_schedule_stores_it_once(
    database: Database, monkeypatch: pytest.MonkeyPatch, seats: int
) -> None:
    """A round-robin whose schedule was never stored (one started by an older bot) works it
    out at its next round, stores it, and reads it from then on. It is the first greedy
    schedule, the one that bot paired its rounds from and counted them by (5 players at 3
    seats: 4 rounds, where the shortest schedule found has 3)."""
    games, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[: 2 + seats], format="round-robin", seats=seats)
    await tournaments.start(view.id, MOD, moderator=False)
    store = TournamentStore(database)
    started = await store.snapshot(view.id, schedule=True)
    assert started is not None
    seeding = [entrant.user_id for entrant in started.entrants]
    first_greedy = pairing.round_robin_schedule(seeding, seats, search=False)
    async with database.transaction() as conn:
        await conn.execute(
            "UPDATE tournaments SET schedule = NULL, rounds = $2 WHERE id = $1",
            view.id,
            len(first_greedy),
        )
    calls = recording_threads(monkeypatch, "round_robin_schedule")
    for round_no in range(2, len(first_greedy) + 1):
        await play_round(games, tournaments, view.id)
        progress = await tournaments.advance(view.id)
        assert progress.paired == round_no
        tables = tuple(table.seats for table in progress.view.round_tables(round_no))
        assert tables == tuple(first_greedy[round_no - 1])
    assert len(calls) == 1
    again = await store.snapshot(view.id, schedule=True)
    assert again is not None
    assert again.schedule == tuple(map(tuple, first_greedy))


@pytest.mark.parametrize("backend", ["sqlite"])  # what is tested is the worker, not the database
async def test_worker_processes_pair_the_rounds_the_bot_would(
    database: Database, fresh_targets: FreshTargets
) -> None:
    """The same tournament paired in worker processes and in threads of the bot's own process
    gets the same tables, round after round, and the same round-robin schedule."""
    workers = WorkerPool(workers=1)
    reference = await open_database(await fresh_targets.new())
    try:
        ended = []
        for target, pool in ((database, workers), (reference, None)):
            games, tournaments = services(target, workers=pool)
            view = await opened(tournaments, rounds=3)
            await tournaments.start(view.id, MOD, moderator=False)
            for _ in range(3):
                await play_round(games, tournaments, view.id)
                progress = await tournaments.advance(view.id)
            assert progress.finished
            robin_view = await opened(tournaments, PLAYERS[:4], format="round-robin")
            robin = await tournaments.start(robin_view.id, MOD, moderator=False)
            ended.append(
                [
                    [(table.round, table.number, table.seats) for table in view.tables]
                    for view in (progress.view, robin.view)
                ]
            )
        assert ended[0] == ended[1]
    finally:
        await reference.close()
        await workers.close()


async def test_a_tournament_game_is_known_as_one_and_has_no_rematch(database: Database) -> None:
    """A table's game is the tournament's (its result offers no Rematch: the tournament pairs
    the next round), and a rematch asked all the same is refused, opening nothing."""
    games, tournaments = services(database)
    view = await opened(tournaments)
    await tournaments.start(view.id, MOD, moderator=False)
    first, *_ = await set_up(tournaments, view.id)
    assert first.game.tournament_id == view.id
    ended = await end_by_resignations(games, first)
    assert ended.game.tournament_id == view.id
    player = next(p.user_id for p in ended.players if p.user_id is not None)
    async with database.single_read() as conn:
        before = await conn.fetchval("SELECT count(*) FROM games")
    with pytest.raises(TournamentGameError):
        await games.lobby.rematch(ended.id, player)
    async with database.single_read() as conn:
        assert await conn.fetchval("SELECT count(*) FROM games") == before, "no lobby opened"


async def test_a_table_s_first_turn_has_the_tournament_s_turn_limit_and_reminder(
    database: Database,
) -> None:
    """A game is a game like any other from its first turn: the reminder at half the
    tournament's turn limit, and the AI playing that turn once its time ran out."""
    clock = ManualClock()
    games, tournaments = services(database, clock=clock)
    view = await opened(tournaments)
    await tournaments.start(view.id, MOD, moderator=False)
    timed = [game for game in await set_up(tournaments, view.id) if game.user_to_move]
    assert timed, "a table whose first mover is a person"
    for game in timed:
        row = await GameStore(database).get(game.id)
        assert row is not None
        assert row.remind_at == clock.now + timedelta(seconds=1800), "the reminder at half time"
        assert row.due_at == clock.now + timedelta(seconds=3600), "the turn time limit"
    clock.advance(3600)
    turn = await games.turns.play_due(timed[0].id, timed[0].seq)
    assert isinstance(turn, AutoTurn)
    assert turn.reason is TurnReason.TIMEOUT


async def test_a_table_s_game_is_played_by_the_tournament_s_variant(database: Database) -> None:
    """Not only named after it: each table's game is dealt with the tournament's rules, so a
    rotate-after game's first turn is a roll, with no turn of Assam before it."""
    _, tournaments = services(database)
    view = await opened(tournaments, PLAYERS[:4], variant="rotate-after")
    await tournaments.start(view.id, MOD, moderator=False)
    games = await set_up(tournaments, view.id)
    assert len(games) == 2
    for game in games:
        assert game.game.variant == "rotate-after"
        assert game.state is not None
        assert game.state.config.variant is engine.Variant.ROTATE_AFTER
        assert (game.state.turn, game.state.phase) == (1, engine.Phase.ROLL)


async def test_a_table_s_game_names_each_player_as_they_signed_up(database: Database) -> None:
    """As the standings do: the picture's panel names every seat, each person by the name they
    signed up with, never by a seat label."""
    _, tournaments = services(database)
    view = await opened(tournaments)
    signed = {entrant.user_id: entrant.name for entrant in view.entrants}
    assert all(signed.values())
    await tournaments.start(view.id, MOD, moderator=False)
    games = await set_up(tournaments, view.id)
    assert games
    for game in games:
        for player in game.players:
            if player.user_id is not None:
                assert player.name == signed[player.user_id], (player.user_id, player.name)
        shown = seat_names(game.players, len(game.players), "en")
        assert shown is not None
        assert all(shown), shown
