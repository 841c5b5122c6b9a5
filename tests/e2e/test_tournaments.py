"""Tournaments through the real bot process and the fake Discord API, each game in a public
thread of the tournament's channel:

- a Swiss tournament of five players, three rounds at 2-seat tables, an AI filling each
  round's bye: turns clicked in a thread, a timeout (the test clock moved on), a moderator's
  abort of one game, the bot killed (its crash point `tournament.round_over`, bot/crashpoints.py)
  after the second round's last game is stored and before the third round is paired, then
  started again, whose catch-up pairs that round once; played to the final standings and the
  winner's one announcement;
- a round-robin of four at one 4-seat table;
- a round-robin of seven at tables of 3, 2 and 2 in a Ukrainian server, over the five rounds
  its sign-up announced: a timeout, a seat handed to a substitute, a restart between rounds;
- a moderator ending a whole tournament early.

Games end by resignations (a game's own play is tested elsewhere), so each scenario takes
seconds.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import re
import sqlite3
from pathlib import Path

import pytest

from bot.edge.display import CHANNEL_WINDOW_SECONDS
from bot.services.ratings import RatingService
from bot.storage import open_database
from bot.storage.ratings import RatingStore
from tests.e2e.fakecord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.fakecord.model import PUBLIC_THREAD, THREAD_CREATED
from tests.e2e.fakecord.process import BotProcess
from tests.e2e.players import integrity, is_final
from tests.e2e.shifted_clock import pass_while_down, shift_clock, with_clock
from tests.e2e.tournaments import ROUND, Scene, to_move

pytestmark = pytest.mark.e2e

COMMANDS = ("marrakech", "marrakech-mod", "marrakech-admin")
CRASH_VAR = "MARRAKECH_CRASH_AT"
CRASH_LINE = re.compile(r"crash point tournament\.round_over:\d+ reached: SIGKILL")
TURN_LIMIT = 300


RATINGS = (
    "SELECT guild_id, user_id, ai_level, mu, sigma, games FROM ratings "
    "ORDER BY guild_id, user_id IS NULL, user_id, ai_level"
)


async def ratings_equal_a_rebuild(fake: FakeDiscord, database: Path, copy: Path) -> int:
    """Wait until the ratings include every rated game, then check that rebuilding them from
    the stored results, in game order, gives exactly the same numbers; how many rated games."""

    def applied() -> tuple[int, int] | None:
        with sqlite3.connect(database) as db:
            row = db.execute("SELECT sum(games), sum(applied) FROM rating_guilds").fetchone()
        return row if row[0] and row[0] == row[1] else None

    games, _ = await fake.wait_until(applied, what="every rated game applied to the ratings")
    with sqlite3.connect(database) as db, sqlite3.connect(copy) as target:
        db.backup(target)
        applied_ratings = db.execute(RATINGS).fetchall()
    copied = await open_database(copy)
    try:
        await RatingService(RatingStore(copied)).rebuild()
    finally:
        await copied.close()
    with sqlite3.connect(copy) as db:
        assert db.execute(RATINGS).fetchall() == applied_ratings
    assert applied_ratings, "the tournament's games were rated"
    return int(games)


def game_over(fake: FakeDiscord, thread: FakeChannel) -> bool:
    """Whether the thread's game shows its end."""
    return any(is_final(m) for m in fake.messages(thread))


def each_table_in_its_thread(database: Path, scene: Scene, threads: list[FakeChannel]) -> None:
    """Check that each thread holds its table: the thread named for a round's table is the one
    stored for that table, the game played in it is that table's, and its welcome pinged
    exactly the table's players, who are exactly the game's human seats."""
    with sqlite3.connect(database) as db:
        for thread in threads:
            named = ROUND.search(thread.name)
            assert named is not None, thread.name
            row = db.execute(
                "SELECT seats, thread_id, game_id FROM tournament_tables "
                "WHERE round = ? AND table_no = ?",
                (int(named["round"]), int(named["table"])),
            ).fetchone()
            assert row is not None, f"a table for {thread.name}"
            seats, thread_id, game_id = row
            assert thread_id == thread.id, f"{thread.name} is its table's thread"
            table = {user for user in json.loads(seats) if user is not None}
            pinged = {user.id for user in scene.seated(thread)}
            assert pinged == table, f"the welcome in {thread.name} pings its table's players"
            (channel_id,) = db.execute(
                "SELECT channel_id FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            assert channel_id == thread.id, f"the table's game is played in {thread.name}"
            humans = {
                user
                for (user,) in db.execute(
                    "SELECT user_id FROM seats WHERE game_id = ? AND user_id IS NOT NULL",
                    (game_id,),
                )
            }
            assert humans == table, f"the game in {thread.name} seats its table's players"


@pytest.fixture
def bot_env(bot_env: dict[str, str], clock_file: Path) -> dict[str, str]:
    return with_clock(bot_env, clock_file)


@pytest.fixture
def bot_ready_commands() -> tuple[str, ...]:
    return COMMANDS


@pytest.mark.slow
async def test_a_swiss_tournament_of_five_with_an_ai_bye_timeouts_and_a_restart(
    fake: FakeDiscord, bot_process: BotProcess, clock_file: Path, tmp_path: Path
) -> None:
    bot = bot_process
    # The point is passed at the start, after round 1 and after round 2: the third pass dies
    # with round 2 over and round 3 not paired.
    bot.env[CRASH_VAR] = "tournament.round_over:3"
    await bot.start_and_wait_ready(fake, commands=COMMANDS)
    scene = Scene(fake, 5)
    message = await scene.open(
        name="Spring cup", format="swiss", seats=2, rounds=3, turn_limit=TURN_LIMIT
    )
    assert "round 1 of 3" in message.embed_text(), "the start answers at once"
    byes: list[int] = []
    pairs: list[frozenset[int]] = []

    # Round 1: a few turns clicked, a timeout, resignations.
    threads = await scene.round_ready(1, 3)
    for thread in threads:
        seated = scene.seated(thread)
        welcome = next(m for m in fake.messages(thread) if m.pinged_user_ids)
        assert "round 1 of **Spring cup**" in welcome.content
        if len(seated) == 1:
            assert "AI (medium)" in welcome.content, "an AI takes the bye's other seat"
            byes.append(seated[0].id)
        else:
            pairs.append(frozenset(user.id for user in seated))
    first, *others = [t for t in threads if len(scene.seated(t)) == 2]
    for thread in [*others, next(t for t in threads if len(scene.seated(t)) == 1)]:
        await scene.resign(scene.seated(thread)[0], thread)
    turn = await fake.wait_until(lambda: to_move(fake, first), what="a human's turn")
    (mover_id,) = turn.pinged_user_ids
    mover = scene.people[mover_id]
    straight = next(b for b in turn.enabled_buttons() if (b.label or "").endswith("(straight on)"))
    assert straight.custom_id is not None
    await (await fake.click(mover, turn, straight.custom_id)).response()
    placed = await fake.wait_until(
        lambda: next(
            (
                b
                for b in fake.world.messages[turn.id].enabled_buttons()
                if (b.label or "").startswith("1 · ")
            ),
            None,
        ),
        what="the placements",
    )
    assert placed.custom_id is not None
    await (await fake.click(mover, fake.world.messages[turn.id], placed.custom_id)).response()
    other = next(user for user in scene.seated(first) if user.id != mover_id)

    def others_turn() -> FakeMessage | None:
        m = to_move(fake, first)
        return m if m is not None and m.pinged_user_ids == {other.id} else None

    waiting = await fake.wait_until(others_turn, what="the other player's turn")
    await shift_clock(bot, clock_file, TURN_LIMIT + 2, fake)
    notice = await fake.wait_for_message(first, lambda m: "ran out of time" in m.content)
    assert f"<@{other.id}>" in notice.content
    await fake.wait_until(
        lambda: not fake.world.messages[waiting.id].enabled_buttons(),
        what="the timed-out turn down to its line",
    )
    await scene.resign(other, first)

    # Round 2: one game resigned, one aborted by a moderator, and the bot killed as the last
    # one ends, before it pairs the next round: the next run's catch-up pairs it, once.
    threads = await scene.round_ready(2, 3)
    await fake.wait_until(
        lambda: "round 2 of 3" in fake.world.messages[message.id].embed_text(),
        what="the standings of round 2",
    )
    for thread in threads:
        seated = scene.seated(thread)
        if len(seated) == 1:
            byes.append(seated[0].id)
        else:
            pairs.append(frozenset(user.id for user in seated))
    humans = [t for t in threads if len(scene.seated(t)) == 2]
    bye_thread = next(t for t in threads if len(scene.seated(t)) == 1)
    await scene.resign(scene.seated(humans[0])[1], humans[0])
    question = await (await fake.slash(scene.mod, humans[1], "marrakech-mod", "abort")).answer()
    button = question.button(label="Abort")
    assert button.custom_id is not None
    await (await fake.click(scene.mod, question, button.custom_id)).answer()
    await fake.wait_for_message(humans[1], lambda m: "aborted" in m.embed_text())
    last = scene.seated(bye_thread)[0]
    question = await (await fake.slash(last, bye_thread, "marrakech", "resign")).answer()
    button = question.button(label="Resign")
    assert button.custom_id is not None
    await fake.click(last, question, button.custom_id)  # its answer may die with the bot
    await bot.wait_exit(timeout=30)
    assert any(CRASH_LINE.search(line) for line in bot.lines), "killed at its crash point"
    database = tmp_path / "marrakech.sqlite3"
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT status FROM games ORDER BY id DESC LIMIT 1").fetchone() == (
            "over",
        ), "the round's last game is stored"
        assert db.execute("SELECT max(round) FROM tournament_rounds").fetchone() == (2,), (
            "the next round is not paired yet"
        )
    del bot.env[CRASH_VAR]
    await pass_while_down(clock_file, CHANNEL_WINDOW_SECONDS, fake)  # as if down that long
    identifies = fake.gateway.identifies
    await bot.start()
    await bot.wait_ready(
        fake, identifies=identifies + 1, syncs=fake.world.commands.syncs, commands=COMMANDS
    )
    await fake.wait_until(
        lambda: any(is_final(m) for m in fake.messages(bye_thread)), what="the game's end shown"
    )

    # Round 3, paired by the restart's catch-up, played out: one player withdraws with the
    # standings' button (drawn by the new run), which resigns their game; the final standings
    # and the winner.
    threads = await scene.round_ready(3, 3)
    leaver: FakeUser | None = None
    for thread in threads:
        seated = scene.seated(thread)
        if len(seated) == 1:
            byes.append(seated[0].id)
        else:
            pairs.append(frozenset(user.id for user in seated))
        if leaver is None and len(seated) == 2:
            leaver = seated[-1]
            standings = fake.world.messages[message.id]
            withdraw = standings.button(label="Withdraw")
            assert withdraw.custom_id is not None
            question = await (await fake.click(leaver, standings, withdraw.custom_id)).answer()
            assert "Withdraw from **Spring cup**?" in question.content, question.content
            confirm = question.button(label="Withdraw")
            assert confirm.custom_id is not None
            done = await (await fake.click(leaver, question, confirm.custom_id)).answer()
            assert done.content == "You withdrew from **Spring cup** after round 3.", done.content
            await fake.wait_until(
                functools.partial(game_over, fake, thread), what="the withdrawn player's game over"
            )
        else:
            await scene.resign(seated[-1], thread)
    assert leaver is not None
    announcement = await fake.wait_for_message(
        scene.channel, lambda m: "wins **Spring cup**" in m.content
    )

    def final_standings() -> FakeMessage | None:
        shown = fake.world.messages[message.id]
        return shown if "final standings" in shown.embed_text() else None

    final = await fake.wait_until(final_standings, what="the final standings")
    announced = [m for m in fake.messages(scene.channel) if "wins **Spring cup**" in m.content]
    assert announced == [announcement], "the winner is announced once"
    guild = scene.channel.guild
    assert guild is not None
    link = f"https://discord.com/channels/{guild.id}/{scene.channel.id}/{message.id}"
    assert f"[The final standings]({link})" in announcement.content
    assert announcement.pinged_user_ids
    assert all(f"<@{user}>" in final.embed_text() for user in announcement.pinged_user_ids)
    assert f"<@{leaver.id}> after round 3" in final.embed_text(), final.embed_text()
    assert not final.enabled_buttons(), "no Withdraw once the tournament is over"
    (picture,) = final.attachments
    assert picture.filename == "standings.png"
    assert picture.data[:8] == b"\x89PNG\r\n\x1a\n"

    assert len(set(byes)) == 3, "each round's bye went to another player"
    assert len(pairs) == len(set(pairs)) == 6, "no rematch"
    threads = fake.threads(scene.channel)
    assert len(threads) == 9
    assert {thread.type for thread in threads} == {PUBLIC_THREAD}
    notices = [m for m in fake.messages(scene.channel) if m.type == THREAD_CREATED]
    assert notices == [], "no 'started a thread' notice left among the standings"
    each_table_in_its_thread(database, scene, threads)
    for thread in threads:
        welcomes = [m for m in fake.messages(thread) if "of **Spring cup**" in m.content]
        assert len(welcomes) == 1, f"one welcome in {thread.name}"
    assert fake.unhandled_requests == []
    assert integrity(database) == "ok"
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM tournament_rounds").fetchone() == (3,)
        assert db.execute(
            "SELECT count(*) FROM tournament_tables WHERE game_id IS NOT NULL"
        ).fetchone() == (9,)
        assert db.execute("SELECT status FROM tournaments").fetchall() == [("over",)]
        statuses = dict(
            itertools.groupby(
                sorted(status for (status,) in db.execute("SELECT status FROM games")),
            )
        )
    assert set(statuses) == {"over", "aborted"}
    rated = await ratings_equal_a_rebuild(fake, database, tmp_path / "rebuilt.sqlite3")
    with sqlite3.connect(database) as db:
        (finished,) = db.execute("SELECT count(*) FROM games WHERE status = 'over'").fetchone()
    assert rated == finished, "every game played to its end is rated, and no aborted one"


async def test_a_round_robin_of_four_at_a_table_of_four(
    fake: FakeDiscord, bot: BotProcess, tmp_path: Path
) -> None:
    scene = Scene(fake, 4)
    message = await scene.open(name="Club night", format="round-robin", seats=4)
    (thread,) = await scene.round_ready(1, 1)
    assert sorted(u.id for u in scene.seated(thread)) == sorted(p.id for p in scene.players)
    for player in scene.seated(thread)[:3]:
        question = await (await fake.slash(player, thread, "marrakech", "resign")).answer()
        button = question.button(label="Resign")
        assert button.custom_id is not None
        await (await fake.click(player, question, button.custom_id)).answer()
    result = await fake.wait_until(
        lambda: next((m for m in fake.messages(thread) if is_final(m)), None), what="the end"
    )
    winner = scene.seated(thread)[3]
    announcement = await fake.wait_for_message(scene.channel, lambda m: "wins" in m.content)
    assert announcement.pinged_user_ids == {winner.id}
    assert result.id < announcement.id, "the last game's result is told before the winner"

    def final_standings() -> FakeMessage | None:
        shown = fake.world.messages[message.id]
        return shown if "final standings" in shown.embed_text() else None

    final = await fake.wait_until(final_standings, what="the final standings")
    assert f"Winner: <@{winner.id}>" in final.embed_text()
    database = tmp_path / "marrakech.sqlite3"
    assert await ratings_equal_a_rebuild(fake, database, tmp_path / "rebuilt.sqlite3") == 1


async def test_a_ukrainian_round_robin_of_seven_at_three_seats_through_a_restart(
    fake: FakeDiscord, bot: BotProcess, clock_file: Path
) -> None:
    """Seven players at tables of 3, 2 and 2 (no AI) play the five rounds the sign-up said, in
    the server's language: a timeout in round 1, a seat handed to a substitute in round 2, the
    bot restarted between rounds 3 and 4; every pair meets, each round's standings say
    "round N of 5", and the end names the winner the channel is told of."""
    scene = Scene(fake, 7, language="uk")
    substitute = fake.add_user("zoe")
    fake.add_member(scene.guild, substitute)
    scene.people[substitute.id] = substitute
    message = await scene.open(
        name="Autumn league", format="round-robin", seats=3, turn_limit=TURN_LIMIT
    )
    assert "кожен грає з кожним: 5 турів, для 7 гравців" in scene.signup
    met: set[frozenset[int]] = set()

    def shows(message_id: int, said: str) -> bool:
        return said in fake.world.messages[message_id].embed_text()

    async def play_out(thread: FakeChannel, players: list[FakeUser]) -> None:
        for player in players[:-1]:
            question = await (await fake.slash(player, thread, "marrakech", "resign")).answer()
            button = question.button(label="Resign")
            assert button.custom_id is not None
            await (await fake.click(player, question, button.custom_id)).answer()
        await fake.wait_until(
            lambda: any(is_final(m) for m in fake.messages(thread)), what="the game's end"
        )

    for round_no in range(1, 6):
        threads = await scene.round_ready(round_no, 3)
        title = f"Autumn league: тур {round_no} з 5"
        await fake.wait_until(
            functools.partial(shows, message.id, title), what=f"the standings of round {round_no}"
        )
        seatings = [scene.seated(thread) for thread in threads]
        assert sorted(len(players) for players in seatings) == [2, 2, 3], "no AI seat"
        for thread, players in zip(threads, seatings, strict=True):
            welcome = next(m for m in fake.messages(thread) if m.pinged_user_ids)
            assert f"тур {round_no} турніру **Autumn league**" in welcome.content
            met |= {frozenset((a.id, b.id)) for a, b in itertools.combinations(players, 2)}
        table = seatings[0]
        if round_no == 1:
            turn = await fake.wait_until(
                functools.partial(to_move, fake, threads[0]), what="a turn"
            )
            await shift_clock(bot, clock_file, TURN_LIMIT + 2, fake)
            timed_out = await fake.wait_for_message(threads[0], lambda m: "⏰" in m.content)
            assert turn.pinged_user_ids <= timed_out.pinged_user_ids
        if round_no == 2:
            handed = await (
                await fake.slash(
                    scene.mod,
                    threads[0],
                    "marrakech-mod",
                    "substitute",
                    out=table[0],
                    options={"in": substitute},
                )
            ).answer()
            assert not handed.ephemeral
            assert f"<@{substitute.id}> займає місце <@{table[0].id}>" in handed.content
            seatings[0] = [substitute, *table[1:]]
        await asyncio.gather(
            *(play_out(thread, players) for thread, players in zip(threads, seatings, strict=True))
        )
        if round_no == 3:
            await scene.round_ready(4, 3)
            identifies = fake.gateway.identifies
            await bot.kill()
            await pass_while_down(clock_file, CHANNEL_WINDOW_SECONDS, fake)
            await bot.start()
            await bot.wait_ready(
                fake, identifies=identifies + 1, syncs=fake.world.commands.syncs, commands=COMMANDS
            )
    ids = [player.id for player in scene.players]
    assert met == {frozenset(pair) for pair in itertools.combinations(ids, 2)}, "every pair met"

    def final_standings() -> FakeMessage | None:
        shown = fake.world.messages[message.id]
        return shown if "підсумкова таблиця" in shown.embed_text() else None

    final = await fake.wait_until(final_standings, what="the final standings")
    announcement = await fake.wait_for_message(
        scene.channel, lambda m: "перемагає в турнірі **Autumn league**" in m.content
    )
    (winner,) = announcement.pinged_user_ids
    assert f"Переможець: <@{winner}>" in final.embed_text()
    assert "5 турів" in final.embed_text()
    assert len(fake.threads(scene.channel)) == 15


async def test_a_moderator_ends_a_whole_tournament(fake: FakeDiscord, bot: BotProcess) -> None:
    scene = Scene(fake, 3)
    message = await scene.open(name="Short one", format="swiss", seats=2)
    threads = await scene.round_ready(1, 2)
    refused = await (
        await fake.slash(
            scene.players[0], threads[0], "marrakech-mod", "tournament-abort", validate=False
        )
    ).answer()
    assert "Manage Channels" in refused.content
    question = await (
        await fake.slash(scene.mod, threads[0], "marrakech-mod", "tournament-abort")
    ).answer()
    button = question.button(label="End the tournament")
    assert button.custom_id is not None
    done = await (await fake.click(scene.mod, question, button.custom_id)).answer()
    assert "is ended" in done.content
    await fake.wait_for_message(scene.channel, lambda m: "was aborted by" in m.content)
    for thread in threads:
        await fake.wait_for_message(thread, lambda m: "aborted" in m.embed_text())
        assert not any(m.enabled_buttons() for m in fake.messages(thread)), (
            "no game button left live"
        )
    await fake.wait_until(
        lambda: "aborted" in fake.world.messages[message.id].embed_text(), what="the message"
    )
    again = await (
        await fake.slash(scene.mod, scene.channel, "marrakech-mod", "tournament-abort")
    ).answer()
    assert "no tournament" in again.content
    inside = await (
        await fake.slash(
            scene.mod, threads[0], "marrakech-mod", "tournament", name="In a thread", format="swiss"
        )
    ).answer()
    assert "text channel" in inside.content
