"""The message catalogue, the error table, the presenter and the button layout."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import discord
import pytest

import engine
from ai.analysis import analyse
from bot.edge import errors
from bot.edge.buttons import CUSTOM_ID_TEMPLATE, GameButton, custom_id
from bot.edge.commands import TURN_LIMITS
from bot.edge.layout import MAX_BUTTONS, decision_buttons, lobby_action, lobby_buttons
from bot.presentation import messages, names, narration, presenter
from bot.services import AI_LEVELS, GameInfo, GameStatus, GameView, LobbyAction, Player
from bot.services import errors as service_errors
from bot.services.seat_errors import NudgeError, SubstituteError
from bot.services.views import Reminder, ServerSettings
from engine import Phase
from tests.e2e.fakecord.limits import check_message

BOT_DIR = Path(__file__).resolve().parents[3] / "bot"
LITERAL_KEY = re.compile(r'\btext\(\s*"([a-z_.\-]+)"')
DYNAMIC_FAMILIES = {
    "variant": [variant.value for variant in engine.Variant],
    "color": [color.value for color in engine.Color],
    "facing": [facing.name for facing in engine.Facing],
    "button.direction": [facing.name for facing in engine.Facing],
    "event.turned": ["L", "S", "R"],
    "event.rotated": ["L", "R"],
    "story.turned": ["L", "S", "R"],
    "end.reason": ["rugs-exhausted", "last-player-standing"],
    "choice.variant": [variant.value for variant in engine.Variant],
    "choice.turn_limit": [str(seconds) for seconds in TURN_LIMITS],
    "choice.ai_level": list(AI_LEVELS),
    "ai.level": list(AI_LEVELS),
    "button.add_ai": list(AI_LEVELS),
    "history.outcome": ["running", "won", "aborted", "cancelled", "abandoned"],
    "turn.prompt": [phase.value for phase in Phase if phase is not Phase.OVER],
    "permission": [
        "view_channel",
        "send_messages",
        "send_messages_in_threads",
        "embed_links",
        "attach_files",
    ],
}


def test_every_literal_key_used_in_bot_exists() -> None:
    used = set()
    for path in BOT_DIR.rglob("*.py"):
        used |= set(LITERAL_KEY.findall(path.read_text(encoding="utf-8")))
    assert used, "the scan found the text() calls"
    assert sorted(used - set(messages.ENGLISH)) == []


@pytest.mark.parametrize("family", sorted(DYNAMIC_FAMILIES))
def test_every_key_built_at_run_time_exists(family: str) -> None:
    for value in DYNAMIC_FAMILIES[family]:
        assert f"{family}.{value}" in messages.ENGLISH


ERROR_ARGUMENTS: dict[type[Exception], tuple[object, ...]] = {
    service_errors.GameNotFoundError: (1,),
    service_errors.ChannelHasGameError: (1, 2, 3, 4),
    service_errors.BadOptionError: ("seats", 9),
    service_errors.NotEnoughPlayersError: (1,),
    service_errors.StaleBoardError: (1, 2, 3, 4),
    service_errors.NotYourTurnError: (5,),
    service_errors.IllegalMoveError: ("a rug must touch Assam's square",),
    service_errors.GameDamagedError: (1, 2, 3, "its action log has 4 of its 5 entries"),
    service_errors.ChannelNotAllowedError: ((7, 8),),
    service_errors.NoAnalysisYetError: (1,),
    service_errors.ChannelHasTournamentError: (1, 2, 3),
    SubstituteError: ("already_in", 5),
    NudgeError: ("too_soon",),
    service_errors.OtherServerGameError: (1,),
    service_errors.UnseenGameError: (1,),
    service_errors.WithdrawError: ("already", 5),
}
"""Arguments that build a sample of each expected error (the others take none)."""


def test_every_expected_error_has_a_short_answer() -> None:
    samples = ERROR_ARGUMENTS
    kinds = service_errors.GameError.__subclasses__()
    assert len(kinds) >= 14
    for kind in kinds:
        answer = errors.describe(kind(*samples.get(kind, ())), "en")
        assert answer, kind
        assert len(answer) < 300, kind
    assert "https://discord.com/channels/3/2/4" in (
        errors.describe(service_errors.StaleBoardError(1, 2, 3, 4), "en") or ""
    )


SERVER_CHANNELS = tuple(1_312_345_678_901_234_567 + n for n in range(500))
"""As many channels as a Discord server has at most, with ids as long as Discord's are today."""


def channels_named(text: str) -> list[int]:
    return [int(channel) for channel in re.findall(r"<#([0-9]+)>", text)]


@pytest.mark.parametrize("allowed", [80, 81, 90, 500])
@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_a_channel_not_allowed_is_refused_naming_the_allowed_ones_that_fit_and_counting_the_rest(
    language: str, allowed: int
) -> None:
    """Discord refuses an answer over 2,000 characters, and the member who asked would be told
    nothing: the refusal names the server's allowed channels in order, as many as fit, and
    counts the others."""
    channel_ids = SERVER_CHANNELS[:allowed]
    answer = errors.describe(service_errors.ChannelNotAllowedError(channel_ids), language) or ""
    assert len(answer) <= 2000
    named = channels_named(answer)
    assert named == list(channel_ids[: len(named)]), "in order, none skipped"
    left_out = allowed - len(named)
    if allowed <= 80:
        assert left_out == 0, "all of them fit"
    else:
        assert len(named) >= 70, "as many as fit"
        more = messages.text("admin.channels_more", language, count=left_out)
        assert answer.endswith(f"{more}."), answer[-80:]


@pytest.mark.parametrize("allowed", [1, 160, 170, 500])
@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_the_settings_name_the_allowed_channels_that_fit_and_count_the_rest(
    language: str, allowed: int
) -> None:
    """Discord refuses an embed description over 4,096 characters, and every settings command
    would answer with an error: the settings name the allowed channels in order, as many as
    fit, count the others, and show every other setting after them."""
    channel_ids = SERVER_CHANNELS[:allowed]
    embed = presenter.settings_post(ServerSettings(1, channel_ids=channel_ids), language).embed
    assert check_message({"embeds": [embed.to_dict()]}, []) == []
    description = embed.description or ""
    named = channels_named(description)
    assert named == list(channel_ids[: len(named)]), "in order, none skipped"
    left_out = allowed - len(named)
    if allowed <= 160:
        assert left_out == 0, "all of them fit"
    else:
        assert len(named) >= 150, "as many as fit"
        more = messages.text("admin.channels_more", language, count=left_out)
        assert f"<#{named[-1]}>, {more}\n" in description, description[-400:]
    assert len(description.splitlines()) == 5, "every setting shown"


def test_an_unexpected_error_is_logged_with_the_code_the_user_sees(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert errors.describe(ZeroDivisionError(), "en") is None
    answer = errors.report(ZeroDivisionError("boom"), "testing", "en")
    code = re.search(r"error code ([0-9A-F]{6})", answer)
    assert code is not None
    assert code.group(1) in caplog.text
    assert "boom" in caplog.text
    # It may come after a change was stored (a resignation, a lobby command): it claims
    # nothing about the game, and sends the player to its message.
    assert "unchanged" not in answer
    assert "The game's message shows where it stands" in answer


def game_row(status: GameStatus = GameStatus.RUNNING, seq: int = 7) -> GameInfo:
    return GameInfo(
        id=12,
        guild_id=1,
        channel_id=2,
        host_id=100,
        status=status,
        seats_wanted=4,
        variant="standard",
        turn_limit_seconds=None,
        seed_sha256="f" * 64,
        seq=seq,
        board_message_id=None,
        board_message_seq=None,
        end_reason=None,
        ended_by=None,
    )


def view_at_place(players: int = 4) -> GameView:
    """A game whose mover (seat 0) must lay a rug next to Assam in the middle."""
    state = engine.new_game(engine.deal(players, "standard", first_player=0))
    state, _ = engine.apply(state, "S")
    state, events = engine.apply(state, "D1")
    seated = tuple(Player(100 + seat, seat) for seat in range(players))
    return GameView(game_row(), seated, state, events, events)


def test_placement_buttons_match_the_engine_order_and_fit() -> None:
    view = view_at_place()
    assert view.state is not None
    buttons = decision_buttons(view)
    assert buttons is not None
    items = buttons.children
    legal = engine.legal_actions(view.state)
    assert len(items) == len(legal) <= MAX_BUTTONS
    for number, (item, notation) in enumerate(zip(items, legal, strict=True), start=1):
        assert isinstance(item, GameButton)
        first, second = engine.parse_placement(notation)
        squares = f"{engine.square_name(first)}-{engine.square_name(second)}"
        assert item.item.label == f"{number} · {squares}", "its number on the picture, its squares"
        assert len(item.item.label) <= 80
        assert item.custom_id == f"mk:12:7:{notation}"
        assert len(item.custom_id) <= 100


def test_lobby_buttons_only_while_a_lobby() -> None:
    lobby = GameView(game_row(GameStatus.LOBBY, 0), (Player(100, None),))
    buttons = lobby_buttons(lobby)
    assert buttons is not None
    assert len(buttons.children) == 8, "4 lobby verbs, 4 AI buttons"
    assert all(len(str(cast(GameButton, item).custom_id)) <= 100 for item in buttons.children)
    assert lobby_buttons(GameView(game_row(), ())) is None


def test_each_lobby_button_names_its_lobby_action_and_nothing_else_does() -> None:
    lobby = GameView(game_row(GameStatus.LOBBY, 0), (Player(100, None),))
    buttons = lobby_buttons(lobby)
    assert buttons is not None
    named: list[LobbyAction] = []
    for item in buttons.children:
        match = CUSTOM_ID_TEMPLATE.fullmatch(str(cast(GameButton, item).custom_id))
        assert match is not None
        action = lobby_action(match["action"])
        assert action is not None, match["action"]
        named.append(action)
    assert named == list(LobbyAction), "one button per action, in the enum's order"
    assert [action.ai_level for action in named if action.ai_level] == list(AI_LEVELS)
    for move in ("L", "S", "R", "roll", "c4c5", "JOIN", "aigodlike", "ai", "", "join "):
        assert lobby_action(move) is None, move


def test_an_ai_level_there_is_not_is_refused() -> None:
    assert [LobbyAction.add_ai(level).ai_level for level in AI_LEVELS] == list(AI_LEVELS)
    with pytest.raises(service_errors.BadOptionError):
        LobbyAction.add_ai("godlike")


def test_custom_ids_round_trip_and_refuse_bad_actions() -> None:
    value = custom_id(9_007_199_254_740_993, 123456, "c4c5")
    match = CUSTOM_ID_TEMPLATE.fullmatch(value)
    assert match is not None
    assert match["action"] == "c4c5"
    assert len(value) <= 100
    for bad in ("a:b", "", "x" * 9, "c4 c5"):
        with pytest.raises(ValueError, match="bad custom_id"):
            custom_id(1, 1, bad)


def test_the_turn_embed_tells_the_story_and_every_seat() -> None:
    view = view_at_place()
    post = presenter.turn_post(view, ping=True)
    assert post.content is not None
    assert "<@100>" in post.content
    assert post.pings == (100,)
    description = post.embed.description or ""
    assert "The die shows **1**" in description
    assert "lay your red rug" in description
    table = (post.embed.fields[0].value or "").splitlines()
    assert table == [
        "🟥 <@100> · to play",
        "🟨 <@101>",
        "🟦 <@102>",
        "🟫 <@103>",
    ], "who is who and whose turn; the numbers are the picture's"
    assert post.image is not None
    assert post.image.numbered
    assert post.image.players == view.players
    assert not post.image.show_choices
    assert isinstance(post.embed, discord.Embed)
    assert len(description) <= 4096


def test_the_final_post_ranks_with_scores_and_tie_break() -> None:
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    while not state.is_over:
        actions = engine.legal_actions(state)
        state, events = engine.apply(state, actions[len(actions) // 2])
    seated = tuple(Player(100 + seat, seat) for seat in range(3))
    view = GameView(game_row(GameStatus.OVER), seated, state, events, events)
    post = presenter.final_post(view)
    text = post.embed.description or ""
    outcome = state.outcome
    assert outcome is not None
    assert text.index(f"<@{100 + outcome.ranking[0][0]}>") < text.index(
        f"<@{100 + outcome.ranking[-1][0]}>"
    )
    still_in = [seat for seat in range(3) if not state.is_eliminated(seat)]
    totals = [engine.scores(state)[seat].total for seat in still_in]
    decided_by_score = len(still_in) > 1 and len(set(totals)) == len(totals)
    assert (messages.text("end.tie_break.score", "en") in text) == decided_by_score
    for seat, score in enumerate(engine.scores(state)):
        if not state.is_eliminated(seat):
            assert f"{score.total} points" in text
    assert post.image is not None
    assert post.image.final


def test_a_seat_out_of_the_game_is_ranked_as_out_with_no_score() -> None:
    rng = random.Random(5)
    state = engine.new_game(engine.deal(3, "standard", rng))
    state, _ = engine.resign(state, 2)
    while not state.is_over:
        state, events = engine.apply(state, rng.choice(engine.legal_actions(state)))
    assert state.is_eliminated(2)
    seated = tuple(Player(100 + seat, seat) for seat in range(3))
    view = GameView(game_row(GameStatus.OVER), seated, state, events, events)
    text = presenter.final_post(view).embed.description or ""
    (line,) = [row for row in text.splitlines() if row.startswith("**") and "<@102>" in row]
    assert line == "**3.** 🟦 <@102>: out of the game", "last, and no score"


def test_a_game_won_by_the_last_seat_standing_names_no_tie_break() -> None:
    """Everyone else out: the end reason says why the game ended, and no "Decided by score"
    follows it (there was no score to compare)."""
    for deal_seed in range(300):
        rng = random.Random(deal_seed)
        state = engine.new_game(engine.deal(2, "standard", rng))
        while not state.is_over:
            state, events = engine.apply(state, rng.choice(engine.legal_actions(state)))
        assert state.outcome is not None
        if state.outcome.reason == "last-player-standing":
            break
    else:
        raise AssertionError("no game ended with one seat left")
    seated = tuple(Player(100 + seat, seat) for seat in range(2))
    view = GameView(game_row(GameStatus.OVER), seated, state, events, events)
    text = presenter.final_post(view).embed.description or ""
    assert messages.text("end.reason.last-player-standing", "en") in text
    assert messages.text("end.tie_break.score", "en") not in text
    assert "tied on" not in text


def _finished_with_dirhams(
    players: int, want: Callable[[engine.GameState], list[int] | None]
) -> engine.GameState:
    """A finished game with no seat out, its dirhams set by `want` (None: try another game)
    and its outcome ranked again (R11) from them."""
    for deal_seed in range(300):
        rng = random.Random(deal_seed)
        state = engine.new_game(engine.deal(players, "standard", rng))
        while not state.is_over:
            state, _ = engine.apply(state, rng.choice(engine.legal_actions(state)))
        if state.eliminated:
            continue
        dirhams = want(state)
        if dirhams is None:
            continue
        state = state._replace(dirhams=tuple(dirhams))
        return state._replace(outcome=engine.rank(state, "rugs-exhausted"))
    raise AssertionError("no game fits")


def _final_text(state: engine.GameState, players: tuple[Player, ...]) -> str:
    view = GameView(game_row(GameStatus.OVER), players, state, (), ())
    return presenter.final_post(view).embed.description or ""


def test_the_final_post_names_a_tie_that_dirhams_broke() -> None:
    def tie_on_points(state: engine.GameState) -> list[int] | None:
        visible = [state.visible_squares(seat) for seat in range(3)]
        if visible[0] == visible[1]:
            return None
        return [50 - visible[0], 50 - visible[1], 0]

    state = _finished_with_dirhams(3, tie_on_points)
    ahead = 0 if state.dirhams[0] > state.dirhams[1] else 1
    text = _final_text(state, (Player(100, 0), Player(101, 1), Player(102, 2)))
    behind = 1 - ahead
    tie = f"<@{100 + ahead}> and <@{100 + behind}> tied on 50 points; <@{100 + ahead}> ahead"
    assert tie in text
    assert messages.text("end.tie_break.score", "en") not in text
    assert f"Congratulations <@{100 + ahead}>!" in text


def test_a_tie_of_three_lists_them_with_commas_and_a_last_and() -> None:
    """Three seats tied on points are named "A, B and C"; the one with most dirhams ahead."""

    def all_on_fifty(state: engine.GameState) -> list[int] | None:
        visible = [state.visible_squares(seat) for seat in range(3)]
        if len(set(visible)) < 3 or max(visible) > 50:
            return None
        return [50 - square for square in visible]

    state = _finished_with_dirhams(3, all_on_fifty)
    text = _final_text(state, (Player(100, 0), Player(101, 1), Player(102, 2)))
    assert state.outcome is not None
    first, second, third = state.outcome.ranking
    tied = f"<@{100 + first[0]}>, <@{100 + second[0]}> and <@{100 + third[0]}>"
    assert f"{tied} tied on 50 points; <@{100 + first[0]}> ahead on dirhams." in text


def _first_two_even(state: engine.GameState) -> list[int] | None:
    """Seats 0 and 1 even on points and on dirhams, seat 2 without a dirham."""
    visible = [state.visible_squares(seat) for seat in range(3)]
    if visible[0] != visible[1]:
        return None
    return [30, 30, 0]


def test_a_shared_win_says_who_shares_it() -> None:
    state = _finished_with_dirhams(3, _first_two_even)
    players = (Player(100, 0), Player(None, 1, ai_level="medium"), Player(102, 2))
    text = _final_text(state, players)
    ai = names.ai_name("medium", "en")
    assert f"<@100> and {ai} tied on" in text
    assert "and on dirhams." in text
    assert f"<@100> and {ai} share the win!" in text
    assert "Congratulations" not in text
    assert messages.text("end.tie_break.score", "en") not in text


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_a_shared_win_and_its_tie_name_their_players_in_the_game_s_language(
    language: str,
) -> None:
    """The result is public: "A and B" is part of its sentences, so a French game reads
    "<@100> et <@101> se partagent la victoire !", not "<@100> and <@101> ..."."""
    state = _finished_with_dirhams(3, _first_two_even)
    game = dataclasses.replace(game_row(GameStatus.OVER), locale=language)
    players = (Player(100, 0), Player(101, 1), Player(102, 2))
    view = GameView(game, players, state, (), ())
    lines = (presenter.final_post(view).embed.description or "").splitlines()
    both = messages.text("end.names_and", language, first="<@100>", last="<@101>")
    assert messages.text("end.winner_shared", language, users=both) in lines, lines
    total = engine.scores(state)[0].total
    assert messages.text("end.tie.even", language, users=both, total=total) in lines, lines


def test_seats_that_share_a_place_share_its_number_and_the_next_counts_everyone_above() -> None:
    """Two seats tied on points and on dirhams both read "**1.**"; the seat after them is
    "**3.**", as in the analysis and a tournament's standings."""

    def even(state: engine.GameState) -> list[int] | None:
        visible = [state.visible_squares(seat) for seat in range(3)]
        if visible[0] != visible[1] or visible[2] >= visible[0] + 30:
            return None
        return [30, 30, 0]

    state = _finished_with_dirhams(3, even)
    text = _final_text(state, (Player(100, 0), Player(101, 1), Player(102, 2)))
    ranked = [line for line in text.splitlines() if line.startswith("**")]
    places = [line.split()[0] for line in ranked]
    assert places == ["**1.**", "**1.**", "**3.**"], ranked
    assert "<@102>" in ranked[2]


def test_each_seat_s_score_reads_as_its_dirhams_plus_its_visible_squares() -> None:
    """A ranked seat reads "N points (D dirhams + V visible squares)" with its own dirhams and
    squares, in a game where no seat has as many dirhams as visible squares."""

    def apart(state: engine.GameState) -> list[int] | None:
        dirhams = [7, 13, 21]
        if any(state.visible_squares(seat) == dirhams[seat] for seat in range(3)):
            return None
        return dirhams

    state = _finished_with_dirhams(3, apart)
    text = _final_text(state, (Player(100, 0), Player(101, 1), Player(102, 2)))
    for seat, score in enumerate(engine.scores(state)):
        (line,) = [
            row for row in text.splitlines() if row.startswith("**") and f"<@{100 + seat}>" in row
        ]
        said = f"{score.total} points ({score.dirhams} dirhams + {score.visible} visible squares)"
        assert said in line, line


def test_an_ai_winner_is_named_without_congratulations() -> None:
    def ai_ahead(state: engine.GameState) -> list[int] | None:
        return [0, 90, 0]

    state = _finished_with_dirhams(3, ai_ahead)
    players = (Player(100, 0), Player(None, 1, ai_level="medium"), Player(102, 2))
    text = _final_text(state, players)
    assert f"{names.ai_name('medium', 'en')} wins." in text
    assert "Congratulations" not in text
    assert messages.text("end.tie_break.score", "en") in text


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_an_ai_winner_is_named_in_the_game_s_language(language: str) -> None:
    """The result is public: a French game reads "🤖 IA (moyenne) l'emporte.", the AI's name
    in French too."""

    def ai_ahead(state: engine.GameState) -> list[int] | None:
        return [0, 90, 0]

    state = _finished_with_dirhams(3, ai_ahead)
    game = dataclasses.replace(game_row(GameStatus.OVER), locale=language)
    players = (Player(100, 0), Player(None, 1, ai_level="medium"), Player(102, 2))
    view = GameView(game, players, state, (), ())
    lines = (presenter.final_post(view).embed.description or "").splitlines()
    ai = names.ai_name("medium", language)
    assert messages.text("end.winner_ai", language, user=ai) in lines, lines


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_seats_out_of_the_game_are_ranked_as_out_in_the_game_s_language(language: str) -> None:
    """Each seat that resigned reads as out in the game's language ("éliminé de la partie" in
    a French game), the later one out ranked above the earlier."""
    state = engine.new_game(engine.deal(3, "standard", first_player=0))
    state, _ = engine.resign(state, 2)
    state, events = engine.resign(state, 1)
    assert state.is_over
    game = dataclasses.replace(game_row(GameStatus.OVER), locale=language)
    seated = tuple(Player(100 + seat, seat) for seat in range(3))
    view = GameView(game, seated, state, events, events)
    text = presenter.final_post(view).embed.description or ""
    ranked = [line for line in text.splitlines() if line.startswith("**")]
    out = [
        messages.text("end.rank_line_out", language, place=place, dot=dot, user=f"<@{user}>")
        for place, dot, user in ((2, "🟨", 101), (3, "🟦", 102))
    ]
    assert ranked[1:] == out, ranked


def test_the_final_post_sums_up_the_payments() -> None:
    rng = random.Random(7)
    state = engine.new_game(engine.deal(3, "standard", rng))
    paid = [0, 0, 0]
    received = [0, 0, 0]
    biggest = 0
    while not state.is_over:
        state, events = engine.apply(state, rng.choice(engine.legal_actions(state)))
        for event in events:
            if isinstance(event, engine.TaxPaid):
                paid[event.payer] += event.paid
                received[event.payee] += event.paid
                biggest = max(biggest, event.paid)
    summary = presenter.payments(state)
    assert (list(summary.paid), list(summary.received)) == (paid, received)
    assert summary.biggest is not None
    assert summary.biggest.paid == biggest
    text = _final_text(state, (Player(100, 0), Player(101, 1), Player(102, 2)))
    assert "Dirhams paid and received:" in text
    assert f"<@100>: paid {paid[0]}, received {received[0]}" in text
    payer, payee = summary.biggest.payer, summary.biggest.payee
    assert f"Biggest payment: <@{100 + payer}> paid <@{100 + payee}> {biggest} dirham" in text
    assert text.index("Biggest payment") < text.index("The game record")


def test_the_final_post_s_biggest_payment_is_the_analysis_s_first_the_earlier_on_a_tie() -> None:
    """The result and the Analysis button name the same biggest payment, also when two seats
    paid the largest toll: the earlier of them."""
    for seed in range(60):
        rng = random.Random(seed)
        state = engine.new_game(engine.deal(3, "standard", rng))
        while not state.is_over:
            state, _ = engine.apply(state, rng.choice(engine.legal_actions(state)))
        biggest = presenter.payments(state).biggest
        analysis = analyse(engine.record_of(state))
        if biggest is None:
            assert analysis.biggest(1) == ()
            continue
        (first,) = analysis.biggest(1)
        shown = (biggest.payer, biggest.payee, biggest.paid)
        assert shown == (first.payer, first.payee, first.paid), seed
        tied = {(p.payer, p.payee) for p in analysis.payments if p.paid == biggest.paid}
        if len(tied) > 1:
            return
    raise AssertionError("no game whose biggest toll two seats paid")


@pytest.mark.parametrize(
    ("seconds", "label"),
    [
        (None, "no turn time limit"),
        (30 * 60, "30 min per turn"),
        (90 * 60, "90 min per turn"),
        (3600, "1 h per turn"),
        (12 * 3600, "12 h per turn"),
        (86400, "1 day per turn"),
        (3 * 86400, "3 days per turn"),
    ],
)
def test_a_turn_limit_reads_in_whole_days_hours_or_minutes(seconds: int | None, label: str) -> None:
    """A limit is given in days when it is whole days, else hours when whole hours, else
    minutes."""
    assert presenter.turn_limit_label(seconds, "en") == label


@pytest.mark.parametrize(
    ("language", "days", "label"),
    [
        ("fr", 1, "1 jour par tour"),
        ("fr", 3, "3 jours par tour"),
        ("uk", 1, "1 день на хід"),
        ("uk", 3, "3 дні на хід"),
        ("uk", 5, "5 днів на хід"),
        ("uk", 7, "7 днів на хід"),
    ],
)
def test_a_turn_limit_in_days_agrees_with_its_count_in_every_language(
    language: str, days: int, label: str
) -> None:
    """Shown on every lobby and turn: French has one form for 1 day and another for more,
    Ukrainian one for 1, one for 2 to 4 and one for 5 and more."""
    assert presenter.turn_limit_label(days * 86400, language) == label


def test_the_payment_summary_has_a_line_for_every_seat() -> None:
    """Each seat, the last one included, gets its line of dirhams paid and received."""
    rng = random.Random(7)
    state = engine.new_game(engine.deal(3, "standard", rng))
    while not state.is_over:
        state, _ = engine.apply(state, rng.choice(engine.legal_actions(state)))
    summary = presenter.payments(state)
    text = _final_text(state, (Player(100, 0), Player(101, 1), Player(102, 2)))
    for seat in range(3):
        paid, received = summary.paid[seat], summary.received[seat]
        assert f"<@{100 + seat}>: paid {paid}, received {received}" in text


def test_a_two_player_seat_shows_both_its_colours_in_the_turn_and_the_result() -> None:
    """In a game of two each seat plays two colours (R1): the turn's list of players, the
    ranking and the payment summary show both, so a player laying a blue rug sees it is theirs."""
    dots = {0: "🟥🟦", 1: "🟨🟫"}
    rng = random.Random(2)
    state = engine.new_game(engine.deal(2, "standard", rng, first_player=0))
    players = (Player(100, 0), Player(101, 1))
    turn = presenter.turn_post(GameView(game_row(), players, state))
    table = (turn.embed.fields[0].value or "").splitlines()
    assert table == [f"{dots[0]} <@100> · to play", f"{dots[1]} <@101>"]
    while not state.is_over:
        state, _ = engine.apply(state, rng.choice(engine.legal_actions(state)))
    assert presenter.payments(state).biggest is not None, "the game has a payment summary"
    text = _final_text(state, players)
    for seat, seat_dots in dots.items():
        user = f"<@{100 + seat}>"
        (rank,) = [row for row in text.splitlines() if row.startswith("**") and user in row]
        assert f".** {seat_dots} {user}: " in rank, rank
        assert f"\n{seat_dots} {user}: paid " in text, text


def test_a_seat_the_ai_plays_for_a_person_is_named_as_theirs() -> None:
    view = view_at_place()
    handed = tuple(
        dataclasses.replace(player, autoplay=True) if player.seat == 1 else player
        for player in view.players
    )
    post = presenter.turn_post(dataclasses.replace(view, players=handed))
    table = (post.embed.fields[0].value or "").splitlines()
    assert table[1] == "🟨 🤖 AI for <@101>"


def test_a_turn_the_ai_plays_for_a_person_pings_nobody() -> None:
    """The AI plays a seat handed over to it at once: its turn calls no one, not even the
    seat's person, who would otherwise be pinged at every turn the AI plays for them."""
    view = view_at_place()
    handed = tuple(
        dataclasses.replace(player, autoplay=True) if player.seat == 0 else player
        for player in view.players
    )
    view = dataclasses.replace(view, players=handed)
    assert view.ai_to_move
    post = presenter.turn_post(view, ping=True)
    assert post.content == f"🤖 AI for <@100> is playing (game #{view.id})."
    assert post.pings == (), "the mention names the seat's person without pinging them"


def test_a_turn_the_ai_plays_has_no_buttons_to_click() -> None:
    """Nobody clicks for the AI: an AI seat's turn, and a turn the AI plays for a person whose
    seat it took over, show no decision buttons (the person's own are back once they rejoin)."""
    view = view_at_place()
    assert decision_buttons(view) is not None, "a person's turn has its buttons"
    for taken in ({"autoplay": True}, {"user_id": None, "ai_level": "hard"}):
        players = tuple(
            dataclasses.replace(player, **taken) if player.seat == 0 else player
            for player in view.players
        )
        ai_turn = dataclasses.replace(view, players=players)
        assert ai_turn.ai_to_move
        assert decision_buttons(ai_turn) is None, taken


def test_a_reminder_links_to_the_turn_being_played_not_the_lobby() -> None:
    """The reminder is the late player's way back to the buttons: the lobby would leave them
    scrolling up through the turns' lines to find the turn they must play."""
    view = view_at_place()
    game = dataclasses.replace(view.game, board_message_id=555, lobby_message_id=444)
    deadline = datetime(2026, 3, 2, 8, tzinfo=UTC)
    sent = presenter.reminder_text(Reminder(dataclasses.replace(view, game=game), 100, deadline))
    assert sent == (
        "<@100>, half of your time for this turn of game #12 is gone: play "
        f"<t:{int(deadline.timestamp())}:R> or the AI will play it for you. "
        "https://discord.com/channels/1/2/555"
    )


def test_the_story_tells_a_walk_round_the_border_and_a_tax_not_paid_in_full() -> None:
    view = view_at_place()
    walk = engine.AssamMoved(
        seat=0,
        start=6,
        start_facing=engine.Facing.E,
        path=(
            engine.Step(13, engine.Facing.W, via_border=True),
            engine.Step(12, engine.Facing.W, via_border=False),
        ),
    )
    short = engine.TaxPaid(
        payer=0, payee=2, owed=5, paid=3, color=engine.Color.BLUE, region=frozenset({12})
    )
    assert narration.narrate(view, [walk, short], "en") == [
        "Assam walked g1 → g2↩ → f2.",
        "<@100> owed <@102> 5 dirhams but had only 3.",
    ]


def test_the_story_tells_a_resignation_apart_from_running_out_of_dirhams() -> None:
    """A seat that resigned is told as resigned; one that could not pay as out of the game."""
    view = view_at_place()
    resigned, out = narration.narrate(
        view,
        [engine.PlayerEliminated(1, 3, resigned=True), engine.PlayerEliminated(2, 3)],
        "en",
    )
    assert resigned == "<@101> resigned; their rugs on the board are neutral now."
    assert out == "<@102> is out of the game; their rugs on the board are neutral now."


def test_a_tax_paid_in_full_names_the_region_s_colour() -> None:
    """The story of a full payment says whose, how much, and the colour of the region."""
    view = view_at_place()
    paid = engine.TaxPaid(1, 2, 4, 4, engine.Color.RED, frozenset())
    (line,) = narration.narrate(view, [paid], "en")
    red = names.color_name(engine.Color.RED, "en")
    assert line == f"<@101> paid <@102> **4** dirhams for a {red} region of 4 squares."


def test_a_turn_too_long_to_tell_is_cut_to_what_discord_takes() -> None:
    """Discord refuses an embed description over 4,096 characters (the turn would not be
    posted at all): the story is cut there, marked with an ellipsis."""
    view = view_at_place()
    payment = engine.TaxPaid(
        payer=1, payee=2, owed=5, paid=5, color=engine.Color.BLUE, region=frozenset({12})
    )
    long = dataclasses.replace(view, turn_events=(payment,) * 100)
    description = presenter.turn_post(long).embed.description or ""
    assert len(description) == 4096
    assert description.endswith("…")
    assert description.startswith("<@101> paid <@102> **5** dirhams")
