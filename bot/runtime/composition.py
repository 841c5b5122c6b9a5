"""The composition root: builds the bot from a database, and nothing else builds parts of it.

`build_bot` makes the stores, the services (games, guild settings, stats, tournaments), the
pictures, the Discord client with its command groups and handlers, the display of games and
tournaments and the turn clock, and wires them: the client runs the bot's start and stop hooks,
the turn clock hands due work to the services and shows it, damaged games are reported in
their channels, and a game that closes moves its tournament on. The app uses
it to run the bot; the tests use it to build the very same bot against a fake Discord.

The long-running tasks (the turn clock, the heartbeat, the watches of the database and of
Discord and, on PostgreSQL, its listener) run under one supervisor, which starts again any that
dies. The watches log the outages; the database's wakes the turn clock when it is back.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass

import ai
from bot.edge.analysis import AnalysisHandler
from bot.edge.answers import TURNED_AWAY
from bot.edge.away import AwayController, HeldMessages
from bot.edge.client import MarrakechClient
from bot.edge.commands import build_commands
from bot.edge.community import CommunityController
from bot.edge.display import GameDisplay
from bot.edge.drill import DrillHandler
from bot.edge.game_handlers import GameHandlers
from bot.edge.guide import RulesGuide
from bot.edge.incidents import DISCORD, DISCORD_FAULTS, why
from bot.edge.permissions import MissingPermissionsError
from bot.edge.player_games import PlayerGamesController, TurnMessages
from bot.edge.substitutes import SeatController
from bot.edge.tournaments import TournamentController, TournamentDisplay
from bot.edge.watch import WatchController, WatchMessages, watch_entry
from bot.presentation.analysis import AnalysisPictures
from bot.presentation.coach import Coach
from bot.presentation.drill import DrillPictures
from bot.presentation.images import Pictures
from bot.runtime.health import Heartbeat
from bot.runtime.outage import DatabaseWatch, DiscordWatch
from bot.runtime.scheduler import Scheduler
from bot.services import dice
from bot.services.accuracy import AccuracyRecorder
from bot.services.clock import Clock, system_clock
from bot.services.games import GameService
from bot.services.guilds import GuildService
from bot.services.judgements import GameJudgements
from bot.services.player_games import PlayerGamesService
from bot.services.stats import StatsService
from bot.services.tournaments import TournamentService
from bot.services.views import Abandoned, DueKind, DueWork
from bot.services.watch import WatchService
from bot.storage.database import Database
from bot.storage.games import ALL_SHARDS, GameStore, ShardSet
from bot.storage.guilds import GuildStore
from bot.storage.judgements import JudgementStore
from bot.storage.meta import MetaStore
from bot.storage.players import PlayerStore
from bot.storage.stats import StatsStore
from bot.storage.tournaments import TournamentStore
from bot.storage.watchers import WatchStore
from bot.supervisor import Supervisor
from bot.workers.pool import WorkerPool

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Bot:
    """The bot's parts, as built and wired by `build_bot`."""

    client: MarrakechClient
    service: GameService
    display: GameDisplay
    handlers: GameHandlers
    scheduler: Scheduler
    store: GameStore
    supervisor: Supervisor
    watch: DatabaseWatch
    turn_messages: TurnMessages | None = None
    tournaments: TournamentDisplay | None = None
    accuracy: AccuracyRecorder | None = None
    watchers: WatchMessages | None = None
    held: HeldMessages | None = None
    seats: SeatController | None = None
    discord_watch: DiscordWatch | None = None

    async def before_connect(self) -> None:
        """Catch up on any game whose message fell behind when the last run stopped (before the
        gateway connects, so no click can race it), write missing results, rate the finished
        games the ratings do not include yet, start the watch on the database and the turn
        clock (its first pass handles what fell due while the bot was down), woken by the
        changes other processes on the same database commit (PostgreSQL; SQLite serves one
        process, which wakes it in memory, and whose claims left at start are those of a run
        that stopped)."""
        self.supervisor.start("database-watch", self.watch.run)
        if self.discord_watch is not None:
            self.supervisor.start("discord-watch", self.discord_watch.run)
        if self.store.database.backend == "sqlite":
            await self.store.drop_claims()
        if self.watchers is not None:  # first: the catch-up tells the watchers what it shows
            await self.watchers.learn()
        await self.display.resume_displays()
        if self.seats is not None:  # requests left open by a game another run ended
            await self.seats.close_for_ended_games()
        if self.watchers is not None:
            await self.watchers.resume()
        finished = await self.service.play.backfill_results()
        if finished:
            log.info("results of %d finished games written for the stats", finished)
        rated = await self.service.ratings.catch_up()
        if rated:
            log.info("%d finished games applied to the ratings", rated)
        if self.store.database.backend == "postgres":
            self.supervisor.start("database-listener", self._listen)
            self.supervisor.start("away-listener", self._listen_away)
        self.scheduler.start(self.supervisor)
        if self.accuracy is not None:  # in the background: judging takes the workers seconds
            self.supervisor.start("accuracy", self.accuracy.run_forever)
        if self.tournaments is not None:  # in the background: it waits for the gateway's threads
            self.tournaments.in_background(self.tournaments.resume(), "tournaments-resume")

    async def _listen(self) -> None:
        await self.store.listen(self.scheduler.wake)

    async def _listen_away(self) -> None:
        away = self.service.away
        await away.store.listen_away(away.changed_elsewhere)

    async def stopping(self) -> None:
        """Stop the long-running tasks; whatever they went through, this never raises."""
        await self.scheduler.stop()
        if self.tournaments is not None:
            await self.tournaments.stop()
        if self.seats is not None:
            await self.seats.stop()
        if self.watchers is not None:
            await self.watchers.stop()
        if self.turn_messages is not None:
            await self.turn_messages.stop()
        await self.supervisor.stop()

    async def do_due_work(self, work: DueWork) -> None:
        """A reminder, an automatic turn, an overdue display or what was held during a
        person's quiet hours is due (claimed by this process): do it in the service, show it in
        the channel (or send it), then release the claim (after a failure too: the scheduler
        retries it later, unless another process does first).
        An automatic turn that was played but not shown (Discord, or the database gone
        meanwhile) is shown again in the background, as soon as the database is back."""
        log.debug("game %s: %s due at seq %s", work.game_id, work.kind.value, work.seq)
        try:
            # Just after a start, the run before may have filled the channel's window of a game
            # from before it: the work, posted and edited with the bot token, waits it out.
            await self.display.wait_out_last_run(work.game_id)
            match work.kind:
                case DueKind.SHOW:
                    await self.display.catch_up(work.game_id)
                case DueKind.RELEASE:
                    if self.held is not None:
                        await self.held.send(work.seq, self.service.turns.held(work))
                        await self.service.turns.held_sent(work)
                case DueKind.REMIND:
                    reminder = await self.service.turns.remind(work.game_id, work.seq)
                    if reminder is not None:
                        await self.display.send_reminder(reminder)
                case DueKind.PLAY:
                    turn = await self.service.turns.play_due(work.game_id, work.seq)
                    try:
                        if isinstance(turn, Abandoned):
                            await self.display.show_abandoned(turn)
                        elif turn is not None:
                            await self.display.show_auto_turn(turn)
                    except Exception:
                        self.display.retry_display(work.game_id)
                        raise
        except MissingPermissionsError as error:  # the display tries again by itself
            log.warning("game %s: %s not shown: %s", work.game_id, work.kind.value, why(error))
        finally:
            await self.service.turns.release(work)


def build_bot(
    database: Database,
    *,
    heartbeat: Heartbeat,
    clock: Clock = system_clock,
    seeds: Callable[[], str] = dice.new_seed,
    ai_budget: ai.Budget | None = None,
    workers: WorkerPool | None = None,
    dev_guilds: tuple[int, ...] = (),
    gateway_from_api: bool = False,
    shards: ShardSet | None = None,
) -> Bot:
    """The whole bot on `database`. `workers` run the AI and draw the pictures (default:
    threads of this process, for tests and tools); their owner starts and closes them.
    `shards` are the ones this process holds (None: all, as many as Discord recommends)."""
    pool = workers if workers is not None else WorkerPool(workers=0)
    supervisor = Supervisor(heartbeat)
    store = GameStore(database)
    service = GameService(
        store,
        clock=clock,
        seeds=seeds,
        ai_budget=ai_budget,
        workers=pool,
        owner=claim_owner(shards),
        shards=ALL_SHARDS if shards is None else shards,
    )
    guilds = GuildService(GuildStore(database), clock=clock, away=service.away)
    stats = StatsService(StatsStore(database))
    pictures = Pictures(pool)
    client = MarrakechClient(
        heartbeat=heartbeat,
        store=MetaStore(database),
        dev_guilds=dev_guilds,
        gateway_from_api=gateway_from_api,
        workers=workers,
        shard_count=shards.count if shards is not None else None,
        shard_ids=shards.ids if shards is not None else None,
        supervisor=supervisor,
    )
    display = GameDisplay(
        client, service.play, pictures, clock, service.catch_ups, database.availability
    )
    display.ping_only(service.away.reachable)
    display.show_away(service.away.away_until)
    service.on_damage(display.report_damage)
    service.ratings.on_applied_later(display.ratings_applied_later)
    judgements = GameJudgements(JudgementStore(database), pool)
    analyses = AnalysisPictures(pool, judgements)
    handlers = GameHandlers(
        service,
        guilds,
        display,
        RulesGuide(pictures),
        AnalysisHandler(service.play, analyses),
        coached=Coach(pool),
    )
    community = CommunityController(
        service.play, guilds, stats, service.ratings, pictures, analyses
    )
    players = PlayerGamesService(service.loader, PlayerStore(database))
    turn_messages = TurnMessages(client, players, service.away, database.availability)
    display.on_turn_posted(turn_messages.turn_posted)
    spectators = WatchService(service.loader, WatchStore(database), service.away.quiet_until)
    service.nudges.reachable = service.away.unreachable
    watch_messages = WatchMessages(client, spectators, database.availability)
    display.on_shown(watch_messages.shown)
    display.lobby_buttons(watch_entry)
    display.lobby_reliability(stats.reliability)
    watchers = WatchController(spectators, display)
    tournament_service = TournamentService(
        TournamentStore(database), service, seeds=seeds, workers=pool
    )
    tournaments = TournamentDisplay(
        client,
        tournament_service,
        display,
        pictures,
        database.availability,
        last_run_over=display.wait_out_restart,
    )
    service.on_game_closed(tournaments.game_closed)
    display.on_shown(tournaments.game_shown)
    accuracy = AccuracyRecorder(StatsStore(database), service.play, judgements)
    service.on_game_closed(accuracy.game_closed)
    seats = SeatController(
        service,
        service.play,
        service.substitutes,
        service.nudges,
        display,
        service.away,
        database.availability,
    )
    service.on_game_closed(seats.game_closed)
    service.on_seat_left(seats.seat_left)
    scheduler = Scheduler(service.turns, lambda work: bot.do_due_work(work), clock, discord_fault)
    watch = DatabaseWatch(database, TURNED_AWAY.take)
    watch.on_back(scheduler.wake)
    bot = Bot(
        client,
        service,
        display,
        handlers,
        scheduler,
        store,
        supervisor,
        watch,
        turn_messages,
        tournaments,
        accuracy,
        watch_messages,
        HeldMessages(client, service.away, display.redraw),
        seats,
        DiscordWatch(client.discord_availability, DISCORD.take_failed),
    )
    organiser = TournamentController(tournament_service, guilds, tournaments)

    async def tournament_at(channel_id: int) -> int:
        return (await tournament_service.open_at(channel_id)).id

    commands = build_commands(
        handlers,
        community,
        PlayerGamesController(players, service.away),
        organiser,
        seats,
        watchers,
        AwayController(service.away, client, tournament_at, display.redraw),
    )
    drills = DrillHandler(service.play, DrillPictures(pool, judgements))
    client.attach(
        buttons=handlers,
        hooks=bot,
        commands=commands,
        tournaments=organiser,
        drills=drills,
        seats=seats,
        watchers=watchers,
    )
    return bot


def discord_fault(error: Exception) -> tuple[int, str] | None:
    """Why a piece of due work failed, in one line, and its level, when Discord failed it (a
    5xx, a connection cut, no answer in time: tried again by a later pass; a DEBUG line, the
    outage being logged once by its watch); None for anything else."""
    if not isinstance(error, DISCORD_FAULTS):
        return None
    return DISCORD.failure_level(error), why(error)


def claim_owner(shards: ShardSet | None) -> str:
    """This process's name in the claims it takes on due work: its host and its shards. A
    process restarted in the same place (a container, a shard range) takes back at once what
    it had claimed when it died; another process waits for those claims' lease to end."""
    held = "all" if shards is None else ",".join(str(shard) for shard in shards.ids)
    return f"{socket.gethostname()}:shards-{held}"
