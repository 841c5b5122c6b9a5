"""The game store, split by what its readers need: games, seats and the action log
(bot/storage/game_log.py), the due work and the claims on it (bot/storage/due_work.py), the
display's bookkeeping (bot/storage/display_marks.py), the hints used in coached games
(bot/storage/hints.py) and the bot's key-value notes (bot/storage/meta.py), over the rows and
SQL they share (bot/storage/game_rows.py).

`GameStore` is all five on one database, for the loader, which reads them all; a reader that
needs one part names that part. Every value that comes from a user reaches SQL only as a bound
parameter. The SQL is the same on every back end (bot.storage.database): numbered parameters,
explicit ids, RETURNING. Each method is one transaction.

Round trips are kept few (bot.storage.database): a write of one statement runs alone
(`single_write`), a write returns the game's row as it leaves it (`RETURNING`, with the NOTIFY
in the same statement) rather than reading it again, and rows go in with `executemany`, one
round trip for all of them.
"""

from __future__ import annotations

from bot.storage.display_marks import DisplayMarks
from bot.storage.due_work import DueWorkStore
from bot.storage.game_log import GameLog
from bot.storage.game_rows import ALL_SHARDS as ALL_SHARDS
from bot.storage.game_rows import SCHEDULE_CHANNEL as SCHEDULE_CHANNEL
from bot.storage.game_rows import ActionRow as ActionRow
from bot.storage.game_rows import ChannelBusyError as ChannelBusyError
from bot.storage.game_rows import GameRow as GameRow
from bot.storage.game_rows import NewAction as NewAction
from bot.storage.game_rows import NewGame as NewGame
from bot.storage.game_rows import NextMoments as NextMoments
from bot.storage.game_rows import ResultRow as ResultRow
from bot.storage.game_rows import SeatControl as SeatControl
from bot.storage.game_rows import SeatRow as SeatRow
from bot.storage.game_rows import ShardSet as ShardSet
from bot.storage.game_rows import StaleSeqError as StaleSeqError
from bot.storage.hints import HintStore
from bot.storage.meta import MetaStore


class GameStore(GameLog, DueWorkStore, DisplayMarks, HintStore, MetaStore):
    """The five parts of the game store on one database (see the module)."""
