"""Play: a player's moves, resigning, taking a seat back from the AI, ending a game early,
looking at a game and its record, and keeping track of the message that shows it.

Every change goes through the loader (bot.services.loader) under the game's lock, and is
written guarded by the seq the player saw: a click on an older decision changes nothing. The
die is rolled from the game's secret seed and the log position the roll fills
(bot.services.dice), so every replay and every process gets the same roll.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import engine
from bot import crashpoints
from bot.services import dice, pause
from bot.services.actions import ROLL
from bot.services.errors import (
    GameDamagedError,
    GameNotFoundError,
    GameNotRunningError,
    GameNotStartedError,
    HandedToAiError,
    HostOnlyAbortError,
    HostOutError,
    IllegalMoveError,
    LobbyResignError,
    NotAReplayError,
    NotHandedToAiError,
    NotSeatedError,
    NotYourTurnError,
    TournamentTableAbortError,
)
from bot.services.loaded import LoadedGame, apply_action, results_of, with_control
from bot.services.loader import GameLoader, again_if_moved_on
from bot.services.views import GameView
from bot.storage.game_rows import NewAction, SeatControl
from bot.storage.kinds import EndReason, GameStatus
from engine import Phase
from engine.events import Event


class PlayService:
    """A running game's moves and what the edge reads to show a game."""

    def __init__(self, loader: GameLoader) -> None:
        self._loader = loader
        self._store = loader.store

    async def act(self, game_id: int, user_id: int, seq: int, action: str) -> GameView:
        """Apply the move of the user whose turn it is, then any roll it calls for.

        `seq` is the sequence number the user saw (carried by the button): if the game has moved
        on since, nothing is applied. `action` is a notation, or ROLL in the variant; never a
        die face (IllegalMoveError): every roll comes from the game's seed.
        """
        async with self._loader.locked(game_id):
            loaded = await self._running(game_id)
            if seq != loaded.game.seq:
                raise loaded.stale()
            state = loaded.state
            assert state is not None
            seat = loaded.seat_of(user_id)
            if seat != state.to_move:
                raise NotYourTurnError(loaded.user_at(state.to_move))
            player = loaded.player_at(seat)
            if player is not None and player.autoplay:
                raise HandedToAiError()
            entries: list[NewAction] = []
            events: list[Event] = []
            oriented = state.phase is Phase.ORIENT
            if action != ROLL:
                if engine.current_player(state) == engine.CHANCE:
                    # the die is the seed's alone: a face a click names (only a forged id
                    # can) is no move of the player's
                    raise IllegalMoveError("the die is rolled from the game's seed")
                state = apply_action(state, action, events)
                entries.append(NewAction(action, user_id))
            elif engine.current_player(state) != engine.CHANCE:
                raise IllegalMoveError("it is not time to roll")
            if (oriented or action == ROLL) and engine.current_player(state) == engine.CHANCE:
                # The die follows an orientation (standard rules) or, in the variant, the
                # player's own request: a turn that begins with a roll waits for that click.
                face = dice.roll(
                    loaded.game.seed,
                    loaded.game.seq + len(entries) + 1,
                    engine.chance_outcomes(state),
                )
                state = apply_action(state, face, events)
                entries.append(NewAction(face, None))
            controls = []
            if player is not None and seat is not None and player.timeouts and _ends_turn(events):
                # a turn they ended themselves: no longer in a row (one they only began still
                # counts as a timeout if it runs out)
                controls.append(SeatControl(seat, 0, False))
            committed = await self._loader.commit(loaded, state, entries, events, controls)
            return committed.view(events)

    async def check_resign(self, game_id: int, user_id: int) -> None:
        """Raise what `resign` would raise now (the game is not running, the user is not in
        it); change nothing. The edge asks before it offers a confirmation."""
        async with self._loader.locked(game_id):
            _seat_still_in(await self._resignable(game_id, user_id), user_id)

    async def resign(self, game_id: int, user_id: int) -> GameView:
        """The user leaves the running game, as if eliminated (R9)."""
        async with self._loader.locked(game_id):
            loaded = await self._resignable(game_id, user_id)
            state = loaded.state
            assert state is not None
            seat = _seat_still_in(loaded, user_id)
            try:
                state, events = engine.resign(state, seat)
            except engine.IllegalActionError as error:
                raise IllegalMoveError(str(error)) from None
            entry = NewAction(None, user_id, resigned_seat=seat)
            committed = await self._loader.commit(loaded, state, [entry], events)
            crashpoints.reach("resign.committed")
            if state.outcome is None:
                self._loader.seat_left(game_id)
            return committed.view(events)

    async def check_abort(self, game_id: int, user_id: int, *, moderator: bool = False) -> None:
        """Raise what `abort` would raise now (the game is over, the user is not its host);
        change nothing. The edge asks before it offers a confirmation."""
        async with self._loader.locked(game_id):
            _may_abort(await self._open(game_id), user_id, moderator=moderator)

    async def abort(self, game_id: int, user_id: int, *, moderator: bool = False) -> GameView:
        """End an open game early: the host's own, or any game for a moderator."""
        async with self._loader.locked(game_id):
            loaded = await self._open(game_id)
            _may_abort(loaded, user_id, moderator=moderator)
            reason = EndReason.ABORTED_BY_MODERATOR if moderator else EndReason.ABORTED_BY_HOST
            return (await self._loader.end(loaded, reason, user_id)).view()

    async def rejoin(self, game_id: int, user_id: int) -> GameView:
        """Take back a seat the AI was playing after timeouts; the turn clock starts anew if
        it is that seat's turn, or if the game was paused for want of a person. Another
        process that moved the game on meanwhile (its AI played the seat's turn) leaves the
        seat to take back still: read again, the rejoin is made once more."""
        return await again_if_moved_on(lambda: self._rejoin(game_id, user_id))

    async def _rejoin(self, game_id: int, user_id: int) -> GameView:
        async with self._loader.locked(game_id):
            loaded = await self._running(game_id, asked_by=user_id)
            seat = loaded.seat_of(user_id)
            player = loaded.player_at(seat)
            if seat is None or player is None or not player.autoplay:
                raise NotHandedToAiError()
            back = SeatControl(seat, 0, False)
            clock = loaded.clock
            assert loaded.state is not None
            if loaded.state.to_move == seat or pause.is_paused(loaded.players, loaded.state):
                players = with_control(loaded.players, back)
                clock = self._loader.fresh_clock(loaded.game, players, loaded.state)
            view = (await self._loader.set_clock(loaded, clock, [back])).view()
            crashpoints.reach("rejoin.committed")
            return view

    # --- looking -----------------------------------------------------------------------------

    async def channel_of(self, game_id: int) -> int:
        """The channel the game is played in: from memory when the game is there (a game never
        changes channel), else from its row. GameNotFoundError if there is no such game."""
        in_memory = self._loader.in_memory(game_id)
        if in_memory is not None:
            return in_memory.game.channel_id
        return (await self.look(game_id)).game.channel_id

    async def opened_at(self, game_id: int) -> datetime | None:
        """When the game was opened (its lobby): from memory when the game is there, else from
        its row; None if there is no such game."""
        in_memory = self._loader.in_memory(game_id)
        if in_memory is not None:
            return in_memory.game.created_at
        row = await self._store.get(game_id)
        return None if row is None else row.created_at

    async def look(self, game_id: int) -> GameView:
        async with self._loader.locked(game_id):
            return (await self._loader.load(game_id)).view()

    async def record(self, game_id: int) -> dict[str, Any]:
        """The game record (FORMATS.md) with extras; the seed only once the game is closed."""
        async with self._loader.locked(game_id):
            loaded = await self._loader.load(game_id)
        if loaded.state is None:
            raise GameNotRunningError()
        extras: dict[str, Any] = {
            "game_id": loaded.game.id,
            "seed_sha256": loaded.game.seed_sha256,
            "user_ids": [player.user_id for player in loaded.players],
            "started_at": loaded.game.created_at.isoformat(timespec="milliseconds"),
        }
        if loaded.game.status in (GameStatus.OVER, GameStatus.ABORTED):
            extras["seed"] = loaded.game.seed
            extras["end_reason"] = loaded.game.end_reason
        return engine.record_to_json(engine.record_of(loaded.state, **extras))

    async def actors(self, game_id: int) -> tuple[int | None, ...]:
        """Who made each action of the game's record, in order: the person who clicked, None
        for a die roll or a move the AI made (for an AI seat or for a person).
        GameNotFoundError if the game is gone (deleted: its log went with it), rather than an
        empty log that would not match its record."""
        rows = await self._store.actions(game_id)
        if not rows and await self._store.get(game_id) is None:
            raise GameNotFoundError(game_id)
        return tuple(row.actor_id for row in rows if row.notation is not None)

    async def replay_record(self, game_id: int, guild_id: int) -> dict[str, Any]:
        """The record of a game of this server played to its end (for the replay GIF);
        NotAReplayError otherwise, naming a game of this server still being played."""
        game = await self._store.get(game_id)
        if game is None or game.guild_id != guild_id:
            raise NotAReplayError()
        if game.status is GameStatus.RUNNING:
            raise NotAReplayError(running=game_id)
        if game.status is not GameStatus.OVER:
            raise NotAReplayError()
        return await self.record(game_id)

    # --- the message that shows a game ------------------------------------------------------

    async def set_board_message(
        self,
        game_id: int,
        message_id: int,
        seq: int,
        *,
        end_shown: bool = False,
        lobby_linked: bool | None = None,
        lobby: bool = False,
    ) -> None:
        """Remember the message that now shows the game at `seq` (for stale-click pointers);
        `end_shown`: it is the finished game's result with its rating changes; `lobby_linked`:
        for a message the lobby leads to (the first turn, the result), whether the lobby's edit
        to lead there went through (if not, a start edits it: `lobbies_behind`); `lobby`: it is
        the lobby's own message, recorded only while the game is still a lobby (a click drawn
        on the lobby just before a Start records nothing once the game started)."""
        await self._loader.set_board_message(
            game_id, message_id, seq, end_shown=end_shown, lobby_linked=lobby_linked, lobby=lobby
        )

    def ended_in_memory(self, game_id: int) -> bool:
        """Whether the game no longer runs (aborted, over), as this process remembers it (no
        round trip; False if it is not in memory)."""
        loaded = self._loader.in_memory(game_id)
        return loaded is not None and loaded.game.status in (GameStatus.OVER, GameStatus.ABORTED)

    def shown_from(self, game_id: int, seq: int) -> bool:
        """Whether this process recorded a message of the game showing it at `seq` or later,
        as it remembers the game (no round trip; False if it is not in memory)."""
        loaded = self._loader.in_memory(game_id)
        shown = None if loaded is None else loaded.game.board_message_seq
        return shown is not None and shown >= seq

    async def set_reminder_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the reminder sent for the turn being played (None: its end was shown)."""
        await self._loader.set_reminder_message(game_id, message_id)

    async def set_nudge_message(self, game_id: int, message_id: int | None) -> None:
        """Remember the ping of a nudge for the turn being played (None: its end was shown)."""
        await self._loader.set_nudge_message(game_id, message_id)

    async def end_not_shown(self, game_id: int) -> bool:
        """Whether the game's end is not shown yet: it stopped early (aborted, abandoned), or
        its result was posted without the rating changes it has now."""
        return await self._store.end_not_shown(game_id)

    async def rejoins_not_shown(self, game_id: int) -> list[int]:
        """The users whose return to their seat (taken back from the AI) is not told yet."""
        return await self._store.rejoins_not_shown(game_id)

    async def mark_rejoin_shown(self, game_id: int, user_id: int) -> bool:
        """Record the user's return as told; False if it already was."""
        return await self._store.mark_rejoin_shown(game_id, user_id)

    async def mark_end_shown(self, game_id: int) -> bool:
        """Record that the game's end is shown; False if it already was."""
        return await self._store.mark_end_shown(game_id)

    async def lobbies_behind(self) -> list[tuple[GameView, int]]:
        """The started games whose lobby's edit to lead to their first turn, or their result,
        did not go through, each with the message it is due to lead to; each claimed for this
        process first, as `behind_on_display` claims."""
        found = []
        for game_id, message_id in await self._store.lobbies_behind():
            if not await self._loader.claim(game_id):
                continue  # another process is catching it up
            try:
                found.append((await self.look(game_id), message_id))
            except GameDamagedError:
                continue  # reported; the others are caught up all the same
        return found

    async def lobby_linked(self, game_id: int, message_id: int) -> bool:
        """Record that the game's lobby leads to `message_id`, the message it was due to lead
        to; False if it is due to lead to another by now."""
        return await self._store.lobby_linked(game_id, message_id)

    async def behind_on_display(self) -> list[GameView]:
        """Games whose message does not show their current seq (after a crash): a turn or a
        final result that was committed but never shown, the end of a game stopped early, a
        result posted without the rating changes applied since, or a lobby whose message
        never was.

        Each game is claimed for this process first (bot.services.loader): of several processes
        starting together, the one that claims a game catches it up, and the others leave it
        out. The claim runs out by itself (or the turn clock's next pass takes it over)."""
        views = []
        for game in await self._store.behind_on_display():
            if not await self._loader.claim(game.id):
                continue  # another process is catching it up
            try:
                views.append(await self.look(game.id))
            except GameDamagedError:
                continue  # reported; the others are caught up all the same
        return views

    async def backfill_results(self) -> int:
        """Write the results of finished games that have none (games that ended before this
        version kept results), replayed from their logs; return how many games got them."""
        done = 0
        for game_id in await self._store.finished_without_results():
            async with self._loader.locked(game_id):
                try:
                    loaded = await self._loader.load(game_id)
                except GameDamagedError:
                    continue  # reported; its results cannot be known
                assert loaded.state is not None
                assert loaded.state.is_over
                await self._store.add_results(game_id, results_of(loaded.state, loaded.players))
                self._loader.forget(game_id)  # finished: no need to keep it in memory
                done += 1
        return done

    async def _resignable(self, game_id: int, user_id: int) -> LoadedGame:
        """The running game to resign from; of a lobby, LobbyResignError for one of its seats
        (cancelled or left instead, there is nothing to resign from yet), NotSeatedError for
        anyone else."""
        loaded = await self._loader.load(game_id)
        if loaded.game.status is GameStatus.LOBBY:
            if all(player.user_id != user_id for player in loaded.players):
                raise NotSeatedError()
            raise LobbyResignError(host=user_id == loaded.game.host_id)
        if loaded.game.status is not GameStatus.RUNNING:
            raise GameNotRunningError()
        return loaded

    async def _running(self, game_id: int, *, asked_by: int | None = None) -> LoadedGame:
        """The game, if it runs; GameNotRunningError otherwise. Asked by a person (`asked_by`),
        a lobby is GameNotStartedError, telling them what to do until it starts."""
        loaded = await self._loader.load(game_id)
        if asked_by is not None and loaded.game.status is GameStatus.LOBBY:
            raise GameNotStartedError(host=asked_by == loaded.game.host_id)
        if loaded.game.status is not GameStatus.RUNNING:
            raise GameNotRunningError()
        return loaded

    async def _open(self, game_id: int) -> LoadedGame:
        """The game, damaged or not (a damaged game can still be ended)."""
        try:
            return await self._loader.load(game_id)
        except GameDamagedError:
            return await self._loader.load_unplayable(game_id)


def _seat_still_in(loaded: LoadedGame, user_id: int) -> int:
    """The user's seat in a running game; NotSeatedError if they have none or are out."""
    state = loaded.state
    assert state is not None
    seat = loaded.seat_of(user_id)
    if seat is None or state.is_eliminated(seat):
        raise NotSeatedError()
    return seat


def _may_abort(loaded: LoadedGame, user_id: int, *, moderator: bool) -> None:
    """Whether the user may end the game now: it is still open, and they host it and are
    still in it (or are a moderator). A host out of a running game (resigned, or their seat
    could not pay) would wipe their own loss by ending it: it rates no one. A tournament's
    game is ended by moderators alone: the creator it names as host may sit at its table, and
    ending it would wipe every point of it."""
    if loaded.game.status not in (GameStatus.LOBBY, GameStatus.RUNNING):
        raise GameNotRunningError()
    if moderator:
        return
    if loaded.game.tournament_id is not None:
        raise TournamentTableAbortError()
    if user_id != loaded.game.host_id:
        raise HostOnlyAbortError()
    state = loaded.state
    if loaded.game.status is GameStatus.RUNNING and state is not None:
        seat = next((p.seat for p in loaded.players if p.user_id == user_id), None)
        player = loaded.player_at(seat)
        if seat is None or player is None or player.resigned or state.is_eliminated(seat):
            raise HostOutError()


def _ends_turn(events: list[Event]) -> bool:
    """Whether a move's `events` end the mover's turn: the next turn begins, or the game ends."""
    return any(isinstance(event, engine.TurnStarted | engine.GameEnded) for event in events)
