"""Who a message notifies: content mentions filtered by allowed_mentions, as Discord does."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

USER_MENTION = re.compile(r"<@!?(\d+)>")
ROLE_MENTION = re.compile(r"<@&(\d+)>")
EVERYONE = re.compile(r"@(everyone|here)")


@dataclass(frozen=True, slots=True)
class Mentions:
    """Users and roles a message pings, and whether it pings @everyone/@here."""

    user_ids: tuple[int, ...]
    role_ids: tuple[int, ...]
    everyone: bool


def resolve_mentions(
    content: str,
    allowed: dict[str, Any] | None,
    *,
    replied_user_id: int | None = None,
    can_mention_everyone: bool = True,
) -> Mentions:
    """Apply Discord's rules: no allowed_mentions means everything in the content may ping."""
    in_content_users = _unique(int(m) for m in USER_MENTION.findall(content))
    in_content_roles = _unique(int(m) for m in ROLE_MENTION.findall(content))
    mentions_everyone = EVERYONE.search(content) is not None
    if allowed is None:
        users = in_content_users
        roles = in_content_roles
        everyone = mentions_everyone
        replied = True
    else:
        parse = allowed.get("parse") or []
        allowed_users = {int(u) for u in allowed.get("users") or []}
        allowed_roles = {int(r) for r in allowed.get("roles") or []}
        users = [u for u in in_content_users if "users" in parse or u in allowed_users]
        roles = [r for r in in_content_roles if "roles" in parse or r in allowed_roles]
        everyone = mentions_everyone and "everyone" in parse
        replied = bool(allowed.get("replied_user", False))
    if replied and replied_user_id is not None and replied_user_id not in users:
        users.append(replied_user_id)
    return Mentions(tuple(users), tuple(roles), everyone and can_mention_everyone)


def _unique(values: Iterable[int]) -> list[int]:
    seen: list[int] = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen
