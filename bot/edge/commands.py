"""The slash commands: `/marrakech ...` for players, `/marrakech-mod ...` for moderators and
`/marrakech-admin ...` for server settings.

Thin: each command parses its options and hands over to the GameHandlers (games), the
CommunityController (stats, history, replays, settings) or the TournamentController
(tournaments, opened and ended by moderators). The moderator and admin groups are
separate top-level commands because Discord applies default member permissions to top-level
commands only; the controllers check Manage Channels / Manage Server again at run time.

Names, descriptions and choice names carry catalogue keys, so CatalogueTranslator
(bot.edge.translator) gives Discord their French and Ukrainian versions; the base names are
English.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.edge.interactions import Interaction
from bot.presentation.messages import command_name, command_text, option_name
from bot.services.actions import AI_LEVELS
from bot.services.time_rules import MOST_AWAY_DAYS_SETTING as MOST_AWAY_DAYS
from bot.services.time_rules import QUIET_CLOCKS, TIMEZONE_LENGTH
from engine import Variant

if TYPE_CHECKING:
    from bot.edge.away import AwayController
    from bot.edge.community import CommunityController
    from bot.edge.game_handlers import GameHandlers
    from bot.edge.player_games import PlayerGamesController
    from bot.edge.substitutes import SeatController
    from bot.edge.tournaments import TournamentController
    from bot.edge.watch import WatchController

TURN_LIMITS = (0, 5 * 60, 3600, 12 * 3600, 24 * 3600, 3 * 24 * 3600, 7 * 24 * 3600)
"""Turn time limits offered at `new`, in seconds (0: none)."""
VARIANTS = tuple(variant.value for variant in Variant)
FORMATS = ("swiss", "round-robin")
"""Tournament formats offered at `/marrakech-mod tournament`."""
TOURNAMENT_NAME_LIMIT = 100
MAX_TOURNAMENT_ROUNDS = 20
SERVERS_ONLY = app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False)
"""Where the commands may be used: server channels, never direct messages or group chats."""

GAME_CHANNEL_TYPES = (discord.ChannelType.text, discord.ChannelType.news, discord.ChannelType.forum)
"""What the admin's channel option offers: channels where messages (or a forum's posts) go."""


class GameChannel(app_commands.Transformer):
    """A channel option that offers text, announcement and forum channels only."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        return list(GAME_CHANNEL_TYPES)

    async def transform(
        self, interaction: discord.Interaction, value: app_commands.AppCommandChannel, /
    ) -> app_commands.AppCommandChannel:
        return value


AnyChannel = app_commands.Transform[app_commands.AppCommandChannel, GameChannel]
"""A channel option that works whether or not the channel is in the client's cache."""


def _variant_choices() -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=command_text(f"choice.variant.{value}"), value=value)
        for value in VARIANTS
    ]


def _turn_limit_choices() -> list[app_commands.Choice[int]]:
    return [
        app_commands.Choice(name=command_text(f"choice.turn_limit.{value}"), value=value)
        for value in TURN_LIMITS
    ]


def build_commands(
    controller: GameHandlers,
    community: CommunityController,
    players: PlayerGamesController,
    tournaments: TournamentController | None = None,
    seats: SeatController | None = None,
    watchers: WatchController | None = None,
    away: AwayController | None = None,
) -> list[app_commands.Group]:
    """The three top-level command groups, bound to the controllers (the tournament commands
    are always declared; without their controller they are never called, as in tests of the
    command tree alone)."""
    game = app_commands.Group(
        name=command_name("marrakech"),
        description=command_text("command.marrakech"),
        allowed_contexts=SERVERS_ONLY,
    )

    @game.command(name=command_name("new"), description=command_text("command.new"))
    @app_commands.rename(
        seats=option_name("seats"),
        variant=option_name("variant"),
        turn_limit=option_name("turn_limit"),
        casual=option_name("casual"),
        coach=option_name("coach"),
    )
    @app_commands.describe(
        seats=command_text("command.new.seats"),
        variant=command_text("command.new.variant"),
        turn_limit=command_text("command.new.turn_limit"),
        casual=command_text("command.new.casual"),
        coach=command_text("command.new.coach"),
    )
    @app_commands.choices(variant=_variant_choices())
    @app_commands.choices(turn_limit=_turn_limit_choices())
    async def new(
        interaction: Interaction,
        seats: app_commands.Range[int, 2, 4] = 4,
        variant: str | None = None,
        turn_limit: int | None = None,
        casual: bool = False,
        coach: bool = False,
    ) -> None:
        # left out: the server's default (a turn_limit of 0 asks for none); a rated game
        # without the coach
        await controller.new(
            interaction,
            seats=seats,
            variant=variant,
            turn_limit_seconds=turn_limit,
            casual=casual,
            coach=coach,
        )

    @game.command(name=command_name("hint"), description=command_text("command.hint"))
    async def hint(interaction: Interaction) -> None:
        await controller.hint(interaction)

    @game.command(name=command_name("join"), description=command_text("command.join"))
    async def join(interaction: Interaction) -> None:
        await controller.join(interaction)

    @game.command(name=command_name("leave"), description=command_text("command.leave"))
    async def leave(interaction: Interaction) -> None:
        await controller.leave(interaction)

    @game.command(name=command_name("start"), description=command_text("command.start"))
    async def start(interaction: Interaction) -> None:
        await controller.start(interaction)

    @game.command(name=command_name("add-ai"), description=command_text("command.add_ai"))
    @app_commands.rename(level=option_name("level"))
    @app_commands.describe(level=command_text("command.add_ai.level"))
    @app_commands.choices(
        level=[
            app_commands.Choice(name=command_text(f"choice.ai_level.{level}"), value=level)
            for level in AI_LEVELS
        ]
    )
    async def add_ai(interaction: Interaction, level: str = "medium") -> None:
        await controller.add_ai(interaction, level)

    @game.command(name=command_name("remove-ai"), description=command_text("command.remove_ai"))
    async def remove_ai(interaction: Interaction) -> None:
        await controller.remove_ai(interaction)

    @game.command(name=command_name("rejoin"), description=command_text("command.rejoin"))
    async def rejoin(interaction: Interaction) -> None:
        await controller.rejoin(interaction)

    @game.command(name=command_name("mygames"), description=command_text("command.mygames"))
    async def mygames(interaction: Interaction) -> None:
        await players.my_games(interaction)

    @game.command(name=command_name("notify"), description=command_text("command.notify"))
    @app_commands.rename(state=option_name("state"))
    @app_commands.describe(state=command_text("command.notify.state"))
    @app_commands.choices(
        state=[
            app_commands.Choice(name=command_text(f"choice.notify.{value}"), value=value)
            for value in ("on", "next", "off")
        ]
    )
    async def notify(interaction: Interaction, state: str) -> None:
        await players.notify(interaction, state)

    @game.command(name=command_name("watch"), description=command_text("command.watch"))
    @app_commands.rename(game=option_name("game"))
    @app_commands.describe(game=command_text("command.watch.game"))
    async def watch(interaction: Interaction, game: app_commands.Range[int, 1]) -> None:
        if watchers is not None:
            await watchers.command(interaction, game)

    @game.command(name=command_name("away"), description=command_text("command.away"))
    @app_commands.rename(days=option_name("days"))
    @app_commands.describe(days=command_text("command.away.days"))
    async def away_days(
        interaction: Interaction, days: app_commands.Range[int, 1, MOST_AWAY_DAYS]
    ) -> None:
        assert away is not None
        await away.away(interaction, days)

    @game.command(name=command_name("back"), description=command_text("command.back"))
    async def back(interaction: Interaction) -> None:
        assert away is not None
        await away.back(interaction)

    @game.command(name=command_name("quiet-hours"), description=command_text("command.quiet_hours"))
    @app_commands.rename(
        starts=option_name("from"), ends=option_name("to"), timezone=option_name("timezone")
    )
    @app_commands.describe(
        starts=command_text("command.quiet_hours.from"),
        ends=command_text("command.quiet_hours.to"),
        timezone=command_text("command.quiet_hours.timezone"),
    )
    async def quiet_hours(
        interaction: Interaction,
        starts: app_commands.Range[str, 1, 5] | None = None,
        ends: app_commands.Range[str, 1, 5] | None = None,
        timezone: app_commands.Range[str, 1, TIMEZONE_LENGTH] | None = None,
    ) -> None:
        assert away is not None
        await away.quiet_hours(interaction, starts, ends, timezone)

    @quiet_hours.autocomplete("timezone")
    async def quiet_zones(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        assert away is not None
        return await away.zones(interaction, current)

    @game.command(name=command_name("stats"), description=command_text("command.stats"))
    @app_commands.rename(member=option_name("member"))
    @app_commands.describe(member=command_text("command.stats.member"))
    async def stats(interaction: Interaction, member: discord.User | None = None) -> None:
        await community.stats(interaction, member)

    @game.command(name=command_name("leaderboard"), description=command_text("command.leaderboard"))
    async def leaderboard(interaction: Interaction) -> None:
        await community.leaderboard(interaction)

    @game.command(name=command_name("history"), description=command_text("command.history"))
    @app_commands.rename(server=option_name("server"))
    @app_commands.describe(server=command_text("command.history.server"))
    async def history(interaction: Interaction, server: bool = False) -> None:
        await community.history(interaction, server=server)

    @game.command(name=command_name("replay"), description=command_text("command.replay"))
    @app_commands.rename(game=option_name("game"))
    @app_commands.describe(game=command_text("command.replay.game"))
    async def replay(interaction: Interaction, game: app_commands.Range[int, 1]) -> None:
        await community.replay(interaction, game)

    @game.command(name=command_name("board"), description=command_text("command.board"))
    async def board(interaction: Interaction) -> None:
        await controller.board(interaction)

    @game.command(name=command_name("rules"), description=command_text("command.rules"))
    async def rules(interaction: Interaction) -> None:
        await controller.rules(interaction)

    @game.command(name=command_name("resign"), description=command_text("command.resign"))
    async def resign(interaction: Interaction) -> None:
        await controller.resign(interaction)

    @game.command(name=command_name("abort"), description=command_text("command.abort"))
    async def abort(interaction: Interaction) -> None:
        await controller.abort(interaction, moderator=False)

    @game.command(name=command_name("substitute"), description=command_text("command.substitute"))
    @app_commands.rename(out=option_name("out"), incoming=option_name("in"))
    @app_commands.describe(
        out=command_text("command.substitute.out"), incoming=command_text("command.substitute.in")
    )
    async def substitute(
        interaction: Interaction, out: discord.User, incoming: discord.User
    ) -> None:
        assert seats is not None
        await seats.substitute(interaction, out, incoming, moderator=False)

    @game.command(name=command_name("nudge"), description=command_text("command.nudge"))
    async def nudge(interaction: Interaction) -> None:
        assert seats is not None
        await seats.nudge(interaction)

    moderation = app_commands.Group(
        name=command_name("marrakech-mod"),
        description=command_text("command.mod"),
        allowed_contexts=SERVERS_ONLY,
        default_permissions=discord.Permissions(manage_channels=True),
    )

    @moderation.command(name=command_name("abort"), description=command_text("command.mod.abort"))
    async def mod_abort(interaction: Interaction) -> None:
        await controller.abort(interaction, moderator=True)

    @moderation.command(
        name=command_name("substitute"), description=command_text("command.mod.substitute")
    )
    @app_commands.rename(
        out=option_name("out"), incoming=option_name("in"), game=option_name("game")
    )
    @app_commands.describe(
        out=command_text("command.substitute.out"),
        incoming=command_text("command.substitute.in"),
        game=command_text("command.mod.substitute.game"),
    )
    async def mod_substitute(
        interaction: Interaction,
        out: discord.User,
        incoming: discord.User,
        game: app_commands.Range[int, 1] | None = None,
    ) -> None:
        assert seats is not None
        await seats.substitute(interaction, out, incoming, game, moderator=True)

    @moderation.command(
        name=command_name("tournament"), description=command_text("command.mod.tournament")
    )
    @app_commands.rename(
        name=option_name("name"),
        format=option_name("format"),
        seats=option_name("seats"),
        rounds=option_name("rounds"),
        turn_limit=option_name("turn_limit"),
        variant=option_name("variant"),
    )
    @app_commands.describe(
        name=command_text("command.mod.tournament.name"),
        format=command_text("command.mod.tournament.format"),
        seats=command_text("command.mod.tournament.seats"),
        rounds=command_text("command.mod.tournament.rounds"),
        turn_limit=command_text("command.new.turn_limit"),
        variant=command_text("command.new.variant"),
    )
    @app_commands.choices(
        format=[
            app_commands.Choice(name=command_text(f"choice.format.{value}"), value=value)
            for value in FORMATS
        ]
    )
    @app_commands.choices(turn_limit=_turn_limit_choices())
    @app_commands.choices(variant=_variant_choices())
    async def mod_tournament(
        interaction: Interaction,
        name: app_commands.Range[str, 1, TOURNAMENT_NAME_LIMIT],
        format: str,
        seats: app_commands.Range[int, 2, 4] = 2,
        rounds: app_commands.Range[int, 1, MAX_TOURNAMENT_ROUNDS] | None = None,
        turn_limit: int | None = None,
        variant: str | None = None,
    ) -> None:
        assert tournaments is not None
        await tournaments.open(
            interaction,
            name=name,
            format=format,
            seats=seats,
            rounds=rounds,
            turn_limit_seconds=turn_limit,
            variant=variant,
        )

    @moderation.command(
        name=command_name("tournament-abort"),
        description=command_text("command.mod.tournament_abort"),
    )
    async def mod_tournament_abort(interaction: Interaction) -> None:
        assert tournaments is not None
        await tournaments.ask_abort(interaction)

    @moderation.command(
        name=command_name("tournament-withdraw"),
        description=command_text("command.mod.tournament_withdraw"),
    )
    @app_commands.rename(member=option_name("member"))
    @app_commands.describe(member=command_text("command.mod.tournament_withdraw.member"))
    async def mod_tournament_withdraw(interaction: Interaction, member: discord.User) -> None:
        assert tournaments is not None
        await tournaments.ask_withdraw(interaction, member)

    @moderation.command(
        name=command_name("tournament-away-days"),
        description=command_text("command.mod.tournament_away_days"),
    )
    @app_commands.rename(days=option_name("days"))
    @app_commands.describe(days=command_text("command.mod.tournament_away_days.days"))
    async def mod_tournament_away_days(
        interaction: Interaction, days: app_commands.Range[int, 0, MOST_AWAY_DAYS]
    ) -> None:
        assert away is not None
        await away.tournament_away_days(interaction, days)

    admin = app_commands.Group(
        name=command_name("marrakech-admin"),
        description=command_text("command.admin"),
        allowed_contexts=SERVERS_ONLY,
        default_permissions=discord.Permissions(manage_guild=True),
    )

    @admin.command(name=command_name("show"), description=command_text("command.admin.show"))
    async def admin_show(interaction: Interaction) -> None:
        await community.show_settings(interaction)

    @admin.command(
        name=command_name("turn-limit"), description=command_text("command.admin.turn_limit")
    )
    @app_commands.rename(limit=option_name("limit"))
    @app_commands.describe(limit=command_text("command.new.turn_limit"))
    @app_commands.choices(limit=_turn_limit_choices())
    async def admin_turn_limit(interaction: Interaction, limit: int) -> None:
        await community.set_turn_limit(interaction, limit)

    @admin.command(name=command_name("variant"), description=command_text("command.admin.variant"))
    @app_commands.rename(variant=option_name("variant"))
    @app_commands.describe(variant=command_text("command.new.variant"))
    @app_commands.choices(variant=_variant_choices())
    async def admin_variant(interaction: Interaction, variant: str) -> None:
        await community.set_variant(interaction, variant)

    @admin.command(
        name=command_name("away-days"), description=command_text("command.admin.away_days")
    )
    @app_commands.rename(days=option_name("days"))
    @app_commands.describe(days=command_text("command.admin.away_days.days"))
    async def admin_away_days(
        interaction: Interaction, days: app_commands.Range[int, 0, MOST_AWAY_DAYS]
    ) -> None:
        await community.set_away_days(interaction, days)

    @admin.command(
        name=command_name("quiet-clocks"), description=command_text("command.admin.quiet_clocks")
    )
    @app_commands.rename(state=option_name("state"))
    @app_commands.describe(state=command_text("command.admin.quiet_clocks.state"))
    @app_commands.choices(
        state=[
            app_commands.Choice(name=command_text(f"choice.quiet_clocks.{value}"), value=value)
            for value in QUIET_CLOCKS
        ]
    )
    async def admin_quiet_clocks(interaction: Interaction, state: str) -> None:
        await community.set_clocks_in_quiet(interaction, state)

    @admin.command(
        name=command_name("allow-channel"), description=command_text("command.admin.allow_channel")
    )
    @app_commands.rename(channel=option_name("channel"))
    @app_commands.describe(channel=command_text("command.admin.channel"))
    async def admin_allow_channel(interaction: Interaction, channel: AnyChannel) -> None:
        await community.allow_channel(interaction, channel.id)

    @admin.command(
        name=command_name("remove-channel"),
        description=command_text("command.admin.remove_channel"),
    )
    @app_commands.rename(channel=option_name("channel"))
    @app_commands.describe(channel=command_text("command.admin.channel"))
    async def admin_remove_channel(interaction: Interaction, channel: AnyChannel) -> None:
        await community.remove_channel(interaction, channel.id)

    return [game, moderation, admin]
