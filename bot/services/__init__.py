"""The Discord-free use cases of the bot: games, guild settings and stats, their errors and
the views they return."""

from bot.services.games import AI_LEVELS, ROLL, GameService
from bot.services.guilds import GuildService
from bot.services.stats import StatsService
from bot.services.views import AutoTurn, Damage, DueWork, GameView, Player, Reminder

__all__ = [
    "AI_LEVELS",
    "ROLL",
    "AutoTurn",
    "Damage",
    "DueWork",
    "GameService",
    "GameView",
    "GuildService",
    "Player",
    "Reminder",
    "StatsService",
]
