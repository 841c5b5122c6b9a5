"""The composition root: builds the bot from a database, and nothing else builds parts of it.

`build_bot` makes the stores, the services (games, guild settings, stats), the pictures, the
Discord client with its command groups and handlers, the display of games and the turn clock,
and wires them: the client runs the bot's start and stop hooks, the turn clock hands due work
to the services and shows it, and damaged games are reported in their channels. The app uses
it to run the bot; the tests use it to build the very same bot against a fake Discord.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import ai
from bot.edge.client import MarrakechClient
from bot.edge.commands import build_commands
from bot.edge.community import CommunityController
from bot.edge.display import GameDisplay
from bot.edge.game_handlers import GameHandlers
from bot.edge.guide import RulesGuide
from bot.edge.player_games import PlayerGamesController, TurnMessages
from bot.presentation.images import Pictures
from bot.runtime.health import Heartbeat
from bot.runtime.scheduler import Scheduler
from bot.services import dice
from bot.services.clock import Clock, system_clock
from bot.services.games import GameService
from bot.services.guilds import GuildService
from bot.services.player_games import PlayerGamesService
from bot.services.stats import StatsService
from bot.services.views import DueKind, DueWork
from bot.storage.database import Database
from bot.storage.games import GameStore
from bot.storage.guilds import GuildStore
from bot.storage.players import PlayerStore
from bot.storage.stats import StatsStore
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
    turn_messages: TurnMessages | None = None

    async def before_connect(self) -> None:
        """Catch up on any game whose message fell behind when the last run stopped (before the
        gateway connects, so no click can race it), write missing results, start the turn
        clock (its first pass handles what fell due while the bot was down)."""
        await self.display.resume_displays()
        finished = await self.service.play.backfill_results()
        if finished:
            log.info("results of %d finished games written for the stats", finished)
        self.scheduler.start()

    async def stopping(self) -> None:
        await self.scheduler.stop()

    async def do_due_work(self, work: DueWork) -> None:
        """A reminder, an automatic turn or an overdue display is due: do it in the service,
        show it in the channel."""
        match work.kind:
            case DueKind.SHOW:
                await self.display.catch_up(work.game_id)
            case DueKind.REMIND:
                reminder = await self.service.turns.remind(work.game_id, work.seq)
                if reminder is not None:
                    await self.display.send_reminder(reminder)
            case DueKind.PLAY:
                turn = await self.service.turns.play_due(work.game_id, work.seq)
                if turn is not None:
                    await self.display.show_auto_turn(turn)


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
) -> Bot:
    """The whole bot on `database`. `workers` run the AI and draw the pictures (default:
    threads of this process, for tests and tools); their owner starts and closes them."""
    pool = workers if workers is not None else WorkerPool(workers=0)
    store = GameStore(database)
    service = GameService(store, clock=clock, seeds=seeds, ai_budget=ai_budget, workers=pool)
    guilds = GuildService(GuildStore(database), clock=clock)
    stats = StatsService(StatsStore(database))
    pictures = Pictures(pool)
    client = MarrakechClient(
        heartbeat=heartbeat,
        store=store,
        dev_guilds=dev_guilds,
        gateway_from_api=gateway_from_api,
        workers=workers,
    )
    display = GameDisplay(client, service.play, pictures)
    service.on_damage(display.report_damage)
    handlers = GameHandlers(service, guilds, display, RulesGuide(pictures))
    community = CommunityController(service.play, guilds, stats, pictures)
    players = PlayerGamesService(service.loader, PlayerStore(database))
    turn_messages = TurnMessages(client, players)
    display.on_turn_posted(turn_messages.turn_posted)
    scheduler = Scheduler(service.turns, lambda work: bot.do_due_work(work), clock)
    bot = Bot(client, service, display, handlers, scheduler, store, turn_messages)
    commands = build_commands(handlers, community, PlayerGamesController(players))
    client.attach(buttons=handlers, hooks=bot, commands=commands)
    return bot
