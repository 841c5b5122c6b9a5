"""The figures docs/ratings.md gives, computed with openskill called directly (or through the
model where the figure is the model's own), read from the doc itself so that a drift between
the two fails; and what the doc promises of a rebuild run while games are applied and of
casual games in the stats, on a real database (each back end)."""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from openskill.models import PlackettLuce

from bot.services import GameService, GameStatus
from bot.services.rating_model import POINTS_PER_SKILL, POINTS_START, START, Skill, points, rate
from bot.services.ratings import RatingService, Rebuilt
from bot.services.stats import StatsService
from bot.storage import Database, StatsStore, open_database
from bot.storage.ratings import RatingStore
from tests.bot.services.test_async_play import BOB, CAROL, GUILD, HOST
from tests.bot.services.test_ratings import opened, resign_all_but, tables
from tests.bot.services.test_service import service_on

DOC = (
    (Path(__file__).parents[3] / "docs" / "ratings.md")
    .read_text(encoding="utf-8")
    .split("## Promises and the tests that hold them")[0]
)
"""docs/ratings.md above its table of promises."""
MINUS = "\u2212"
"""The typographic minus sign the docs write."""
SIGN = f"[-{MINUS}+]"
TIMES = "\u00d7"
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class GuildRead(Protocol[T_co]):
    """A store's read of one server's games, as `RatingStore.pending` and `.everything`."""

    def __call__(self, guild_id: int) -> Coroutine[Any, Any, T_co]: ...


def in_doc(pattern: str) -> list[float]:
    """The numbers of the one passage of docs/ratings.md that `pattern` matches (its groups,
    as numbers; a comma groups thousands, a minus sign may be typographic)."""
    text = " ".join(DOC.split())
    found = re.findall(pattern, text)
    assert len(found) == 1, f"docs/ratings.md should say this once: {pattern}"
    groups = found[0] if isinstance(found[0], tuple) else (found[0],)
    return [float(group.replace(",", "").replace(MINUS, "-")) for group in groups]


def alternating(games: int) -> tuple[Skill, Skill]:
    """Two newcomers after `games` two-player games against each other, winning in turn."""
    one = two = START
    for game in range(games):
        one, two = rate([one, two], [1, 2] if game % 2 == 0 else [2, 1])
    return one, two


def test_the_model_is_openskill_s_plackett_luce_from_its_defaults() -> None:
    model = PlackettLuce()
    assert (START.mu, START.sigma) == (model.mu, model.sigma)
    assert in_doc(r"starts at mu (\d+), sigma (\d+)/(\d+), openskill's defaults") == [25, 25, 3]
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in ((30, 4), (25, 8), (20, 2))]
    direct = model.rate(teams, ranks=[2, 1, 3])
    ours = rate([Skill(30, 4), Skill(25, 8), Skill(20, 2)], [2, 1, 3])
    assert [(s.mu, s.sigma) for s in ours] == [(t[0].mu, t[0].sigma) for t in direct]


def test_beating_stronger_players_and_a_large_sigma_move_a_belief_more() -> None:
    over_equal = rate([START, START], [1, 2])[0].mu - START.mu
    over_stronger = rate([START, Skill(35, START.sigma)], [1, 2])[0].mu - START.mu
    assert over_stronger > over_equal
    sure, unsure = Skill(25, 2), Skill(25, 6)
    assert rate([unsure, sure], [1, 2])[0].mu - 25 > rate([sure, unsure], [1, 2])[0].mu - 25


def test_sigma_falls_fast_then_settles_and_a_game_can_widen_it() -> None:
    after_10, after_100 = in_doc(
        r"winning in turn, are at sigma (\d+\.\d+) after 10 games and (\d+\.\d+) after 100"
    )
    assert round(alternating(10)[0].sigma, 2) == after_10
    assert round(alternating(100)[0].sigma, 2) == after_100
    model = PlackettLuce()
    assert model.tau == pytest.approx(25 / 300)
    assert in_doc(r"its `tau`, (\d+)/(\d+)") == [25, 300]
    (widened,) = in_doc(r"two players of sigma 1 each end a two-player game at sigma (\d\.\d+)")
    for places in ([1, 2], [2, 1]):
        after = rate([Skill(25, 1), Skill(25, 1)], places)
        assert [round(skill.sigma, 3) for skill in after] == [widened, widened], places
    assert widened > 1


def test_ties_are_averaged_orders_and_openskill_s_own_ties_are_milder() -> None:
    winners, last = in_doc(
        rf"it moves each winner's mu by ({SIGN}\d\.\d+) \(what a lone second place gets\) "
        rf"and the last's by ({SIGN}\d\.\d+)"
    )
    model = PlackettLuce()
    own = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 1, 2])
    assert [round(team[0].mu - 25, 2) for team in own] == [winners, winners, last]
    strict = model.rate([[model.rating()] for _ in range(3)], ranks=[1, 2, 3])
    assert round(strict[1][0].mu - 25, 2) == winners, "a lone second place"
    averaged_winners, averaged_last = in_doc(
        rf"Averaging the orders moves the winners by ({SIGN}\d\.\d+) and the last by "
        rf"({SIGN}\d\.\d+), exactly what a last place of three newcomers gets"
    )
    ours = rate([START] * 3, [1, 1, 2])
    assert [round(skill.mu - 25, 2) for skill in ours] == [averaged_winners] * 2 + [averaged_last]
    assert round(strict[2][0].mu - 25, 2) == averaged_last


def test_the_points_and_what_a_gap_of_100_means() -> None:
    assert in_doc(rf"points = (\d+) \+ (\d+) {TIMES} \(mu {MINUS} 3 {TIMES} sigma\)") == [
        POINTS_START,
        POINTS_PER_SKILL,
    ]
    assert points(30.0, 2.0) == round(POINTS_START + POINTS_PER_SKILL * (30.0 - 6.0))
    assert START.points == 1500
    chance, elo, elo_100 = in_doc(
        r"100 points between two players of sigma 3 give the higher one a (\d+\.\d)% chance "
        r".*?what (\d+) Elo points give; 100 Elo points mean (\d+\.\d)%"
    )
    model = PlackettLuce()
    gap = 100 / POINTS_PER_SKILL
    higher = model.rating(mu=25 + gap, sigma=3)
    lower = model.rating(mu=25, sigma=3)
    predicted = model.predict_win([[higher], [lower]])[0]
    assert round(100 * predicted, 1) == chance
    assert round(400 * math.log10(predicted / (1 - predicted))) == elo
    assert round(100 / (1 + 10 ** (-100 / 400)), 1) == elo_100


def test_the_first_game_and_a_regular_s_game() -> None:
    winner, loser = in_doc(r"goes to (\d,\d+), the loser to (\d,\d+)")
    first = rate([START, START], [1, 2])
    assert (first[0].points, first[1].points) == (winner, loser)
    gain, loss = in_doc(
        rf"the next game moves the winner by ({SIGN}\d+) and the loser by ({SIGN}\d+)"
    )
    one, two = alternating(100)
    after = rate([one, two], [1, 2])
    assert (after[0].points - one.points, after[1].points - two.points) == (gain, loss)
    steady = in_doc(r"winning in turn, stand at (\d,\d+) and (\d,\d+) after 100 games")
    assert sorted([one.points, two.points]) == steady


# --- a rebuild while games are applied -----------------------------------------------------


async def several_rated_games(service: GameService) -> None:
    for channel, (users, keeper) in enumerate(
        [((HOST, BOB), HOST), ((BOB, CAROL), CAROL), ((HOST, BOB, CAROL), BOB)], start=1
    ):
        view = await opened(service, users, channel=channel)
        await resign_all_but(service, view, keeper)


def once_after(method: GuildRead[T], meanwhile: Callable[[], Awaitable[None]]) -> GuildRead[T]:
    """`method` (a read of one server's games), which runs `meanwhile` the first time right
    after its read returns."""
    done = False

    async def wrapped(guild_id: int) -> T:
        nonlocal done
        found = await method(guild_id)
        if not done:
            done = True
            await meanwhile()
        return found

    return wrapped


async def rebuild_while_a_game_ends_elsewhere(database: Database, database_target: str) -> Rebuilt:
    """Rebuild the server's ratings; after it has read every rated game and before it writes,
    another process ends one more game and applies it."""
    other_database = await open_database(database_target)
    try:
        other = service_on(other_database)

        async def a_game_ends_elsewhere() -> None:
            view = await opened(other, (HOST, CAROL), channel=10)
            assert (await other.play.resign(view.id, CAROL)).status is GameStatus.OVER

        store = RatingStore(database)
        store.everything = once_after(store.everything, a_game_ends_elsewhere)  # type: ignore[method-assign]
        return await RatingService(store).rebuild(GUILD)
    finally:
        await other_database.close()


async def test_a_rebuild_while_a_game_ends_and_is_applied_ends_as_a_rebuild_alone(
    database: Database, database_target: str
) -> None:
    """The rebuild reads every rated game; before it writes, another process ends one more
    game and applies it. The rebuild must not write over that game."""
    service = service_on(database)
    await several_rated_games(service)
    await rebuild_while_a_game_ends_elsewhere(database, database_target)
    raced = await tables(database)
    assert dict(raced)["rating_guilds"] == [(GUILD, 4, 4)]
    await service.ratings.rebuild(GUILD)
    assert await tables(database) == raced


async def test_a_rebuild_raced_by_a_game_applied_elsewhere_still_restores_the_lost_ratings(
    database: Database, database_target: str
) -> None:
    """The ratings are lost, the games are not; the rebuild reads every rated game, and
    before it writes another process ends one more game and applies it. The rebuild reads
    the games again and rebuilds from all of them."""
    service = service_on(database)
    await several_rated_games(service)
    async with database.transaction() as conn:
        await conn.execute("DELETE FROM ratings")
    rebuilt = await rebuild_while_a_game_ends_elsewhere(database, database_target)
    assert rebuilt.games == 4
    raced = await tables(database)
    await service.ratings.rebuild(GUILD)
    assert await tables(database) == raced, "as a rebuild with nothing racing it"


async def test_games_applied_while_a_rebuild_runs_are_applied_once(
    database: Database, database_target: str
) -> None:
    """A process reads the games its ratings lack; before it writes them, a rebuild runs to
    its end. The applier must not add those games a second time."""
    service = service_on(database)
    await several_rated_games(service)
    async with database.transaction() as conn:  # as if none of them had been applied yet
        await conn.execute("DELETE FROM rating_changes")
        await conn.execute("DELETE FROM ratings")
        await conn.execute("UPDATE rating_guilds SET applied = 0")
    other_database = await open_database(database_target)
    try:
        rebuilder = RatingService(RatingStore(other_database))

        async def a_rebuild_elsewhere() -> None:
            await rebuilder.rebuild(GUILD)

        store = RatingStore(database)
        store.pending = once_after(store.pending, a_rebuild_elsewhere)  # type: ignore[method-assign]
        applier = RatingService(store)
        assert await applier.apply_pending(GUILD) == 0, "the rebuild applied them all"
        raced = await tables(database)
    finally:
        await other_database.close()
    assert dict(raced)["rating_guilds"] == [(GUILD, 3, 3)]
    assert len(dict(raced)["rating_changes"]) == 7, "each seat of each game, once"
    await service.ratings.rebuild(GUILD)
    assert await tables(database) == raced


# --- casual games in the stats -------------------------------------------------------------


async def test_casual_games_count_in_the_stats_and_the_record_against_the_ai(
    database: Database,
) -> None:
    service = service_on(database)
    stats = StatsService(StatsStore(database))
    against_people = await opened(service, (HOST, BOB), channel=1, casual=True)
    assert (await service.play.resign(against_people.id, BOB)).status is GameStatus.OVER
    against_ai = await opened(service, (HOST,), channel=2, ais=("easy",), casual=True)
    assert (await service.play.resign(against_ai.id, HOST)).status is GameStatus.OVER
    mine = await stats.player(GUILD, HOST)
    assert (mine.games, mine.wins) == (2, 1)
    assert mine.best_score is not None
    assert mine.best_score > 0
    assert (await stats.player(GUILD, BOB)).games == 1
    rating = await service.ratings.player(GUILD, HOST)
    assert rating.games == 0, "no rating counts a casual game"
    assert [(r.level, r.wins, r.ties, r.losses) for r in rating.against_ai] == [("easy", 0, 0, 1)]
