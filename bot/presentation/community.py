"""The community's posts: a member's stats and rating, the server's leaderboard, and the
history of its games.

Pure functions, no Discord I/O, every sentence from the message catalogue, like the game's own
posts (bot.presentation.presenter). They are public: they speak the server's language. A
member's rating comes with its history, drawn as a chart (`RatingChart`, drawn by the workers
with render.rating_chart) that the stats message shows as its picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.presentation import ratings
from bot.presentation.analysis import accuracy_percent, luck_value
from bot.presentation.links import mention
from bot.presentation.messages import listed, number, text
from bot.presentation.names import ai_name
from bot.presentation.presenter import COLOR_DOTS, END_COLOR, LOBBY_COLOR, Post
from bot.presentation.ratings import RatingChart
from bot.presentation.reliability import stats_line
from bot.services.reliability import Reliability
from bot.services.views import (
    Accuracy,
    EndReason,
    GameStatus,
    Leaderboard,
    PastGame,
    PlayerRating,
    PlayerSummary,
    RatedPlayer,
    RatedResult,
)
from engine import Color
from render.accuracy_strip import AccuracyStrip

CHART_NAME = "rating.png"


@dataclass(frozen=True, slots=True)
class StatsPost:
    """The stats message, and the chart it shows (None: no rated game to draw)."""

    post: Post
    chart: RatingChart | None = None


# --- stats -----------------------------------------------------------------------------------


def stats_post(
    stats: PlayerSummary,
    rating: PlayerRating | None,
    language: str,
    reliability: Reliability | None = None,
) -> StatsPost:
    """A member's results in the server (games, wins, scores, favourite colour, accuracy
    over their newest judged games and its trend, how reliably they play, this one even
    before they finished a game) and, once they finished a game, their rating: points,
    whether provisional, best and worst result, record against each AI level, and its
    history as a chart, with their accuracy game by game under it (the chart shows the
    accuracy alone before any rated game). The games they finished for someone as a
    substitute are listed apart, with the seat's place."""
    embed = discord.Embed(title=text("stats.title", language), color=LOBBY_COLOR)
    stood_in = [
        text(
            "stats.finished_for",
            language,
            game_id=game.game_id,
            user=mention(game.for_user_id),
            place=number(game.place, language),
        )
        for game in stats.finished_for
    ]
    reliable = []  # read from running games too: told before any game is finished
    if reliability is not None and (reliability.turns or reliability.unfinished):
        reliable.append(stats_line(reliability, language))
    judged = [] if stats.accuracy is None else accuracy_lines(stats.accuracy, language)
    strip = None if stats.accuracy is None else accuracy_strip(stats.accuracy, language)
    if stats.games == 0:  # one who only stood in has played no game of their own yet
        key = "stats.none_own" if stood_in else "stats.none"
        lines = [text(key, language, user=mention(stats.user_id)), *judged, *stood_in, *reliable]
        embed.description = "\n".join(lines)
        if strip is None:
            return StatsPost(Post(embed=embed))
        embed.set_image(url=f"attachment://{CHART_NAME}")
        return StatsPost(Post(embed=embed), RatingChart((), 0, language, strip))
    color = stats.favourite_color
    lines = [
        text(
            "stats.body",
            language,
            user=mention(stats.user_id),
            games=number(stats.games, language),
            wins=number(stats.wins, language),
        )
    ]
    if stats.average_score is not None and stats.best_score is not None:  # none when out
        average = number(stats.average_score, language, 1)
        best = number(stats.best_score, language)
        lines.append(text("stats.scores", language, average=average, best=best))
    if color:
        shown = f"{COLOR_DOTS[Color(color)]} {text(f'color.{color}', language)}"
        lines.append(text("stats.favourite", language, color=shown))
    lines.extend(judged)
    lines.extend(stood_in)
    lines.extend(reliable)
    history: tuple[int, ...] = ()
    provisional = 0
    if rating is not None:
        lines.append("")
        lines.extend(rating_lines(rating, language))
        if rating.games:
            history, provisional = rating.history, rating.provisional_games
    chart = None
    if history or strip is not None:
        chart = RatingChart(history, provisional, language, strip)
        embed.set_image(url=f"attachment://{CHART_NAME}")
    embed.description = "\n".join(lines)
    return StatsPost(Post(embed=embed), chart)


TREND_STEADY = 1.0
"""A trend within this many points either way is shown as steady."""
TREND_ARROWS = {1: "\u2197", 0: "\u2192", -1: "\u2198"}


def trend_direction(trend: float) -> int:
    """+1 for a rising trend, -1 for a falling one, 0 within TREND_STEADY of none: decided on
    the trend to a tenth, as it is shown, so that a rise shown as "+1.0" is one."""
    shown = round(trend, 1)
    if shown >= TREND_STEADY:
        return 1
    if shown <= -TREND_STEADY:
        return -1
    return 0


def accuracy_strip(accuracy: Accuracy, language: str) -> AccuracyStrip | None:
    """The member's accuracy game by game, as the chart draws it under the rating (None when
    no game's value is known), its words in `language`."""
    if not accuracy.values:
        return None
    return AccuracyStrip(
        values=tuple(reversed(accuracy.values)),
        title=_accuracy_title(len(accuracy.values), language),
        average=accuracy_percent(accuracy.average, language),
        trend=None if accuracy.trend is None else luck_value(accuracy.trend, language),
        direction=0 if accuracy.trend is None else trend_direction(accuracy.trend),
        percent=text("analysis.percent", language, n="{n}"),
    )


def accuracy_lines(accuracy: Accuracy, language: str) -> list[str]:
    """The member's accuracy over their newest judged games and, with enough of them, its
    trend: the newer half's mean against the older half's, with an arrow for its way."""
    lines = [
        text(
            "stats.accuracy.one" if accuracy.games == 1 else "stats.accuracy",
            language,
            accuracy=accuracy_percent(accuracy.average, language),
            games=number(accuracy.games, language),
        )
    ]
    if accuracy.trend is not None:
        arrow = TREND_ARROWS[trend_direction(accuracy.trend)]
        lines.append(
            text(
                "stats.accuracy_trend",
                language,
                arrow=arrow,
                trend=luck_value(accuracy.trend, language),
                half=number(accuracy.games // 2, language),
            )
        )
    return lines


def rating_lines(rating: PlayerRating, language: str) -> list[str]:
    """The rating part of the stats: points and rated games, best result (a gain) and worst
    (a loss), and the record against each AI level."""
    shown = ratings.points(rating.points, language)
    if rating.games == 0:
        lines = [text("stats.rating_none", language, rating=shown)]
    elif rating.provisional:
        lines = [
            text(
                "stats.rating_provisional",
                language,
                rating=shown,
                games=number(rating.games, language),
                needed=rating.provisional_games,
            )
        ]
    else:
        lines = [text("stats.rating", language, rating=shown, games=number(rating.games, language))]
    # a loss is never called the best result, nor a gain the worst
    if rating.best is not None and rating.best.change > 0:
        lines.append(_result_line("stats.best", rating.best, language))
    worst = rating.worst
    if worst is not None and worst.change < 0:
        lines.append(_result_line("stats.worst", worst, language))
    if rating.against_ai:
        lines.append(text("stats.against_ai", language))
        lines.extend(
            text(
                "stats.against_ai_line",
                language,
                ai=ai_name(record.level, language),
                wins=number(record.wins, language),
                ties=number(record.ties, language),
                losses=number(record.losses, language),
            )
            for record in rating.against_ai
        )
    return lines


def _result_line(key: str, result: RatedResult, language: str) -> str:
    return text(
        key,
        language,
        change=ratings.signed(result.change, language),
        game_id=result.game_id,
        place=result.place,
        seats=result.seats,
    )


# --- leaderboard -----------------------------------------------------------------------------


def leaderboard_post(board: Leaderboard, language: str) -> Post:
    """The server's best rated members by rating, those still provisional after the others
    under a line that says so, and the AI levels' ratings (the reference players) below."""
    lines = []
    heading_written = False
    for rank, player in enumerate(board.players, start=1):
        if player.provisional and not heading_written:
            lines.append(text("leaderboard.provisional", language, needed=board.provisional_games))
            heading_written = True
        lines.append(_leaderboard_line(rank, player, language))
    embed = discord.Embed(
        title=text("leaderboard.title", language),
        description="\n".join(lines) or text("leaderboard.empty", language),
        color=END_COLOR,
    )
    if board.references:
        levels = " · ".join(
            text(
                "leaderboard.reference",
                language,
                level=text(f"ai.level.{reference.ai_level}", language),
                rating=ratings.points(reference.points, language),
            )
            for reference in board.references
        )
        embed.set_footer(text=text("leaderboard.references", language, levels=levels))
    return Post(embed=embed)


def _leaderboard_line(rank: int, player: RatedPlayer, language: str) -> str:
    return text(
        "leaderboard.line",
        language,
        rank=rank,
        user=mention(player.user_id),
        rating=ratings.points(player.points, language),
        games=number(player.games, language),
    )


# --- history ---------------------------------------------------------------------------------


def history_post(rows: Sequence[PastGame], *, server: bool, language: str) -> Post:
    """The last games of the channel (or of the whole server), newest first, with how each
    ended: running, won by whom, cancelled, abandoned or aborted."""
    lines = []
    for row in rows:
        if row.status == GameStatus.RUNNING.value:
            outcome = text("history.outcome.running", language)
        elif row.status == GameStatus.OVER.value:
            winners = [
                ai_name(level, language) if user is None and level else mention(user)
                for user, level in zip(row.winner_ids, row.winner_levels, strict=True)
            ]
            outcome = text(
                "history.outcome.won",
                language,
                winners=listed(winners, language) if winners else "?",
            )
        elif row.end_reason == EndReason.CANCELLED:
            outcome = text("history.outcome.cancelled", language)
        elif row.end_reason == EndReason.ABANDONED:
            outcome = text("history.outcome.abandoned", language)
        else:
            outcome = text("history.outcome.aborted", language)
        when = f"<t:{int(row.updated_at.timestamp())}:R>"
        lines.append(
            text(
                "history.line",
                language,
                game_id=row.game_id,
                channel=row.channel_id,
                when=when,
                outcome=outcome,
            )
        )
    embed = discord.Embed(
        title=text("history.title_server" if server else "history.title_channel", language),
        description="\n".join(lines) or text("history.empty", language),
        color=LOBBY_COLOR,
    )
    if lines:
        embed.set_footer(text=text("history.footer", language))
    return Post(embed=embed)


def _accuracy_title(games: int, language: str) -> str:
    """The accuracy chart's title: over how many of the last games ("the last game" for one)."""
    if games == 1:
        return text("stats.chart_accuracy.one", language)
    return text("stats.chart_accuracy", language, games=number(games, language))
