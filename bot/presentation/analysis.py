"""A finished game's analysis as a picture: its words in the reader's language, computed and
drawn in the worker pool.

The workers compute the analysis from the game's record (`ai.analysis`) and judge every
decision of every seat (`ai.judge`: each seat's accuracy, its inaccuracies, mistakes and
blunders), one SLOW job of a few seconds of CPU for a 4-player game, and keep nothing; the
bot keeps the last analyses it got (`CACHED_ANALYSES`, a finished game never changes), words
them here (`analysis_texts`, the `analysis.*` keys) and has the workers draw them
(render.analysis, a QUICK job). Names go
to the picture as `{seat0}`... placeholders, which render fills with each seat's drawable name,
so a name the bundled font cannot draw never garbles a sentence.
"""

from __future__ import annotations

import io
from collections import OrderedDict
from typing import TYPE_CHECKING

import discord

import engine
from ai.analysis import Cause, GameAnalysis, Swing
from ai.judge import SeatSummary
from bot.presentation.images import seat_names
from bot.presentation.messages import number, text
from bot.workers import jobs as worker_jobs
from bot.workers.pool import Lane, WorkerPool
from render.analysis import AnalysisTexts

if TYPE_CHECKING:
    from bot.services.analysis import FinishedGame
    from bot.services.judgements import GameJudgements
    from bot.workers.jobs import GameReview

ANALYSIS_NAME = "marrakech-analysis-{game_id}.png"
ANALYSIS_TIMEOUT_SECONDS = 120.0
"""The longest an analysis with its judgement (a few seconds for a 4-player game) may take in a
worker."""
PICTURE_TIMEOUT_SECONDS = 30.0
"""The longest its picture (some tens of milliseconds) may take in a worker."""
CACHED_ANALYSES = 64
"""Finished games whose analysis this process keeps (a few kilobytes each)."""
BIGGEST_PAYMENTS = 3


def seat(index: int) -> str:
    """The placeholder render fills with seat `index`'s name."""
    return "{seat" + str(index) + "}"


def percent(chance: float, language: str) -> str:
    """A chance as a whole percentage in `language` ("62%", "62 %"). Only a certain chance
    reads 0% or 100% (the game decided for that seat): one that rounds to either but is not
    certain reads "<1%" or ">99%"."""
    shown = round(chance * 100)
    if shown <= 0 < chance:
        return text("analysis.percent_below", language, n=1)
    if shown >= 100 > chance * 100:
        return text("analysis.percent_above", language, n=99)
    return text("analysis.percent", language, n=shown)


def luck_value(points: float, language: str) -> str:
    """A seat's luck with its sign, plus or minus ("+3.5", "-2,0" with a minus sign), a
    number its word agrees with ("{n:point|points}")."""
    shown = number(points, language, 1, signed=True)
    assert isinstance(shown, str)  # written with its tenth
    return shown


def swing_lines(swing: Swing, language: str) -> tuple[str, ...]:
    """What happened in the turning point's turn, then how the chances of the seats that gained
    and lost most moved."""
    payment = swing.payment
    if swing.cause is Cause.PAYMENT and payment is not None:
        if payment.out:
            why = text(
                "analysis.swing.paid_out",
                language,
                payer=seat(payment.payer),
                payee=seat(payment.payee),
                owed=payment.owed,
                paid=payment.paid,
            )
        else:
            why = text(
                "analysis.swing.paid",
                language,
                payer=seat(payment.payer),
                payee=seat(payment.payee),
                paid=payment.paid,
            )
    elif swing.cause is Cause.ESCAPE and swing.face is not None:
        why = text(
            "analysis.swing.escape",
            language,
            seat=seat(swing.seat),
            face=swing.face,
            toll=max(1, round(swing.escaped)),
        )
    elif swing.cause is Cause.RESIGNATION and swing.resigned is not None:
        why = text("analysis.swing.resigned", language, seat=seat(swing.resigned))
    elif swing.cause is Cause.RUG and swing.rug is not None:
        squares = "-".join(engine.square_name(square) for square in swing.rug)
        if swing.cut_owner is not None and swing.cut_region > 1:
            why = text(
                "analysis.swing.rug_cut",
                language,
                seat=seat(swing.seat),
                squares=squares,
                owner=seat(swing.cut_owner),
                region=swing.cut_region,
            )
        elif swing.grown > 2:
            why = text(
                "analysis.swing.rug_grew",
                language,
                seat=seat(swing.seat),
                squares=squares,
                region=swing.grown,
            )
        else:
            why = text("analysis.swing.rug", language, seat=seat(swing.seat), squares=squares)
    else:
        why = text("analysis.swing.turn", language, seat=seat(swing.seat), turn=swing.turn)
    changes = " · ".join(
        text(
            "analysis.swing.change",
            language,
            seat=seat(moved),
            before=percent(swing.before[moved], language),
            after=percent(swing.after[moved], language),
        )
        for moved in dict.fromkeys((swing.gainer, swing.loser))
    )
    return (why, changes)


def payment_lines(analysis: GameAnalysis, language: str) -> tuple[str, ...]:
    """The biggest payments, biggest first, or that nobody paid anything."""
    lines = []
    for payment in analysis.biggest(BIGGEST_PAYMENTS):
        key = "analysis.payment_out" if payment.out else "analysis.payment"
        lines.append(
            text(
                key,
                language,
                turn=payment.turn,
                payer=seat(payment.payer),
                payee=seat(payment.payee),
                paid=payment.paid,
                owed=payment.owed,
            )
        )
    return tuple(lines) or (text("analysis.no_payments", language),)


def accuracy_percent(accuracy: float, language: str) -> str:
    """An accuracy as a whole number out of 100 ("87%"); one short of 100 never shows as 100,
    which means the best choice every time, nor one above 0 as 0, the worst every time."""
    shown = round(accuracy)
    if shown == 100 and accuracy < 100:
        shown = 99
    if shown == 0 and accuracy > 0:
        shown = 1
    return text("analysis.percent", language, n=shown)


NO_ACCURACY = "\u2014"
"""The accuracy of a seat that made no decision with a choice (a resignation at its first
turn): an em dash, as 100 would claim the best choice every time, for nothing chosen."""


def accuracy_value(summary: SeatSummary, language: str) -> str:
    """A seat's accuracy as a percentage, or a dash where it chose nothing."""
    if not summary.decisions:
        return NO_ACCURACY
    return accuracy_percent(summary.accuracy, language)


def accuracy_counts(summary: SeatSummary, language: str) -> str:
    """A seat's inaccuracies, mistakes and blunders in words, or that it had nothing to
    choose."""
    if not summary.decisions:
        return text("analysis.accuracy.none", language)
    return text(
        "analysis.accuracy.counts",
        language,
        inaccuracies=summary.inaccuracies,
        mistakes=summary.mistakes,
        blunders=summary.blunders,
    )


def analysis_texts(
    analysis: GameAnalysis,
    game_id: int,
    language: str,
    seats: tuple[SeatSummary, ...] = (),
) -> AnalysisTexts:
    """Every word of the analysis picture of game `game_id`, in `language`, with each seat's
    accuracy when `seats` (one `SeatSummary` per seat, in seat order) is given."""
    swing = analysis.swing
    return AnalysisTexts(
        title=text("analysis.image.title", language, game_id=game_id),
        chances=text("analysis.image.chances", language),
        turn=text("analysis.image.turn", language),
        swing=text("analysis.image.swing", language),
        swing_lines=() if swing is None else swing_lines(swing, language),
        payments=text("analysis.image.payments", language),
        payment_lines=payment_lines(analysis, language),
        luck=text("analysis.image.luck", language),
        luck_values=tuple(luck_value(luck.total, language) for luck in analysis.luck),
        seat=text("image.seat", language, n="{n}"),
        rank=text("image.rank", language, n="{n}"),
        percent=text("analysis.percent", language, n="{n}"),
        accuracy=text("analysis.accuracy.heading", language),
        accuracy_values=tuple(accuracy_value(summary, language) for summary in seats),
        accuracy_counts=tuple(accuracy_counts(summary, language) for summary in seats),
        blunder_key=text("analysis.accuracy.key", language),
    )


class AnalysisPictures:
    """Computes finished games' analyses and draws them, in the worker pool."""

    def __init__(self, workers: WorkerPool, judgements: GameJudgements) -> None:
        self._workers = workers
        self._judgements = judgements
        self._analyses: OrderedDict[int, GameReview] = OrderedDict()

    async def analysis(self, game: FinishedGame) -> GameReview:
        """The analysis of `game` with the judgement of its decisions (the game's one
        judgement, `GameJudgements`): computed by a worker, or kept from an earlier request."""
        known = self._analyses.get(game.game_id)
        if known is not None:
            self._analyses.move_to_end(game.game_id)
            return known
        record = engine.record_from_json(game.record)
        judged = await self._judgements.of(game.game_id, record)
        found = await self._workers.run(
            Lane.SLOW, worker_jobs.game_review, record, judged, limit=ANALYSIS_TIMEOUT_SECONDS
        )
        self._analyses[game.game_id] = found
        while len(self._analyses) > CACHED_ANALYSES:
            self._analyses.popitem(last=False)
        return found

    async def png(self, game: FinishedGame, language: str) -> bytes:
        """The analysis picture of `game` in `language`, its seats named after its players."""
        review = await self.analysis(game)
        analysis = review.analysis
        return await self._workers.run(
            Lane.QUICK,
            worker_jobs.analysis_png,
            analysis,
            analysis_texts(analysis, game.game_id, language, review.seats),
            seat_names(game.players, analysis.players, language),
            review.blunders,
            limit=PICTURE_TIMEOUT_SECONDS,
        )


def analysis_file(png: bytes, game_id: int) -> discord.File:
    return discord.File(io.BytesIO(png), filename=ANALYSIS_NAME.format(game_id=game_id))
