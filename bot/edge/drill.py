"""Learn from your mistakes: a finished game's player goes through their three costliest
decisions, privately, one at a time.

The button on a finished game's result (`mk:drill:<game>:0:open`) opens the drill in a new
private (ephemeral) message: the board before the costliest decision with what the player did
(badge 1), the win chance it left and why in numbers (bot.presentation.drill). Its buttons edit
that message: *Show the better move* adds the better option (badge 2), *Try again* offers the
same options as buttons and a pick says whether it is within a few points of the best, *Next*
goes to the next costliest decision.

Everything a click needs is in its id (game, step, move: bot.edge.buttons' `DrillButton`): the
drill comes from the game's one judgement (bot.services.judgements: kept in the database, judged
in the workers the first time; the costliest decisions kept by `DrillPictures`), so its buttons
work after a restart. The click is deferred at once and the
message follows when the workers are done. Only the game's players get a drill: anyone else
gets a short private refusal; a game of another server, not over or stopped early is refused
as the analysis is (bot.services.analysis).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.edge import interactions, replies
from bot.edge.answers import guarded, or_missing, tell
from bot.edge.buttons import DrillButton, DrillMove
from bot.edge.interactions import Interaction
from bot.presentation.drill import (
    Decision,
    DrillPictures,
    Turns,
    drill_file,
    nothing_to_drill,
    numbered,
    option_name,
    picked_by_number,
    retry_text,
    seat_of,
    step_text,
    turns_at,
)
from bot.presentation.images import seat_names
from bot.presentation.messages import text
from bot.services.analysis import FinishedGame, finished_game
from bot.services.play import PlayService
from engine import parse_placement

OPTIONS_PER_ROW = 5
MAX_OPTION_ROWS = 4
"""Rows of option buttons on a second try (the fifth row holds Show the better move and Next)."""


def drill_buttons(
    game_id: int,
    step: int,
    count: int,
    language: str,
    *,
    picking: Sequence[tuple[str, str]] | None = None,
    better: bool = False,
) -> discord.ui.View:
    """The buttons of drill step `step` of `count`: the options to pick from (`picking`, on a
    second try, each an action and its label), then Show the better move (unless `better`: it
    is shown), Try again (unless `picking`: the options are the try), and Next (Done on the
    last step)."""
    buttons = discord.ui.View(timeout=None)
    if picking is not None:
        for number, (action, label) in enumerate(picking[: OPTIONS_PER_ROW * MAX_OPTION_ROWS]):
            buttons.add_item(
                DrillButton(game_id, step, action, label=label, row=number // OPTIONS_PER_ROW)
            )
    if not better:
        buttons.add_item(
            DrillButton(
                game_id,
                step,
                DrillMove.BETTER.value,
                label=text("drill.button.better", language),
                style=discord.ButtonStyle.primary,
                row=MAX_OPTION_ROWS,
            )
        )
    if picking is None:
        buttons.add_item(
            DrillButton(
                game_id,
                step,
                DrillMove.TRY.value,
                label=text("drill.button.try", language),
                row=MAX_OPTION_ROWS,
            )
        )
    if step + 1 < count:
        following = DrillButton(
            game_id,
            step + 1,
            DrillMove.OPEN.value,
            label=text("drill.button.next", language),
            row=MAX_OPTION_ROWS,
        )
    else:
        following = DrillButton(
            game_id,
            step,
            DrillMove.DONE.value,
            label=text("drill.button.done", language),
            row=MAX_OPTION_ROWS,
        )
    buttons.add_item(following)
    return buttons


@dataclass(frozen=True)
class StepMessage:
    """What a drill step's message says and offers after a click."""

    content: str
    shown: str | None
    """The option drawn beside the one taken (badge 2): the better one, or a new pick."""
    view: discord.ui.View
    picking: tuple[str, ...] = ()
    """On a second try at a rug, every option in the order of its buttons, each drawn with its
    number."""
    badges: tuple[str, ...] = ("1", "2", "3")
    """The badges of the option taken, `shown` and `also` on the picture: for a rug, their
    numbers on the second try's buttons, on every screen of the step."""
    also: str | None = None
    """A third option drawn: the best, beside a pick that is neither it nor the one taken."""


def step_message(
    judgement: Decision,
    step: int,
    count: int,
    game_id: int,
    move: str,
    players: int,
    language: str,
    names: tuple[str, ...] | None = None,
    turns: Turns | None = None,
) -> StepMessage | None:
    """The message of drill step `step` of `count` after `move` (open, better, try, or a pick
    among the options): its text, the option drawn beside the one taken, and its buttons, in
    which Show the better move is gone once the better move is shown. None when `move` is none
    of these."""
    better = move == DrillMove.BETTER.value
    shown: str | None = judgement.best if better else None
    also: str | None = None
    picking: list[tuple[str, str]] | None = None
    actions = _try_order(judgement, turns)
    picked = move not in DrillMove._value2member_map_
    if picked and move not in {option.action for option in judgement.options}:
        return None
    # A rug keeps one number on every screen of its step, its place among the second try's
    # buttons (reading order), the number the turn's button gave it; a way to turn Assam
    # keeps the turn's own name, its arrows labelled 1 (taken) and 2 as before.
    by_number = picked_by_number(judgement)
    numbers = actions if by_number else []

    def number_of(action: str, default: int) -> int:
        return numbers.index(action) + 1 if by_number else default

    chosen = number_of(judgement.taken, 1)
    if move == DrillMove.TRY.value:
        picking = [
            (action, option_name(judgement.kind, action, language, turns)) for action in actions
        ]
        if by_number:
            picking = [(a, numbered(n, name)) for n, (a, name) in enumerate(picking, start=1)]
    content = step_text(
        judgement,
        step,
        count,
        game_id,
        better,
        language,
        names,
        turns=turns,
        chosen=chosen,
        better_number=number_of(judgement.best, 2),
    )
    if picking is not None:
        content += "\n" + text("drill.retry.prompt", language)
    elif picked:
        shown = move
        if by_number and judgement.best not in (judgement.taken, move):
            also = judgement.best  # the best the answer names, drawn with its number
        content += "\n" + retry_text(
            judgement, move, players, language, turns=turns, numbers=numbers
        )
    drawn = [action for action in (judgement.taken, shown, also) if action is not None]
    badges = tuple(str(number_of(action, n)) for n, action in enumerate(drawn, start=1))
    view = drill_buttons(game_id, step, count, language, picking=picking, better=better)
    tried = tuple(actions) if picking is not None and by_number else ()
    return StepMessage(content, shown, view, tried, badges, also)


def _try_order(judgement: Decision, turns: Turns | None) -> list[str]:
    """A second try's options in the order of its buttons: the order the turn's own buttons
    had, rugs in reading order of their squares (numbered as the turn numbered them), a way
    to turn Assam as it was placed on screen."""
    actions = sorted(option.action for option in judgement.options)
    if picked_by_number(judgement):
        actions.sort(key=parse_placement)
    if turns is not None:
        actions = [action for action in turns if action in actions]
    return actions


class DrillHandler:
    """Answers the drill's buttons, privately."""

    def __init__(self, play: PlayService, pictures: DrillPictures) -> None:
        self._play = play
        self._pictures = pictures

    async def on_drill(self, interaction: Interaction, game_id: int, step: int, move: str) -> None:
        """A click on a drill button (custom_id `mk:drill:<game>:<step>:<move>`)."""

        async def work() -> None:
            game = await finished_game(self._play, game_id, interactions.guild_id(interaction))
            language = interactions.user_language(interaction)
            seat = seat_of(game, interaction.user.id)
            if seat is None:
                await tell(interaction, text("drill.not_player", language, game_id=game_id))
                return
            opening = step == 0 and move == DrillMove.OPEN.value
            if opening:
                await replies.defer(interaction, ephemeral=True, thinking=True)
            else:
                await replies.defer(interaction)
            costliest = await self._pictures.costliest(game, seat, interaction.user.id)
            await self._answer(interaction, game, costliest, step, move, language, opening)

        await guarded(interaction, f"the drill of game {game_id} ({step}, {move})", work)

    async def _answer(
        self,
        interaction: Interaction,
        game: FinishedGame,
        costliest: tuple[Decision, ...],
        step: int,
        move: str,
        language: str,
        opening: bool,
    ) -> None:
        game_id = game.game_id
        if step >= len(costliest) or move == DrillMove.DONE.value:
            if costliest:
                line = text("drill.done", language, game_id=game_id)
            else:
                line = nothing_to_drill(game_id, engine_players(game), language)
            await self._send(interaction, opening, line)
            return
        judgement = costliest[step]
        players = engine_players(game)
        names = seat_names(game.players, players, language)
        turns = turns_at(game, judgement, language)
        message = step_message(
            judgement, step, len(costliest), game_id, move, players, language, names, turns
        )
        if message is None:
            await tell(interaction, text("drill.not_option", language))
            return
        png = await self._pictures.png(
            game,
            judgement,
            message.shown,
            language,
            message.picking,
            message.badges,
            message.also,
        )
        file = drill_file(png, game_id, step)
        await self._send(interaction, opening, message.content, file, message.view)

    async def _send(
        self,
        interaction: Interaction,
        opening: bool,
        content: str,
        file: discord.File | None = None,
        view: discord.ui.View | None = None,
    ) -> None:
        """A new private message when the drill opens, else the drill's message edited."""
        files = [] if file is None else [file]
        if opening:
            await replies.send(
                interaction, content=content, files=files, view=or_missing(view), ephemeral=True
            )
        else:
            await replies.edit(interaction, content=content, attachments=files, view=view)


def engine_players(game: FinishedGame) -> int:
    """How many seats the game had."""
    return int(game.record["players"])
