"""How a person's reliability reads: the time a turn usually takes, rounded up (minutes by
fives past ten, hours under two days, days beyond), the share of turns that ran out as a
rounded percentage, the lobby's note beside a name, and the stats' line of unfinished games
by how they were left."""

from __future__ import annotations

from bot.presentation.messages import text
from bot.presentation.reliability import duration_label, lobby_note, stats_line
from bot.services.reliability import ENOUGH_TURNS, Reliability

ME = 7


def test_a_turn_s_time_is_rounded_up_to_the_next_unit() -> None:
    """A median a minute past the hour reads as 2 h, never 1 h; an hour past two days as
    3 days; no time at all as 1 min, never 0 min; and minutes that round up to the hour as
    1 h, not 60 min."""
    assert duration_label(0, "en") == "1 min"
    assert duration_label(3600 + 60, "en") == "2 h"
    assert duration_label(56 * 60, "en") == "1 h"
    assert duration_label(49 * 3600, "en") == "3 days"


def test_a_part_of_a_minute_counts_as_a_whole_minute() -> None:
    """4 min 10 s read as 5 min, never 4 min (the player takes longer than that); 10 min 20 s
    are 11 minutes begun, so 15 min by fives."""
    assert duration_label(4 * 60 + 10, "en") == "5 min"
    assert duration_label(10 * 60 + 20, "en") == "15 min"
    assert duration_label(25 * 60 + 20, "en") == "30 min"


def test_hours_are_shown_up_to_two_days_and_days_beyond() -> None:
    """30 hours read as "30 h"; 47 hours still in hours; 48 hours and more in days."""
    assert duration_label(30 * 3600, "en") == "30 h"
    assert duration_label(47 * 3600, "en") == "47 h"
    assert duration_label(48 * 3600, "en") == "2 days"


def test_the_share_of_turns_that_ran_out_is_rounded_to_the_nearest_percent() -> None:
    """Two turns run out of three read as 67%, not 66%."""
    two_of_three = Reliability(ME, 1, 2, 600.0, 0, 0, 0)
    assert "67% of turns ran out" in stats_line(two_of_three, "en")


def test_a_share_of_some_turns_never_reads_none_nor_one_of_all_turns_every_one() -> None:
    """One turn run out of 250 is 0.4%: it reads 1%, never "0% of turns ran out" (which the
    lobby leaves out for someone whose turns never ran out), in the lobby and in the stats;
    249 of 250 read 99%, never 100%."""
    once = Reliability(ME, 249, 1, 600.0, 0, 0, 0)
    assert lobby_note(once, "en") == "usually plays within 10 min · 1% of turns ran out"
    assert "· 1% of turns ran out ·" in stats_line(once, "en")
    all_but_one = Reliability(ME, 1, 249, 600.0, 0, 0, 0)
    assert "· 99% of turns ran out ·" in stats_line(all_but_one, "en")


def test_enough_turns_none_of_them_timed_never_read_as_too_few_of_the_turns_needed() -> None:
    """Twelve turns, all run out (the AI played every one): that is more than the turns
    needed, so the stats never say "too few turns yet (12 of 10)"; they say that too few
    were the member's own, in each language."""
    all_ran_out = Reliability(ME, 0, ENOUGH_TURNS + 2, None, 0, 4, 0)
    for language in ("en", "fr", "uk"):
        said = stats_line(all_ran_out, language)
        assert f"({ENOUGH_TURNS + 2} " not in said, said
        assert text("reliability.untimed", language) in said, said
    assert "too few turns of their own yet to say how fast · 100% of turns ran out" in stats_line(
        all_ran_out, "en"
    )


def test_the_lobby_leaves_out_ran_out_turns_when_none_ran_out() -> None:
    """Someone whose turns never ran out gets only how fast they play, no "0% ran out"."""
    punctual = Reliability(ME, ENOUGH_TURNS, 0, 600.0, 0, 0, 0)
    assert lobby_note(punctual, "en") == "usually plays within 10 min"


def test_the_lobby_says_nothing_beside_a_name_before_enough_timed_turns() -> None:
    """A few turns say little about how someone plays: the lobby says nothing of them (where
    the stats would say it is too soon to tell) until they played ENOUGH_TURNS turns, one of
    them timed at least."""
    assert lobby_note(None, "en") is None
    assert lobby_note(Reliability(ME, ENOUGH_TURNS - 1, 0, 600.0, 0, 0, 0), "en") is None
    assert lobby_note(Reliability(ME, ENOUGH_TURNS - 5, 4, 600.0, 0, 0, 0), "en") is None
    assert lobby_note(Reliability(ME, ENOUGH_TURNS, 0, None, 0, 0, 0), "en") is None
    enough = Reliability(ME, ENOUGH_TURNS, 0, 600.0, 0, 0, 0)
    assert lobby_note(enough, "en") == "usually plays within 10 min"


def test_the_stats_count_each_way_a_game_was_left() -> None:
    """Resigned, left to the AI and substituted away each show their own count, and the
    unfinished games their sum."""
    left = Reliability(ME, ENOUGH_TURNS, 0, 600.0, 1, 2, 3)
    assert stats_line(left, "en").endswith(
        "6 games left unfinished (1 resigned, 2 left to the AI, 3 substituted away)"
    )
    one = Reliability(ME, ENOUGH_TURNS, 0, 600.0, 0, 1, 0)
    assert stats_line(one, "fr").endswith(
        "1 partie laissée inachevée (0 par abandon, 1 laissée à l'IA, 0 à un remplaçant)"
    )
    assert stats_line(Reliability(ME, ENOUGH_TURNS, 0, 600.0, 0, 2, 0), "fr").endswith(
        "(0 par abandon, 2 laissées à l'IA, 0 à un remplaçant)"
    )


def test_the_stats_say_in_a_few_words_that_no_game_was_left() -> None:
    """No unfinished game: no breakdown of zeros, which would wrap over lines on a phone."""
    none = Reliability(ME, ENOUGH_TURNS, 0, 600.0, 0, 0, 0)
    endings = [stats_line(none, language).rsplit(" · ", 1)[1] for language in ("en", "fr", "uk")]
    assert endings == [
        "no game left unfinished",
        "aucune partie laissée inachevée",
        "жодної незавершеної гри",
    ]
