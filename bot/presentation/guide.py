"""The rules guide that `/marrakech rules` shows privately: a few short pages, read with
Previous and Next buttons.

Every page is a title and a body from the message catalogue (`guide.<page>.title`,
`guide.<page>.body`), so the translators see the whole guide; three pages come with a picture
of a scene played on the engine and drawn by render.guide (Assam round a border arc, a
payment, the places a rug may go). The pictures hold no words, so one drawing serves every
language. The last word goes to the publisher: a link to its own rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import discord

from bot.presentation.messages import text
from render.guide import GuideScene

PUBLISHER_RULES_URL: Final = "https://www.gigamic.com/"
"""The publisher's site, where its rules of Marrakech are (linked from every page)."""
GUIDE_COLOR: Final = 0xD35400


@dataclass(frozen=True, slots=True)
class GuidePage:
    """A page of the guide: its catalogue keys are `guide.<key>.title` and `.body`."""

    key: str
    scene: GuideScene | None = None


PAGES: Final = (
    GuidePage("turn"),
    GuidePage("move", GuideScene.MOVE),
    GuidePage("pay", GuideScene.PAY),
    GuidePage("lay", GuideScene.LAY),
    GuidePage("two_players"),
    GuidePage("rotate_after"),
    GuidePage("end"),
)
PAGE_COUNT: Final = len(PAGES)


@dataclass(frozen=True, slots=True)
class GuidePost:
    """A page as Discord shows it: the embed, and the scene whose picture goes with it."""

    page: int
    embed: discord.Embed
    scene: GuideScene | None

    @property
    def first(self) -> bool:
        return self.page == 0

    @property
    def last(self) -> bool:
        return self.page == PAGE_COUNT - 1


def picture_name(scene: GuideScene) -> str:
    """The attachment's file name for a scene's picture."""
    return f"guide-{scene.value}.png"


def guide_post(page: int, language: str) -> GuidePost:
    """Page `page` (0 is the first) of the guide in `language`."""
    if page not in range(PAGE_COUNT):
        raise ValueError(f"the guide has no page {page}")
    spec = PAGES[page]
    embed = discord.Embed(
        title=text(f"guide.{spec.key}.title", language),
        description=text(f"guide.{spec.key}.body", language),
        color=GUIDE_COLOR,
    )
    embed.set_footer(
        text=text(
            "guide.footer",
            language,
            title=text("guide.title", language),
            page=page + 1,
            pages=PAGE_COUNT,
        )
    )
    if spec.scene is not None:
        embed.set_image(url=f"attachment://{picture_name(spec.scene)}")
    return GuidePost(page, embed, spec.scene)
