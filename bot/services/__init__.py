"""The Discord-free use cases of the bot: GameService, its errors and the views it returns."""

from bot.services.games import ROLL, GameService
from bot.services.views import GameView, Player

__all__ = ["ROLL", "GameService", "GameView", "Player"]
