"""The measuring commands of tests/bot/services (docs/performance.md): `--help` gives each
one's usage without measuring anything, and `pairing_bench` takes every count of seeds it
offers, none included."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from tests.bot.services import pairing_bench, pairing_lag, tournament_cost


@pytest.mark.parametrize(
    ("main", "usage"),
    [
        (pairing_bench.main, "usage: python -m tests.bot.services.pairing_bench [-h]"),
        (pairing_lag.main, "usage: python -m tests.bot.services.pairing_lag [-h]"),
        (tournament_cost.main, "usage: python -m tests.bot.services.tournament_cost [-h]"),
    ],
    ids=["pairing_bench", "pairing_lag", "tournament_cost"],
)
def test_help_gives_the_usage_and_measures_nothing(
    main: Callable[[Sequence[str]], object],
    usage: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def measured() -> None:
        raise AssertionError("--help measured")

    for module in (pairing_lag, tournament_cost):
        monkeypatch.setattr(module, "measure", measured)
    monkeypatch.setattr(pairing_bench, "big_events", measured)
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0
    said = capsys.readouterr()
    assert said.out.startswith(usage), said.out
    assert said.err == ""


def test_pairing_bench_without_big_events_times_no_round(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pairing_bench.main(["--seeds", "0", "--big-seeds", "0", "--sizes", "16"])
    out = capsys.readouterr().out
    for seats in pairing_bench.SEATS:
        assert f"{seats} seats: no round timed (--big-seeds 0)" in out
    assert "CPU time of a round at 16 players where most pairs met" in out
