"""What every test on the fake Discord checks once its bots are stopped: no invalid request
(an answer of 401, 403 or 429: Discord bans an address after too many) but those the test
provoked; no request Discord refuses as sent (400 or 413: the player never sees that
message) but those the test provoked; and no embed
pointing at `attachment://NAME` while its message has no such file (Discord shows it without
its picture).

A test marks what it provokes on purpose: `invalid_requests(403, ...)` for the statuses it
expects (a bot denied a permission), `refused_requests(50035, ...)` for the statuses or
Discord codes of the refusals it expects (a body over a limit, an interaction answered twice),
`missing_attachments` for an embed sent without its file. Injected faults never count. The
end-to-end tests' `fake` fixture runs the checks after each test (tests/e2e/conftest.py), a
test with a fake Discord of its own calls `check_fake_after_test`, and the in-process edge's
harness runs them as it closes (tests/bot/edge/test_edge.py).
"""

from __future__ import annotations

import pytest

from tests.e2e.fakecord import FakeDiscord

LATE_ANSWER_CODES = (10062, 10015)
"""Discord codes refusing an interaction's answer for coming late, or following one that did:
on a busy test machine they depend on its load, so `check_refused_requests` leaves them out."""


def check_invalid_requests(server: FakeDiscord, node: pytest.Item | None) -> None:
    """No 401, 403 or 429 from `server` but those the test `node` provoked (its injected faults
    and the statuses its `invalid_requests` marker names), and those a restarted process cannot
    avoid: the first request it makes in a bucket its killed predecessor spent
    (`RecordedRequest.inherited`; it then waits as the answer says)."""
    marker = node.get_closest_marker("invalid_requests") if node is not None else None
    expected = set(marker.args) if marker is not None else set()
    unexpected = [
        f"{r.method} {r.path} -> {r.status}" + (f" ({r.scope})" if r.scope else "")
        for r in server.invalid_requests
        if r.fault is None and r.status not in expected and not r.inherited
    ]
    assert not unexpected, "invalid requests (401/403/429):\n" + "\n".join(unexpected[:20])


def check_refused_requests(server: FakeDiscord, node: pytest.Item | None) -> None:
    """No request `server` refused as Discord would (`RecordedRequest.refused`) but those the
    test `node` provoked: its injected faults, and those whose status or Discord code its
    `refused_requests` marker names.

    Counted: 400 (50035 Invalid Form Body, a text over a limit or too many components; 50006
    an empty message; 40060 an interaction answered twice; 50109 invalid JSON; ...) and 413
    (40005, a file too large). Each is a message a player never sees, and a bot can avoid
    every one whatever the machine's load. Left out: the answers that refuse an interaction's
    answer for coming late (404 10062 after Discord's 3 s, and 10015 for a follow-up of an
    interaction so refused), which on a busy test machine depend on its load (how fast the bot
    answers is measured by the load benchmarks, `WAIT_SECONDS`); the other 404s, such as 10008
    Unknown Message (a message someone, or another process of the bot, deleted already) or
    10003 Unknown Channel (a channel deleted meanwhile), which a bot meets without fault; and
    401, 403 and 429, which `check_invalid_requests` counts."""
    marker = node.get_closest_marker("refused_requests") if node is not None else None
    expected = set(marker.args) if marker is not None else set()
    unexpected = [
        r.describe()
        for r in server.refused_requests
        if r.fault is None
        and r.code not in LATE_ANSWER_CODES
        and r.status not in expected
        and r.code not in expected
    ]
    assert not unexpected, "requests Discord refuses as sent (400, 413):\n" + (
        "\n".join(unexpected[:20])
    )


def check_attachments(server: FakeDiscord, node: pytest.Item | None) -> None:
    """No embed sent to `server` named an attachment its message lacked, unless the test
    `node` is marked `missing_attachments`."""
    if node is not None and node.get_closest_marker("missing_attachments") is not None:
        return
    missing = [link.describe() for link in server.missing_attachments]
    assert not missing, "embeds naming a file their message lacks:\n" + "\n".join(missing[:20])


def check_fake_after_test(server: FakeDiscord, node: pytest.Item | None) -> None:
    """Every check, for a fake Discord a test starts itself (a second one, or one of its own
    shard count), once the bots using it are stopped."""
    check_invalid_requests(server, node)
    check_refused_requests(server, node)
    check_attachments(server, node)
