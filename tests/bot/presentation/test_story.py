"""A finished turn in one line (bot.presentation.story), and the lobby once its game started.

Whole games are played through the engine and shown as the services show them (the events of
the current and the previous turn, the seq each turn began at): every turn that ends becomes one
line headed with its own number, never the next one's, naming its own mover. A turn the AI
played for a person tells why as its log recorded it, whatever the seat became since; a turn
logged without why is told from the seat.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator

import pytest

import engine
from bot.presentation import messages, names, presenter, story
from bot.services import GameInfo, GameStatus, GameView, Player, deadlines
from bot.services.loaded import split_turns
from bot.services.views import AiMove, EndReason, TurnReason
from engine import Color, Facing
from tests.bot.presentation.test_presentation import game_row, view_at_place

LINK = "https://discord.com/channels/1/2/3"
HEADER = re.compile(r"^\*\*Game #12 · turn (?P<turn>\d+)\*\* · (?P<story>.+)$")


def game_info(status: GameStatus = GameStatus.RUNNING, seq: int = 0) -> GameInfo:
    """The presentation tests' game, ended by its host and with its lobby message known."""
    return dataclasses.replace(game_row(status, seq), ended_by=100, lobby_message_id=5)


def seated(players: int) -> tuple[Player, ...]:
    """Humans 100, 101, ... except the last seat, which is the hard AI's."""
    humans = tuple(Player(100 + seat, seat) for seat in range(players - 1))
    return (*humans, Player(None, players - 1, ai_level="hard"))


def played(players: int, variant: str, seed: int) -> Iterator[tuple[GameView, GameView]]:
    """(before, after) views of every action of a whole random game, kept as the loader keeps
    them: the events of the current and the previous turn and the seq each turn began at."""
    rng = random.Random(seed)
    state = engine.new_game(engine.deal(players, variant, rng))
    turn: tuple[engine.events.Event, ...] = ()
    previous: tuple[engine.events.Event, ...] = ()
    starts: tuple[int, ...] = (0,)
    seq = 0
    before = GameView(game_info(seq=seq), seated(players), state, (), turn, previous, starts)
    while not state.is_over:
        state, events = engine.apply(state, rng.choice(engine.legal_actions(state)))
        seq += 1
        turn, previous = split_turns(turn, previous, events)
        if any(isinstance(event, engine.TurnStarted) for event in events):
            starts = (*starts, seq)
        status = GameStatus.OVER if state.is_over else GameStatus.RUNNING
        info = game_info(status, seq)
        after = GameView(info, seated(players), state, events, turn, previous, starts)
        yield before, after
        before = after


@pytest.mark.parametrize("variant", ["standard", "rotate-after"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_finished_turn_is_one_line_with_its_own_number_and_mover(
    players: int, variant: str
) -> None:
    ended = 0
    for before, after in played(players, variant, seed=players * 7):
        assert before.state is not None
        assert after.turn_at(before.seq) == before.state.turn, "a message's seq names its turn"
        if not after.turn_changed:
            continue
        ended += 1
        mover = before.state.to_move
        assert mover is not None
        assert story.finished_turn(after) == before.state.turn
        line = story.turn_line(after, story.finished_turn(after))
        assert "\n" not in line
        header = HEADER.match(line)
        assert header is not None, line
        assert int(header["turn"]) == before.state.turn, "the turn's own number, not the next"
        who = names.seat_name(after, mover, "en")
        assert header["story"].split(" ", 1)[1].startswith(f"{who}: "), line
        if any(isinstance(event, engine.DieRolled) for event in after.turn_events):
            assert "🎲" in line
        if any(isinstance(event, engine.RugPlaced) for event in after.events):
            assert " rug on " in line
    assert ended >= 10


def finished_turn_events(before: GameView, after: GameView) -> list[engine.events.Event]:
    """The events of the turn `after`'s action ended: those of its turn before the action, then
    the action's own up to the next turn's start."""
    events = list(before.turn_events)
    for event in after.events:
        if isinstance(event, engine.TurnStarted):
            break
        events.append(event)
    return events


def laid_on(events: list[engine.events.Event]) -> str:
    """The squares of the rug laid among `events`, as the story names them."""
    (placed,) = [event for event in events if isinstance(event, engine.RugPlaced)]
    return names.squares_label(placed.squares)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_variant_turn_line_tells_where_assam_was_turned_after_the_rug(players: int) -> None:
    """In the rotate-after variant the turn ends by turning Assam: its line tells it last,
    after the rug, as it was played. It is the channel's one record of where the next player
    sets off."""
    told = 0
    for before, after in played(players, "rotate-after", seed=players * 5):
        if not after.turn_changed:
            continue
        events = finished_turn_events(before, after)
        rotated = [event for event in events if isinstance(event, engine.AssamRotated)]
        if not rotated:
            continue
        (turn,) = rotated
        line = story.turn_line(after, story.finished_turn(after))
        said = messages.text(
            f"story.turned.{turn.rotation}", "en", facing=names.facing_name(turn.facing, "en")
        )
        assert line.endswith(f" rug on {laid_on(events)} · {said}"), line
        told += 1
    assert told >= 10


@pytest.mark.parametrize("variant", ["standard", "rotate-after"])
def test_each_finished_turn_names_the_square_assam_stopped_on(variant: str) -> None:
    """ "🎲 3 · Assam → b4": the square at the end of his walk, not one he only stepped on."""
    told = 0
    for before, after in played(3, variant, seed=11):
        if not after.turn_changed:
            continue
        events = finished_turn_events(before, after)
        moves = [event for event in events if isinstance(event, engine.AssamMoved)]
        if not moves:
            continue
        (moved,) = moves
        line = story.turn_line(after, story.finished_turn(after))
        face = len(moved.path)
        assert f"🎲 {face} · Assam → {engine.square_name(moved.end)} · " in line, line
        told += 1
    assert told >= 10


def later_view(players: int, seed: int) -> GameView:
    """A view of a game a few turns in."""
    return next(
        after
        for _, after in played(players, "standard", seed=seed)
        if after.state is not None and after.state.turn >= 4
    )


def test_a_turn_tells_what_was_faced_rolled_paid_and_laid() -> None:
    view = later_view(3, seed=1)
    events = (
        engine.TurnStarted(seat=1, turn=5),
        engine.AssamTurned(seat=1, rotation="L", facing=Facing.W),
        engine.DieRolled(seat=1, face=3),
        engine.AssamMoved(seat=1, start=24, start_facing=Facing.W, path=walk(24, Facing.W, 3)),
        engine.TaxPaid(payer=1, payee=0, owed=2, paid=2, color=Color.RED, region=frozenset()),
        engine.RugPlaced(seat=1, color=Color.YELLOW, squares=(20, 21), rug_number=9),
    )
    state = view.state
    assert state is not None
    shown = dataclasses.replace(view, previous_turn_events=events)
    line = story.turn_line(shown, state.turn - 1)
    assert line.startswith(f"**Game #12 · turn {state.turn - 1}** · 🟨 <@101>: ")
    assert messages.text("story.turned.L", "en", facing="west") in line
    assert "🎲 3 · Assam → " in line
    assert "paid <@100> 2 dirhams" in line
    assert "laid a yellow rug on " in line
    assert "no payment" not in line


def walk(start: int, facing: Facing, steps: int) -> tuple[engine.Step, ...]:
    return tuple(engine.walk(start, facing, steps))


def test_a_walk_that_costs_nothing_says_so_and_a_short_payment_puts_the_player_out() -> None:
    view = later_view(3, seed=2)
    state = view.state
    assert state is not None
    free = (
        engine.DieRolled(seat=0, face=2),
        engine.AssamMoved(seat=0, start=24, start_facing=Facing.N, path=walk(24, Facing.N, 2)),
    )
    out = (
        engine.DieRolled(seat=0, face=4),
        engine.AssamMoved(seat=0, start=24, start_facing=Facing.N, path=walk(24, Facing.N, 4)),
        engine.TaxPaid(payer=0, payee=2, owed=5, paid=1, color=Color.BLUE, region=frozenset()),
        engine.PlayerEliminated(seat=0, rugs_lost=4),
    )
    assert "no payment" in story.turn_line(dataclasses.replace(view, turn_events=free), state.turn)
    line = story.turn_line(dataclasses.replace(view, turn_events=out), state.turn)
    assert "owed 🤖 AI (hard) 5 dirhams but paid only 1" in line
    assert line.endswith("<@100> is out")
    assert "no payment" not in line


def test_a_resignation_and_an_abort_are_told_in_the_turn_they_happened() -> None:
    view = later_view(3, seed=3)
    state = view.state
    assert state is not None
    resigned = (*view.turn_events, engine.PlayerEliminated(seat=1, rugs_lost=5, resigned=True))
    line = story.turn_line(dataclasses.replace(view, turn_events=resigned), state.turn)
    assert line.endswith("<@101> resigned")
    aborted = dataclasses.replace(
        view, game=dataclasses.replace(view.game, status=GameStatus.ABORTED, ended_by=7)
    )
    line = story.turn_line(aborted, state.turn)
    assert line.endswith("game aborted by <@7>")
    assert "game aborted" not in story.turn_line(aborted, state.turn - 1), "only the last turn"


def test_an_abandoned_game_s_last_turn_says_it_was_abandoned_not_aborted_by_someone() -> None:
    """A game no one plays any more ends as abandoned, stopped by no one."""
    view = later_view(3, seed=3)
    state = view.state
    assert state is not None
    abandoned = dataclasses.replace(
        view,
        game=dataclasses.replace(
            view.game, status=GameStatus.ABORTED, end_reason=EndReason.ABANDONED, ended_by=None
        ),
    )
    line = story.turn_line(abandoned, state.turn)
    assert line.endswith("game abandoned"), line
    assert "aborted" not in line, line


@pytest.mark.parametrize(
    ("language", "said"), [("en", "resigned"), ("fr", "abandonne"), ("uk", "здається")]
)
def test_a_player_who_resigns_on_their_own_turn_is_not_named_twice(
    language: str, said: str
) -> None:
    """ "@Bob: @Bob resigned" names him twice: the turn is his, so it says "@Bob: resigned"."""
    view = later_view(3, seed=3)
    state = view.state
    assert state is not None
    mover = state.to_move
    assert mover is not None
    resigned = (*view.turn_events, engine.PlayerEliminated(seat=mover, rugs_lost=5, resigned=True))
    shown = dataclasses.replace(
        view, turn_events=resigned, game=dataclasses.replace(view.game, locale=language)
    )
    line = story.turn_line(shown, state.turn)
    user = f"<@{100 + mover}>"
    assert line.endswith(said), line
    assert line.count(user) == 1, line


def test_a_turn_older_than_the_previous_one_says_only_that_it_is_over() -> None:
    *_, (_, last) = played(2, "standard", seed=4)
    assert last.state is not None
    old = last.state.turn - 3
    assert story.turn_line(last, old) == f"**Game #12 · turn {old}** · Turn {old} is over."


def test_the_first_turn_is_the_first_player_s() -> None:
    first = []
    for before, after in played(4, "standard", seed=5):
        if after.turn_changed:
            first.append((before, after))
            break
    ((before, after),) = first
    assert before.state is not None
    assert after.state is not None
    assert before.state.turn == 1
    mover = after.state.config.first_player
    who = names.seat_name(after, mover, "en")
    assert f"** · {''.join(presenter.COLOR_DOTS[c] for c in engine.seat_colors(4, mover))}" in (
        story.turn_line(after, 1)
    )
    assert f" {who}: " in story.turn_line(after, 1)


def test_a_two_player_turn_line_shows_both_colours_of_its_mover_s_seat() -> None:
    """In a game of two each seat plays two colours: the line shows both, before its player."""
    ended = 0
    for before, after in played(2, "standard", seed=14):
        if not after.turn_changed:
            continue
        assert before.state is not None
        mover = before.state.to_move
        assert mover is not None
        colors = engine.seat_colors(2, mover)
        assert len(colors) == 2
        dots = "".join(presenter.COLOR_DOTS[color] for color in colors)
        who = names.seat_name(after, mover, "en")
        line = story.turn_line(after, story.finished_turn(after))
        assert f"** · {dots} {who}: " in line, line
        ended += 1
    assert ended >= 10


def test_a_started_lobby_is_no_longer_titled_a_lobby_and_links_to_the_game() -> None:
    lobby = GameView(game_info(GameStatus.LOBBY), (Player(100, None),))
    assert (presenter.lobby_post(lobby).embed.title or "").endswith("(lobby)")
    running = next(after for _, after in played(2, "standard", seed=6))
    post = presenter.lobby_post(running, link=LINK)
    assert post.embed.title == "Marrakech: game #12"
    assert f"[go to its first turn]({LINK})" in (post.embed.description or "")
    assert "link" not in (presenter.lobby_post(running).embed.description or "")
    over = dataclasses.replace(
        running, game=dataclasses.replace(running.game, status=GameStatus.OVER)
    )
    assert f"[see the result]({LINK})" in (
        presenter.lobby_post(over, link=LINK).embed.description or ""
    )
    aborted = dataclasses.replace(
        running, game=dataclasses.replace(running.game, status=GameStatus.ABORTED)
    )
    description = presenter.lobby_post(aborted, link=LINK).embed.description or ""
    assert description == "This game was aborted by <@100>."
    cancelled = dataclasses.replace(
        lobby, game=dataclasses.replace(lobby.game, status=GameStatus.ABORTED)
    )
    assert "cancelled" in (presenter.lobby_post(cancelled).embed.description or "")


MODERATOR = 300
"""Someone other than the host (100), who ended the game: a moderator."""


def test_a_lobby_or_game_a_moderator_ended_names_the_moderator_not_the_host() -> None:
    lobby = GameView(game_info(GameStatus.LOBBY), (Player(100, None), Player(101, None)))
    running = next(after for _, after in played(2, "standard", seed=6))
    for view, said in (
        (lobby, f"This lobby was cancelled by <@{MODERATOR}>."),
        (running, f"This game was aborted by <@{MODERATOR}>."),
    ):
        ended = dataclasses.replace(view.game, status=GameStatus.ABORTED, ended_by=MODERATOR)
        shown = presenter.lobby_post(dataclasses.replace(view, game=ended), link=LINK)
        assert shown.embed.description == said


@pytest.mark.parametrize(
    ("language", "header", "laid"),
    [("fr", "**Partie n° 12 · tour ", "pose un tapis "), ("uk", "**Гра №12 · хід ", "викладає ")],
)
def test_a_turn_line_speaks_the_game_s_language(language: str, header: str, laid: str) -> None:
    before, after = next(
        (before, after)
        for before, after in played(3, "standard", seed=8)
        if after.turn_changed and any(isinstance(e, engine.RugPlaced) for e in after.events)
    )
    assert before.state is not None
    shown = dataclasses.replace(after, game=dataclasses.replace(after.game, locale=language))
    line = story.turn_line(shown, story.finished_turn(shown))
    assert line.startswith(f"{header}{before.state.turn}** · ")
    assert laid in line


def test_a_turn_line_too_long_for_a_message_is_cut_to_what_discord_takes() -> None:
    """The turn's message is edited down to its line, a message's text: Discord refuses one
    over 2,000 characters, so the line is cut there, marked with an ellipsis, as the turn's
    embed is at its own limit."""
    payment = engine.TaxPaid(
        payer=1, payee=2, owed=5, paid=5, color=engine.Color.BLUE, region=frozenset({12})
    )
    long = dataclasses.replace(view_at_place(), turn_events=(payment,) * 100)
    assert long.state is not None
    line = story.turn_line(long, long.state.turn)
    assert len(line) == story.CONTENT_LIMIT == 2000
    assert line.endswith("…")
    assert line.startswith(f"**Game #12 · turn {long.state.turn}** · ")


def previous_turn_of_a_person() -> tuple[GameView, int, int]:
    """A view of a game a few turns in whose previous turn was a person's: the view, that
    turn's number and its mover's seat."""
    for _, after in played(3, "standard", seed=8):
        state = after.state
        if state is None or state.turn < 4 or not after.turn_changed:
            continue
        mover = next(
            e.seat for e in after.previous_turn_events if isinstance(e, engine.TurnStarted)
        )
        if mover != 2:  # seat 2 is the AI's
            return after, state.turn - 1, mover
    raise AssertionError("no turn of a person ended")


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        (TurnReason.TIMEOUT, "(⏰ ran out of time)"),
        (TurnReason.HANDED_OVER, "(⏰ ran out of time 3 turns in a row: the AI plays"),
        (TurnReason.AUTOPLAY, "🤖 AI for <@"),
    ],
)
def test_a_turn_the_ai_played_for_a_person_tells_why_as_recorded_whatever_the_seat_is_now(
    reason: TurnReason, said: str
) -> None:
    view, turn, seat = previous_turn_of_a_person()
    recorded = dataclasses.replace(view, ai_moves=(AiMove(turn, reason, 3),))
    assert view.player_at(seat) == Player(100 + seat, seat), "taken back: no count, no autoplay"

    line = story.turn_line(recorded, turn)

    assert f"🤖 AI for <@{100 + seat}>" in line, line
    assert said in line, line
    if reason is TurnReason.AUTOPLAY:
        assert "ran out of time" not in line, line


@pytest.mark.parametrize(
    ("timeouts", "autoplay", "said"),
    [(1, False, "(⏰ ran out of time)"), (3, True, "ran out of time 3 turns in a row")],
)
def test_a_turn_logged_without_why_is_told_from_the_seat(
    timeouts: int, autoplay: bool, said: str
) -> None:
    view, turn, seat = previous_turn_of_a_person()
    players = tuple(
        dataclasses.replace(p, timeouts=timeouts, autoplay=autoplay) if p.seat == seat else p
        for p in view.players
    )
    line = story.turn_line(dataclasses.replace(view, players=players), turn)
    assert said in line, line


def test_a_turn_logged_without_why_after_the_hand_over_is_told_as_the_ai_playing() -> None:
    """The seat counts on after its hand-over, one more each turn the AI plays for it: a turn
    told from the seat with a count above the hand-over's is the AI playing for its person,
    not the hand-over again."""
    view, turn, seat = previous_turn_of_a_person()
    later = deadlines.TIMEOUTS_BEFORE_HANDOVER + 1
    players = tuple(
        dataclasses.replace(p, timeouts=later, autoplay=True) if p.seat == seat else p
        for p in view.players
    )
    line = story.turn_line(dataclasses.replace(view, players=players), turn)
    assert f"🤖 AI for <@{100 + seat}>" in line, line
    assert "ran out of time" not in line, line


def last_turn_of_a_person() -> tuple[GameView, int, int]:
    """The view of a finished game of two whose last turn was a person's: the view, that
    turn's number and its mover's seat."""
    for seed in range(50):
        *_, (_, last) = played(2, "standard", seed=seed)
        state = last.state
        assert state is not None
        mover = next(e.seat for e in last.turn_events if isinstance(e, engine.TurnStarted))
        if mover != 1:  # seat 1 is the AI's
            return last, state.turn, mover
    raise AssertionError("no game whose last turn was a person's")


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        (TurnReason.TIMEOUT, "(⏰ ran out of time)"),
        (TurnReason.HANDED_OVER, "(⏰ ran out of time 3 turns in a row: the AI plays"),
    ],
)
def test_the_last_turn_of_a_game_the_ai_played_for_a_person_out_of_time_says_so(
    reason: TurnReason, said: str
) -> None:
    """The AI's move for a person out of time ends the game: that turn is the game's last,
    and its line still tells why the AI played it."""
    view, turn, seat = last_turn_of_a_person()
    assert view.status is GameStatus.OVER
    recorded = dataclasses.replace(view, ai_moves=(AiMove(turn, reason, 3),))
    assert story.finished_turn(recorded) == turn

    line = story.turn_line(recorded, turn)

    assert f"🤖 AI for <@{100 + seat}> {said}" in line, line
