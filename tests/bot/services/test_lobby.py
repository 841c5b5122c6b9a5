"""The lobby's seats: an AI never seats past the lobby's size, the start shuffles the seats
from the game's seed, and a seat keeps its player's name tidied and bounded. Its turn limit is
5 minutes to 7 days, or none. Presses at the same moment (two joins for the last seat, an AI
and a join, a join or a leave and the start) are taken one after the other under the game's
lock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import pytest

from bot.services import GameService, GameStatus, GameView
from bot.services.errors import BadOptionError, LobbyClosedError, LobbyFullError
from bot.services.guilds import GuildService
from bot.services.lobby import NAME_LIMIT, seat_name
from bot.storage import Database
from bot.storage.guilds import GuildStore
from tests.bot.services.test_service import BOB, CAROL, CHANNEL, DAVE, HOST, service_on
from tests.races import Race

FIVE_MINUTES = 5 * 60
SEVEN_DAYS = 7 * 24 * 3600


def racing(service: GameService, monkeypatch: pytest.MonkeyPatch, *writes: str) -> Race:
    """A race between lobby changes: each takes the game's lock and makes its store `writes`
    at the moments the race lets it (tests.races)."""
    race = Race()
    store = service.loader.store
    monkeypatch.setattr(service.loader, "locked", race.lock(service.loader.locked))
    for name in writes:
        monkeypatch.setattr(store, name, race.write(getattr(store, name)))
    return race


async def change_and_start(
    race: Race,
    change: Awaitable[GameView],
    service: GameService,
    game_id: int,
    *,
    change_first: bool,
) -> tuple[object, object]:
    """A lobby change and the host's Start at once, the one named first first: what each
    gave (a view, or the error it raised)."""
    racing_change = race.run(change)
    start = race.run(service.lobby.start(game_id, HOST))
    if change_first:
        changed, started = await asyncio.gather(racing_change, start, return_exceptions=True)
    else:
        started, changed = await asyncio.gather(start, racing_change, return_exceptions=True)
    return changed, started


async def test_an_ai_is_not_seated_in_a_full_lobby(database: Database) -> None:
    service = service_on(database)
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=2)
    await service.lobby.add_ai(lobby.id, HOST, "easy")
    with pytest.raises(LobbyFullError):
        await service.lobby.add_ai(lobby.id, HOST, "hard")
    view = await service.play.look(lobby.id)
    assert [p.ai_level for p in view.players] == [None, "easy"], "the lobby keeps its two seats"


async def test_a_lobby_opened_with_ai_seats_holds_them_and_never_more_than_its_size(
    database: Database,
) -> None:
    """A lobby opened with AI seats (a rematch's) holds them after its host, as stored; one
    asking for more seats than it has, or an AI level there is not, is refused, and no lobby
    is written."""
    service = service_on(database)
    with pytest.raises(LobbyFullError):
        await service.lobby.create_lobby(
            guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=2, ai_levels=["easy", "hard"]
        )
    with pytest.raises(BadOptionError):
        await service.lobby.create_lobby(
            guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=3, ai_levels=["genius"]
        )
    assert await service.loader.store.open_in_channel(CHANNEL) is None
    lobby = await service.lobby.create_lobby(
        guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=3, ai_levels=["hard", "easy"]
    )
    assert [(p.user_id, p.ai_level) for p in lobby.players] == [
        (HOST, None),
        (None, "hard"),
        (None, "easy"),
    ]
    stored = await service.loader.store.seats(lobby.id)
    assert [(s.user_id, s.ai_level) for s in stored] == [
        (HOST, None),
        (None, "hard"),
        (None, "easy"),
    ]


async def test_two_joins_at_once_for_the_last_seat_seat_one_and_find_the_lobby_full_for_the_other(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carol and Dave press Join at the same moment on a lobby with one seat left: Carol,
    first, takes it, Dave is told the lobby is full, and the lobby holds its three seats."""
    service = service_on(database)
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=3)
    await service.lobby.join(lobby.id, BOB)
    race = racing(service, monkeypatch, "add_seat")
    results = await asyncio.gather(
        race.run(service.lobby.join(lobby.id, CAROL)),
        race.run(service.lobby.join(lobby.id, DAVE)),
        return_exceptions=True,
    )
    assert [type(result) for result in results] == [GameView, LobbyFullError], results
    view = await service.play.look(lobby.id)
    assert [p.user_id for p in view.players] == [HOST, BOB, CAROL]


@pytest.mark.parametrize("join_first", [True, False], ids=["join first", "start first"])
async def test_a_join_at_the_moment_of_the_start_is_seated_in_the_game_or_refused(
    database: Database, monkeypatch: pytest.MonkeyPatch, join_first: bool
) -> None:
    """The host presses Start as Carol presses Join. A join that comes first seats her in the
    game that starts; one that comes second is told the lobby is closed: never told she
    joined, and left without a seat."""
    service = service_on(database)
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=3)
    await service.lobby.join(lobby.id, BOB)
    race = racing(service, monkeypatch, "add_seat", "start")
    store = service.loader.store
    joined, started = await change_and_start(
        race, service.lobby.join(lobby.id, CAROL), service, lobby.id, change_first=join_first
    )
    assert isinstance(started, GameView), started
    assert isinstance(joined, GameView if join_first else LobbyClosedError), joined
    view = await service.play.look(lobby.id)
    assert view.status is GameStatus.RUNNING
    players = [HOST, BOB, CAROL] if join_first else [HOST, BOB]
    assert sorted(p.user_id for p in view.players if p.user_id is not None) == players
    assert [seat.seat for seat in await store.seats(lobby.id)] == list(range(len(players)))


@pytest.mark.parametrize("leave_first", [True, False], ids=["leave first", "start first"])
async def test_a_leave_at_the_moment_of_the_start_leaves_the_lobby_or_is_refused(
    database: Database, monkeypatch: pytest.MonkeyPatch, leave_first: bool
) -> None:
    """The host presses Start as Carol presses Leave. A leave that comes first takes her seat
    out of the game that starts; one that comes second is told the game is closed, and she
    plays. Either way the game that starts holds exactly the seats it was dealt for."""
    service = service_on(database)
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=3)
    await service.lobby.join(lobby.id, BOB)
    await service.lobby.join(lobby.id, CAROL)
    race = racing(service, monkeypatch, "remove_seat", "start")
    left, started = await change_and_start(
        race, service.lobby.leave(lobby.id, CAROL), service, lobby.id, change_first=leave_first
    )
    assert isinstance(started, GameView), started
    assert isinstance(left, GameView if leave_first else LobbyClosedError), left
    service.loader.forget(lobby.id)
    view = await service.play.look(lobby.id)  # a start dealt for other seats is damaged
    assert view.status is GameStatus.RUNNING
    players = [HOST, BOB] if leave_first else [HOST, BOB, CAROL]
    assert sorted(p.user_id for p in view.players if p.user_id is not None) == sorted(players)


async def test_an_ai_and_a_join_at_once_for_the_last_seat_seat_one_and_refuse_the_other(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carol presses Join as the host adds an AI, with one seat left: Carol, first, takes
    it, the host is told the lobby is full, and the lobby holds its three seats."""
    service = service_on(database)
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=3)
    await service.lobby.join(lobby.id, BOB)
    race = racing(service, monkeypatch, "add_seat", "add_ai_seat")
    results = await asyncio.gather(
        race.run(service.lobby.join(lobby.id, CAROL)),
        race.run(service.lobby.add_ai(lobby.id, HOST, "easy")),
        return_exceptions=True,
    )
    assert [type(result) for result in results] == [GameView, LobbyFullError], results
    view = await service.play.look(lobby.id)
    assert [p.user_id for p in view.players] == [HOST, BOB, CAROL]


async def test_the_start_shuffles_the_seats_from_the_seed(database: Database) -> None:
    games = 6
    service = service_on(database, *(f"{n:02x}" * 16 for n in range(games)))
    users = (HOST, BOB, CAROL, DAVE)
    orders = set()
    for n in range(games):
        lobby = await service.lobby.create_lobby(
            guild_id=9, channel_id=CHANNEL + n, host_id=HOST, seats=len(users)
        )
        for user in users[1:]:
            await service.lobby.join(lobby.id, user)
        view = await service.lobby.start(lobby.id, HOST)
        orders.add(tuple(p.user_id for p in sorted(view.players, key=lambda p: p.seat or 0)))
    assert orders != {users}, "every game seated its players in the order they joined"
    assert len(orders) > 1, "every seed seated the players alike"


async def test_a_turn_limit_of_five_minutes_to_seven_days_both_included_is_accepted(
    database: Database,
) -> None:
    # "7 days" is one of the choices `/marrakech new` offers: an end left out refuses it.
    service = service_on(database)
    for n, seconds in enumerate((FIVE_MINUTES, SEVEN_DAYS)):
        lobby = await service.lobby.create_lobby(
            guild_id=9, channel_id=CHANNEL + n, host_id=HOST, turn_limit_seconds=seconds
        )
        assert lobby.game.turn_limit_seconds == seconds
    for seconds in (FIVE_MINUTES - 1, SEVEN_DAYS + 1):
        with pytest.raises(BadOptionError) as refused:
            await service.lobby.create_lobby(
                guild_id=9, channel_id=CHANNEL + 2, host_id=HOST, turn_limit_seconds=seconds
            )
        assert refused.value.option == "turn_limit"
    guilds = GuildService(GuildStore(database))
    assert (await guilds.set_turn_limit(9, SEVEN_DAYS)).turn_limit_seconds == SEVEN_DAYS
    assert (await guilds.set_turn_limit(9, FIVE_MINUTES)).turn_limit_seconds == FIVE_MINUTES


def test_a_seat_name_is_one_line_of_at_most_the_limit() -> None:
    assert seat_name("  Ann \n\t Lee  ") == "Ann Lee"
    assert seat_name(" \n ") is None
    assert seat_name(None) is None
    long = seat_name("x" * (NAME_LIMIT - 1) + " yz")
    assert long == "x" * (NAME_LIMIT - 1), "cut at the limit, no trailing space"


async def test_ais_are_neither_seated_nor_removed_once_the_game_has_started(
    database: Database,
) -> None:
    """A running game keeps its seats: the host's remove-ai or add-ai after the start is told
    the game takes no more players, and the game still seats the three players it started
    with. A 4-seat lobby started with 3 keeps the lobby-full check from hiding the guard."""
    service = service_on(database)
    lobby = await service.lobby.create_lobby(guild_id=9, channel_id=CHANNEL, host_id=HOST, seats=4)
    await service.lobby.add_ai(lobby.id, HOST, "easy")
    await service.lobby.add_ai(lobby.id, HOST, "hard")
    await service.lobby.start(lobby.id, HOST)
    with pytest.raises(LobbyClosedError):
        await service.lobby.remove_ai(lobby.id, HOST)
    with pytest.raises(LobbyClosedError):
        await service.lobby.add_ai(lobby.id, HOST, "medium")
    view = await service.play.look(lobby.id)
    assert view.status is GameStatus.RUNNING
    assert sorted(p.ai_level or "person" for p in view.players) == ["easy", "hard", "person"]
