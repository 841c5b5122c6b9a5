"""Learn from your mistakes: a player's costliest decisions of a finished game, worded in their
language and drawn in the worker pool.

The workers judge the game (`ai.judge`, a SLOW job of up to a few seconds) and draw each step
(render.drill); the bot keeps the last judgements it got (`CACHED_DRILLS`, a finished game
never changes). Every sentence is built from the judge's numbers (`Facts`, the win chances),
never from invented prose: `why` says what an option does in numbers, `step_text` what the
player did and, once asked, what was better, and `retry_text` how a new pick among the same
options compares with the best.

A new pick is called good when it gives away less than the drill's floor (`ai.judge.drill_floor`:
2 win-chance points in 2 players, 1.9 in 3, 1.7 in 4), the least a drilled decision gave away:
the "within a few points" of the drill's Try again (docs/coach.md).
"""

from __future__ import annotations

import io
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import discord

import engine
from ai.judge import Facts, Judgement, Kind, decisions, drill_floor, state_before
from bot.presentation.analysis import percent
from bot.presentation.images import labels, seat_names
from bot.presentation.messages import number, text
from bot.presentation.presenter import orientation_choices
from bot.workers import jobs as worker_jobs
from bot.workers.pool import Lane, WorkerPool
from engine import GameState

if TYPE_CHECKING:
    from bot.services.analysis import FinishedGame
    from bot.services.judgements import GameJudgements

Decision = Judgement
"""One decision of the drill, as the judge gave it (for the edge, which never imports the AI)."""
DRILL_NAME = "marrakech-drill-{game_id}-{step}.png"
PICTURE_TIMEOUT_SECONDS = 30.0
CACHED_DRILLS = 64
"""(game, seat) pairs whose costliest decisions this process keeps (a few kilobytes each)."""
DRILL_STEPS = 3
"""How many decisions a drill goes through: the seat's costliest, costliest first."""


Turns = Mapping[str, str]
"""The ways of turning Assam at a decision, each (L, S, R) named as the turn's buttons name
it ("West", "North (straight on)"), in the buttons' order (`turn_words`)."""


def turn_words(state: GameState, language: str) -> dict[str, str]:
    """The ways Assam may be turned at `state`, named as the turn's buttons were, in their
    order on screen."""
    return {choice.action: choice.label for choice in orientation_choices(state, language)}


def turns_at(game: FinishedGame, judgement: Judgement, language: str) -> dict[str, str] | None:
    """The ways of turning Assam at the decision `judgement` judged, named as that turn's
    buttons named them; None for a rug."""
    if judgement.kind is Kind.RUG:
        return None
    record = engine.record_from_json(game.record)
    return turn_words(state_before(record, judgement.index), language)


def option_name(kind: Kind, action: str, language: str, turns: Turns | None = None) -> str:
    """An option as the player knows it: a way to turn Assam as its button named it (by where
    he looks; without `turns`, left or right of him), a rug by its squares ("c1-d1")."""
    if kind is Kind.RUG:
        return f"{action[:2]}-{action[2:]}"
    if turns is not None and action in turns:
        return turns[action]
    return text(f"drill.turn.{action}", language)


def _points(value: float, language: str) -> int | str:
    return number(round(value, 1), language, 1)


def why(
    kind: Kind,
    action: str,
    facts: Facts,
    language: str,
    names: tuple[str, ...] | None,
    turns: Turns | None = None,
) -> str:
    """What option `action` does, in the numbers of its `facts` (one factual sentence)."""
    name = option_name(kind, action, language, turns)
    heading = name[:1].upper() + name[1:]  # a way to turn Assam heads its sentence by its name
    if kind is Kind.ORIENT:
        return text(
            "drill.why.orient",
            language,
            option=heading,
            toll=_points(facts.toll, language),
            worst=facts.worst_toll,
            out=percent(facts.out_chance, language),
        )
    if kind is Kind.ROTATE:
        return text(
            "drill.why.rotate", language, option=heading, income=_points(facts.income, language)
        )
    line = text("drill.why.rug", language, option=name, covered=facts.covered, grown=facts.grown)
    if facts.cut_owner is None:
        return line
    rival = text("image.seat", language, n=facts.cut_owner + 1)
    if names is not None and facts.cut_owner < len(names) and names[facts.cut_owner]:
        rival = names[facts.cut_owner]
    return line + " " + text("drill.why.cut", language, rival=rival, size=facts.cut_region)


def step_text(
    judgement: Judgement,
    step: int,
    count: int,
    game_id: int,
    better: bool,
    language: str,
    names: tuple[str, ...] | None = None,
    *,
    turns: Turns | None = None,
    chosen: int = 1,
    better_number: int = 2,
) -> str:
    """The words of drill step `step` (0-based) of `count`: what the player did (number
    `chosen` on the picture), the win chance it gave and why in numbers; with `better`, the
    better option (number `better_number` there) the same way."""
    taken = judgement.option(judgement.taken)
    lines = [
        text(
            "drill.step",
            language,
            chosen=chosen,
            n=step + 1,
            count=count,
            game_id=game_id,
            turn=judgement.turn,
            option=option_name(judgement.kind, judgement.taken, language, turns),
            chance=percent(taken.chance, language),
        ),
        why(judgement.kind, judgement.taken, taken.facts, language, names, turns),
    ]
    if better:
        best = judgement.option(judgement.best)
        lines.append(
            text(
                "drill.better",
                language,
                better=better_number,
                option=option_name(judgement.kind, judgement.best, language, turns),
                chance=percent(best.chance, language),
                loss=_points(judgement.loss, language),
            )
        )
        lines.append(why(judgement.kind, judgement.best, best.facts, language, names, turns))
    return "\n".join(lines)


def numbered(number: int, name: str) -> str:
    """An option of a second try at a rug as its button names it: its number on the picture,
    then its name, as a turn's buttons are."""
    return f"{number} · {name}"


def picked_by_number(judgement: Judgement) -> bool:
    """Whether a second try offers the options by number, as a turn offers its rugs (a way to
    turn Assam keeps the name the turn's button gave it)."""
    return judgement.kind is Kind.RUG


def good_enough(judgement: Judgement, action: str, players: int) -> bool:
    """Whether picking `action` gives away less than the drill's floor (`drill_floor`): the
    least a drilled decision gave away, so the pick that was drilled is never good enough."""
    return judgement.loss_of(action) < drill_floor(players)


def nothing_to_drill(game_id: int, players: int, language: str) -> str:
    """What a player none of whose decisions gave away the drill's floor is told."""
    return _with_floor("drill.none", "floor", players, language, game_id=game_id)


def _floor(players: int, language: str) -> int | str:
    """The drill's floor to a tenth, a whole number without its ".0"."""
    floor = round(drill_floor(players), 1)
    return number(int(floor), language) if floor.is_integer() else _points(floor, language)


def _with_floor(key: str, field: str, players: int, language: str, **fields: object) -> str:
    """Text `key` with the drill's floor as `field`; a whole floor takes the text's `_whole`
    form, whose noun agrees with the number ("2 пункти", where a tenth reads "1,9 пункта")."""
    floor = _floor(players, language)
    whole = isinstance(floor, int)
    return text(f"{key}_whole" if whole else key, language, **{field: floor}, **fields)


def retry_text(
    judgement: Judgement,
    action: str,
    players: int,
    language: str,
    *,
    turns: Turns | None = None,
    numbers: Sequence[str] = (),
) -> str:
    """How a new pick `action` compares with the best option, in win-chance points. `numbers`:
    a second try's options in the order it numbered them; each option named then comes after
    its number, as on the try's buttons and picture."""

    def name_of(option: str) -> str:
        name = option_name(judgement.kind, option, language, turns)
        return numbered(numbers.index(option) + 1, name) if option in numbers else name

    chance = percent(judgement.option(action).chance, language)
    name = name_of(action)
    if good_enough(judgement, action, players):
        return _with_floor(
            "drill.retry.good", "threshold", players, language, option=name, chance=chance
        )
    return text(
        "drill.retry.off",
        language,
        option=name,
        chance=chance,
        loss=_points(judgement.loss_of(action), language),
        best=name_of(judgement.best),
        best_chance=percent(judgement.best_chance, language),
    )


def seat_of(game: FinishedGame, user_id: int) -> int | None:
    """The seat the user played in `game`, or None when they were not one of its players: the
    seat they held at the end, or left to a substitute, or (a substitute who handed it on in
    turn) made a decision in."""
    for player in game.players:
        if player.seat is not None and user_id in (player.user_id, player.stands_in_for):
            return player.seat
    if user_id in game.actors:
        record = engine.record_from_json(game.record)
        for index, state, _ in decisions(record):
            if game.actors[index] == user_id:
                return state.to_move
    return None


def own_decisions(game: FinishedGame, user_id: int) -> frozenset[int]:
    """The indices of the record's actions the user made themselves (not the AI's for them)."""
    return frozenset(index for index, actor in enumerate(game.actors) if actor == user_id)


class DrillPictures:
    """Judges finished games for the drill and draws its steps, in the worker pool."""

    def __init__(self, workers: WorkerPool, judgements: GameJudgements) -> None:
        self._workers = workers
        self._judgements = judgements
        self._drills: OrderedDict[tuple[int, int, int], tuple[Judgement, ...]] = OrderedDict()

    async def costliest(self, game: FinishedGame, seat: int, user_id: int) -> tuple[Judgement, ...]:
        """The costliest decisions the user made in the seat of `game`, from the game's one
        judgement (`GameJudgements`: judged by a worker once), or kept."""
        key = (game.game_id, seat, user_id)
        known = self._drills.get(key)
        if known is not None:
            self._drills.move_to_end(key)
            return known
        record = engine.record_from_json(game.record)
        judged = await self._judgements.of(game.game_id, record)
        found = judged.costliest(seat, among=own_decisions(game, user_id))
        self._drills[key] = found
        while len(self._drills) > CACHED_DRILLS:
            self._drills.popitem(last=False)
        return found

    async def png(
        self,
        game: FinishedGame,
        judgement: Judgement,
        shown: str | None,
        language: str,
        picking: tuple[str, ...] = (),
        badges: tuple[str, ...] = ("1", "2", "3"),
        also: str | None = None,
    ) -> bytes:
        """The board before `judgement`'s decision, marking what was taken, `shown` (the
        better option, or a new pick) and `also` (the best, beside a pick), with `badges` in
        that order, or every option of a second try (`picking`, numbered in that order), in
        `language`."""
        record = engine.record_from_json(game.record)
        picture = worker_jobs.DrillPicture(
            record,
            judgement.index,
            judgement.taken,
            shown,
            labels(language),
            seat_names(game.players, record.players, language),
            picking,
            badges,
            also,
        )
        return await self._workers.run(
            Lane.QUICK, worker_jobs.drill_png, picture, limit=PICTURE_TIMEOUT_SECONDS
        )


def drill_file(png: bytes, game_id: int, step: int) -> discord.File:
    return discord.File(io.BytesIO(png), filename=DRILL_NAME.format(game_id=game_id, step=step))
