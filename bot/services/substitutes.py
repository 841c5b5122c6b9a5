"""Substitutes: a seat of a running game handed to another member (docs/async.md#substitutes).

A moderator hands a seat over at once (`substitute`); the game's host may ask to (`ask`), and
the seat changes hands once every other person still in the game agreed (`answer`): one refusal,
or the request running out (REQUEST_HOURS), closes it. The request and its agreements are
stored, so the buttons that answer it work across restarts and processes.

The new person plays from the next decision, with the seat's colour, rugs and dirhams: nothing
of the game changes but who holds the seat (and, when it is that seat's turn, the turn's clock,
which starts anew for them). Leaving is no way out of a loss: the person who left is rated and
counted as if they had resigned at that moment (bot.services.loaded.results_of), and the
substitute is never rated for the seat; their stats show the game as finished for someone. A
seat the AI had taken over after timeouts is handed over the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot.services import pause
from bot.services.errors import (
    GameError,
    GameNotRunningError,
    GameNotStartedError,
    HostOnlyError,
    TournamentCreatorOnlyError,
)
from bot.services.loaded import LoadedGame
from bot.services.loader import GameLoader, again_if_moved_on
from bot.services.seat_errors import SubstituteError
from bot.services.views import GameView, Player
from bot.storage.game_rows import StaleSeqError
from bot.storage.kinds import GameStatus
from bot.storage.substitutes import OPEN, SeatRequest, SubstituteStore

REQUEST_HOURS = 24
"""How long a host's request waits for the other players' agreement."""


@dataclass(frozen=True, slots=True)
class Handover:
    """A seat that changed hands: the game as it is now, the seat, who left and who came."""

    view: GameView
    seat: int
    out_user_id: int
    in_user_id: int


@dataclass(frozen=True, slots=True)
class HandoverRequest:
    """A host's request to hand `out_user_id`'s seat to `in_user_id`, as the edge shows it:
    whom it waits for (`waiting_for`, those in `agreed` have agreed) and its `status` (open,
    done, refused, expired or failed)."""

    id: int
    game_id: int
    out_user_id: int
    in_user_id: int
    in_name: str | None
    asked_by: int
    waiting_for: tuple[int, ...]
    agreed: frozenset[int]
    status: str
    expires_at: datetime
    message_id: int | None = None
    """The message in the game's channel that asks for the agreements (None: not known)."""

    @property
    def missing(self) -> tuple[int, ...]:
        """Whom the request still waits for, in the order asked."""
        return tuple(user for user in self.waiting_for if user not in self.agreed)


def _request_view(row: SeatRequest) -> HandoverRequest:
    return HandoverRequest(
        row.id,
        row.game_id,
        row.out_user_id,
        row.in_user_id,
        row.in_name,
        row.asked_by,
        row.waiting_for,
        row.agreed,
        row.status,
        row.expires_at,
        row.message_id,
    )


@dataclass(frozen=True, slots=True)
class Answer:
    """What a press on a request did: the request as it is now, and the hand-over it made
    (None: it still waits, it was refused, or another press carried it out)."""

    request: HandoverRequest
    handover: Handover | None = None
    closed_because: str | None = None
    """Why a request closed without an answer, when the game changed under it: "left" (the
    person whose seat it would hand over no longer plays), "host_left" (the host who asked no
    longer plays), "came_in" (the person it would hand the seat to has, or had, a seat of the
    game otherwise: it can no longer be theirs) or "nobody" (nobody else still plays the game
    to agree); None otherwise."""


class SubstituteService:
    """Hands seats over, by a moderator or by the host with the others' agreement."""

    def __init__(self, loader: GameLoader, store: SubstituteStore) -> None:
        self._loader = loader
        self._store = store

    async def substitute(
        self, game_id: int, out_user_id: int, in_user_id: int, in_name: str | None, *, in_bot: bool
    ) -> Handover:
        """Hand `out_user_id`'s seat to `in_user_id` now (a moderator's decision, or a request
        everyone agreed to). Another process that moved the game on meanwhile (a move, a
        resignation) leaves the seat to hand over, or not: read again, the hand-over is made
        once more, or refused as the game now stands."""
        return await again_if_moved_on(
            lambda: self._substitute(game_id, out_user_id, in_user_id, in_name, in_bot=in_bot)
        )

    async def _substitute(
        self, game_id: int, out_user_id: int, in_user_id: int, in_name: str | None, *, in_bot: bool
    ) -> Handover:
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id)
            seat = await self._check(loaded, out_user_id, in_user_id, in_bot=in_bot, host=False)
            return await self._hand_over(loaded, seat, out_user_id, in_user_id, in_name)

    async def ask(
        self,
        game_id: int,
        host_id: int,
        out_user_id: int,
        in_user_id: int,
        in_name: str | None,
        *,
        in_bot: bool,
    ) -> Answer:
        """The host's request to hand a seat over; it waits for every other person still in
        the game (but the host and the person leaving). With nobody to wait for, it is done at
        once if the AI plays the seat after timeouts (its person is gone), and refused if its
        person still plays it (SubstituteError 'nobody_to_agree': a moderator decides), so
        that a host alone can never push a player out of a game, rated as resigned. A host
        out of the game cannot ask (SubstituteError 'host_out'), nor one who never held a seat
        in it ('host_not_seated': a tournament's creator, named its tables' host). Another
        process that moved the game on meanwhile (its AI played that seat's turn) leaves the
        request to make: read again, it is made once more, as the game now stands."""
        return await again_if_moved_on(
            lambda: self._ask(game_id, host_id, out_user_id, in_user_id, in_name, in_bot)
        )

    async def _ask(
        self,
        game_id: int,
        host_id: int,
        out_user_id: int,
        in_user_id: int,
        in_name: str | None,
        in_bot: bool,
    ) -> Answer:
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id)
            if host_id != loaded.game.host_id:
                if loaded.game.tournament_id is not None:
                    raise TournamentCreatorOnlyError()
                raise HostOnlyError()
            if not _holds(loaded, host_id):  # resigned: no one still playing would ask
                if not await self._store.ever_seated(game_id, host_id):
                    raise SubstituteError("host_not_seated")  # a tournament's creator
                raise SubstituteError("host_out")
            seat = await self._check(loaded, out_user_id, in_user_id, in_bot=in_bot, host=True)
            waiting = _asked(loaded, host_id, out_user_id)
            if not waiting and out_user_id in _people_in(loaded):
                raise SubstituteError("nobody_to_agree")
            now = self._loader.now()
            row = await self._store.open_request(
                game_id,
                out_user_id,
                in_user_id,
                in_name,
                host_id,
                waiting,
                now,
                now + timedelta(hours=REQUEST_HOURS),
            )
            request = _request_view(row)
            if waiting:
                return Answer(request)
            await self._store.close_request(request.id, "done")
            try:
                handover = await self._hand_over(loaded, seat, out_user_id, in_user_id, in_name)
            except GameError:  # not carried out: no request stays done without its hand-over
                await self._store.close_request(request.id, "failed", was="done")
                raise
            return Answer(replace(request, status="done"), handover)

    async def request(self, request_id: int) -> HandoverRequest:
        """The request as stored; SubstituteError if there is none."""
        row = await self._store.request(request_id)
        if row is None:
            raise SubstituteError("no_request")
        return _request_view(row)

    async def closed_because(self, request: HandoverRequest) -> str | None:
        """Why a request closed as failed in a game that still runs can no longer be carried
        out (`Answer.closed_because`), as the game stands now; None if its game ended, or if
        nothing in the game closes it now."""
        loaded = await self._loader.load(request.game_id)
        if loaded.state is None or loaded.game.status is not GameStatus.RUNNING:
            return None
        asked = replace(request, waiting_for=_asked(loaded, request.asked_by, request.out_user_id))
        return await self._closed_because(loaded, asked)

    async def replace_message(
        self,
        request_id: int,
        message_id: int,
        waiting_for: tuple[int, ...],
        replacing: int | None,
    ) -> bool:
        """Remember the request's message in the game's channel (to edit once it can no longer
        be answered) and whom it calls, only while its message is still `replacing` (None: none
        is known yet); False, nothing changed, if another message was remembered for it
        meanwhile (the request was posted again as its game's people changed)."""
        return await self._store.replace_request_message(
            request_id, message_id, waiting_for, replacing
        )

    async def close_for_ended_games(self, game_id: int | None = None) -> list[HandoverRequest]:
        """Close the requests still open whose game no longer runs (of `game_id` only, if
        given): they can no longer be carried out. The ones this call closed (another process
        may close some first), to show closed."""
        closed = await self._store.close_requests_of_ended_games(game_id)
        return [_request_view(row) for row in closed]

    async def answer(self, request_id: int, user_id: int, *, agree: bool) -> Answer:
        """A player's Agree or Refuse on a request. Those asked are the people playing the
        game now (a person who left it since the request is no longer asked; one who came in
        is), the person leaving may refuse (they are still here) and the host may withdraw it
        with Refuse (closed as refused). SubstituteError: no
        such request, it is closed (or ran out now, or was refused or failed while this press
        was applied), or it does not wait for this person. An agreement that finds the request
        carried out by another press meanwhile is answered done, without a hand-over."""
        request = await self.request(request_id)
        if request.status != OPEN:
            raise SubstituteError(f"request_{request.status}")
        if self._loader.now() >= request.expires_at:
            await self._store.close_request(request_id, "expired")
            raise SubstituteError("request_expired")
        loaded = await self._loader.load(request.game_id)
        if loaded.state is None or loaded.game.status is not GameStatus.RUNNING:
            # Its game's end closes it; a crash may have cut that off: closed here.
            await self._store.close_request(request_id, "failed")
            raise GameNotRunningError()
        request = replace(
            request, waiting_for=_asked(loaded, request.asked_by, request.out_user_id)
        )
        because = await self._closed_because(loaded, request)
        if because is not None:  # the seats changed, and what closes it then was cut off
            if await self._store.close_request(request_id, "failed"):
                return Answer(replace(request, status="failed"), None, because)
            raise SubstituteError(f"request_{(await self.request(request_id)).status}")
        # The person leaving may refuse (they are still here), and the host withdraw.
        refuses_own = user_id in (request.out_user_id, request.asked_by) and not agree
        if user_id not in request.waiting_for and not refuses_own:
            raise SubstituteError("not_asked")
        if not agree:
            if await self._store.close_request(request_id, "refused"):
                return Answer(replace(request, status="refused"))
            raise SubstituteError("request_closed")
        await self._store.agree(request_id, user_id)
        stored = await self.request(request_id)
        request = replace(request, agreed=stored.agreed)
        if stored.status == OPEN and request.missing:
            return Answer(request)  # still waiting
        if stored.status == OPEN and await self._store.close_request(request_id, "done"):
            return await self._carry_out(request)
        # Another press closed it meanwhile: a Refuse, or the agreement that completed it.
        closed = (await self.request(request_id)).status
        if closed != "done":
            raise SubstituteError(f"request_{closed}")
        return Answer(replace(request, status="done"))  # carried out by that press

    async def _carry_out(self, request: HandoverRequest) -> Answer:
        """Hand the seat over for a request just closed as done; GameError (the request then
        closed as failed) if the game no longer allows it."""
        try:
            handover = await self.substitute(
                request.game_id,
                request.out_user_id,
                request.in_user_id,
                request.in_name,
                in_bot=False,
            )
        except GameError:
            await self._store.close_request(request.id, "failed", was="done")
            raise
        return Answer(replace(request, status="done"), handover)

    async def after_seats_changed(self, game_id: int) -> list[Answer]:
        """The game's open requests once its people changed (a seat handed over, a person
        resigned), each as it stands now: one whose person leaving, or whose host, no longer
        holds a seat, whose newcomer came into the game otherwise, or that nobody is left to
        agree to while that person still plays, is closed as failed (`Answer.closed_because`
        says which); one that every person asked now agreed to (or, nobody being left to ask,
        whose seat the AI plays) is carried out; one that now waits for other people than its
        message calls is to be posted again, calling them. One that waits for the same people
        as before is left as it is (not returned)."""
        rows = await self._store.open_requests_of(game_id)
        if not rows:
            return []
        loaded = await self._loader.load(game_id)
        if loaded.state is None or loaded.game.status is not GameStatus.RUNNING:
            return []  # closed as its game ended (close_for_ended_games)
        people = _people_in(loaded)
        answers = []
        for row in rows:
            request = _request_view(row)
            asked = _asked(loaded, request.asked_by, request.out_user_id)
            unchanged = asked == request.waiting_for
            request = replace(request, waiting_for=asked)
            because = await self._closed_because(loaded, request, people)
            if because is not None:
                if await self._store.close_request(request.id, "failed"):
                    answers.append(Answer(replace(request, status="failed"), None, because))
            elif request.missing:
                if not unchanged:
                    answers.append(Answer(request))
            elif await self._store.close_request(request.id, "done"):
                try:
                    answers.append(await self._carry_out(request))
                except GameError:
                    answers.append(Answer(replace(request, status="failed")))
        return answers

    async def _closed_because(
        self, loaded: LoadedGame, request: HandoverRequest, people: list[int] | None = None
    ) -> str | None:
        """Why the request (waiting for those it asks now) can no longer be carried out in
        the running game (`Answer.closed_because`), or None if it still can. `people`: those
        playing the game, when known."""
        if not _holds(loaded, request.out_user_id):
            return "left"
        if not _holds(loaded, request.asked_by):
            return "host_left"
        if await self._store.ever_seated(loaded.game.id, request.in_user_id):
            return "came_in"
        playing = _people_in(loaded) if people is None else people
        if not request.waiting_for and request.out_user_id in playing:
            return "nobody"
        return None

    async def _check(
        self, loaded: LoadedGame, out_user_id: int, in_user_id: int, *, in_bot: bool, host: bool
    ) -> int:
        """The seat `out_user_id` may hand to `in_user_id` now; SubstituteError (or
        GameNotRunningError; GameNotStartedError in its lobby, `host` saying whether the one
        who asked hosts it) why not."""
        if loaded.game.status is GameStatus.LOBBY:
            raise GameNotStartedError(host=host)
        if loaded.game.status is not GameStatus.RUNNING or loaded.state is None:
            raise GameNotRunningError()
        if in_bot:
            raise SubstituteError("bot", in_user_id)
        if out_user_id == in_user_id or await self._store.ever_seated(loaded.game.id, in_user_id):
            raise SubstituteError("already_in", in_user_id)
        for player in loaded.players:
            if (
                player.user_id == out_user_id
                and player.seat is not None
                and not player.resigned
                and not loaded.state.is_eliminated(player.seat)
            ):
                return player.seat
        raise SubstituteError("not_in", out_user_id)

    async def _hand_over(
        self,
        loaded: LoadedGame,
        seat: int,
        out_user_id: int,
        in_user_id: int,
        in_name: str | None,
    ) -> Handover:
        state = loaded.state
        assert state is not None
        players = tuple(
            _came(player, out_user_id, in_user_id, in_name, len(state.eliminated))
            if player.seat == seat
            else player
            for player in loaded.players
        )
        clock = None
        if state.to_move == seat or pause.is_paused(players, state) != pause.is_paused(
            loaded.players, state
        ):
            clock = self._loader.fresh_clock(loaded.game, players, state)
        try:
            game = await self._store.hand_over(
                loaded.game.id,
                loaded.game.seq,
                seat,
                out_user_id,
                in_user_id,
                in_name,
                len(state.eliminated),
                clock,
                self._loader.now(),
            )
        except StaleSeqError:
            self._loader.forget(loaded.game.id)
            raise loaded.stale() from None
        updated = self._loader.keep(replace(loaded, game=game, players=players))
        self._loader.schedule_changed(game)
        return Handover(updated.view(), seat, out_user_id, in_user_id)


def _came(player: Player, out_user_id: int, in_user_id: int, name: str | None, out: int) -> Player:
    """The seat's player once `in_user_id` took it from `out_user_id` with `out` seats out."""
    first = player.stands_in_for is None
    return replace(
        player,
        user_id=in_user_id,
        name=name,
        timeouts=0,
        autoplay=False,
        hints_used=0,
        stands_in_for=out_user_id if first else player.stands_in_for,
        left_with_out=out if first else player.left_with_out,
    )


def _asked(loaded: LoadedGame, host_id: int, out_user_id: int) -> tuple[int, ...]:
    """Whom a request to hand `out_user_id`'s seat over waits for: every other person playing
    the game, but its host."""
    return tuple(user for user in _people_in(loaded) if user not in (host_id, out_user_id))


def _holds(loaded: LoadedGame, user_id: int) -> bool:
    """Whether `user_id` still holds a seat of the game (not resigned, not handed away)."""
    return any(player.user_id == user_id and not player.resigned for player in loaded.players)


def _people_in(loaded: LoadedGame) -> list[int]:
    """The people holding a seat still in the game and playing it (not one the AI took over
    after timeouts: they are away), in seat order."""
    state = loaded.state
    assert state is not None
    return [
        player.user_id
        for player in sorted(loaded.players, key=lambda p: p.seat if p.seat is not None else 9)
        if player.user_id is not None
        and player.seat is not None
        and not player.resigned
        and not player.autoplay
        and not state.is_eliminated(player.seat)
    ]
