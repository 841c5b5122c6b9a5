"""Discord's message limits: checks a message body and lists what Discord would reject."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .model import COMPONENTS_V2, iter_components

Json = dict[str, Any]

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_EMBED_TITLE = 256
MAX_EMBED_DESCRIPTION = 4096
MAX_EMBED_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_AUTHOR_NAME = 256
MAX_NONCE = 25
"""The most characters of a message's nonce (when a text; a number is one of 64 bits)."""
MAX_MENTIONED = 100
"""The most ids `allowed_mentions` lists in `users`, and in `roles`."""
MAX_ACTION_ROWS = 5
MAX_ROW_BUTTONS = 5
MAX_CUSTOM_ID = 100
MAX_BUTTON_LABEL = 80
MAX_SELECT_OPTIONS = 25
MAX_OPTION_TEXT = 100
"""The most characters of a select option's label, value and description."""
MAX_PLACEHOLDER = 150
MAX_AUTOCOMPLETE_CHOICES = 25
MAX_CHOICE_TEXT = 100
"""The most characters of an autocomplete choice's name, and of its value when a text."""
MAX_V2_COMPONENTS = 40
MAX_FILES = 10
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
"""The most bytes of a file where a server has no boosts; a bigger one gets 413 / 40005."""

BUTTON = 2
ACTION_ROW = 1
SELECT_TYPES = (3, 5, 6, 7, 8)
LINK_STYLE = 5
PREMIUM_STYLE = 6


@dataclass(frozen=True, slots=True)
class FormError:
    """One rejected field: a dotted path into the body, Discord's error code and a message."""

    path: str
    code: str
    message: str


def check_message(body: Json, file_sizes: list[int]) -> list[FormError]:
    """Everything Discord would refuse in a message create (or edit) body."""
    errors: list[FormError] = []
    content = body.get("content")
    if isinstance(content, str) and len(content) > MAX_CONTENT:
        errors.append(
            FormError(
                "content", "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_CONTENT} or fewer in length."
            )
        )
    nonce = body.get("nonce")
    if isinstance(nonce, str) and len(nonce) > MAX_NONCE:
        errors.append(
            FormError("nonce", "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_NONCE} or fewer in length.")
        )
    flags = int(body.get("flags") or 0)
    embeds = body.get("embeds") or []
    if flags & COMPONENTS_V2:
        if content or embeds:
            errors.append(
                FormError(
                    "content",
                    "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                    "content and embeds cannot be used with the IS_COMPONENTS_V2 flag.",
                )
            )
        errors.extend(_check_components_v2(body.get("components") or []))
    else:
        errors.extend(_check_embeds(embeds))
        errors.extend(_check_components(body.get("components") or []))
    errors.extend(_check_files(file_sizes))
    errors.extend(_check_allowed_mentions(body.get("allowed_mentions")))
    return errors


def is_empty(body: Json, file_count: int) -> bool:
    """True when a new message would have nothing to show (Discord error 50006)."""
    keys = ("content", "embeds", "components", "sticker_ids", "poll")
    return file_count == 0 and not any(body.get(key) for key in keys)


def _check_embeds(embeds: list[Json]) -> list[FormError]:
    errors: list[FormError] = []
    if len(embeds) > MAX_EMBEDS:
        errors.append(FormError("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length."))
    total = 0
    for index, embed in enumerate(embeds):
        where = f"embeds.{index}"
        total += _measure(errors, where, "title", embed.get("title"), MAX_EMBED_TITLE)
        total += _measure(
            errors, where, "description", embed.get("description"), MAX_EMBED_DESCRIPTION
        )
        footer = embed.get("footer") or {}
        total += _measure(errors, f"{where}.footer", "text", footer.get("text"), MAX_FOOTER)
        author = embed.get("author") or {}
        total += _measure(errors, f"{where}.author", "name", author.get("name"), MAX_AUTHOR_NAME)
        fields = embed.get("fields") or []
        if len(fields) > MAX_EMBED_FIELDS:
            errors.append(
                FormError(
                    f"{where}.fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            )
        for field_index, field in enumerate(fields):
            field_where = f"{where}.fields.{field_index}"
            for key, limit in (("name", MAX_FIELD_NAME), ("value", MAX_FIELD_VALUE)):
                text = field.get(key)
                if not text:
                    errors.append(
                        FormError(
                            f"{field_where}.{key}", "BASE_TYPE_REQUIRED", "This field is required"
                        )
                    )
                total += _measure(errors, field_where, key, text, limit)
    if total > MAX_EMBED_TOTAL:
        errors.append(
            FormError(
                "embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000"
            )
        )
    return errors


def _measure(errors: list[FormError], where: str, key: str, text: object, limit: int) -> int:
    if not isinstance(text, str):
        return 0
    if len(text) > limit:
        errors.append(
            FormError(
                f"{where}.{key}", "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length."
            )
        )
    return len(text)


def _check_components(rows: list[Json]) -> list[FormError]:
    errors: list[FormError] = []
    if len(rows) > MAX_ACTION_ROWS:
        errors.append(
            FormError("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
        )
    for row_index, row in enumerate(rows):
        where = f"components.{row_index}"
        if row.get("type") != ACTION_ROW:
            errors.append(
                FormError(f"{where}.type", "UNION_TYPE_CHOICES", "Top-level must be action rows")
            )
            continue
        children = row.get("components") or []
        selects = [c for c in children if c.get("type") in SELECT_TYPES]
        if not children or len(children) > MAX_ROW_BUTTONS or (selects and len(children) > 1):
            errors.append(
                FormError(
                    f"{where}.components",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 5 buttons, or exactly one select, in length.",
                )
            )
        for child_index, child in enumerate(children):
            errors.extend(_check_interactive(f"{where}.components.{child_index}", child))
    errors.extend(_check_unique_custom_ids(rows))
    return errors


def _check_components_v2(components: list[Json]) -> list[FormError]:
    errors: list[FormError] = []
    everything = list(iter_components(components))
    if len(everything) > MAX_V2_COMPONENTS:
        errors.append(
            FormError("components", "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer components.")
        )
    for index, component in enumerate(everything):
        if component.get("type") == BUTTON or component.get("type") in SELECT_TYPES:
            errors.extend(_check_interactive(f"components.{index}", component))
    errors.extend(_check_unique_custom_ids(components))
    return errors


def _check_interactive(where: str, component: Json) -> list[FormError]:
    errors: list[FormError] = []
    custom_id = component.get("custom_id")
    if component.get("type") == BUTTON:
        style = component.get("style")
        if style == LINK_STYLE:
            if not component.get("url") or custom_id is not None:
                errors.append(
                    FormError(where, "BUTTON_COMPONENT_INVALID", "Link buttons need a url only")
                )
        elif style != PREMIUM_STYLE and not custom_id:
            errors.append(
                FormError(f"{where}.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
            )
        label = component.get("label")
        if isinstance(label, str) and len(label) > MAX_BUTTON_LABEL:
            errors.append(
                FormError(
                    f"{where}.label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length."
                )
            )
        if not label and not component.get("emoji") and style != PREMIUM_STYLE:
            errors.append(
                FormError(where, "BUTTON_COMPONENT_INVALID", "A label or emoji is needed")
            )
    elif component.get("type") == 3:
        options = component.get("options") or []
        if not 1 <= len(options) <= MAX_SELECT_OPTIONS:
            errors.append(
                FormError(
                    f"{where}.options",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 25 in length.",
                )
            )
        for index, option in enumerate(options):
            for key in ("label", "value", "description"):
                _measure(errors, f"{where}.options.{index}", key, option.get(key), MAX_OPTION_TEXT)
    if component.get("type") in SELECT_TYPES:
        _measure(errors, where, "placeholder", component.get("placeholder"), MAX_PLACEHOLDER)
    if isinstance(custom_id, str) and len(custom_id) > MAX_CUSTOM_ID:
        errors.append(
            FormError(
                f"{where}.custom_id", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length."
            )
        )
    return errors


def _check_unique_custom_ids(components: list[Json]) -> list[FormError]:
    seen: set[str] = set()
    for component in iter_components(components):
        custom_id = component.get("custom_id")
        if custom_id is None:
            continue
        if custom_id in seen:
            return [
                FormError(
                    "components",
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    f"Component custom id cannot be duplicated: {custom_id}",
                )
            ]
        seen.add(custom_id)
    return []


def _check_files(file_sizes: list[int]) -> list[FormError]:
    if len(file_sizes) > MAX_FILES:
        return [FormError("files", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")]
    return []


def too_large(file_sizes: list[int]) -> bool:
    """True when a file is over ATTACHMENT_SIZE_LIMIT: Discord refuses the whole request with
    413 / 40005 (Request entity too large) before reading its body, not with a form error."""
    return any(size > ATTACHMENT_SIZE_LIMIT for size in file_sizes)


def _check_allowed_mentions(allowed: object) -> list[FormError]:
    if not isinstance(allowed, dict):
        return []
    parse = allowed.get("parse") or []
    errors = [
        FormError(
            f"allowed_mentions.{kind}",
            "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
            f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
        )
        for kind in ("users", "roles")
        if kind in parse and allowed.get(kind)
    ]
    errors.extend(
        FormError(
            f"allowed_mentions.{kind}",
            "BASE_TYPE_MAX_LENGTH",
            f"Must be {MAX_MENTIONED} or fewer in length.",
        )
        for kind in ("users", "roles")
        if len(allowed.get(kind) or []) > MAX_MENTIONED
    )
    return errors


def check_autocomplete(data: Json) -> list[FormError]:
    """Everything Discord would refuse in an autocomplete answer's data (callback type 8): more
    than 25 choices, a choice's name not of 1 to 100 characters, a text value over 100."""
    choices = data.get("choices") or []
    errors: list[FormError] = []
    if len(choices) > MAX_AUTOCOMPLETE_CHOICES:
        errors.append(
            FormError(
                "data.choices",
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {MAX_AUTOCOMPLETE_CHOICES} or fewer in length.",
            )
        )
    for index, choice in enumerate(choices):
        where = f"data.choices.{index}"
        name = choice.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_CHOICE_TEXT:
            errors.append(
                FormError(
                    f"{where}.name",
                    "BASE_TYPE_BAD_LENGTH",
                    f"Must be between 1 and {MAX_CHOICE_TEXT} in length.",
                )
            )
        value = choice.get("value")
        if value is None:
            errors.append(
                FormError(f"{where}.value", "BASE_TYPE_REQUIRED", "This field is required")
            )
        elif isinstance(value, str) and len(value) > MAX_CHOICE_TEXT:
            errors.append(
                FormError(
                    f"{where}.value",
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {MAX_CHOICE_TEXT} or fewer in length.",
                )
            )
    return errors


def form_error_body(errors: list[FormError]) -> Json:
    """Discord's 400 body (code 50035) with errors nested by path."""
    tree: Json = {}
    for error in errors:
        node = tree
        for part in error.path.split("."):
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": error.code, "message": error.message})
    return {"message": "Invalid Form Body", "code": 50035, "errors": tree}


def form_error_fields(tree: Json) -> list[str]:
    """The dotted paths of the fields a 50035 body's nested `errors` names, in its order."""
    fields: list[str] = []
    for key, node in tree.items():
        if key == "_errors":
            continue
        fields.extend(f"{key}.{inner}" for inner in form_error_fields(node))
        if "_errors" in node:
            fields.append(key)
    return fields
