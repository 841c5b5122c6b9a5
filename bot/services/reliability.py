"""A person's reliability on a server (docs/watching.md#reliability-at-a-glance), read from the
action log of their newest games there: how long they usually take to play a turn, how many of
their turns ran out of time, and how many games they left unfinished. Only what the server's
own games show counts.

How a log becomes turns. Die rolls are no one's decision and are left out; every turn is then
two decisions (a way to turn Assam and a rug, or in the variant a rug and a turn of Assam), all
of one seat: a person's own clicks carry their id, the AI's moves for a person out of time
carry why (`ai_for`), an AI seat's moves carry neither. A turn of the person's own took from the
decision before it (the end of the turn before) to its last decision; the game's first turn has
no start and counts for no time. A turn the AI played for someone out of time is counted for
the person when it falls on their place in the order of play: every `players` turns from one of
their own, as long as no one resigns in between (a player who resigned leaves the order, which is
then one shorter; a timeout is placed only from a turn of the person's between the same
resignations). A turn the person began and the AI finished for them out of time is theirs
whatever its place, and places them like a turn of their own. A person who never played a turn
of their own in a game is counted for every timeout of it only when no one else played in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby
from statistics import median

from bot.storage.stats import LogEntry

GAMES = 30
"""How many of a person's newest games of the server their reliability reads."""
ENOUGH_TURNS = 10
"""The fewest turns (played or run out) before the lobby shows how a person usually plays."""
RAN_OUT = ("timeout", "handed-over")
"""Why the AI played a turn for a person that counts as a turn that ran out (later turns of a
seat handed to the AI count as neither played nor run out)."""


@dataclass(frozen=True, slots=True)
class Reliability:
    """A person's turns and games on a server, as their newest games there show them."""

    user_id: int
    played: int
    """Turns they played themselves."""
    ran_out: int
    """Turns that ran out of time and the AI played for them."""
    median_seconds: float | None
    """The median time they took to play a turn of their own (None: none timed)."""
    resigned: int
    handed_to_ai: int
    """Games over with the AI in their seat (they never took it back)."""
    substituted_away: int
    """Games whose seat they handed to a substitute."""

    @property
    def turns(self) -> int:
        return self.played + self.ran_out

    @property
    def ran_out_share(self) -> float:
        """The share (0-1) of their turns that ran out."""
        return self.ran_out / self.turns if self.turns else 0.0

    @property
    def unfinished(self) -> int:
        return self.resigned + self.handed_to_ai + self.substituted_away

    @property
    def enough(self) -> bool:
        """Whether they played enough turns for the lobby to say how they usually play."""
        return self.turns >= ENOUGH_TURNS and self.median_seconds is not None


@dataclass(slots=True)
class _Turn:
    owner: object
    """The person's id, ("ai for", why) for the AI playing for someone, or None: an AI seat."""
    start: int
    """The index of its first decision in the game's entries."""
    end: int
    decisions: int
    person: int | None = None
    """Who began it, for a turn the AI finished for its player out of time."""
    resignations: int = 0
    """The resignations logged before it: turns between the same ones share an order of play."""


def reliability_of(user_ids: Sequence[int], entries: Iterable[LogEntry]) -> list[Reliability]:
    """Each person's reliability (in the order of `user_ids`) from their games' entries, as
    bot.storage.stats.StatsStore.log_of_people reads them."""
    found = {user_id: _Tally(user_id) for user_id in user_ids}
    for (user_id, _game), rows in groupby(entries, key=lambda e: (e.user_id, e.game_id)):
        tally = found.get(user_id)
        if tally is not None:
            tally.add_game(list(rows))
    return [found[user_id].result() for user_id in user_ids]


class _Tally:
    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        self.seconds: list[float] = []
        self.played = 0
        self.ran_out = 0
        self.resigned = 0
        self.handed = 0
        self.substituted = 0

    def add_game(self, rows: list[LogEntry]) -> None:
        first = rows[0]
        self.resigned += first.resigned
        self.handed += first.left_to_ai
        self.substituted += first.substituted_away
        entries = [row for row in rows if row.kind is not None]
        turns = _turns(entries)
        mine = [index for index, turn in enumerate(turns) if turn.owner == self.user_id]
        begun = [index for index, turn in enumerate(turns) if turn.person == self.user_id]
        for index in mine:
            self.played += 1
            turn = turns[index]
            before = entries[turn.start - 1].created_at if turn.start else None
            after = entries[turn.end].created_at
            if before is not None and after is not None:
                self.seconds.append(max(0.0, (after - before).total_seconds()))
        self.ran_out += _ran_out(turns, mine + begun, entries, self.user_id, first.players)

    def result(self) -> Reliability:
        middle = median(self.seconds) if self.seconds else None
        return Reliability(
            self.user_id,
            self.played,
            self.ran_out,
            middle,
            self.resigned,
            self.handed,
            self.substituted,
        )


def _owner(entry: LogEntry) -> object:
    if entry.ai_for is not None:
        return ("ai for", entry.ai_for)
    return entry.actor_id


def _turns(entries: Sequence[LogEntry]) -> list[_Turn]:
    """The game's turns: two decisions of one owner each; a resignation of the person whose
    turn is under way ends it; a person's first decision and the AI's second, made for them
    out of time, are one turn that ran out for them."""
    turns: list[_Turn] = []
    current: _Turn | None = None
    resignations = 0
    for index, entry in enumerate(entries):
        if entry.kind == "resign":
            resignations += 1
            if current is not None and current.owner == entry.actor_id:
                current = None
            continue
        owner = _owner(entry)
        if (
            current is not None
            and current.decisions == 1
            and isinstance(current.owner, int)
            and isinstance(owner, tuple)
            and owner[1] in RAN_OUT
        ):  # begun by its player, finished by the AI when their time ran out
            current.person, current.owner = current.owner, owner
        elif current is None or current.decisions == 2 or _kind(current.owner) != _kind(owner):
            current = _Turn(owner, index, index, 0, resignations=resignations)
            turns.append(current)
        current.end = index
        current.decisions += 1
    return turns


def _kind(owner: object) -> object:
    """What a turn's owner must stay for its decisions to be one turn: the same person, the
    AI playing for someone (the AI plays a whole turn at once), or an AI seat."""
    return "ai for" if isinstance(owner, tuple) else owner


def _ran_out(
    turns: Sequence[_Turn],
    mine: Sequence[int],
    entries: Sequence[LogEntry],
    user_id: int,
    players: int,
) -> int:
    """The turns of the person's seat that ran out of time, found from their place in the
    order of play (see the module's docstring)."""
    out = [index for index, turn in enumerate(turns) if _timed_out(turn)]
    if not out:
        return 0
    if not mine:
        others = any(e.actor_id not in (None, user_id) for e in entries if e.kind == "action")
        return 0 if others else len(out)
    theirs = {index for index in mine if turns[index].person == user_id}
    for anchor in mine:
        order = turns[anchor].resignations
        step = max(1, players - order)
        for direction in (1, -1):
            position = anchor + direction * step
            while (
                0 <= position < len(turns)
                and isinstance(turns[position].owner, tuple)
                and turns[position].person is None
                and turns[position].resignations == order
            ):
                theirs.add(position)
                position += direction * step
    return sum(1 for index in out if index in theirs)


def _timed_out(turn: _Turn) -> bool:
    return isinstance(turn.owner, tuple) and turn.owner[1] in RAN_OUT
