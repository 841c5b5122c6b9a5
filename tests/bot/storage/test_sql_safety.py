"""Nothing a user sends reaches SQL except as a bound parameter.

A scan of every module in bot/ finds each call that runs SQL (`execute`, `executemany`,
`executescript`, `execute_fetchall`, `fetch`, `fetchrow`, `fetchval`, and the stores' helpers
that run the SQL they are given, `maybe_game` and `_changed`) and checks that its SQL is built
only from string literals and module constants: an f-string, `%`, `.format()` or `+` that
brings in anything else fails, unless it is one of the few reviewed exceptions listed below with
the reason it is safe. The scanner is itself tested on bad samples. Then hostile strings go
through the service and the stores into a real database of each back end: those refused change
no row of a game with a log, and those kept (seat and entrant names, a tournament's name, the
bot's notes) read back unchanged.
"""

from __future__ import annotations

import ast
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.services import GameService
from bot.services.errors import BadOptionError, IllegalMoveError
from bot.storage import GameStore, open_database
from bot.storage.database import Backend, Database
from bot.storage.tournaments import TournamentStore
from tests.bot.storage.test_tournaments import new_tournament

BOT = Path(__file__).resolve().parents[3] / "bot"
SQL_CALLS = {
    "execute",
    "executemany",
    "executescript",
    "execute_fetchall",
    "fetch",
    "fetchrow",
    "fetchval",
}
SQL_HELPERS = {"maybe_game": (1, "where"), "_changed": (1, "update")}
"""The bot's own functions that run the SQL they are given, with where that SQL is among their
arguments (after `self`) and its parameter's name: a call of one is scanned as a database call
is, and the helper's own use of that parameter is left to the scan of its callers."""
_PASSED_ON = "the SQL a store gave its Connection, itself scanned where the store calls it"
_CATALOGUE = (
    "table and column names read from the database's own catalogue, each quoted by _quoted; "
    "values are bound parameters"
)
REVIEWED = {
    # module, function, interpolated name: why it is safe
    ("storage/sqlite.py", "migrate", "statement"): "text of a migration file in bot/",
    ("storage/sqlite.py", "migrate", "migration.version"): "an int parsed from its file name",
    ("storage/postgres.py", "migrate", "migration.sql"): "text of a migration file in bot/",
    ("storage/sqlite.py", "execute", "numbered(sql)"): _PASSED_ON,
    ("storage/sqlite.py", "executemany", "numbered(sql)"): _PASSED_ON,
    ("storage/sqlite.py", "fetch", "numbered(sql)"): _PASSED_ON,
    ("storage/sqlite.py", "fetchrow", "sql"): _PASSED_ON,
    ("storage/sqlite.py", "fetchval", "sql"): _PASSED_ON,
    ("storage/database.py", "execute", "sql"): _PASSED_ON,
    ("storage/database.py", "fetch", "sql"): _PASSED_ON,
    ("storage/database.py", "fetchrow", "sql"): _PASSED_ON,
    ("storage/database.py", "fetchval", "sql"): _PASSED_ON,
    ("storage/postgres.py", "execute", "sql"): _PASSED_ON,
    ("storage/postgres.py", "executemany", "sql"): _PASSED_ON,
    ("storage/postgres.py", "fetch", "sql"): _PASSED_ON,
    ("storage/postgres.py", "fetchrow", "sql"): _PASSED_ON,
    ("storage/postgres.py", "fetchval", "sql"): _PASSED_ON,
    ("storage/due_work.py", "claim_due", "lock"): "one of two literal row-locking clauses",
    (
        "storage/game_rows.py",
        "_changed",
        "notify",
    ): "one of two literal clauses (a NOTIFY, or none)",
    ("storage/copy.py", "_copy_table", "sql"): _CATALOGUE,
    ("storage/copy.py", "_count", "sql"): _CATALOGUE,
    ("storage/copy.py", "_pages", "sql"): _CATALOGUE,
    ("storage/copy.py", "_restart_sequences", "sql"): _CATALOGUE,
}
HOSTILE = (
    "'; DROP TABLE games; --",
    '" OR 1=1 --',
    "Robert'); DELETE FROM actions;--",
    "\x00",
    "%s{0}",
)
STORED = tuple(text for text in HOSTILE if "\x00" not in text)
"""The hostile strings a text column holds on both back ends (PostgreSQL's text holds no NUL)."""
COUNTED = ("games", "seats", "actions", "bot_meta", "tournaments", "tournament_players")
NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)


def unsafe_sql(tree: ast.AST, module: str) -> Iterator[str]:
    """Describe every SQL call whose text is built from something other than constants."""
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        literal_locals = locals_built_from_literals(function)
        if function.name in SQL_HELPERS:
            position, parameter = SQL_HELPERS[function.name]
            taken = [arg.arg for arg in function.args.args if arg.arg != "self"]
            if taken[position : position + 1] != [parameter]:
                yield f"{module}:{function.lineno} {function.name}() takes its SQL elsewhere"
            literal_locals.add(parameter)  # scanned where the helper is called
        for node in ast.walk(function):
            if not isinstance(node, ast.Call) or (sql := sql_argument(node)) is None:
                continue
            for name in dynamic_parts(sql):
                if name not in literal_locals and (module, function.name, name) not in REVIEWED:
                    yield f"{module}:{node.lineno} {function.name}() builds SQL from {name}"


def sql_argument(call: ast.Call) -> ast.expr | None:
    """The SQL a call runs: the first argument of a database call, the SQL argument of a helper
    in SQL_HELPERS (a stand-in name, never safe, where it is not to be seen); None for any other
    call."""
    if isinstance(call.func, ast.Attribute) and call.func.attr in SQL_CALLS:
        return call.args[0] if call.args else None
    name = call.func.attr if isinstance(call.func, ast.Attribute) else None
    name = call.func.id if isinstance(call.func, ast.Name) else name
    if name not in SQL_HELPERS:
        return None
    position, parameter = SQL_HELPERS[name]
    by_name = [keyword.value for keyword in call.keywords if keyword.arg == parameter]
    if by_name:
        return by_name[0]
    return call.args[position] if len(call.args) > position else ast.Name("its unseen SQL")


def locals_built_from_literals(function: ast.AST) -> set[str]:
    """Local names only ever assigned (or extended with +=) SQL built from literals."""
    assigned: dict[str, bool] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            literal = not list(dynamic_parts(node.value))
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned[target.id] = assigned.get(target.id, True) and literal
    return {name for name, literal in assigned.items() if literal}


def dynamic_parts(sql: ast.expr) -> Iterator[str]:
    """What goes into the SQL text that is neither a literal nor an UPPER_CASE constant."""
    if isinstance(sql, ast.Constant):
        return
    if isinstance(sql, ast.JoinedStr):
        for value in sql.values:
            if isinstance(value, ast.FormattedValue):
                yield from names(value.value)
        return
    if isinstance(sql, ast.BinOp):  # "..." + x, "..." % x
        yield from dynamic_parts(sql.left)
        yield from names(sql.right) if isinstance(sql.op, ast.Mod) else dynamic_parts(sql.right)
        return
    yield from names(sql)


def names(expression: ast.expr) -> Iterator[str]:
    if isinstance(expression, ast.Constant):
        return
    text = ast.unparse(expression)
    if text.lstrip("_").isupper():
        return  # a module constant such as _GAME_COLUMNS or BUSY_TIMEOUT_MS
    yield text


def test_the_bot_builds_sql_only_from_literals_and_constants() -> None:
    found: list[str] = []
    calls = 0
    for path in sorted(BOT.rglob("*.py")):
        module = path.relative_to(BOT).as_posix()
        source = path.read_text("utf-8")
        calls += sum(source.count(f".{name}(") for name in SQL_CALLS)
        found.extend(unsafe_sql(ast.parse(source), module))
    assert calls > 30, "the scan sees the bot's SQL"
    assert found == []


@pytest.mark.parametrize(
    "snippet",
    [
        'async def f(c, u):\n    await c.execute(f"SELECT * FROM games WHERE id = {u}")',
        'async def f(c, u):\n    await c.execute("SELECT * FROM games WHERE id = " + u)',
        'async def f(c, u):\n    await c.execute("SELECT * FROM games WHERE id = %s" % u)',
        'async def f(c, u):\n    await c.execute("SELECT * FROM g WHERE id = {}".format(u))',
        "async def f(c, q):\n    await c.executemany(q, [])",
        'async def f(c, u):\n    q = "SELECT 1"\n    q += u\n    await c.execute(q)',
        'async def f(c, u):\n    await maybe_game(c, f"WHERE id = {u}")',
        'async def f(c, u):\n    await maybe_game(c, where="WHERE id = " + u)',
        'async def f(self, c, u):\n    await self._changed(c, f"UPDATE games SET seq = {u}", 1)',
        'async def maybe_game(c, u, where):\n    await c.fetchrow(f"SELECT 1 {where}")',
        "async def f(c, clause):\n    await maybe_game(c, *clause)",
    ],
)
def test_the_scan_catches_sql_built_from_values(snippet: str) -> None:
    assert list(unsafe_sql(ast.parse(snippet), "sample.py"))


def test_the_scan_accepts_bound_parameters() -> None:
    snippet = (
        "async def f(c, u):\n"
        '    await c.execute(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (u,))\n'
        '    await maybe_game(c, "WHERE id = $1", u)\n'
        '    await self._changed(c, "UPDATE games SET seq = 1 WHERE id = $1", u)\n'
    )
    assert list(unsafe_sql(ast.parse(snippet), "sample.py")) == []


async def row_counts(database: Database) -> dict[str, int]:
    counts: dict[str, int] = {}
    async with database.reading() as conn:
        for table in COUNTED:
            counts[table] = await conn.fetchval(f"SELECT count(*) FROM {table}")
    return counts


async def test_hostile_strings_through_the_service_leave_the_database_intact(
    database_target: str, backend: Backend
) -> None:
    database = await open_database(database_target)
    try:
        store = GameStore(database)
        service = GameService(store)
        for index, hostile in enumerate(HOSTILE):
            with pytest.raises(BadOptionError):
                await service.lobby.create_lobby(
                    guild_id=1, channel_id=100 + index, host_id=7, variant=hostile
                )
        lobby = await service.lobby.create_lobby(
            guild_id=1, channel_id=1, host_id=7, seats=2, host_name=STORED[0]
        )
        await service.lobby.join(lobby.id, 8, name=STORED[1])
        view = await service.lobby.start(lobby.id, 7)
        assert view.user_to_move is not None
        view = await service.play.act(lobby.id, view.user_to_move, view.seq, "S")
        mover = view.user_to_move
        assert mover is not None
        before = await row_counts(database)
        assert before["actions"] > 0, "the game has a log for a hostile string to harm"
        for hostile in HOSTILE:
            with pytest.raises(IllegalMoveError):
                await service.play.act(lobby.id, mover, view.seq, hostile)
        assert await row_counts(database) == before

        tournaments = TournamentStore(database)
        made: list[int] = []
        for index, hostile in enumerate(STORED):
            await store.set_meta(f"key {hostile}", hostile)
            entered = replace(new_tournament(), channel_id=200 + index, name=hostile)
            made.append((await tournaments.create(entered, NOW)).id)
            assert await tournaments.join(made[-1], 9, hostile, NOW)
        for tournament_id, hostile in zip(made, STORED, strict=True):
            assert await store.get_meta(f"key {hostile}") == hostile
            tournament = await tournaments.get(tournament_id)
            assert tournament is not None
            assert tournament.name == hostile
            entrants = await tournaments.entrants(tournament_id)
            assert [entrant.display_name for entrant in entrants] == [hostile]
        async with database.reading() as conn:
            names = await conn.fetch(
                "SELECT display_name FROM seats WHERE game_id = $1 ORDER BY user_id", lobby.id
            )
            assert [row[0] for row in names] == [STORED[0], STORED[1]]
            row = await conn.fetchrow("SELECT count(*), max(seq) FROM games")
            assert row is not None
            assert (row[0], row[1]) == (1, view.seq)
        added = {"bot_meta": len(STORED), "tournaments": len(STORED)}
        added["tournament_players"] = len(STORED)
        assert await row_counts(database) == {
            table: count + added.get(table, 0) for table, count in before.items()
        }
    finally:
        await database.close()
    if backend == "sqlite":
        with sqlite3.connect(database_target) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
