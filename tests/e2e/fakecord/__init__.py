"""fakecord: a local fake of the Discord API (REST + gateway) for end-to-end bot tests."""

from . import permissions
from .faults import (
    Disconnect,
    ErrorResponse,
    FaultInjector,
    FaultRule,
    Hang,
    RateLimit,
    ServerError,
)
from .gateway import GatewaySession, NoGatewaySessionError
from .interactions import InteractionEvent, InteractionHandle, InteractionInputError, LatencyStats
from .model import (
    Button,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
)
from .process import BotExitedError, BotProcess
from .server import FakeDiscord

__all__ = [
    "BotExitedError",
    "BotProcess",
    "Button",
    "Disconnect",
    "ErrorResponse",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "FaultInjector",
    "FaultRule",
    "GatewaySession",
    "Hang",
    "InteractionEvent",
    "InteractionHandle",
    "InteractionInputError",
    "LatencyStats",
    "NoGatewaySessionError",
    "RateLimit",
    "ServerError",
    "permissions",
]
