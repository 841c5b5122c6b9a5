"""Asynchronous play through the service on a real database (each back end), with an injected
clock: AI seats, turn time limits (reminder, timeout, hand-over, rejoin, restart), the
scheduler, server settings, stats and history. Time only moves when a test moves it; nothing
sleeps."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import ai
import engine
from bot.presentation import images
from bot.runtime import scheduler as scheduler_module
from bot.runtime.scheduler import Scheduler
from bot.services import (
    Abandoned,
    AutoTurn,
    DueKind,
    DueWork,
    GameService,
    GameStatus,
    GameView,
    GuildService,
    Reminder,
    StatsService,
    TurnReason,
    dice,
    turn_clock,
)
from bot.services.errors import (
    BadOptionError,
    ChannelNotAllowedError,
    ChannelNotListedError,
    HandedToAiError,
    HostOnlyError,
    LobbyFullError,
    NoAiSeatError,
    NotAReplayError,
    NotHandedToAiError,
)
from bot.storage import Database, GameStore, GuildStore, StatsStore, open_database
from bot.workers.pool import Lane, WorkerPool
from tests.bot.services.conftest import FreshTargets
from tests.bot.services.dice_check import readme_check
from tests.bot.services.test_service import choose
from tests.bot.workers.lanes import lanes_noted, limits_noted

HOST, BOB, CAROL = 1001, 1002, 1003
GUILD, CHANNEL = 9, 500
LIMIT = 600
FAST_AI = ai.Budget(work=8)
"""The hard AI's search kept small so that tests stay fast (and exactly reproducible)."""


@dataclass
class ManualClock:
    now: datetime = field(default_factory=lambda: datetime(2026, 3, 1, 12, tzinfo=UTC))

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Table:
    """A service on a real database, its clock, and a scheduler whose 'display' is a log."""

    database: Database
    clock: ManualClock
    service: GameService
    scheduler: Scheduler
    reminders: list[Reminder] = field(default_factory=list)
    turns: list[AutoTurn] = field(default_factory=list)
    abandoned: list[Abandoned] = field(default_factory=list)

    async def show(self, view: GameView) -> None:
        """What the edge does after posting a game's message: record it as displayed."""
        await self.service.play.set_board_message(view.id, 1000 + view.seq, view.seq)

    async def handle(self, work: DueWork) -> None:
        if work.kind is DueKind.SHOW:
            await self.show(await self.service.play.look(work.game_id))
            return
        if work.kind is DueKind.REMIND:
            reminder = await self.service.turns.remind(work.game_id, work.seq)
            assert reminder is not None
            self.reminders.append(reminder)
            return
        turn = await self.service.turns.play_due(work.game_id, work.seq)
        assert turn is not None
        if isinstance(turn, Abandoned):
            self.abandoned.append(turn)
        else:
            self.turns.append(turn)
        await self.show(turn.view)


def seeds() -> str:
    return "0123456789abcdef" * 2


def make_table(database: Database, clock: ManualClock, workers: WorkerPool | None = None) -> Table:
    service = GameService(
        GameStore(database), clock=clock, seeds=seeds, ai_budget=FAST_AI, workers=workers
    )
    table = Table(database, clock, service, None)  # type: ignore[arg-type]
    table.scheduler = Scheduler(service.turns, table.handle, clock)
    return table


@pytest.fixture
def table(database: Database) -> Table:
    return make_table(database, ManualClock())


async def run_until_quiet(table: Table, limit: int = 200) -> None:
    """Run the scheduler's due work until nothing more is due now."""
    for _ in range(limit):
        if not await table.scheduler.run_due():
            return
    raise AssertionError("the scheduler never went quiet")


async def human_vs_ai(table: Table, *levels: str, limit: int | None = None) -> GameView:
    view = await table.service.lobby.create_lobby(
        guild_id=GUILD,
        channel_id=CHANNEL,
        host_id=HOST,
        seats=1 + len(levels),
        turn_limit_seconds=limit,
    )
    for level in levels:
        view = await table.service.lobby.add_ai(view.id, HOST, level)
    view = await table.service.lobby.start(view.id, HOST)
    await table.show(view)
    return view


# --- AI seats --------------------------------------------------------------------------------


async def test_only_the_host_seats_and_removes_ais_in_an_open_lobby(table: Table) -> None:
    service = table.service
    view = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, seats=3
    )
    with pytest.raises(HostOnlyError):
        await service.lobby.add_ai(view.id, BOB, "easy")
    with pytest.raises(BadOptionError):
        await service.lobby.add_ai(view.id, HOST, "godlike")
    with pytest.raises(NoAiSeatError):
        await service.lobby.remove_ai(view.id, HOST)
    await service.lobby.add_ai(view.id, HOST, "easy")
    view = await service.lobby.add_ai(view.id, HOST, "hard")
    assert [(p.user_id, p.ai_level) for p in view.players] == [
        (HOST, None),
        (None, "easy"),
        (None, "hard"),
    ]
    with pytest.raises(LobbyFullError):
        await service.lobby.join(view.id, BOB)
    with pytest.raises(HostOnlyError):
        await service.lobby.remove_ai(view.id, BOB)
    view = await service.play.look(view.id)
    assert [p.ai_level for p in view.players] == [None, "easy", "hard"], "BOB removed no AI"
    view = await service.lobby.remove_ai(view.id, HOST)
    assert [p.ai_level for p in view.players] == [None, "easy"], "the last AI seated leaves"


async def test_one_human_and_three_ais_play_a_whole_game(table: Table) -> None:
    view = await human_vs_ai(table, "easy", "medium", "hard")
    for _ in range(200):
        await run_until_quiet(table)
        view = await table.service.play.look(view.id)
        if view.status is not GameStatus.RUNNING:
            break
        assert not view.ai_to_move, "an AI turn was left waiting"
        view = await table.service.play.act(view.id, HOST, view.seq, choose(view))
        await table.show(view)
    assert view.status is GameStatus.OVER
    assert {turn.reason for turn in table.turns} == {TurnReason.AI}
    assert {turn.level for turn in table.turns} == {"easy", "medium", "hard"}
    record = await table.service.play.record(view.id)
    assert engine.replay_record(engine.record_from_json(record)).is_over

    stats = StatsService(StatsStore(table.database))
    mine = await stats.player(GUILD, HOST)
    assert mine.games == 1
    assert mine.favourite_color is not None
    board = await table.service.ratings.leaderboard(GUILD)
    assert [row.user_id for row in board.players] == [HOST], "AI seats are nobody's stats"
    assert [row.ai_level for row in board.references] == ["easy", "medium", "hard"], (
        "each AI level is rated as a reference player"
    )


async def test_an_ai_seat_in_a_timed_game_plays_as_soon_as_its_turn_comes(table: Table) -> None:
    """The turn limit is for people: an AI seat's turn is due at once, with no reminder, not
    when a person's clock would run out."""
    view = await human_vs_ai(table, "easy", limit=LIMIT)
    if view.ai_to_move:  # the AI has the first turn
        assert await table.scheduler.seconds_to_sleep() == 0, "due at once"
        assert await table.scheduler.run_due() == 1, "the AI's turn, with no time passed"
        view = await table.service.play.look(view.id)
    assert view.user_to_move == HOST
    view = await play_turn(table, view, HOST)
    assert view.status is GameStatus.RUNNING
    assert view.ai_to_move
    assert await table.scheduler.seconds_to_sleep() == 0, "due at once, not at the limit"
    assert await table.scheduler.run_due() == 1, "the AI's turn, with no time passed"
    assert table.reminders == []
    assert {turn.reason for turn in table.turns} == {TurnReason.AI}


async def test_ai_turns_replay_exactly_from_the_seed(fresh_targets: FreshTargets) -> None:
    """The same game played again makes the same choices, each AI decision being the one its
    level makes from the game's seed and the log position the decision fills."""
    records = []
    for _ in range(2):
        db = await open_database(await fresh_targets.new())
        try:
            table = make_table(db, ManualClock())
            view = await human_vs_ai(table, "medium", "hard")
            for _ in range(6):
                await run_until_quiet(table)
                view = await table.service.play.look(view.id)
                view = await table.service.play.act(view.id, HOST, view.seq, choose(view))
                await table.show(view)
            await run_until_quiet(table)
            records.append(await table.service.play.record(view.id))
        finally:
            await db.close()
    assert records[0]["actions"] == records[1]["actions"]
    record = engine.record_from_json(records[0])
    assert len(record.actions) > 12
    levels = {player.seat: player.ai_level for player in view.players}
    state = engine.new_game(record.config)
    decisions = 0
    for position, action in enumerate(record.actions, start=1):
        level = levels[state.to_move]
        if level is not None and engine.current_player(state) != engine.CHANCE:
            seed = dice.ai_seed(seeds(), position)
            assert action == ai.choose_action(state, level, seed, FAST_AI), f"at {position}"
            decisions += 1
        state, _ = engine.apply(state, action)
    assert decisions > 6, "the AI seats decided"


async def test_the_readme_s_check_confirms_every_roll_and_the_deal_with_a_resignation_and_ais(
    table: Table, repo_root: Path
) -> None:
    """A player holding the finished game's record checks it as engine/README.md shows: the
    seed is the one committed to, the deal and every die roll are the seed's, and each AI
    decision is its level's from the seed at the log position it fills, though a resignation
    (which fills a log position of its own, with no action) came before most of them."""
    service = table.service
    view = await service.lobby.create_lobby(
        guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, seats=4
    )
    await service.lobby.join(view.id, BOB)
    await service.lobby.add_ai(view.id, HOST, "easy")
    view = await service.lobby.add_ai(view.id, HOST, "medium")
    view = await service.lobby.start(view.id, HOST)
    await table.show(view)
    resigned = False
    for _ in range(300):
        await run_until_quiet(table)
        view = await service.play.look(view.id)
        if view.status is not GameStatus.RUNNING:
            break
        mover = view.user_to_move
        assert mover is not None
        if not resigned and view.seq > 8:
            view = await service.play.resign(view.id, BOB)
            resigned = True
        else:
            view = await service.play.act(view.id, mover, view.seq, choose(view))
        await table.show(view)
    assert view.status is GameStatus.OVER
    data = await service.play.record(view.id)
    assert len(data["resignations"]) == 1
    check = readme_check(repo_root)
    check.check_dice(data)
    levels = {player.seat: player.ai_level for player in view.players}
    decisions = 0
    for position, state, action in check.logged(data):
        level = levels[state.to_move] if state.to_move is not None else None
        if level is not None and engine.current_player(state) != engine.CHANCE:
            seed = dice.ai_seed(data["seed"], position)
            assert action == ai.choose_action(state, level, seed, FAST_AI), f"at {position}"
            decisions += 1
    assert decisions > 20, "the AI seats decided, most of them after the resignation"
    index = next(i for i, action in enumerate(data["actions"]) if action.startswith("D") and i > 20)
    other = "D1" if data["actions"][index] != "D1" else "D4"
    with pytest.raises(AssertionError, match="roll"):
        check.check_dice({**data, "actions": [*data["actions"][:index], other]})


async def test_ai_decisions_are_slow_jobs_in_the_workers(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An AI decision runs in the workers' slow lane, which may hold every worker but one: AI
    turns never keep a click's picture waiting for a worker."""
    workers = WorkerPool(workers=0)
    lanes = lanes_noted(workers, monkeypatch)
    table = make_table(database, ManualClock(), workers)
    view = await human_vs_ai(table, "easy", "hard")
    for _ in range(3):
        await run_until_quiet(table)
        view = await table.service.play.look(view.id)
        view = await table.service.play.act(view.id, HOST, view.seq, choose(view))
        await table.show(view)
    await run_until_quiet(table)
    decisions = [lane for name, lane in lanes if name == "choose_action"]
    assert len(decisions) >= 4, "the AI seats decided"
    assert set(decisions) == {Lane.SLOW}


async def test_an_ai_decision_runs_under_the_ai_s_own_time_limit(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each AI decision goes to the workers with the AI's own limit, shorter than the pool's
    default: a hung decision frees its slow-lane worker, and the turn clock tries again, that
    much sooner."""
    workers = WorkerPool(workers=0)
    limits = limits_noted(workers, monkeypatch)
    table = make_table(database, ManualClock(), workers)
    view = await human_vs_ai(table, "easy", "hard")
    for _ in range(2):
        await run_until_quiet(table)
        view = await table.service.play.look(view.id)
        view = await table.service.play.act(view.id, HOST, view.seq, choose(view))
        await table.show(view)
    await run_until_quiet(table)
    decisions = [limit for name, limit in limits if name == "choose_action"]
    assert decisions, "the AI seats decided"
    assert set(decisions) == {turn_clock.AI_TIMEOUT_SECONDS}, "seconds an AI decision may run"


# --- turn time limits ------------------------------------------------------------------------


async def two_humans(table: Table, limit: int = LIMIT) -> GameView:
    return await humans(table, (HOST, BOB), limit=limit)


async def humans(
    table: Table,
    users: tuple[int, ...],
    *,
    limit: int = LIMIT,
    channel: int = CHANNEL,
    variant: str = "standard",
) -> GameView:
    """A game of `users` (the first hosts) under `variant` with a turn limit of `limit`
    seconds, started and shown on `table`."""
    host, *others = users
    view = await table.service.lobby.create_lobby(
        guild_id=GUILD,
        channel_id=channel,
        host_id=host,
        seats=len(users),
        variant=variant,
        turn_limit_seconds=limit,
    )
    for user in others:
        await table.service.lobby.join(view.id, user)
    view = await table.service.lobby.start(view.id, host)
    await table.show(view)
    return view


async def play_turn(table: Table, view: GameView, user: int) -> GameView:
    """`user` plays their whole turn with the deterministic test player, then it is shown."""
    turn = view.state.turn if view.state is not None else 0
    while view.status is GameStatus.RUNNING and view.state and view.state.turn == turn:
        assert view.user_to_move == user
        view = await table.service.play.act(view.id, user, view.seq, choose(view))
    await table.show(view)
    return view


async def test_a_reminder_at_half_time_then_the_medium_ai_plays_at_the_deadline(
    table: Table,
) -> None:
    view = await two_humans(table)
    mover = view.user_to_move
    assert await table.scheduler.seconds_to_sleep() == LIMIT / 2
    table.clock.advance(LIMIT / 2 - 1)
    assert await table.scheduler.run_due() == 0
    table.clock.advance(1)
    assert await table.scheduler.run_due() == 1
    assert [r.user_id for r in table.reminders] == [mover]
    assert table.reminders[0].deadline == table.clock.now + timedelta(seconds=LIMIT / 2)
    assert await table.scheduler.run_due() == 0, "one reminder only"
    assert await table.scheduler.seconds_to_sleep() == LIMIT / 2

    table.clock.advance(LIMIT / 2)
    assert await table.scheduler.run_due() == 1
    (turn,) = table.turns
    assert (turn.reason, turn.user_id, turn.level) == (TurnReason.TIMEOUT, mover, "medium")
    after = await table.service.play.look(view.id)
    assert after.user_to_move != mover
    assert after.state is not None
    assert after.state.turn == 2
    timed_out = after.player_at(turn.seat)
    assert timed_out is not None
    assert timed_out.timeouts == 1
    assert await table.scheduler.seconds_to_sleep() == LIMIT / 2, "the next turn's clock"


async def test_three_timeouts_in_a_row_hand_the_seat_to_the_ai_until_rejoin(
    table: Table,
) -> None:
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    other = BOB if sleeper == HOST else HOST
    for expected in (TurnReason.TIMEOUT, TurnReason.TIMEOUT, TurnReason.HANDED_OVER):
        table.clock.advance(LIMIT)
        await table.scheduler.run_due()
        assert table.turns[-1].reason == expected
        assert table.turns[-1].user_id == sleeper
        view = await table.service.play.look(view.id)
        assert view.user_to_move == other
        view = await play_turn(table, view, other)
        if expected != TurnReason.HANDED_OVER:
            assert view.user_to_move == sleeper
    # handed over: the AI plays the sleeper's turn at once, no waiting for a deadline
    with pytest.raises(HandedToAiError):
        await table.service.play.act(view.id, sleeper, view.seq, choose(view))
    await run_until_quiet(table)
    assert table.turns[-1].reason == TurnReason.AUTOPLAY
    view = await table.service.play.look(view.id)
    assert view.user_to_move == other
    handed = view.player_at(view.seat_of(sleeper))
    assert handed is not None
    assert handed.timeouts == 4, "counted on: only the handover's turn is at the threshold"
    with pytest.raises(NotHandedToAiError):
        await table.service.play.rejoin(view.id, other)
    view = await table.service.play.rejoin(view.id, sleeper)
    player = view.player_at(view.seat_of(sleeper))
    assert player is not None
    assert not player.autoplay
    assert player.timeouts == 0
    view = await play_turn(table, view, other)
    assert view.user_to_move == sleeper
    assert not view.ai_to_move
    assert await table.scheduler.run_due() == 0, "their own turn again, with a fresh clock"


async def test_acting_in_time_resets_the_timeout_count(
    table: Table,
) -> None:
    view = await two_humans(table)
    sleeper = view.user_to_move
    assert sleeper is not None
    other = BOB if sleeper == HOST else HOST
    table.clock.advance(LIMIT)
    await table.scheduler.run_due()
    view = await table.service.play.look(view.id)
    view = await play_turn(table, view, other)
    slept = view.player_at(view.seat_of(sleeper))
    assert slept is not None
    assert slept.timeouts == 1
    # the sleeper comes back in time: the count starts again
    view = await play_turn(table, view, sleeper)
    back = view.player_at(view.seat_of(sleeper))
    assert back is not None
    assert back.timeouts == 0


async def test_a_deadline_passed_while_the_bot_was_down_is_handled_at_start_up(
    database_target: str,
) -> None:
    db = await open_database(database_target)
    clock = ManualClock()
    first = make_table(db, clock)
    view = await two_humans(first)
    mover = view.user_to_move
    await db.close()

    clock.advance(3 * LIMIT)  # the bot was down for half an hour
    db = await open_database(database_target)
    try:
        second = make_table(db, clock)
        due = await second.service.turns.due_work()
        assert due == [DueWork(view.id, view.seq, DueKind.PLAY)], "the deadline outranks"
        assert due[0].kind is DueKind.PLAY
        await second.scheduler.run_due()
        assert [(t.reason, t.user_id) for t in second.turns] == [(TurnReason.TIMEOUT, mover)]
        assert second.reminders == [], "no stale reminder after the deadline itself"
    finally:
        await db.close()


async def test_no_limit_means_nothing_is_ever_due(table: Table) -> None:
    view = await table.service.lobby.create_lobby(guild_id=GUILD, channel_id=CHANNEL, host_id=HOST)
    await table.service.lobby.join(view.id, BOB)
    await table.show(await table.service.lobby.start(view.id, HOST))
    table.clock.advance(30 * 24 * 3600)
    assert await table.scheduler.seconds_to_sleep() is None
    assert await table.scheduler.run_due() == 0


async def test_work_waits_for_the_display_and_failures_are_retried_later(table: Table) -> None:
    view = await table.service.lobby.create_lobby(
        guild_id=GUILD, channel_id=CHANNEL, host_id=HOST, seats=2
    )
    await table.service.lobby.add_ai(view.id, HOST, "easy")
    view = await table.service.lobby.start(view.id, HOST)
    if not view.ai_to_move:
        view = await table.service.play.act(view.id, HOST, view.seq, choose(view))
        view = await table.service.play.act(view.id, HOST, view.seq, choose(view))
    assert view.ai_to_move
    assert await table.scheduler.seconds_to_sleep() == 60.0, "not shown yet: no AI turn before"
    assert await table.service.turns.due_work() == []
    await table.show(view)
    assert await table.scheduler.seconds_to_sleep() == 0.0

    calls = []

    async def failing(work: DueWork) -> None:
        calls.append(work)
        raise RuntimeError("Discord is down")

    broken = Scheduler(table.service.turns, failing, table.clock)
    assert await broken.run_due() == 0
    assert len(calls) == 1
    assert await broken.run_due() == 0, "not retried at once"
    assert len(calls) == 1
    assert await broken.seconds_to_sleep() == 30.0
    table.clock.advance(30)
    await broken.run_due()
    assert len(calls) == 2
    assert await broken.seconds_to_sleep() == 60.0, "each failure doubles the wait"


async def test_a_change_whose_message_never_went_out_is_shown_a_minute_later(
    table: Table,
) -> None:
    view = await two_humans(table, limit=LIMIT)
    mover = view.user_to_move
    assert mover is not None
    view = await table.service.play.act(view.id, mover, view.seq, choose(view))  # never shown
    table.clock.advance(59)
    assert await table.service.turns.due_work() == []
    assert await table.scheduler.seconds_to_sleep() == 1.0
    table.clock.advance(1)
    (due,) = await table.service.turns.due_work()
    assert due == DueWork(view.id, view.seq, DueKind.SHOW)
    assert due.kind is DueKind.SHOW
    await table.show(view)
    assert await table.service.turns.due_work() == []


# --- server settings -------------------------------------------------------------------------


async def test_server_defaults_and_allowed_channels(database: Database) -> None:
    guilds = GuildService(GuildStore(database), clock=ManualClock())
    assert await guilds.options_for_new(
        GUILD, CHANNEL, None, variant=None, turn_limit_seconds=None
    ) == ("standard", None)
    await guilds.set_turn_limit(GUILD, 3600)
    await guilds.set_variant(GUILD, "rotate-after")
    with pytest.raises(BadOptionError):
        await guilds.set_turn_limit(GUILD, 60)
    assert await guilds.options_for_new(
        GUILD, CHANNEL, None, variant=None, turn_limit_seconds=None
    ) == ("rotate-after", 3600)
    assert await guilds.options_for_new(
        GUILD, CHANNEL, None, variant="standard", turn_limit_seconds=0
    ) == ("standard", None), "a player's explicit choice wins, 0 meaning no limit"

    await guilds.allow_channel(GUILD, 77)
    with pytest.raises(ChannelNotAllowedError) as refused:
        await guilds.options_for_new(GUILD, CHANNEL, None, variant=None, turn_limit_seconds=None)
    assert refused.value.channel_ids == (77,)
    await guilds.options_for_new(GUILD, 78, 77, variant=None, turn_limit_seconds=None)
    await guilds.options_for_new(GUILD + 1, CHANNEL, None, variant=None, turn_limit_seconds=None)
    settings = await guilds.remove_channel(GUILD, 77)
    assert settings.channel_ids == ()
    assert settings.turn_limit_seconds == 3600
    with pytest.raises(ChannelNotListedError) as not_listed:
        await guilds.remove_channel(GUILD, 77)
    assert not_listed.value.channel_id == 77


async def test_a_server_s_default_turn_limit_and_variant_are_its_own(database: Database) -> None:
    """Another server's new games keep the standard variant and no limit, and its settings
    show neither of this server's defaults."""
    guilds = GuildService(GuildStore(database), clock=ManualClock())
    await guilds.set_turn_limit(GUILD, 3600)
    await guilds.set_variant(GUILD, "rotate-after")
    assert await guilds.options_for_new(
        GUILD + 1, CHANNEL, None, variant=None, turn_limit_seconds=None
    ) == ("standard", None)
    shown = await guilds.settings(GUILD + 1)
    assert (shown.turn_limit_seconds, shown.variant) == (None, None)


async def test_a_server_variant_that_is_none_of_the_game_s_is_refused_and_changes_nothing(
    database: Database,
) -> None:
    """Discord offers only the game's variants, but a forged payload may send any string: it
    is refused by name, and the server's default stays as it was."""
    guilds = GuildService(GuildStore(database), clock=ManualClock())
    await guilds.set_variant(GUILD, "rotate-after")
    with pytest.raises(BadOptionError) as refused:
        await guilds.set_variant(GUILD, "bogus")
    assert refused.value.option == "variant"
    assert (await guilds.settings(GUILD)).variant == "rotate-after"
    assert await guilds.options_for_new(
        GUILD, CHANNEL, None, variant=None, turn_limit_seconds=None
    ) == ("rotate-after", None)


# --- stats and history -----------------------------------------------------------------------


async def test_aborted_games_and_ai_seats_never_count(table: Table) -> None:
    service = table.service
    stats = StatsService(StatsStore(table.database))
    aborted = await two_humans(table, limit=LIMIT)
    await service.play.abort(aborted.id, HOST)
    assert (await stats.player(GUILD, HOST)).games == 0
    with pytest.raises(NotAReplayError):
        await service.play.replay_record(aborted.id, GUILD)

    view = await human_vs_ai(table, "easy")
    while view.status is GameStatus.RUNNING:
        await run_until_quiet(table)
        view = await service.play.look(view.id)
        if view.status is GameStatus.RUNNING:
            view = await service.play.act(view.id, HOST, view.seq, choose(view))
            await table.show(view)
    state = view.state
    assert state is not None
    assert state.outcome is not None
    seat = view.seat_of(HOST)
    assert seat is not None
    mine = await stats.player(GUILD, HOST)
    out = state.is_eliminated(seat)  # an eliminated seat's score counts nowhere
    score = None if out else engine.scores(state)[seat].total
    won = seat in state.outcome.ranking[0]
    assert (mine.games, mine.wins, mine.best_score, mine.average_score) == (1, won, score, score)
    assert mine.favourite_color == engine.seat_colors(2, seat)[0].value
    assert (await stats.player(GUILD + 1, HOST)).games == 0, "per server"

    history = await stats.history(GUILD, CHANNEL)
    assert [(row.game_id, row.status) for row in history] == [
        (view.id, "over"),
        (aborted.id, "aborted"),
    ]
    assert len(history[0].winner_ids) >= 1
    record = await service.play.replay_record(view.id, GUILD)
    assert record["seed"] == seeds()
    pictures = images.Pictures(WorkerPool(workers=0))
    english, french = [await pictures.replay_gif(record, lang) for lang in ("en", "fr")]
    assert english[:6] == french[:6] == b"GIF89a"
    assert english != french, "the server's words"
    with pytest.raises(NotAReplayError):
        await service.play.replay_record(view.id, GUILD + 1)


async def test_games_due_at_once_are_handled_side_by_side(table: Table) -> None:
    for channel in (CHANNEL, CHANNEL + 1):
        view = await table.service.lobby.create_lobby(
            guild_id=GUILD, channel_id=channel, host_id=HOST, seats=2, turn_limit_seconds=LIMIT
        )
        await table.service.lobby.join(view.id, BOB)
        await table.show(await table.service.lobby.start(view.id, HOST))
    table.clock.advance(LIMIT)
    running = 0
    most = 0

    async def slow(work: DueWork) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0)  # a handler waiting on Discord lets the other game go on
        await table.handle(work)
        running -= 1

    scheduler = Scheduler(table.service.turns, slow, table.clock)
    assert await scheduler.run_due() == 2
    assert most == 2
    assert {turn.view.id for turn in table.turns} == {1, 2}


async def test_due_work_comes_earliest_first_then_the_changes_to_show_oldest_first(
    table: Table,
) -> None:
    """Of more games due than run at once, those waiting longest get the first turns: the
    automatic moves and reminders by when they fell due, then the changes whose message never
    showed by when they were made (each game's change made in the other order of ids)."""
    later = await humans(table, (HOST, BOB), limit=LIMIT, channel=CHANNEL)
    sooner = await humans(table, (HOST, BOB), limit=LIMIT // 2, channel=CHANNEL + 1)
    unshown_last = await humans(table, (HOST, BOB), limit=3600, channel=CHANNEL + 2)
    unshown_first = await humans(table, (HOST, BOB), limit=3600, channel=CHANNEL + 3)
    for view in (unshown_first, unshown_last):  # a move each, its message never posted
        table.clock.advance(5)
        mover = view.user_to_move
        assert mover is not None
        await table.service.play.act(view.id, mover, view.seq, choose(view))
    table.clock.advance(LIMIT)

    due = await table.service.turns.due_work()
    assert [(work.game_id, work.kind) for work in due] == [
        (sooner.id, DueKind.PLAY),
        (later.id, DueKind.PLAY),
        (unshown_first.id, DueKind.SHOW),
        (unshown_last.id, DueKind.SHOW),
    ]


async def test_games_finished_before_results_were_kept_are_backfilled(table: Table) -> None:
    view = await human_vs_ai(table, "easy")
    while view.status is GameStatus.RUNNING:
        await run_until_quiet(table)
        view = await table.service.play.look(view.id)
        if view.status is GameStatus.RUNNING:
            view = await table.service.play.act(view.id, HOST, view.seq, choose(view))
            await table.show(view)
    stats = StatsService(StatsStore(table.database))
    before = await stats.player(GUILD, HOST)
    async with table.database.transaction() as conn:  # as if it ended before migration 0002
        await conn.execute("DELETE FROM results WHERE game_id = $1", view.id)
    assert (await stats.player(GUILD, HOST)).games == 0
    assert await table.service.play.backfill_results() == 1
    assert await stats.player(GUILD, HOST) == before
    assert await table.service.play.backfill_results() == 0


async def test_the_scheduler_task_sleeps_until_a_change_wakes_it(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    looks = 0
    due_work = table.service.turns.due_work

    async def counted() -> list[DueWork]:
        nonlocal looks
        looks += 1
        return await due_work()

    monkeypatch.setattr(table.service.turns, "due_work", counted)
    armed: list[float | None] = []
    """The timeout of each wait the task began (None: it waits until woken)."""

    class Asyncio:
        """asyncio as the scheduler's module sees it, noting each timeout it arms."""

        def __getattr__(self, name: str) -> object:
            return getattr(asyncio, name)

        @staticmethod
        def timeout(delay: float | None) -> asyncio.Timeout:
            armed.append(delay)
            return asyncio.timeout(delay)

    monkeypatch.setattr(scheduler_module, "asyncio", Asyncio())
    asleep = asyncio.Event()
    played = asyncio.Event()
    waits: list[tuple[float | None, bool]] = []
    """Each wait that ended: its timeout, and whether a change (a wake) ended it."""
    waits_before_play: list[tuple[float | None, bool]] = []

    async def handle(work: DueWork) -> None:
        await table.handle(work)
        if not played.is_set():
            waits_before_play.extend(waits)
        played.set()

    scheduler = Scheduler(table.service.turns, handle, table.clock)
    seconds_to_sleep = scheduler.seconds_to_sleep
    sleep = scheduler._sleep

    async def noted() -> float | None:
        delay = await seconds_to_sleep()
        if delay is None:
            asleep.set()
        return delay

    async def recorded(delay: float | None) -> None:
        await sleep(delay)
        waits.append((armed[-1], scheduler._wake.is_set()))

    monkeypatch.setattr(scheduler, "seconds_to_sleep", noted)
    monkeypatch.setattr(scheduler, "_sleep", recorded)
    scheduler.start()
    try:
        await asyncio.wait_for(asleep.wait(), 10)
        before = looks
        for _ in range(200):
            await asyncio.sleep(0)
        assert looks == before, "nothing scheduled: the task waits, it does not poll"
        assert armed == [None], f"nothing scheduled: it waits with no timeout, not {armed}"

        view = await human_vs_ai(table, "easy")  # the start wakes it
        if not view.ai_to_move:
            await play_turn(table, view, HOST)
        await asyncio.wait_for(played.wait(), 10)
        assert table.turns
        assert table.turns[0].reason == TurnReason.AI
        assert waits_before_play[0] == (None, True), "it slept until the start woke it"
        assert all(woken for _, woken in waits_before_play), (
            f"no wait before the AI's turn ran out, changes ended each: {waits_before_play}"
        )
    finally:
        await scheduler.stop()
