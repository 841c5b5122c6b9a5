"""Names on the board: the picture a message goes with names every seat, in seat order: a human
by the display name stored with their seat, an AI by its name in the game's language, and a
seat without a name by render's seat label. The names go from the lobby to the picture, survive
a restart, and name the replay's seats too, whose panel speaks the language asked for."""

from __future__ import annotations

import io
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import engine
from bot.presentation import images, presenter
from bot.services import GameInfo, GameService, GameStatus, GameView, Player
from bot.storage import Database, GameStore, open_database
from bot.workers import jobs
from bot.workers.pool import Lane, WorkerPool
from engine import GameState, RugPlaced
from engine.events import Event
from render import panel_model
from render.layout import layout
from render.palette import LAST_RUG
from tests.bot.workers.lanes import lanes_noted

HOST, BOB, CAROL = 1001, 1002, 1003
SEED = "0123456789abcdef" * 2


def game_info(status: GameStatus = GameStatus.RUNNING, language: str = "en") -> GameInfo:
    return GameInfo(
        id=12,
        guild_id=1,
        channel_id=2,
        host_id=HOST,
        status=status,
        seats_wanted=3,
        variant="standard",
        turn_limit_seconds=None,
        seed_sha256="f" * 64,
        seq=7,
        locale=language,
    )


PLAYERS = (  # listed in joining order, not in seat order
    Player(HOST, 2, name="Zoë 🌵"),
    Player(None, 0, ai_level="hard"),
    Player(BOB, 1, name=None),  # joined before names were kept
)


def played(players: int = 3, seed: int = 1) -> GameState:
    rng = random.Random(seed)
    state = engine.new_game(engine.deal(players, "standard", rng))
    while not state.is_over:
        state, _ = engine.apply(state, rng.choice(engine.legal_actions(state)))
    return state


@pytest.mark.parametrize(
    ("language", "ai"),
    [("en", "🤖 AI (hard)"), ("fr", "🤖 IA (difficile)"), ("uk", "🤖 ШІ (складний)")],
)
def test_picture_of_names_the_seats_in_seat_order_with_ai_labels(language: str, ai: str) -> None:
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    view = GameView(game_info(language=language), PLAYERS, state)
    image = presenter.turn_post(view).image
    assert image is not None
    picture = images.picture_of(image)
    assert picture.names == (ai, "", "Zoë 🌵")
    drawn = panel_model(state, names=picture.names, labels=picture.labels).names()
    seat_two = picture.labels.seat.format(n=2)
    assert drawn == [ai.removeprefix("🤖 "), seat_two, "Zoë"], "what the font lacks is dropped"


def test_every_picture_of_a_game_names_its_seats() -> None:
    state = played()
    over = GameView(game_info(GameStatus.OVER), PLAYERS, state)
    for post in (presenter.final_post(over), presenter.board_post(over, "en")):
        assert post.image is not None
        assert images.picture_of(post.image).names == ("🤖 AI (hard)", "", "Zoë 🌵")


def test_a_game_nobody_named_keeps_render_s_seat_labels() -> None:
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    nameless = tuple(Player(100 + seat, seat) for seat in range(3))
    image = presenter.turn_post(GameView(game_info(), nameless, state)).image
    assert image is not None
    assert images.picture_of(image).names is None
    assert images.seat_names((), 3, "en") is None


def test_a_seat_the_ai_plays_for_a_human_keeps_the_human_s_name() -> None:
    players = (Player(HOST, 0, name="Ann", autoplay=True), Player(BOB, 1, name="Bo"))
    assert images.seat_names(players, 2, "en") == ("Ann", "Bo")


async def test_the_drawn_picture_carries_the_names() -> None:
    state = played()
    view = GameView(game_info(GameStatus.OVER), PLAYERS, state)
    post = presenter.final_post(view)
    assert post.image is not None
    pictures = images.Pictures(WorkerPool(workers=0))
    named = await pictures.png(post.image)
    nameless = presenter.final_post(GameView(game_info(GameStatus.OVER), (), state)).image
    assert nameless is not None
    assert named.startswith(b"\x89PNG")
    assert named != await pictures.png(nameless)
    assert named == jobs.board_png(images.picture_of(post.image)), "the same bytes as asked"


async def test_the_replay_names_its_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, Any]] = []

    def render_replay(record: engine.Record, **options: Any) -> bytes:
        asked.append(options)
        return b"GIF89a"

    monkeypatch.setattr(jobs, "render_replay", render_replay)
    record = engine.record_to_json(engine.record_of(played()))
    pictures = images.Pictures(WorkerPool(workers=0))
    assert await pictures.replay_gif(record, "fr", PLAYERS) == b"GIF89a"
    assert await pictures.replay_gif(record, "en") == b"GIF89a"
    assert [options["names"] for options in asked] == [("🤖 IA (difficile)", "", "Zoë 🌵"), None]


async def test_the_replay_is_drawn_in_the_slow_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay takes a worker for up to a second: it goes beside the AI decisions, which may
    hold every worker but one, so a turn's picture never waits behind a few Replay presses."""
    monkeypatch.setattr(jobs, "render_replay", lambda record, **options: b"GIF89a")
    workers = WorkerPool(workers=0)
    lanes = lanes_noted(workers, monkeypatch)
    record = engine.record_to_json(engine.record_of(played()))
    await images.Pictures(workers).replay_gif(record, "en", PLAYERS)
    assert lanes == [("replay_gif", Lane.SLOW)]


@pytest.mark.parametrize("language", ["fr", "uk"])
async def test_the_replay_is_drawn_in_the_language_asked_for(
    monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    """The GIF's panel speaks the server's language, as the answer and the analysis it comes
    with do: not English."""
    drawn: list[Any] = []

    def render_replay(record: engine.Record, **options: Any) -> bytes:
        drawn.append(options["labels"])
        return b"GIF89a"

    monkeypatch.setattr(jobs, "render_replay", render_replay)
    record = engine.record_to_json(engine.record_of(played()))
    await images.Pictures(WorkerPool(workers=0)).replay_gif(record, language, PLAYERS)
    assert drawn == [images.labels(language)]
    assert drawn[0] != images.labels("en")


# --- from the lobby to the picture, through the database ------------------------------------


def fixed_clock() -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    db = await open_database(tmp_path / "games.sqlite3")
    yield db
    await db.close()


def service_on(database: Database) -> GameService:
    return GameService(GameStore(database), clock=fixed_clock, seeds=lambda: SEED)


async def test_names_go_from_the_lobby_to_the_picture_and_survive_a_restart(
    database: Database,
) -> None:
    service = service_on(database)
    lobby = await service.lobby.create_lobby(
        guild_id=9, channel_id=50, host_id=HOST, seats=4, host_name="  Оксана   Коваль "
    )
    assert [player.name for player in lobby.players] == ["Оксана Коваль"], "spaces collapsed"
    await service.lobby.join(lobby.id, BOB, name="Bob")
    await service.lobby.join(lobby.id, CAROL, name="   ")  # nothing to show: no name
    await service.lobby.add_ai(lobby.id, HOST, "easy")
    view = await service.lobby.start(lobby.id, HOST)
    named = {HOST: "Оксана Коваль", BOB: "Bob", CAROL: ""}
    expected = tuple(
        named[player.user_id] if player.user_id is not None else "🤖 AI (easy)"
        for player in sorted(view.players, key=lambda player: player.seat or 0)
    )
    image = presenter.turn_post(view).image
    assert image is not None
    assert images.picture_of(image).names == expected

    # a fresh service (a restarted bot) rebuilds the game from the database
    again = await service_on(database).play.look(view.id)
    assert again.players == view.players
    image = presenter.turn_post(again).image
    assert image is not None
    assert images.picture_of(image).names == expected


def test_the_result_s_picture_marks_the_last_rug_of_the_game() -> None:
    """The result keeps the final board with the last turn marked: in a quiet channel, where
    that turn's own message is one line, it is the only picture of where the last rug went."""
    rng = random.Random(1)
    state = engine.new_game(engine.deal(3, "standard", rng))
    turn = state.turn
    turn_events: tuple[Event, ...] = ()  # since the turn being played began, as in a GameView
    while not state.is_over:
        if state.turn != turn:
            turn, turn_events = state.turn, ()
        state, events = engine.apply(state, rng.choice(engine.legal_actions(state)))
        turn_events = (*turn_events, *events)
    (laid,) = [event for event in turn_events if isinstance(event, RugPlaced)]
    post = presenter.final_post(
        GameView(game_info(GameStatus.OVER), PLAYERS, state, turn_events=turn_events)
    )
    assert post.image is not None
    picture = images.picture_of(post.image)
    assert picture.final
    image = Image.open(io.BytesIO(jobs.board_png(picture))).convert("RGB")
    geometry = layout(image.width, state.players)
    boxes = [geometry.square_box(square) for square in laid.squares]
    x0, x1 = min(b[0] for b in boxes), max(b[2] for b in boxes)
    y1 = max(b[3] for b in boxes)
    # The bright frame runs along the rug's bottom edge, over a dark line (a few pixels deep).
    probes = [((x0 + x1) // 2, y) for y in range(y1 - 6, y1 + 3)]
    assert any(image.getpixel(probe) == LAST_RUG for probe in probes), laid.squares
