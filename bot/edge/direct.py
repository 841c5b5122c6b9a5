"""The bot's direct messages: every one (a player's at their turn, a spectator's at the turns
they follow) goes out through `deliver_direct`, mentioning nobody, so that what decides
whether a message may reach a person now has one place to sit."""

from __future__ import annotations

import asyncio
import logging
from enum import Enum

import discord

from bot.edge.answers import DISCORD_TIMEOUT_SECONDS
from bot.edge.incidents import failure_level, why

log = logging.getLogger(__name__)

CANNOT_SEND_TO_USER = 50007
"""Discord's code for a direct message the person does not accept."""


async def deliver_direct(
    client: discord.Client, user_id: int, content: str, patience: float = DISCORD_TIMEOUT_SECONDS
) -> None:
    """Send the user a direct message, mentioning nobody: every direct message of the bot
    (a turn's, a spectator's) goes out here, each step within `patience` seconds. Raises what
    Discord answers."""
    channel = await asyncio.wait_for(client.create_dm(discord.Object(user_id)), patience)
    await asyncio.wait_for(
        channel.send(content, allowed_mentions=discord.AllowedMentions.none()), patience
    )


class Delivery(Enum):
    """What became of a direct message sent as a courtesy."""

    SENT = "sent"
    CLOSED = "closed"
    """Refused: the person's direct messages are closed to the bot (Discord's 50007). Every
    such refusal counts towards Discord's limit of invalid requests: send them no more."""
    FAILED = "failed"


async def send_direct(
    client: discord.Client, user_id: int, content: str, patience: float = DISCORD_TIMEOUT_SECONDS
) -> Delivery:
    """`deliver_direct`, as a courtesy: a message Discord refuses or loses is logged and not
    sent again; one refused for closed direct messages is the caller's to act on and say."""
    try:
        await deliver_direct(client, user_id, content, patience)
    except discord.Forbidden as error:
        if error.code == CANNOT_SEND_TO_USER:
            return Delivery.CLOSED
        log.warning("a direct message to user %s was refused (%s)", user_id, why(error))
        return Delivery.FAILED
    except Exception as error:
        log.log(
            failure_level(error),
            "a direct message to user %s was not sent (%s)",
            user_id,
            why(error),
        )
        return Delivery.FAILED
    return Delivery.SENT
