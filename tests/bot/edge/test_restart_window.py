"""A restarted bot waits out Discord's window on a channel (5 posts and 5 edits per 5 s) that
the last run may have used before it posts or edits anything there, the notice of a seat taken
back from the AI included, and never waits for a window only its own posts opened. Through the
in-process client on the fake Discord API (tests/bot/edge/test_edge.py); the run before is
played by the same client, its restart by `resume_displays`."""

from __future__ import annotations

import pytest

from bot.presentation import messages
from tests.bot.edge.test_edge import Edge, a_window_later, mover_of, started
from tests.bot.edge.test_edge import edge as edge_fixture  # noqa: F401  (a fixture, used below)
from tests.e2e.fakecord import FakeUser

WINDOW_SECONDS = 5.0


@pytest.fixture
def edge(edge_fixture: Edge) -> Edge:  # noqa: F811  (the imported fixture, by name)
    return edge_fixture


async def seat_taken_back(edge: Edge) -> FakeUser:
    """Game 1 started; the player not to move had their seat handed to the AI, then took it
    back, committed but not told (as when the run dies in between). That player."""
    turn = await started(edge)
    mover = await mover_of(edge, turn)
    back = edge.guest if mover is edge.host else edge.host
    async with edge.store.database.transaction() as conn:
        await conn.execute(
            "UPDATE seats SET autoplay = 1, timeouts = 3 WHERE game_id = 1 AND user_id = $1",
            back.id,
        )
        await conn.execute("UPDATE games SET rev = rev + 1 WHERE id = 1")
    await edge.service.play.rejoin(1, back.id)
    return back


def told(edge: Edge, user: FakeUser) -> bool:
    notice = messages.text("rejoin.done", "en", user=f"<@{user.id}>", game_id=1)
    return any(m.content == notice for m in edge.fake.messages(edge.channel))


def recorded_waits(edge: Edge, monkeypatch: pytest.MonkeyPatch, back: FakeUser) -> list[bool]:
    """Record each wait of the display: whether the rejoin was told by then."""
    waits: list[bool] = []

    async def wait(seconds: float) -> None:
        assert 0 < seconds <= WINDOW_SECONDS
        waits.append(told(edge, back))

    monkeypatch.setattr(edge.bot.display, "_sleep", wait)
    return waits


async def test_a_restart_waits_out_the_last_run_s_window_before_telling_a_rejoin(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    back = await seat_taken_back(edge)
    waits = recorded_waits(edge, monkeypatch, back)
    await edge.bot.display.resume_displays()
    assert waits == [False], "one wait, before the notice"
    assert told(edge, back)


async def test_a_restart_after_the_window_tells_a_rejoin_without_waiting(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    back = await seat_taken_back(edge)
    waits = recorded_waits(edge, monkeypatch, back)
    a_window_later(edge, monkeypatch)
    await edge.bot.display.resume_displays()
    assert told(edge, back)
    assert waits == [], "the notice this run posted opens no window to wait for"
