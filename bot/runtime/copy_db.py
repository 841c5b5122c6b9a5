"""`marrakech-bot copy-db FROM TO`: moves a whole install to another database (SQLite to
PostgreSQL for a server that grew, or back, or between two of a kind), then proves the copy.

The table work is bot.storage.copy's (every table and column read from the catalogue, one
transaction on the target, ids kept, sequences reset). This module first looks at both
databases without writing: the source must be at this bot's schema (one an older bot made is
refused, not migrated: the source is never changed), and the target must hold no row and no
table the bot does not make (another application's database is refused before anything is
written into it). Only then does it open the source (read-only) and the target (bringing it
to this bot's schema), copy, and check the target: every table holds as many rows as the
source's, with the same values, and every game loads through the services' loader, replaying
its action log and matching its stored position. The result is one report line, or the list
of what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.runtime.settings import DatabaseTarget
from bot.services.clock import system_clock
from bot.services.errors import GameDamagedError
from bot.services.loader import GameLoader
from bot.services.views import Damage
from bot.storage import Database, GameStatus, GameStore, StorageError, open_database
from bot.storage.copy import (
    Contents,
    check_target_empty,
    contents,
    copy_database,
    game_ids,
    table_summaries,
)
from bot.storage.database import load_migrations, newer_schema_error
from bot.storage.open import parse_target


@dataclass(frozen=True, slots=True)
class CopyReport:
    """What was copied (rows per table), how many games and how many of them run, and what
    the checks found wrong (empty: the copy is faithful and every game replays)."""

    rows: dict[str, int]
    games: int
    running: int
    problems: tuple[str, ...] = field(default=())

    def summary(self) -> str:
        """The line an admin reads first (the problems, if any, follow one a line)."""
        others = ", ".join(
            f"{table} {count}"
            for table, count in sorted(self.rows.items())
            if table not in ("games", "actions")
        )
        copied = (
            f"copied {self.games} games ({self.running} running), "
            f"{self.rows.get('actions', 0)} actions"
        )
        if others:
            copied += f"; rows of the other tables: {others}"
        if not self.problems:
            return f"{copied}; every game replays"
        return f"{copied}; {len(self.problems)} problems:"


async def copy_install(source: DatabaseTarget, target: DatabaseTarget) -> CopyReport:
    """Copy `source` into the empty `target` and check the copy (see the module's text).

    Raises StorageError (TargetNotEmptyError among them) when nothing was copied; nothing was
    written then, in either database."""
    found = await _look("FROM", source)
    latest = len(load_migrations(parse_target(source.target)[0]))
    if found.version > latest:
        raise StorageError(f"FROM {source!r}: {newer_schema_error(found.version, latest)}")
    if found.version < latest:
        raise StorageError(
            f"FROM {source!r}: the database schema is version {found.version}, older than this "
            f"bot ({latest}); copy-db leaves FROM as it is: bring it up to date first with "
            "`marrakech-bot migrate` (MARRAKECH_DB set to FROM)"
        )
    check_target_empty(await _look("TO", target), found.rows)
    origin = await _open("FROM", source, read_only=True)
    try:
        destination = await _open("TO", target)
        try:
            rows = await copy_database(origin, destination)
            problems = await _compare(origin, destination)
            games, running, damaged = await _replay_all(destination)
        finally:
            await destination.close()
    finally:
        await origin.close()
    return CopyReport(rows, games, running, (*problems, *damaged))


async def _look(side: str, target: DatabaseTarget) -> Contents:
    """What the database holds, looked at without writing; a StorageError naming the side if
    that fails (as `_open`)."""
    try:
        return await contents(target.target)
    except Exception as error:
        raise _failure(side, target, error) from error


async def _open(side: str, target: DatabaseTarget, *, read_only: bool = False) -> Database:
    """The database opened and migrated (or, `read_only`, opened to be read and never written);
    a StorageError naming the side (and the target, its password hidden) if that fails."""
    try:
        return await open_database(target.target, read_only=read_only)
    except Exception as error:
        raise _failure(side, target, error) from error


def _failure(side: str, target: DatabaseTarget, error: Exception) -> StorageError:
    """A failure to reach a database, the drivers' own errors too, in one line for the admin
    that names the side and the target, its password hidden (decoded or as the URL writes it)."""
    reason = str(error) or type(error).__name__
    for secret in target.secrets:
        reason = reason.replace(secret, "***")
    return StorageError(f"{side} {target!r}: {reason}")


async def _compare(source: Database, target: Database) -> list[str]:
    """Tables whose rows differ between the two databases."""
    before = await table_summaries(source)
    after = await table_summaries(target)
    problems = []
    for table in sorted(before.keys() | after.keys()):
        have, got = before.get(table), after.get(table)
        if have is None or got is None:
            problems.append(f"table {table} is missing on one side")
        elif have.rows != got.rows:
            problems.append(f"{table} has {have.rows} rows in FROM but {got.rows} in TO")
        elif have.digest != got.digest:
            problems.append(f"{table} holds different values in FROM and TO")
    return problems


async def _replay_all(database: Database) -> tuple[int, int, list[str]]:
    """Load every game through the loader (a game with a config replays its log and compares
    its snapshot): how many games, how many running, and what did not replay."""
    loader = GameLoader(GameStore(database), system_clock)
    damage: list[Damage] = []
    loader.on_damage(damage.append)
    problems: list[str] = []
    games = running = 0
    for game_id in await game_ids(database):
        games += 1
        try:
            loaded = await loader.load(game_id)
        except GameDamagedError:
            continue  # reported through `damage`
        finally:
            loader.forget(game_id)  # one game in memory at a time
        if loaded.game.status is GameStatus.RUNNING:
            running += 1
    problems.extend(f"game {found.game_id}: {found.reason}" for found in damage)
    return games, running, problems
