"""REST routes of interactions: the initial callback, follow-ups and webhook message edits."""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from . import errors
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    INTERACTION_TOKEN_LIFETIME,
    MESSAGE_COMPONENT,
    MODAL,
    PONG,
    UPDATE_MESSAGE,
    InteractionEvent,
    InteractionHandle,
)
from .limits import check_autocomplete, form_error_body
from .messages import MessageStore, Upload, read_body
from .model import FakeMessage
from .responses import Route, json_response, no_content
from .world import World

Json = dict[str, Any]

CHAT_INPUT_REPLY = 20


class InteractionRoutes:
    """Answers to interactions, with Discord's 3 s deadline and one acknowledgement each."""

    def __init__(self, world: World, store: MessageStore) -> None:
        self.world = world
        self.store = store
        self.callback_deadline: float | None = 3.0
        """Seconds within which the first callback must arrive (Discord: 3 s); None: no limit."""

    def routes(self) -> list[Route]:
        webhook_message = "/webhooks/{app_id}/{token}/messages/{message_id}"
        return [
            ("POST", "/interactions/{interaction_id}/{token}/callback", self.callback),
            ("POST", "/webhooks/{app_id}/{token}", self.followup),
            ("GET", webhook_message, self.get_webhook_message),
            ("PATCH", webhook_message, self.edit_webhook_message),
            ("DELETE", webhook_message, self.delete_webhook_message),
        ]

    def _interaction(self, request: web.Request) -> InteractionHandle:
        if int(request.match_info["app_id"]) != self.world.application_id:
            raise errors.unknown("Webhook", errors.UNKNOWN_WEBHOOK)
        token = request.match_info["token"]
        handle = self.world.interactions_by_token.get(token)
        if handle is None or not handle.acknowledged:
            raise errors.unknown("Webhook", errors.UNKNOWN_WEBHOOK)
        if self.world.now() - handle.created_at > INTERACTION_TOKEN_LIFETIME:
            raise errors.DiscordError(401, errors.INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
        return handle

    def _webhook_message(self, request: web.Request, handle: InteractionHandle) -> FakeMessage:
        raw = request.match_info["message_id"]
        message_id = handle.original_message_id if raw == "@original" else int(raw)
        owned = {handle.original_message_id, *handle.followup_ids}
        message = self.world.messages.get(message_id or 0) if message_id in owned else None
        if message is None or message.deleted:
            raise errors.unknown("Message", errors.UNKNOWN_MESSAGE)
        return message

    async def callback(self, request: web.Request) -> web.Response:
        arrived = time.perf_counter()
        handle = self.world.interactions.get(int(request.match_info["interaction_id"]))
        if handle is None or handle.token != request.match_info["token"]:
            raise errors.unknown("interaction", errors.UNKNOWN_INTERACTION)
        handle.callback_attempts += 1
        body, uploads = await read_body(request)
        if handle.acknowledged:
            handle.refusals.append(errors.ALREADY_ACKNOWLEDGED)
            raise errors.DiscordError(
                400, errors.ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged."
            )
        if (
            self.callback_deadline is not None
            and handle.queued_at is not None
            and arrived - handle.queued_at > self.callback_deadline
        ):
            handle.refusals.append(errors.UNKNOWN_INTERACTION)
            self.world.notify()
            raise errors.unknown("interaction", errors.UNKNOWN_INTERACTION)
        response_type = int(body.get("type", 0))
        data: Json = body.get("data") or {}
        try:
            message = self._apply_callback(handle, response_type, data, uploads)
        except errors.DiscordError as error:
            handle.refusals.append(int(error.body["code"]))
            self.world.notify()
            raise
        handle.callback_type = response_type
        handle.responded_at = arrived
        handle.record(InteractionEvent("callback", arrived, response_type, message, body))
        if request.query.get("with_response") not in ("1", "true", "True"):
            return no_content()
        original = handle.original_message()
        interaction: Json = {"id": str(handle.id), "type": handle.type}
        if original is not None and response_type != DEFERRED_UPDATE_MESSAGE:
            interaction["response_message_id"] = str(original.id)
            interaction["response_message_loading"] = original.loading
            interaction["response_message_ephemeral"] = original.ephemeral
        result: Json = {"interaction": interaction}
        if message is not None:
            result["resource"] = {"type": response_type, "message": message.to_payload()}
        elif response_type != DEFERRED_UPDATE_MESSAGE:
            result["resource"] = {"type": response_type}
        return json_response(result)

    def _apply_callback(
        self, handle: InteractionHandle, response_type: int, data: Json, uploads: list[Upload]
    ) -> FakeMessage | None:
        ephemeral = bool(int(data.get("flags") or 0) & 64)
        visible_to = handle.user.id if ephemeral else None
        is_component = handle.type == MESSAGE_COMPONENT
        source = self.world.messages.get(handle.source_message_id or 0)
        if response_type == CHANNEL_MESSAGE:
            kind = CHAT_INPUT_REPLY if handle.type == APPLICATION_COMMAND else 0
            message = self.store.create(
                handle.channel,
                data,
                uploads,
                visible_to=visible_to,
                interaction=handle,
                message_type=kind,
            )
            handle.original_message_id = message.id
            return message
        if response_type == DEFERRED_CHANNEL_MESSAGE:
            kind = CHAT_INPUT_REPLY if handle.type == APPLICATION_COMMAND else 0
            message = self.store.create(
                handle.channel,
                {},
                [],
                visible_to=visible_to,
                interaction=handle,
                message_type=kind,
                loading=True,
            )
            handle.original_message_id = message.id
            return message
        if response_type in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE):
            if not is_component or source is None:
                raise errors.DiscordError(400, 40004, "Interaction response type needs a message")
            handle.original_message_id = source.id
            if response_type == UPDATE_MESSAGE:
                return self.store.edit(source, data, uploads)
            return None
        if response_type == PONG and handle.type == 1:
            return None
        if response_type == AUTOCOMPLETE_RESULT:
            problems = check_autocomplete(data)
            if problems:
                detail = form_error_body(problems)
                raise errors.DiscordError(
                    400, errors.INVALID_FORM_BODY, "Invalid Form Body", errors=detail["errors"]
                )
            return None
        if response_type == MODAL:
            return None
        raise errors.DiscordError(
            400, errors.INVALID_FORM_BODY, f"Invalid response type {response_type}"
        )

    async def followup(self, request: web.Request) -> web.Response:
        handle = self._interaction(request)
        body, uploads = await read_body(request)
        original = handle.original_message()
        if (
            original is not None
            and original.loading
            and not original.deleted
            and original.interaction_id == handle.id
        ):  # the first follow-up of a deferred answer is that answer
            message = self.store.edit(original, body, uploads, finishes_loading=True)
        else:
            ephemeral = bool(int(body.get("flags") or 0) & 64)
            message = self.store.create(
                handle.channel,
                body,
                uploads,
                visible_to=handle.user.id if ephemeral else None,
                interaction=handle,
            )
            handle.followup_ids.append(message.id)
        handle.record(InteractionEvent("followup", time.perf_counter(), None, message, body))
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(message.to_payload())
        return no_content()

    async def get_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._interaction(request)
        return json_response(self._webhook_message(request, handle).to_payload())

    async def edit_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._interaction(request)
        message = self._webhook_message(request, handle)
        body, uploads = await read_body(request)
        message = self.store.edit(message, body, uploads)
        kind = "edit_original" if message.id == handle.original_message_id else "edit_followup"
        handle.record(InteractionEvent(kind, time.perf_counter(), None, message, body))
        return json_response(message.to_payload())

    async def delete_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._interaction(request)
        message = self._webhook_message(request, handle)
        self.store.delete(message)
        handle.record(InteractionEvent("delete", time.perf_counter(), None, message, None))
        return no_content()
