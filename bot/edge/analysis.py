"""The Analysis button under a finished game's result: the game's analysis as a picture, for the
presser alone.

The answer is private (ephemeral), in the presser's language, so the channel stays quiet however
many players look. The interaction is deferred at once (the workers compute the analysis and
judge every decision, a few seconds, and draw it), then the picture follows. The button's id
names the game alone (`mk:analysis:<game id>`, bot.edge.buttons), so it keeps working after a
restart; a game that is not of this server, not over or stopped early is refused with a short
private answer (bot.services.analysis).
"""

from __future__ import annotations

from bot.edge import interactions, replies
from bot.edge.answers import guarded
from bot.edge.interactions import Interaction
from bot.edge.layout import drill_view
from bot.presentation.analysis import AnalysisPictures, analysis_file
from bot.presentation.drill import seat_of
from bot.presentation.messages import text
from bot.services.analysis import finished_game
from bot.services.play import PlayService


class AnalysisHandler:
    """Answers the Analysis button with the game's analysis, privately."""

    def __init__(self, play: PlayService, pictures: AnalysisPictures) -> None:
        self._play = play
        self._pictures = pictures

    async def show(self, interaction: Interaction, game_id: int) -> None:
        """The analysis of game `game_id`, to the presser alone."""

        async def work() -> None:
            game = await finished_game(self._play, game_id, interactions.guild_id(interaction))
            language = interactions.user_language(interaction)
            await replies.defer(interaction, ephemeral=True, thinking=True)
            png = await self._pictures.png(game, language)
            await replies.send(
                interaction,
                content=text("analysis.done", language, game_id=game_id),
                file=analysis_file(png, game_id),
                view=drill_view(game_id, seat_of(game, interaction.user.id) is not None, language),
                ephemeral=True,
            )

        await guarded(interaction, f"showing the analysis of game {game_id}", work)
