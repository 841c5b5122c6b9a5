"""A watcher's direct message (bot.presentation.watch.news_text) stays within Discord's 2,000
characters: the oldest turns give way to a count of them, the newest are always told; and the
private view (watch_post) says what the watcher gets."""

from __future__ import annotations

import dataclasses
import random

import pytest

import engine
from bot.presentation import story
from bot.presentation.messages import text
from bot.presentation.watch import DM_LIMIT, finished_turns, in_language, news_text, watch_post
from bot.services.views import EndReason, GameStatus, GameView, Player
from bot.services.watch_views import WatchNews, WatchView
from bot.storage.watchers import Watcher
from tests.bot.presentation.test_languages import game_row


def played_to(turn: int, players: tuple[Player, ...]) -> GameView:
    """A running 2-player English game of `players`, each taking its first option, at the
    start of turn `turn`."""
    state = engine.new_game(engine.deal(2, "standard", random.Random(3)))
    starts = [0]
    while state.turn < turn:
        before = state.turn
        state, _ = engine.apply(state, engine.legal_actions(state)[0])
        if state.turn != before:
            starts.append(len(state.history))
    game = game_row("en", GameStatus.RUNNING, seq=len(state.history))
    return GameView(game, players, state, turn_starts=tuple(starts))


def test_a_long_message_keeps_the_newest_turns_and_counts_the_oldest() -> None:
    view = played_to(30, (Player(100, 0), Player(101, 1)))
    turns = list(finished_turns(view))
    assert len(turns) > 20
    lines = {turn: f"Turn {turn}: " + "x" * 150 for turn in turns}
    message = news_text(WatchNews(7, view, 0), lines)
    assert len(message) <= DM_LIMIT
    told = [turn for turn in turns if lines[turn] in message.splitlines()]
    assert told == turns[-len(told) :], "the newest turns, in order"
    assert f"… and {len(turns) - len(told)} earlier turns" in message


def test_a_long_message_at_the_game_s_end_still_tells_the_end() -> None:
    running = played_to(30, (Player(100, 0), Player(101, 1)))
    view = dataclasses.replace(
        running, game=dataclasses.replace(running.game, status=GameStatus.OVER)
    )
    turns = list(finished_turns(view))
    lines = {turn: f"Turn {turn}: " + "x" * 150 for turn in turns}
    message = news_text(WatchNews(7, view, 0), lines)
    assert len(message) <= DM_LIMIT
    told = [turn for turn in turns if lines[turn] in message.splitlines()]
    assert told == turns[-len(told) :], "the newest turns, in order"
    assert message.splitlines()[-1] == text("watch.dm.over", "en", game_id=view.id)


def test_the_private_view_says_what_the_watcher_gets() -> None:
    """Watching with direct messages, watching without, no longer watching, and a game over
    each read their own sentence."""
    state = engine.new_game(engine.deal(2, "standard", random.Random(3)))
    view = GameView(game_row("en", GameStatus.RUNNING), (Player(100, 0), Player(101, 1)), state)

    def description(watcher: Watcher | None, game: GameView = view) -> str:
        return watch_post(WatchView(game, watcher), "en").embed.description or ""

    assert description(Watcher(view.id, 7, True, 0)).startswith(
        "You watch this game and get a direct message at each finished turn"
    )
    assert description(Watcher(view.id, 7, False, 0)).startswith(
        "You watch this game: refresh to see it now."
    )
    assert description(None) == "You no longer watch this game."
    fields = {
        language: [f.name for f in watch_post(WatchView(view, None), language).embed.fields]
        for language in ("en", "fr", "uk")
    }
    assert [names[-1] for names in fields.values()] == [
        "Last turn",
        "Dernier tour",
        "Останній хід",
    ], "the field holds one turn's line"
    over = GameView(game_row("en", GameStatus.OVER), view.players, state)
    assert description(Watcher(view.id, 7, True, 0), over) == (
        "This game is over: watching it ended."
    )


def test_the_private_view_s_last_turn_is_the_newest_in_the_watcher_s_language() -> None:
    """The view's one line is the turn over last, not the game's first, told as the channel
    tells it but in the language the watcher asked in, whatever the game's."""
    view = played_to(4, (Player(100, 0), Player(101, 1)))
    assert view.game.locale == "en"
    turns = finished_turns(view)
    assert len(turns) > 1
    for language in ("en", "fr", "uk"):
        last = watch_post(WatchView(view, None), language).embed.fields[-1].value
        assert last == story.turn_line(in_language(view, language), turns[-1]), language


@pytest.mark.parametrize(
    ("status", "key"),
    [(GameStatus.OVER, "watch.dm.over"), (GameStatus.ABORTED, "watch.dm.stopped")],
)
def test_the_end_of_a_game_is_told_in_the_language_the_watcher_asked_in(
    status: GameStatus, key: str
) -> None:
    """A French watcher of an English game reads its end, the line that ends their watch, in
    French like the rest of the message."""
    running = played_to(4, (Player(100, 0), Player(101, 1)))
    ended = dataclasses.replace(running, game=dataclasses.replace(running.game, status=status))
    assert ended.game.locale == "en"
    for language in ("fr", "uk"):
        message = news_text(WatchNews(7, ended, 0, language), {})
        assert message.startswith(
            text("watch.dm.header", language, game_id=ended.id, url=f"#{ended.id}")
        )
        assert message.splitlines()[-1] == text(key, language, game_id=ended.id), message


@pytest.mark.parametrize("reason", [EndReason.ABORTED_BY_HOST, EndReason.ABANDONED])
def test_the_view_of_a_game_stopped_before_its_end_says_so_as_the_direct_message_does(
    reason: EndReason,
) -> None:
    """Refresh after "Game #12 was stopped before its end" reads that it was stopped, never
    that it is over, and shows its last board, not "the board now"."""
    running = played_to(3, (Player(100, 0), Player(101, 1)))
    game = dataclasses.replace(running.game, status=GameStatus.ABORTED, end_reason=reason)
    stopped = dataclasses.replace(running, game=game)
    for language in ("en", "fr", "uk"):
        embed = watch_post(WatchView(stopped, None), language).embed
        assert embed.description != text("watch.status.over", language)
        assert embed.title != text("board.title", language, game_id=stopped.id)
        assert embed.description == text("watch.status.game_stopped", language)
        assert embed.title == text("board.title_stopped", language, game_id=stopped.id)
    told = news_text(WatchNews(7, stopped, stopped.seq), {}).splitlines()[-1]
    assert told == text("watch.dm.stopped", "en", game_id=stopped.id)
    embed = watch_post(WatchView(stopped, None), "en").embed
    assert "stopped before its end" in told
    assert "stopped before its end" in (embed.description or "")
    assert "stopped before its end" in (embed.title or "")


def test_a_watcher_s_direct_message_names_the_players_without_mentions() -> None:
    """A mention in a direct message shows as an unknown user on clients that have not met
    the member: the players are named as the server showed them, as in a turn's message."""
    view = played_to(3, (Player(100, 0, name="Alice"), Player(101, 1, name="Bob")))
    from_channel = {1: "**Game #12 · turn 1** · 🟦 <@100>: paid <@101> 3 dirhams"}
    message = news_text(WatchNews(7, view, 0), from_channel)
    assert "<@" not in message, message
    assert "🟦 Alice: paid Bob 3 dirhams" in message
    last = message.splitlines()[-1]
    assert last.startswith("**Game #12 · turn 2**"), "the line worked out from the game too"
    assert "Alice" in last or "Bob" in last, last


def test_a_watcher_who_asked_in_another_language_gets_each_turn_in_it() -> None:
    """The channel's lines are in the game's language: a watcher who asked in French on an
    English game gets every turn's line in French, none of the channel's English ones."""
    view = played_to(3, (Player(100, 0), Player(101, 1)))
    assert view.game.locale == "en"
    turns = list(finished_turns(view))
    assert turns
    from_channel = {turn: story.turn_line(view, turn) for turn in turns}
    message = news_text(WatchNews(7, view, 0, "fr"), from_channel)
    assert message.startswith(text("watch.dm.header", "fr", game_id=view.id, url=f"#{view.id}"))
    french = in_language(view, "fr")
    for turn in turns:
        assert from_channel[turn] not in message, "an English line in a French message"
        assert story.turn_line(french, turn) in message
