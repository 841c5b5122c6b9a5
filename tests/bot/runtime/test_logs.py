"""Tests of bot.runtime.logs: secrets never reach a log line, not even through a traceback, and
the level asked holds for the libraries too, which stay at INFO below it."""

from __future__ import annotations

import io
import logging

import pytest

from bot.runtime.logs import QUIET_LIBRARIES, REDACTED, configure_logging

SECRET = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.secret-part"


@pytest.mark.usefixtures("restore_root_logger")
def test_secret_is_redacted_in_messages_arguments_and_tracebacks() -> None:
    stream = io.StringIO()
    configure_logging("DEBUG", secrets=[SECRET], stream=stream)
    log = logging.getLogger("tests.logs")

    log.info("token is %s", SECRET)
    log.debug(f"inline {SECRET}")  # noqa: G004 (a secret formatted in is redacted too)
    try:
        raise RuntimeError(f"failed with {SECRET}")
    except RuntimeError:
        log.exception("crash")

    output = stream.getvalue()
    assert SECRET not in output
    assert output.count(REDACTED) == 3  # two messages and the exception's own line
    assert "RuntimeError" in output


@pytest.mark.usefixtures("restore_root_logger")
def test_level_filters_and_handlers_are_replaced() -> None:
    first, second = io.StringIO(), io.StringIO()
    configure_logging("INFO", stream=first)
    configure_logging("WARNING", stream=second)
    log = logging.getLogger("tests.logs")

    log.info("quiet")
    log.warning("loud")

    assert first.getvalue() == ""
    assert "quiet" not in second.getvalue()
    assert "WARNING  tests.logs: loud" in second.getvalue()


@pytest.mark.usefixtures("restore_root_logger")
def test_a_secret_that_contains_another_is_hidden_whole() -> None:
    stream = io.StringIO()
    part = SECRET.split(".")[0]
    configure_logging("INFO", secrets=[part, SECRET], stream=stream)

    logging.getLogger("tests.logs").info("token is %s", SECRET)

    output = stream.getvalue()
    assert "secret-part" not in output
    assert output.rstrip().endswith(f"token is {REDACTED}")


@pytest.mark.usefixtures("restore_root_logger")
def test_debug_keeps_the_libraries_that_log_statements_and_tokens_at_info() -> None:
    """At DEBUG, aiosqlite logs every SQL statement with its values (a game's secret seed
    among them) and discord.py every request (interaction tokens in their paths) and every
    gateway event in full (an interaction's token in its payload): those stay at INFO; the
    bot's own DEBUG lines come through."""
    stream = io.StringIO()
    configure_logging("DEBUG", stream=stream)
    logging.getLogger("aiosqlite").debug("executing INSERT INTO games (seed) VALUES ('5eed')")
    logging.getLogger("discord.webhook.async_").debug("POST webhooks/1/interaction-token")
    logging.getLogger("discord.http").debug("PATCH webhooks/1/interaction-token/messages")
    logging.getLogger("discord.gateway").debug(
        "For Shard ID 0: WebSocket Event: {'t': 'INTERACTION_CREATE', 'd': "
        "{'token': 'interaction-token'}}"
    )
    logging.getLogger("discord.client").debug("Dispatching event interaction-token")
    logging.getLogger("discord.state").debug("interaction-token in a parsed event")
    logging.getLogger("asyncpg").debug("query with values")
    logging.getLogger("bot.runtime.scheduler").debug("turn clock: 0 done")
    logging.getLogger("aiosqlite").info("a library's INFO line still shows")
    output = stream.getvalue()
    assert "5eed" not in output
    assert "interaction-token" not in output
    assert "query with values" not in output
    assert "turn clock: 0 done" in output
    assert "a library's INFO line still shows" in output


@pytest.mark.usefixtures("restore_root_logger")
@pytest.mark.parametrize(
    ("level", "below"), [("WARNING", logging.INFO), ("ERROR", logging.WARNING)]
)
def test_above_info_the_libraries_keep_to_the_level_asked_like_the_bot(
    level: str, below: int
) -> None:
    """The libraries kept at INFO under a bot at DEBUG follow any level above INFO: at WARNING,
    discord.py's connection lines and rate-limit notices are left out like the bot's own INFO
    lines, and at ERROR its warnings."""
    stream = io.StringIO()
    configure_logging(level, stream=stream)
    for library in QUIET_LIBRARIES:
        logging.getLogger(library).log(below, "%s below the level", library)
        logging.getLogger(library).log(
            logging.getLevelNamesMapping()[level], "%s at the level", library
        )
    output = stream.getvalue()
    assert "below the level" not in output
    assert output.count("at the level") == len(QUIET_LIBRARIES)
