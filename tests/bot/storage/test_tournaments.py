"""The tournament store (bot.storage.tournaments) on both back ends: sign-up, the start, rounds
paired once and only while the tournament runs, tables claimed and set up once, and the guarded
end."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from bot.storage import Database, GameStore, ResultRow, open_database
from bot.storage.kinds import TurnClock
from bot.storage.tournaments import (
    AlreadyEnteredError,
    ChannelHasTournamentError,
    NewTableGame,
    NewTournament,
    TableSeat,
    TournamentStore,
    WithdrawalsChangedError,
)

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)
GUILD, CHANNEL, THREAD, MOD = 7, 70, 71, 900
ALICE, BOB, CAROL = 901, 902, 903


def new_tournament(channel: int = CHANNEL) -> NewTournament:
    return NewTournament(
        guild_id=GUILD,
        channel_id=channel,
        name="Spring cup",
        format="swiss",
        seats=2,
        rounds=3,
        variant="standard",
        turn_limit_seconds=3600,
        locale="en",
        created_by=MOD,
        seed="ab" * 16,
    )


def table_game(thread: int) -> NewTableGame:
    return NewTableGame(
        guild_id=GUILD,
        channel_id=thread,
        host_id=MOD,
        variant="standard",
        turn_limit_seconds=3600,
        seed="cd" * 16,
        seed_sha256="ef" * 32,
        locale="en",
        seats=(TableSeat(BOB, None, "bob"), TableSeat(None, "medium", None)),
        config={"players": 2},
        position={"fake": True},
        clock=TurnClock(NOW, NOW + timedelta(minutes=30), NOW + timedelta(hours=1)),
    )


async def running(store: TournamentStore, channel: int = CHANNEL) -> int:
    tournament = await store.create(new_tournament(channel), NOW)
    for user in (ALICE, BOB, CAROL):
        assert await store.join(tournament.id, user, f"user {user}", NOW)
    assert await store.start(tournament.id, [CAROL, ALICE, BOB], 3, NOW)
    return tournament.id


async def test_one_open_tournament_per_channel_and_its_sign_up(db: Database) -> None:
    store = TournamentStore(db)
    tournament = await store.create(new_tournament(), NOW)
    assert (tournament.status, tournament.rounds, tournament.message_id) == ("signup", 3, None)
    with pytest.raises(ChannelHasTournamentError):
        await store.create(new_tournament(), NOW)
    assert await store.join(tournament.id, ALICE, "alice", NOW)
    assert await store.join(tournament.id, BOB, None, NOW + timedelta(seconds=1))
    with pytest.raises(AlreadyEnteredError):
        await store.join(tournament.id, ALICE, "alice", NOW)
    assert [e.user_id for e in await store.entrants(tournament.id)] == [ALICE, BOB]
    assert await store.leave(tournament.id, BOB, NOW)
    assert not await store.leave(tournament.id, BOB, NOW)
    await store.set_message(tournament.id, 5555)
    found = await store.open_at(CHANNEL)
    assert found is not None
    assert (found.id, found.message_id) == (tournament.id, 5555)
    assert await store.end(tournament.id, "cancelled", MOD, NOW, was="signup")
    assert await store.open_at(CHANNEL) is None
    assert not await store.join(tournament.id, CAROL, "carol", NOW), "the sign-up is over"
    again = await store.create(new_tournament(), NOW)
    assert again.id != tournament.id, "a closed tournament frees its channel"


async def test_a_running_tournament_keeps_its_channel_until_it_is_over(db: Database) -> None:
    store = TournamentStore(db)
    first = await running(store)
    with pytest.raises(ChannelHasTournamentError):
        await store.create(new_tournament(), NOW)
    found = await store.open_at(CHANNEL)
    assert found is not None
    assert found.id == first
    assert await store.end(first, "over", None, NOW, was="running")
    assert await store.open_at(CHANNEL) is None
    again = await store.create(new_tournament(), NOW)
    assert again.id != first


async def test_before_the_seeding_the_players_come_in_the_order_they_signed_up(
    db: Database,
) -> None:
    store = TournamentStore(db)
    tournament = await store.create(new_tournament(), NOW)
    for second, user in enumerate((CAROL, ALICE, BOB)):  # not in the order of their ids
        assert await store.join(tournament.id, user, None, NOW + timedelta(seconds=second))
    assert [e.user_id for e in await store.entrants(tournament.id)] == [CAROL, ALICE, BOB]
    snapshot = await store.snapshot(tournament.id)
    assert snapshot is not None
    assert [e.user_id for e in snapshot.entrants] == [CAROL, ALICE, BOB]


async def test_the_start_draws_the_seeding_once(db: Database) -> None:
    store = TournamentStore(db)
    tournament_id = await running(store)
    assert [e.user_id for e in await store.entrants(tournament_id)] == [CAROL, ALICE, BOB]
    assert [e.seed for e in await store.entrants(tournament_id)] == [1, 2, 3]
    assert not await store.start(tournament_id, [ALICE, BOB, CAROL], 3, NOW)
    assert not await store.join(tournament_id, 999, "late", NOW)
    assert not await store.leave(tournament_id, BOB, NOW), "the list is drawn: no one leaves it"
    assert [e.user_id for e in await store.entrants(tournament_id)] == [CAROL, ALICE, BOB]
    assert [row.id for row in await store.running()] == [tournament_id]


async def test_a_round_is_paired_once_and_after_the_one_before(db: Database) -> None:
    store = TournamentStore(db)
    tournament_id = await running(store)
    assert not await store.pair_round(tournament_id, 2, [(ALICE, BOB)], NOW), "round 1 first"
    assert await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
    assert not await store.pair_round(tournament_id, 1, [(ALICE, BOB), (CAROL, None)], NOW)
    tables = await store.tables(tournament_id)
    assert [(t.round, t.table_no, t.seats) for t in tables] == [
        (1, 1, (CAROL, ALICE)),
        (1, 2, (BOB, None)),
    ]
    assert await store.rounds_paired(tournament_id) == 1


async def test_a_round_is_paired_only_while_the_tournament_runs(db: Database) -> None:
    # A process that read the tournament running pairs after a moderator aborted it: were the
    # round written, the aborted tournament would hold tables no one sets up.
    store = TournamentStore(db)
    signing_up = await store.create(new_tournament(CHANNEL + 1), NOW)
    for user in (ALICE, BOB):
        assert await store.join(signing_up.id, user, None, NOW)
    assert not await store.pair_round(signing_up.id, 1, [(ALICE, BOB)], NOW), "not started"
    assert await store.tables(signing_up.id) == []

    tournament_id = await running(store)
    assert await store.end(tournament_id, "aborted", MOD, NOW, was="running")
    assert not await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
    assert await store.tables(tournament_id) == [], "nothing written"
    assert await store.rounds_paired(tournament_id) == 0


async def test_two_writers_pairing_the_same_round_at_once_write_it_once(
    database_target: str,
) -> None:
    first = await open_database(database_target)
    second = await open_database(database_target)
    try:
        tournament_id = await running(TournamentStore(first))
        stores = [TournamentStore(first), TournamentStore(second)] * 4
        paired = await asyncio.gather(
            *(
                store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
                for store in stores
            )
        )
        assert sorted(paired) == [False] * 7 + [True]
        assert len(await TournamentStore(second).tables(tournament_id)) == 2
    finally:
        await first.close()
        await second.close()


async def test_a_table_is_set_up_once_by_the_process_that_claimed_it(db: Database) -> None:
    store = TournamentStore(db)
    tournament_id = await running(store)
    await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
    until = NOW + timedelta(seconds=60)
    assert await store.claim_tables(tournament_id, NOW, "one", until) == [(1, 1), (1, 2)]
    assert await store.claim_tables(tournament_id, NOW, "two", until) == []
    assert await store.claim_tables(tournament_id, NOW, "one", until) == [(1, 1), (1, 2)]
    await store.release_table(tournament_id, 1, 2, "one")
    assert await store.claim_tables(tournament_id, NOW, "two", until) == [(1, 2)]
    later = until + timedelta(seconds=1)
    assert await store.claim_tables(tournament_id, later, "two", later + timedelta(60)) == [
        (1, 1),
        (1, 2),
    ], "a lease that ran out is free"

    assert await store.set_thread(tournament_id, 1, 2, THREAD) == THREAD
    assert await store.set_thread(tournament_id, 1, 2, THREAD + 1) == THREAD, "kept the first"
    game_id = await store.create_table_game(tournament_id, 1, 2, table_game(THREAD), NOW)
    assert game_id is not None
    assert await store.create_table_game(tournament_id, 1, 2, table_game(THREAD), NOW) is None
    assert await store.of_game(game_id) == tournament_id
    games = GameStore(db)
    game = await games.get(game_id)
    assert game is not None
    assert (game.status, game.channel_id, game.host_id, game.seq) == ("running", THREAD, MOD, 0)
    assert game.due_at == NOW + timedelta(hours=1)
    seats = await games.seats(game_id)
    assert [(s.seat, s.user_id, s.ai_level, s.display_name) for s in seats] == [
        (0, BOB, None, "bob"),
        (1, None, "medium", None),
    ]
    assert await store.claim_tables(tournament_id, later, "two", later) == [(1, 1)]
    found = await store.open_at(THREAD)
    assert found is not None
    assert found.id == tournament_id, "found from its thread"

    table = (await store.tables(tournament_id))[1]
    assert (table.thread_id, table.game_id, table.game_status, table.results) == (
        THREAD,
        game_id,
        "running",
        (),
    )
    await games.add_results(
        game_id,
        [
            ResultRow(0, BOB, None, "red", 40, 12, 1, True),
            ResultRow(1, None, "medium", "blue", 30, 9, 2, False),
        ],
    )
    table = (await store.tables(tournament_id))[1]
    assert [(r.user_id, r.place, r.score, r.dirhams) for r in table.results] == [
        (BOB, 1, 40, 12),
        (None, 2, 30, 9),
    ]


async def test_a_thread_recorded_for_a_table_stays_known_once_its_tournament_is_over(
    db: Database,
) -> None:
    """A thread is a table's once recorded, and still after its tournament ends: a thread made
    but never recorded is not."""
    store = TournamentStore(db)
    tournament_id = await running(store)
    await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
    assert not await store.thread_recorded(THREAD)
    await store.set_thread(tournament_id, 1, 2, THREAD)
    assert await store.end(tournament_id, "aborted", MOD, NOW, was="running")
    assert await store.thread_recorded(THREAD)
    assert not await store.thread_recorded(THREAD + 1)


async def test_a_tournament_ends_once(db: Database) -> None:
    store = TournamentStore(db)
    tournament_id = await running(store)
    assert not await store.end(tournament_id, "over", None, NOW, was="signup")
    ended = await asyncio.gather(
        *(store.end(tournament_id, "over", None, NOW, was="running") for _ in range(3))
    )
    assert sorted(ended) == [False, False, True]
    row = await store.get(tournament_id)
    assert row is not None
    assert row.status == "over"
    assert await store.claim_tables(tournament_id, NOW, "one", NOW) == [], "nothing to set up"


async def test_the_tables_of_a_tournament_that_ended_are_claimed_by_no_process(
    db: Database,
) -> None:
    """A table still to set up when a moderator ends the tournament (its thread failed, the
    retry comes after the end) is claimed by no process, its own claimer included: no thread,
    no welcome, no game for a tournament that is over."""
    store = TournamentStore(db)
    tournament_id = await running(store)
    await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
    until = NOW + timedelta(seconds=60)
    assert await store.claim_tables(tournament_id, NOW, "one", until) == [(1, 1), (1, 2)]
    await store.release_table(tournament_id, 1, 2, "one")
    assert await store.end(tournament_id, "aborted", MOD, NOW, was="running")
    later = until + timedelta(seconds=1)
    for process in ("one", "two"):
        assert await store.claim_tables(tournament_id, NOW, process, until) == [], "released"
        lease = later + timedelta(seconds=60)
        assert await store.claim_tables(tournament_id, later, process, lease) == [], "ran out"


async def test_the_tournaments_ended_since_a_time_are_those_played_to_their_end(
    db: Database,
) -> None:
    store = TournamentStore(db)
    earlier, later = await running(store), await running(store, channel=CHANNEL + 1)
    aborted = await running(store, channel=CHANNEL + 2)
    await store.end(earlier, "over", None, NOW - timedelta(days=2), was="running")
    await store.end(later, "over", None, NOW, was="running")
    await store.end(aborted, "aborted", MOD, NOW, was="running")
    assert [row.id for row in await store.ended_since(NOW - timedelta(days=1))] == [later]


async def test_a_snapshot_reads_what_the_separate_reads_do(db: Database) -> None:
    store = TournamentStore(db)
    tournament_id = await running(store)
    await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
    game_id = await store.create_table_game(tournament_id, 1, 2, table_game(THREAD), NOW)
    assert game_id is not None
    await GameStore(db).add_results(
        game_id,
        [
            ResultRow(0, BOB, None, "red", 40, 12, 1, True),
            ResultRow(1, None, "medium", "blue", 30, 9, 2, False),
        ],
    )
    snapshot = await store.snapshot(tournament_id)
    assert snapshot is not None
    assert snapshot.row == await store.get(tournament_id)
    assert list(snapshot.entrants) == await store.entrants(tournament_id)
    assert list(snapshot.tables) == await store.tables(tournament_id)
    assert [len(table.results) for table in snapshot.tables] == [0, 2]
    assert snapshot.schedule is None, "not asked for"
    assert await store.snapshot(tournament_id + 1) is None

    found = await store.table_snapshot(tournament_id, 1, 2)
    assert found is not None
    assert found.row == snapshot.row
    assert found.table == dataclasses.replace(snapshot.tables[1], results=())
    assert found.names == {ALICE: f"user {ALICE}", BOB: f"user {BOB}", CAROL: f"user {CAROL}"}
    assert await store.table_snapshot(tournament_id, 1, 3) is None
    assert await store.table_snapshot(tournament_id, 2, 1) is None


async def test_a_schedule_is_stored_at_the_start_or_once_after(db: Database) -> None:
    store = TournamentStore(db)
    schedule = [[(ALICE, BOB), (CAROL, None)], [(ALICE, CAROL), (BOB, None)]]
    as_read = tuple(tuple(tuple(table) for table in tables) for tables in schedule)
    tournament = await store.create(new_tournament(), NOW)
    for user in (ALICE, BOB, CAROL):
        await store.join(tournament.id, user, None, NOW)
    assert await store.start(tournament.id, [ALICE, BOB, CAROL], 2, NOW, schedule)
    snapshot = await store.snapshot(tournament.id, schedule=True)
    assert snapshot is not None
    assert snapshot.schedule == as_read

    other = await store.create(new_tournament(CHANNEL + 1), NOW)
    for user in (ALICE, BOB, CAROL):
        await store.join(other.id, user, None, NOW)
    assert await store.start(other.id, [ALICE, BOB, CAROL], 2, NOW)
    unset = await store.snapshot(other.id, schedule=True)
    assert unset is not None
    assert unset.schedule is None
    await store.set_schedule(other.id, schedule)
    await store.set_schedule(other.id, list(reversed(schedule)))
    stored = await store.snapshot(other.id, schedule=True)
    assert stored is not None
    assert stored.schedule == as_read, "the first one stays"


TOURNAMENT_OF_GAME_VERSION = 25
"""The migration that gives a game its tournament (0025_game_tournament.sql)."""


async def test_the_games_of_tournaments_made_before_they_were_marked_are_marked(
    database_target: str,
) -> None:
    stamp = "2026-05-01T12:00:00.000+00:00"
    old = await open_database(database_target, schema_version=TOURNAMENT_OF_GAME_VERSION - 1)
    try:
        async with old.transaction() as conn:
            for game in (1, 2):
                await conn.execute(
                    "INSERT INTO games (id, channel_id, host_id, seats_wanted, variant, seed, "
                    "seed_sha256, created_at, updated_at) "
                    "VALUES ($1, $2, 100, 2, 'standard', 's', 'h', $3, $3)",
                    game,
                    10 + game,
                    stamp,
                )
            await conn.execute(
                "INSERT INTO tournaments (id, guild_id, channel_id, name, format, seats, variant, "
                "created_by, seed, created_at, updated_at) "
                "VALUES (7, 1, 10, 'Cup', 'swiss', 2, 'standard', 100, 's', $1, $1)",
                stamp,
            )
            await conn.execute(
                "INSERT INTO tournament_rounds (tournament_id, round, paired_at) VALUES (7, 1, $1)",
                stamp,
            )
            await conn.execute(
                "INSERT INTO tournament_tables (tournament_id, round, table_no, seats, game_id) "
                "VALUES (7, 1, 1, '[100, null]', 2)"
            )
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        store = GameStore(database)
        ordinary, table = await store.get(1), await store.get(2)
        assert ordinary is not None
        assert table is not None
        assert (ordinary.tournament_id, table.tournament_id) == (None, 7)
    finally:
        await database.close()


async def test_two_creators_of_a_table_s_game_at_once_make_one_and_the_other_gets_none(
    db: Database,
) -> None:
    # Two processes whose claims on a table overlapped (the first one's lease ran out while
    # it set the table up) create its game at once: one game, and the other is told so.
    store = TournamentStore(db)
    for attempt in range(10):
        tournament_id = await running(store, channel=100 + attempt)
        await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
        created = await asyncio.gather(
            *(
                store.create_table_game(tournament_id, 1, 2, table_game(200 + attempt), NOW)
                for _ in range(2)
            )
        )
        assert sorted(game is None for game in created) == [False, True], created


WITHDRAWALS_VERSION = 37
"""The migration that keeps the round after which a player withdrew (0037)."""


async def test_players_of_a_tournament_running_before_withdrawals_were_kept_are_all_still_in(
    database_target: str,
) -> None:
    """A tournament started under the schema before migration 0037 keeps its players once it
    is applied, every one still in and paired; one of them then withdraws after the last round
    paired, and nobody else is changed."""
    old = await open_database(database_target, schema_version=WITHDRAWALS_VERSION - 1)
    try:
        tournament_id = await running(TournamentStore(old))
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        store = TournamentStore(database)
        assert await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
        entrants = await store.entrants(tournament_id)
        assert [(e.user_id, e.withdrew_after) for e in entrants] == [
            (CAROL, None),
            (ALICE, None),
            (BOB, None),
        ]
        assert await store.withdraw(tournament_id, ALICE, NOW) == 1
        assert await store.withdraw(tournament_id, ALICE, NOW) is None, "withdrew already"
        assert await store.withdraw(tournament_id, 404, NOW) is None, "not a player"
        out = {e.user_id: e.withdrew_after for e in await store.entrants(tournament_id)}
        assert out == {CAROL: None, ALICE: 1, BOB: None}
    finally:
        await database.close()


async def test_a_round_is_not_paired_from_other_withdrawals_than_those_stored(
    db: Database,
) -> None:
    """A pairing that left out other players than those withdrawn when it is written (one
    withdrew meanwhile) writes nothing: its caller pairs again. A tournament that does not
    run takes no withdrawal."""
    store = TournamentStore(db)
    tournament_id = await running(store)
    assert await store.pair_round(tournament_id, 1, [(CAROL, ALICE), (BOB, None)], NOW)
    assert await store.withdraw(tournament_id, BOB, NOW) == 1
    with pytest.raises(WithdrawalsChangedError):
        await store.pair_round(tournament_id, 2, [(CAROL, BOB), (ALICE, None)], NOW)
    assert await store.rounds_paired(tournament_id) == 1
    assert await store.pair_round(tournament_id, 2, [(CAROL, ALICE)], NOW, {BOB})
    assert await store.end(tournament_id, "aborted", MOD, NOW)
    assert await store.withdraw(tournament_id, CAROL, NOW) is None
