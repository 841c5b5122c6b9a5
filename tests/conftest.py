"""Fixtures every part of the suite may use: where the repository and the test data live.

It also draws the line of the fast lane (`make test-fast`, `pytest -m "not long"`): a test is
`long`, and left out of it, when its module's name says it runs several bot processes or kills
them at crash points (`LONG_MODULES`), when it is named in `LONG_TESTS`, or when it is marked
`long` (or `slow`) itself. The full suite (`make test`, CI) runs every test.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest

from bot.runtime.logs import QUIET_LIBRARIES

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "tests" / "data"
"""Reference files the tests read (conformance vectors, game records, rulebook excerpts); see
tests/data/README.md for where each comes from."""

LONG_MODULES = (
    "tests/e2e/test_multiprocess*.py",
    "tests/e2e/test_crash*.py",
    "tests/e2e/test_*processes*.py",
)
"""End-to-end modules whose every test is long, by name: several bot processes, SIGKILLs at
crash points. A new module of that kind is long by its name alone."""

LONG_TESTS = frozenset(
    {
        "tests/e2e/test_abuse.py::test_damaged_rows_are_reported_and_other_games_go_on",
        "tests/e2e/test_async_play.py::test_one_human_and_three_ais_play_to_the_end",
        "tests/e2e/test_database_faults.py::test_the_games_wait_out_a_full_disk_under_sqlite",
        (
            "tests/e2e/test_database_faults.py::"
            "test_the_games_wait_out_a_postgresql_server_stopped_and_started_again"
        ),
        "tests/e2e/test_faults.py::test_the_game_survives_discord_faults",
        (
            "tests/e2e/test_away.py::"
            "test_away_days_and_quiet_hours_stop_clocks_and_hold_pings_across_a_restart"
        ),
        "tests/e2e/test_sharding.py::test_too_few_shards_are_refused_and_the_bot_says_why",
        "tests/e2e/test_substitutes.py::test_a_substitute_mid_game_then_the_result_and_a_nudge",
        "tests/e2e/test_watch.py::test_a_watcher_follows_a_game_to_its_end_privately",
        "tests/bot/edge/test_edge.py::test_start_up_catches_up_games_whose_message_fell_behind",
        "tests/ai/test_ai_judge_json.py::test_a_judgement_reads_back_equal_for_every_kind_of_decision",
        "tests/e2e/test_game.py::test_a_whole_game_with_kills_and_restarts",
        "tests/e2e/test_languages.py::test_a_french_server_and_a_ukrainian_member",
        (
            "tests/e2e/test_quiet_channel.py::"
            "test_a_game_no_one_plays_pauses_resumes_on_rejoin_then_ends_abandoned"
        ),
        (
            "tests/e2e/test_ratings.py::"
            "test_a_person_who_resigns_against_the_ai_loses_rating_as_the_ai_plays_it_out"
        ),
        "tests/e2e/test_sharding.py::test_a_process_with_every_shard_serves_every_guild",
        "tests/e2e/test_tournaments.py::test_a_moderator_ends_a_whole_tournament",
        (
            "tests/e2e/test_tournaments.py::"
            "test_a_swiss_tournament_of_five_with_an_ai_bye_timeouts_and_a_restart"
        ),
        "tests/test_locks.py::test_a_lock_installs_its_pins_whatever_is_published_later",
        "tests/ai/test_ai_chances.py::test_the_calibration_command_reports_the_fit_and_the_calibration",
        "tests/ai/test_ai_chances.py::test_the_fit_recovers_known_constants",
        "tests/ai/test_ai_luck.py::test_the_luck_of_a_game_goes_with_its_result",
        "tests/ai/test_ai_option_values.py::test_every_legal_option_is_valued_as_hard_values_it",
        "tests/bot/services/test_pairing_optimum.py::test_a_long_two_seat_event_takes_no_avoidable_rematch",
        (
            "tests/bot/services/test_service_memory.py::"
            "test_no_lock_is_left_behind_by_a_thousand_games"
        ),
        (
            "tests/bot/services/test_accuracy.py::"
            "test_a_seat_handed_over_counts_each_person_s_own_decisions_in_stats_and_drill"
        ),
        (
            "tests/bot/services/test_accuracy.py::"
            "test_the_ai_s_moves_for_a_person_out_of_time_count_in_neither_their_accuracy_nor_drill"
        ),
        "tests/bot/test_click_cost.py::test_a_click_between_people_costs_at_most_ten_round_trips",
        "tests/bot/test_click_cost.py::test_a_click_and_the_ai_turn_it_sets_off_cost_at_most_ten_each",
        "tests/bot/workers/test_analysis_job.py::test_the_benchmark_times_and_draws",
        "tests/bot/workers/test_analysis_job.py::test_the_review_judges_every_seat_in_the_same_job",
        "tests/engine/test_conformance.py::test_mutated_vector_cases_fail_cleanly",
        "tests/engine/test_formats.py::test_mutated_documents_raise_only_format_errors",
        "tests/test_packaging.py::test_wheel_holds_every_module_and_data_file",
    }
)
"""Single tests that take several seconds each (`pytest --durations=40`), by node id without
parameters: every parameter of a test named here is long."""


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's top folder (holds pyproject.toml)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The test suite's reference files, `DATA_DIR` (conformance/, rulebooks/)."""
    return DATA_DIR


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    """Undo a test's logging set-up (root handlers, level, the libraries' levels, warnings
    capture) afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    libraries = {name: logging.getLogger(name).level for name in QUIET_LIBRARIES}
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, library_level in libraries.items():
        logging.getLogger(name).setLevel(library_level)
    logging.captureWarnings(False)


def is_long(item: pytest.Item) -> bool:
    """Whether `item` is left out of the fast lane (see the module)."""
    return (
        any(item.get_closest_marker(name) for name in ("long", "slow"))
        or any(fnmatch(item.nodeid.partition("::")[0], pattern) for pattern in LONG_MODULES)
        or item.nodeid.partition("[")[0] in LONG_TESTS
    )


def runs_bot_processes(item: pytest.Item) -> bool:
    """Whether `item` is a long end-to-end test: one that starts bot processes and waits on
    their clicks (see `pytest_collection_modifyitems`)."""
    return item.nodeid.startswith("tests/e2e/") and item.get_closest_marker("long") is not None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the long tests `long`, for `-m "not long"` to leave out, and order the run for
    several test processes (`pytest -n`, xdist), which first hand each process a run of
    consecutive tests, then the rest to whichever process runs short of work:

    - the long end-to-end tests come first, so they all go to the first process, one after
      another: the tests of several bot processes never compete with each other for the
      machine's cores (two of them at once starve each other's clicks past Discord's 3 s);
    - the short tests come next, taken by the other processes;
    - the other long tests (work of one process: whole games judged, the analysis benchmark,
      the pairing search) come last, for whichever process is free by then, so that they do
      not lengthen the first one's run of end-to-end tests."""
    for item in items:
        if is_long(item):
            item.add_marker(pytest.mark.long)
    items.sort(key=lambda item: 0 if runs_bot_processes(item) else 2 if is_long(item) else 1)


ClosedPipeRun = Callable[..., subprocess.CompletedProcess[str]]
"""`run("ai.arena", *args)`: the command's exit status and what it wrote to stderr."""


@pytest.fixture
def into_a_closed_pipe(repo_root: Path) -> ClosedPipeRun:
    """Runs `python -m MODULE ARGS` with its output into a pipe whose reader has gone, as
    `| head` leaves it once it has its lines; the output buffered, as Python buffers a pipe's
    output unless told otherwise (so without PYTHONUNBUFFERED)."""

    def run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
        environment = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        process = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=repo_root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdout.close()
        errors = process.stderr.read()
        return subprocess.CompletedProcess(process.args, process.wait(timeout=120), "", errors)

    return run
