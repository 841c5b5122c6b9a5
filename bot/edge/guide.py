"""RulesGuide: `/marrakech rules` as a short private guide, paged with Previous and Next.

The guide is an ephemeral message in the reader's language: a page's embed (and its picture,
drawn once by the workers and kept), Previous and Next (disabled on the first and the last
page) and a link to the publisher's rules. A click edits the message into the page before or
after; the page and the way to turn are in the button's id (bot.edge.buttons), so the buttons
work after a restart too.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.edge import interactions, replies
from bot.edge.answers import guarded
from bot.edge.buttons import GuideButton, GuideStep
from bot.edge.interactions import Interaction
from bot.presentation import images
from bot.presentation.guide import (
    PAGE_COUNT,
    PUBLISHER_RULES_URL,
    GuidePost,
    guide_post,
    picture_name,
)
from bot.presentation.messages import text

PICTURE_PATIENCE_SECONDS = 0.5
"""How long a page's answer may wait for its picture (drawn once, a few milliseconds in an idle
worker) before the interaction is deferred and edited once it is ready."""


def guide_buttons(post: GuidePost, language: str) -> discord.ui.View:
    """Previous and Next (each disabled where there is no page that way), and the link to the
    publisher's rules."""
    buttons = discord.ui.View(timeout=None)
    steps = (
        (GuideStep.PREVIOUS, "guide.button.previous", "◀️", post.first),
        (GuideStep.NEXT, "guide.button.next", "▶️", post.last),
    )
    for step, key, emoji, disabled in steps:
        label = text(key, language)
        buttons.add_item(GuideButton(post.page, step, label=label, emoji=emoji, disabled=disabled))
    buttons.add_item(
        discord.ui.Button[Any](
            style=discord.ButtonStyle.link,
            label=text("guide.button.publisher", language),
            url=PUBLISHER_RULES_URL,
        )
    )
    return buttons


def page_after(page: int, step: GuideStep) -> int:
    """The page a click on `step` leads to from `page` (never past the first or the last)."""
    target = page - 1 if step is GuideStep.PREVIOUS else page + 1
    return min(max(target, 0), PAGE_COUNT - 1)


class RulesGuide:
    """Shows the rules guide and turns its pages for one client."""

    def __init__(self, pictures: images.Pictures) -> None:
        self._pictures = pictures

    async def show(self, interaction: Interaction) -> None:
        """The guide's first page, privately (`/marrakech rules`, a command of server channels
        like the others)."""

        async def work() -> None:
            interactions.guild_id(interaction)
            language = interactions.user_language(interaction)
            post = guide_post(0, language)
            files = await self._files_in_time(interaction, post)
            buttons = guide_buttons(post, language)
            await replies.send(
                interaction, embed=post.embed, files=files, view=buttons, ephemeral=True
            )

        await guarded(interaction, "showing the rules", work)

    async def turn(self, interaction: Interaction, page: int, step: GuideStep) -> None:
        """A click on Previous or Next: the guide's message shows the page that way."""

        async def work() -> None:
            language = interactions.user_language(interaction)
            post = guide_post(page_after(page, step), language)
            files = await self._files_in_time(interaction, post)
            buttons = guide_buttons(post, language)
            await replies.edit(interaction, embed=post.embed, attachments=files, view=buttons)

        await guarded(interaction, f"turning the guide from page {page} ({step})", work)

    async def _files_in_time(self, interaction: Interaction, post: GuidePost) -> list[discord.File]:
        """The page's picture as a file (none for a page without one); if it is not ready within
        PICTURE_PATIENCE_SECONDS, defer the interaction meanwhile."""
        if post.scene is None:
            return []
        name = picture_name(post.scene)
        drawing = self._pictures.guide_png(post.scene.value)
        png = await replies.in_time(interaction, drawing, PICTURE_PATIENCE_SECONDS, ephemeral=True)
        return [images.as_file(png, name)]
