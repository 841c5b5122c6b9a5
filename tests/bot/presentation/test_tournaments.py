"""What a tournament's messages say (bot.presentation.tournaments): the sign-up, the standings
and their picture, the thread names and welcomes, the end; in English, French and Ukrainian,
with no English left in the other two."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from bot.edge.tournaments import signup_buttons, standings_buttons
from bot.presentation import tournaments as shown
from bot.presentation.messages import LANGUAGES, text
from bot.presentation.tournaments import TournamentPost, points
from bot.services.standings import SeatResult, TableOutcome, standings
from bot.services.tournament_views import (
    Entrant,
    TableView,
    TournamentFormat,
    TournamentStatus,
    TournamentView,
)
from bot.services.tournaments import MAX_PLAYERS
from bot.storage.kinds import GameStatus
from tests.bot.presentation.lookups import asked_in_another_language, texts_looked_up
from tests.bot.presentation.test_languages import button_labels, english_in, post_texts
from tests.e2e.fakecord.limits import check_message

MOD = 100
PLAYERS = (101, 102, 103)
SNOWFLAKE = 1_312_345_678_901_234_567
"""A user id as long as Discord's are today (19 digits)."""


def view(
    locale: str = "en", status: TournamentStatus = TournamentStatus.RUNNING, **changes: object
) -> TournamentView:
    tables = [
        TableOutcome(1, (101, 102), True, (SeatResult(101, 1, 60, 20), SeatResult(102, 2, 50, 9))),
        TableOutcome(
            1, (103, None), True, (SeatResult(103, 2, 40, 8), SeatResult(None, 1, 70, 30))
        ),
    ]
    lines = () if status is TournamentStatus.SIGNUP else tuple(standings(PLAYERS, tables, 2))
    made = TournamentView(
        id=4,
        guild_id=1,
        channel_id=2,
        name="Spring cup",
        format=TournamentFormat.SWISS,
        seats=2,
        rounds=2,
        variant="standard",
        turn_limit_seconds=3600,
        locale=locale,
        status=status,
        created_by=MOD,
        ended_by=MOD if status in (TournamentStatus.ABORTED, TournamentStatus.CANCELLED) else None,
        message_id=9,
        created_at=datetime(2026, 3, 1, tzinfo=UTC),
        entrants=tuple(Entrant(user, f"player {user}") for user in PLAYERS),
        tables=(
            TableView(1, 1, (101, 102), 201, 11, GameStatus.OVER),
            TableView(1, 2, (103, None), 202, 12, GameStatus.OVER),
            TableView(2, 1, (101, 103), 203, 13, GameStatus.RUNNING),
            TableView(2, 2, (102, None), None, None, None),
        ),
        standings=lines,
    )
    return dataclasses.replace(made, **changes)  # type: ignore[arg-type]


def texts(post: TournamentPost) -> Iterator[str]:
    yield from post_texts(post)  # type: ignore[arg-type]  # the same embed and content
    if post.picture is not None:
        yield post.picture.title
        yield post.picture.subtitle
        yield from post.picture.headers
        yield from (row.note for row in post.picture.rows if row.note)


def everything(locale: str) -> list[str]:
    written: list[str] = []
    for status in TournamentStatus:
        shown_view = view(locale, status)
        if status in (TournamentStatus.SIGNUP, TournamentStatus.CANCELLED):
            written += texts(shown.signup_post(shown_view))
            written += button_labels(signup_buttons(shown_view))
        else:
            written += texts(shown.standings_post(shown_view))
    running = view(locale)
    for table in running.tables:
        written.append(shown.thread_name(running, table))
        written += texts(shown.welcome_post(running, table))
    over = view(locale, TournamentStatus.OVER)
    written += [shown.finished_text(over), shown.aborted_text(over)]
    out = withdrawn(view(locale, format=TournamentFormat.ROUND_ROBIN), 102, 1)
    written += texts(shown.standings_post(out))
    written += button_labels(standings_buttons(out))
    written += texts(shown.welcome_post(out, out.tables[-1]))
    return written


def withdrawn(shown_view: TournamentView, user_id: int, after: int) -> TournamentView:
    """The view with `user_id` withdrawn after round `after`."""
    lines = tuple(
        dataclasses.replace(line, withdrew_after=after, left=0) if line.user_id == user_id else line
        for line in shown_view.standings
    )
    return dataclasses.replace(shown_view, standings=lines)


@pytest.mark.parametrize("locale", LANGUAGES)
def test_a_player_who_withdrew_is_marked_in_the_embed_and_the_picture(locale: str) -> None:
    """They keep their line, rank and points; the embed names them with the round after which
    they withdrew, and their line in the picture says it under their name."""
    before = view(locale)
    after = withdrawn(before, 102, 1)
    post = shown.standings_post(after)
    said = text("tournament.withdrawn.player", locale, player="<@102>", round=1)
    assert text("tournament.withdrawn", locale, players=said) in (post.embed.description or "")
    assert post.picture is not None
    old = shown.standings_post(before).picture
    assert old is not None
    note = text("tournament.picture.withdrawn", locale, round=1)
    assert [row.note for row in post.picture.rows] == [
        note if row.name == "player 102" else "" for row in old.rows
    ]
    assert [(row.rank, row.name, row.cells[:4]) for row in post.picture.rows] == [
        (row.rank, row.name, row.cells[:4]) for row in old.rows
    ]
    assert "withdr" not in (shown.standings_post(before).embed.description or "").lower()


def test_a_round_robin_table_seating_the_ai_after_a_withdrawal_says_whom_it_replaces() -> None:
    """A Swiss bye is welcomed as a bye; a round-robin's AI seat once a player withdrew is
    welcomed as playing in place of whoever is missing (a bye's too: the two look alike)."""
    swiss = view()
    bye = swiss.tables[-1]
    assert "You have the bye" in (shown.welcome_post(swiss, bye).content or "")
    out = withdrawn(view(format=TournamentFormat.ROUND_ROBIN), 101, 1)
    welcome = shown.welcome_post(out, bye).content or ""
    assert "plays in place of whoever is missing this round" in welcome, welcome
    assert "bye" not in welcome


def test_a_bye_paired_before_any_withdrawal_or_in_a_swiss_round_is_welcomed_as_a_bye() -> None:
    """The AI is said to play in place of the missing only at a round-robin's table paired
    after a withdrawal: a table of the round the player withdrew after, and every Swiss bye,
    are byes."""
    bye = view().tables[-1]
    same_round = withdrawn(view(format=TournamentFormat.ROUND_ROBIN), 101, bye.round)
    assert "You have the bye" in (shown.welcome_post(same_round, bye).content or "")
    swiss = withdrawn(view(), 101, 1)
    assert "You have the bye" in (shown.welcome_post(swiss, bye).content or "")


@pytest.mark.parametrize("status", list(TournamentStatus))
def test_the_standings_offer_withdraw_only_while_the_tournament_runs(
    status: TournamentStatus,
) -> None:
    labels = button_labels(standings_buttons(view(status=status)))
    assert labels == (["Withdraw"] if status is TournamentStatus.RUNNING else []), labels


@pytest.mark.parametrize(
    ("half_points", "language", "written"),
    [(0, "en", "0"), (1, "en", "½"), (4, "en", "2"), (5, "fr", "2½"), (2001, "fr", "1\u202f000½")],
)
def test_points_are_written_with_halves(half_points: int, language: str, written: str) -> None:
    assert points(half_points, language) == written


def test_the_sign_up_lists_the_players_and_what_the_tournament_is() -> None:
    post = shown.signup_post(view(status=TournamentStatus.SIGNUP))
    text = "\n".join(texts(post))
    assert "Spring cup: sign-up" in text
    assert all(f"<@{user}>" in text for user in PLAYERS)
    assert "Swiss · 2 seats a table · 2 rounds · standard rules · 1 h per turn" in text
    assert button_labels(signup_buttons(view(status=TournamentStatus.SIGNUP))) == [
        "Join",
        "Leave",
        "Start",
        "Cancel",
    ]
    assert signup_buttons(view()) is None, "no sign-up buttons once started"
    crowd = tuple(Entrant(user) for user in range(1000, 1050))
    post = shown.signup_post(view(status=TournamentStatus.SIGNUP, entrants=crowd))
    assert "and 10 more" in post.embed.fields[0].value  # type: ignore[operator]
    cancelled = shown.signup_post(view(status=TournamentStatus.CANCELLED))
    assert f"cancelled by <@{MOD}>" in (cancelled.embed.description or "")


@pytest.mark.parametrize(
    ("language", "format", "seats", "count", "said"),
    [
        (
            "en",
            TournamentFormat.ROUND_ROBIN,
            3,
            7,
            "everyone meets everyone: 5 rounds, for 7 players",
        ),
        (
            "en",
            TournamentFormat.ROUND_ROBIN,
            2,
            7,
            "everyone meets everyone: 7 rounds, for 7 players",
        ),
        (
            "en",
            TournamentFormat.ROUND_ROBIN,
            4,
            4,
            "everyone meets everyone: 1 round, for 4 players",
        ),
        ("en", TournamentFormat.SWISS, 2, 7, "3 rounds for 7 players, set at the start"),
        (
            "fr",
            TournamentFormat.ROUND_ROBIN,
            3,
            7,
            "chacun rencontre chacun : 5 rondes, pour 7 joueurs",
        ),
        ("fr", TournamentFormat.SWISS, 2, 2, "1 ronde pour 2 joueurs (nombre fixé au lancement)"),
        ("uk", TournamentFormat.ROUND_ROBIN, 3, 7, "кожен грає з кожним: 5 турів, для 7 гравців"),
        ("uk", TournamentFormat.ROUND_ROBIN, 2, 21, "кожен грає з кожним: 21 тур, для 21 гравця"),
        ("uk", TournamentFormat.SWISS, 3, 3, "1 тур для 3 гравців, визначиться на старті"),
    ],
)
def test_a_sign_up_says_how_many_rounds_the_players_signed_up_play(
    language: str, format: TournamentFormat, seats: int, count: int, said: str
) -> None:
    """A player deciding whether to join reads how long the tournament lasts: the rounds the
    players signed up so far would play (a round-robin's schedule, or the Swiss default)."""
    crowd = tuple(Entrant(SNOWFLAKE + n) for n in range(count))
    signing_up = view(
        language,
        TournamentStatus.SIGNUP,
        format=format,
        seats=seats,
        rounds=None,
        entrants=crowd,
    )
    assert said in "\n".join(texts(shown.signup_post(signing_up)))


def test_a_sign_up_of_one_player_counts_no_rounds_yet() -> None:
    alone = view(
        status=TournamentStatus.SIGNUP,
        format=TournamentFormat.ROUND_ROBIN,
        seats=3,
        rounds=None,
        entrants=(Entrant(101),),
    )
    options = shown.options_line(alone)
    assert "· everyone meets everyone ·" in options, "no count of rounds for nobody to meet"


def test_a_sign_up_says_how_many_more_from_the_first_player_not_shown() -> None:
    """One entrant past those listed is still counted: "and 1 more"."""
    crowd = tuple(Entrant(user) for user in range(1000, 1000 + shown.SHOWN_ENTRANTS + 1))
    post = shown.signup_post(view(status=TournamentStatus.SIGNUP, entrants=crowd))
    assert (post.embed.fields[0].value or "").endswith("and 1 more")


@pytest.mark.parametrize("count", [3, shown.SHOWN_ENTRANTS])
def test_a_sign_up_that_lists_every_player_counts_no_more(count: int) -> None:
    """Up to SHOWN_ENTRANTS players, the list is their mentions alone: no "and 0 more"."""
    crowd = tuple(Entrant(SNOWFLAKE + n) for n in range(count))
    post = shown.signup_post(view(status=TournamentStatus.SIGNUP, entrants=crowd))
    assert post.embed.fields[0].value == ", ".join(f"<@{SNOWFLAKE + n}>" for n in range(count))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_full_sign_up_with_real_ids_fits_a_field(language: str) -> None:
    """The most players a tournament takes, with ids as long as Discord's are today, fit the
    1,024 characters of a field and the 6,000 of an embed."""
    crowd = tuple(Entrant(SNOWFLAKE + n) for n in range(MAX_PLAYERS))
    post = shown.signup_post(view(language, TournamentStatus.SIGNUP, entrants=crowd))
    assert len(post.embed.fields[0].value or "") <= shown.FIELD_LIMIT
    assert len(post.embed) <= shown.EMBED_LIMIT


def test_an_abort_is_announced_as_by_whoever_aborted() -> None:
    """A tournament aborted by someone other than its creator names who aborted it."""
    aborted = view(status=TournamentStatus.ABORTED, ended_by=555)
    assert "aborted by <@555>" in shown.aborted_text(aborted)
    assert f"<@{MOD}>" not in shown.aborted_text(aborted)


def test_the_standings_show_the_round_its_tables_and_the_picture() -> None:
    post = shown.standings_post(view())
    assert post.embed.title == "🏆 Spring cup: round 2 of 2"
    (field,) = post.embed.fields
    assert field.name == "Round 2"
    assert field.value == (
        "<#203> · <@101> vs <@103> · playing\nTable 2 · <@102> vs 🤖 AI (medium) · being set up"
    )
    assert "Buchholz" in (post.embed.footer.text or "")
    picture = post.picture
    assert picture is not None
    assert picture.headers == ("#", "Player", "Pts", "Buch.", "Score", "Dh", "Left")
    assert [row.name for row in picture.rows] == ["player 101", "player 102", "player 103"]
    assert [row.cells[0] for row in picture.rows] == ["1", "0", "0"]
    assert [row.leader for row in picture.rows] == [True, False, False]
    assert [row.cells[-1] for row in picture.rows] == ["1", "1", "1"]


@pytest.mark.parametrize(
    ("language", "over", "aborted"),
    [("en", "over", "aborted"), ("fr", "terminée", "arrêtée"), ("uk", "завершено", "зупинено")],
)
def test_a_table_whose_game_was_aborted_reads_aborted_not_over(
    language: str, over: str, aborted: str
) -> None:
    """After a moderator's abort in a thread, the standings tell that table's players why it
    gives nobody a point: its line says aborted, where a game played to its end says over."""
    first, second, *_ = view().tables
    round_two = (
        TableView(2, 1, (101, 103), 203, 13, GameStatus.OVER),
        TableView(2, 2, (102, None), 204, 14, GameStatus.ABORTED),
    )
    ended = view(language, tables=(first, second, *round_two))
    (field,) = shown.standings_post(ended).embed.fields
    assert (field.value or "").split("\n") == [
        shown.table_line(ended, table) for table in round_two
    ]
    played, stopped = (shown.table_line(ended, table) for table in round_two)
    assert played.endswith(f" · {over}"), played
    assert stopped.endswith(f" · {aborted}"), stopped


def test_each_standings_column_shows_its_own_figure() -> None:
    """Points, Buchholz, score, dirhams and games left each land in their own column, in the
    order of the headers."""
    picture = shown.standings_post(view()).picture
    assert picture is not None
    assert [row.cells for row in picture.rows] == [
        ("1", "0", "60", "20", "1"),
        ("0", "1", "50", "9", "1"),
        ("0", "0", "40", "8", "1"),
    ]


def test_the_end_names_the_winner() -> None:
    over = view(status=TournamentStatus.OVER)
    post = shown.standings_post(over)
    assert post.embed.title == "🏆 Spring cup: final standings"
    assert (post.embed.description or "").startswith("🏆 Winner: <@101>")
    assert post.embed.fields == []
    assert shown.finished_text(over) == (
        "🏆 <@101> wins **Spring cup**! [The final standings](https://discord.com/channels/1/2/9)"
    )
    aborted = shown.standings_post(view(status=TournamentStatus.ABORTED))
    assert f"aborted by <@{MOD}>" in (aborted.embed.description or "")
    assert aborted.picture is not None
    assert not any(row.leader for row in aborted.picture.rows), "nobody leads an abort"


def test_a_shared_first_place_is_told_as_shared() -> None:
    over = view(status=TournamentStatus.OVER)
    first, second, *rest = over.standings
    tied = dataclasses.replace(over, standings=(first, dataclasses.replace(second, rank=1), *rest))
    assert (shown.standings_post(tied).embed.description or "").startswith(
        "🏆 Shared first place: <@101>, <@102>"
    )
    assert shown.finished_text(tied) == (
        "🏆 <@101>, <@102> share first place in **Spring cup**! "
        "[The final standings](https://discord.com/channels/1/2/9)"
    )


@pytest.mark.parametrize("status", [TournamentStatus.RUNNING, TournamentStatus.OVER])
def test_a_shared_first_place_stars_every_player_in_it(status: TournamentStatus) -> None:
    """The picture's star and lighter row go to everyone ranked first, as the text names them
    all, not only to the one listed first."""
    base = view(status=status)
    first, second, *rest = base.standings
    tied = dataclasses.replace(base, standings=(first, dataclasses.replace(second, rank=1), *rest))
    picture = shown.standings_post(tied).picture
    assert picture is not None
    assert [row.rank for row in picture.rows] == ["1", "1", "3"]
    assert [row.leader for row in picture.rows] == [True, True, False]


def test_nobody_leads_before_a_point_is_won() -> None:
    start = view(tables=view().tables[:2], standings=tuple(standings(PLAYERS, [], 2)))
    picture = shown.standings_post(start).picture
    assert picture is not None
    assert [row.rank for row in picture.rows] == ["1", "1", "1"]
    assert not any(row.leader for row in picture.rows), "a star for everyone would mean nothing"


def test_a_tournament_over_without_a_point_stars_everyone_it_names_as_winners() -> None:
    """Every game aborted: the end names every player as sharing first place, and the picture
    stars each of them as it does any first place it names."""
    over = view(
        status=TournamentStatus.OVER,
        tables=view().tables[:2],
        standings=tuple(standings(PLAYERS, [], 2)),
    )
    post = shown.standings_post(over)
    assert (post.embed.description or "").startswith("🏆 Shared first place:")
    assert post.picture is not None
    assert [row.leader for row in post.picture.rows] == [True, True, True]


def test_threads_are_named_within_discord_s_limit_and_welcome_their_players() -> None:
    running = view(name="N" * 100)
    table = running.tables[2]
    name = shown.thread_name(running, table)
    assert len(name) <= 100
    assert name.endswith("… · round 2 · table 1")
    welcome = shown.welcome_post(view(), table)
    assert welcome.pings == (101, 103)
    assert welcome.content is not None
    assert "<@101>, <@103>: round 2 of **Spring cup**, table 1" in welcome.content
    bye = shown.welcome_post(view(), view().tables[3])
    assert bye.pings == (102,)
    assert "bye" in (bye.content or "")
    assert "AI (medium)" in (bye.content or "")
    assert "https://discord.com/channels/1/2/9" in (welcome.embed.description or "")


@pytest.mark.parametrize("locale", ["fr", "uk"])
def test_a_tournament_in_another_language_writes_no_english(locale: str) -> None:
    """No English sentence shows, and no text, a column's short header included, was looked
    up in English."""
    with texts_looked_up() as looked_up:
        written = everything(locale)
    assert len(written) > 40
    assert {(fragment, line) for line in written for fragment in english_in(line)} == set()
    assert {key for key, _ in looked_up} >= {f"tournament.column.{c}" for c in shown.COLUMNS}
    assert asked_in_another_language(looked_up, locale) == set()


def test_the_check_finds_english_in_an_english_tournament() -> None:
    assert any(english_in(line) for line in everything("en"))


def test_the_picture_speaks_the_tournament_s_language() -> None:
    french = shown.standings_post(view("fr")).picture
    ukrainian = shown.standings_post(view("uk")).picture
    assert french is not None
    assert ukrainian is not None
    assert french.headers[1] == "Joueur"
    assert french.subtitle == "Ronde 2 sur 2 · système suisse"
    assert ukrainian.headers[1] == "Гравець"
    assert "тур" in shown.thread_name(view("uk"), view("uk").tables[0])


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_seats_a_table_take_the_plural_of_their_count(seats: int) -> None:
    said = {language: shown.options_line(view(language, seats=seats)) for language in LANGUAGES}
    assert f"{seats} seats a table" in said["en"]
    assert f"{seats} places par table" in said["fr"]
    assert f"{seats} місця за столом" in said["uk"]


def test_a_cancelled_sign_up_is_titled_cancelled() -> None:
    titles = {
        language: shown.signup_post(view(language, TournamentStatus.CANCELLED)).embed.title
        for language in LANGUAGES
    }
    assert titles == {
        "en": "🏆 Spring cup: cancelled",
        "fr": "🏆 Spring cup : tournoi annulé",
        "uk": "🏆 Spring cup: скасовано",
    }


def test_an_aborted_tournament_in_french_agrees_whatever_its_name_s_gender() -> None:
    """The French past participle agrees with "tournoi", named before the tournament's name."""
    aborted = view("fr", TournamentStatus.ABORTED, name="Coupe d'été", ended_by=555)
    assert shown.aborted_text(aborted).startswith(
        "Le tournoi **Coupe d'été** a été arrêté par <@555>"
    )
    assert shown.standings_post(aborted).embed.title == "🏆 Coupe d'été : tournoi arrêté"


def test_an_aborted_tournament_leaves_nobody_a_game_to_play() -> None:
    picture = shown.standings_post(view(status=TournamentStatus.ABORTED)).picture
    assert picture is not None
    assert [row.cells[-1] for row in picture.rows] == ["0", "0", "0"]


def crowded(seats: int, players: int, name: str) -> TournamentView:
    """Round 1 of a tournament of `players` with real-sized ids, every table in its thread."""
    ids = [1_576_688_301_073_629_000 + k for k in range(players)]
    per = [tuple(ids[k : k + seats]) for k in range(0, players, seats)]
    tables = tuple(
        TableView(1, number, table, 1_576_688_372_125_139_000 + number, number, GameStatus.RUNNING)
        for number, table in enumerate(per, start=1)
    )
    return view(
        name=name,
        seats=seats,
        rounds=6,
        tables=tables,
        entrants=tuple(Entrant(user, f"player {user}") for user in ids),
        standings=tuple(standings(ids, [], seats)),
    )


@pytest.mark.parametrize(
    ("seats", "players", "left_over"),
    [(2, 64, False), (3, 63, False), (4, 64, False), (2, 22, False), (2, 200, True)],
)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_round_of_many_tables_shows_whole_lines_and_counts_the_rest(
    seats: int, players: int, left_over: bool, language: str
) -> None:
    """Discord refuses a field over 1,024 characters and an embed over 6,000: the round's
    tables are listed whole, line by line, over as many fields as needed, and those that do
    not fit are counted, never cut mid-mention. A tournament's most players (MAX_PLAYERS)
    all fit; a round of more than that (200) leaves tables over to count."""
    round_one = dataclasses.replace(crowded(seats, players, "x" * 100), locale=language)
    embed = shown.standings_post(round_one).embed
    assert len(embed) <= 6000
    values = [field.value or "" for field in embed.fields]
    assert all(len(value) <= 1024 for value in values)
    listed = [line for value in values for line in value.split("\n")]
    tables = round_one.round_tables(1)
    shown_tables = [t for t in tables if any(f"<#{t.thread_id}>" in line for line in listed)]
    whole = [shown.table_line(round_one, t) for t in shown_tables]
    assert listed[: len(whole)] == whole, "each table's line whole, in order"
    left = len(tables) - len(shown_tables)
    assert len(shown_tables) >= min(len(tables), 20)
    assert bool(left) == left_over, f"{left} tables left over"
    if left:
        assert listed[len(whole) :] == [text("tournament.more_tables", language, count=left)]
    else:
        assert listed == whole


@pytest.mark.parametrize(("seats", "players"), [(2, 64), (4, 64), (2, 200)])
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_round_listed_over_several_fields_is_an_embed_discord_takes(
    seats: int, players: int, language: str
) -> None:
    """The round's name heads its first field only, yet Discord requires a name on every
    field: the standings of a round over several fields pass every check of Discord's that
    the fake knows (names and values required, their lengths, 25 fields, 6,000 in all), or
    the standings would never be updated."""
    round_one = dataclasses.replace(crowded(seats, players, "x" * 100), locale=language)
    embed = shown.standings_post(round_one).embed
    assert len(embed.fields) > 2, "the round takes several fields"
    assert check_message({"embeds": [embed.to_dict()]}, []) == []


def test_tables_beyond_the_room_are_counted_in_a_last_line() -> None:
    round_one = crowded(2, 64, "Spring cup")
    lines = [shown.table_line(round_one, table) for table in round_one.round_tables(1)]
    fields = shown._table_fields(round_one, lines, len("Round 1"), 1500)
    listed = "\n".join(fields).split("\n")
    assert sum(len(field) for field in fields) + len("Round 1") + len(fields) - 1 <= 1500
    assert listed[:-1] == lines[: len(listed) - 1]
    assert listed[-1] == f"… and {len(lines) - len(listed) + 1} more tables, each in its thread."


def test_a_field_of_tables_takes_whole_lines_up_to_1024_characters_newlines_included() -> None:
    """Lines that come to 1,024 characters with the newlines between them share a field; one
    character more and the last line starts the next field."""
    round_one = crowded(2, 64, "Spring cup")
    exact = ["a" * 100] * 9 + ["b" * 115]  # 900 + 9 newlines + 115 = 1,024
    fields = shown._table_fields(round_one, exact, len("Round 1"), 6000)
    assert fields == ["\n".join(exact)]
    assert len(fields[0]) == shown.FIELD_LIMIT
    over = [*exact[:-1], "b" * 116]
    fields = shown._table_fields(round_one, over, len("Round 1"), 6000)
    assert [len(field) for field in fields] == [908, 116], "the newline counts"
    assert fields == ["\n".join(over[:-1]), over[-1]]


@pytest.mark.parametrize(
    ("locale", "subtitle"),
    [
        ("en", "Aborted before its first round"),
        ("fr", "Arrêté avant sa première ronde"),
        ("uk", "Зупинено до першого туру"),
    ],
)
def test_a_tournament_aborted_before_its_first_pairing_names_no_round_0(
    locale: str, subtitle: str
) -> None:
    """Started, then aborted before any table was paired (a process stopped in between): its
    standings say it never reached a round, not that it stopped in round 0."""
    aborted = view(locale, TournamentStatus.ABORTED, tables=())
    picture = shown.standings_post(aborted).picture
    assert picture is not None
    assert picture.subtitle == subtitle
    started = shown.standings_post(view(locale, TournamentStatus.ABORTED)).picture
    assert started is not None
    assert "2" in started.subtitle, "a round reached is named"


@pytest.mark.parametrize(
    ("locale", "listed", "noted", "done", "done_other"),
    [
        (
            "en",
            "<@102> before round 1",
            "withdrew before round 1",
            "You withdrew from **Cup** before its first round.",
            "<@102> is withdrawn from **Cup** before its first round.",
        ),
        (
            "fr",
            "<@102> avant la ronde 1",
            "retiré avant la ronde 1",
            "Vous vous êtes retiré de **Cup** avant sa première ronde.",
            "<@102> est retiré de **Cup** avant sa première ronde.",
        ),
        (
            "uk",
            "<@102> до першого туру",
            "вихід до першого туру",
            "Ви вийшли з турніру **Cup** до його першого туру.",
            "<@102> виведено з турніру **Cup** до його першого туру.",
        ),
    ],
    ids=["en", "fr", "uk"],
)
def test_a_withdrawal_before_the_first_pairing_names_no_round_0(
    locale: str, listed: str, noted: str, done: str, done_other: str
) -> None:
    """Withdrawn once the tournament started but before its first round was paired (the
    pairing runs in the workers after the start): the standings and the answer say before the
    first round, not after round 0."""
    out = withdrawn(view(locale), 102, 0)
    post = shown.standings_post(out)
    description = post.embed.description or ""
    assert text("tournament.withdrawn", locale, players=listed) in description
    assert post.picture is not None
    assert noted in [row.note for row in post.picture.rows]
    assert shown.withdrawal_text(locale, name="Cup", user="<@102>", after=0, own=True) == done
    assert shown.withdrawal_text(locale, name="Cup", user="<@102>", after=0, own=False) == (
        done_other
    )
    assert shown.withdrawal_text(locale, name="Cup", user="<@102>", after=2, own=True) == text(
        "tournament.withdraw.done", locale, name="Cup", round=2
    )
    assert " 0" not in description
