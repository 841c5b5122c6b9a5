"""`/marrakech rules`: a short private guide, paged with Previous and Next, its pictures drawn
once by the workers; in the reader's language. Through real discord.py interactions on the
fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.edge import guide as edge_guide
from bot.edge import replies
from bot.presentation import guide
from bot.presentation.guide import PAGE_COUNT, PAGES, PUBLISHER_RULES_URL, picture_name
from bot.presentation.messages import text
from bot.workers import jobs as worker_jobs
from tests.bot.edge.test_edge import Edge, running_edge
from tests.e2e.fakecord import FakeMessage
from tests.e2e.fakecord.interaction_payloads import component_data
from tests.e2e.fakecord.interactions import MESSAGE_COMPONENT

LINK = 5


@pytest.fixture
async def edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Edge]:
    async with running_edge(
        tmp_path, monkeypatch, user_locales=("en-US", "fr", "uk", "en-GB")
    ) as running:
        yield running


def footer(message: FakeMessage) -> str:
    (embed,) = message.embeds
    return str(embed["footer"]["text"])


def paging(message: FakeMessage) -> list[tuple[str | None, bool]]:
    """The guide's Previous and Next: label and whether it is disabled."""
    return [(b.label, b.disabled) for b in message.buttons() if b.custom_id is not None]


async def test_the_guide_pages_forth_and_back(edge: Edge) -> None:
    first = await edge.slash(edge.host, "marrakech", "rules").answer()
    assert first.ephemeral
    assert first.embed_text().startswith("A turn\n")
    assert footer(first) == f"Marrakech in short · page 1 of {PAGE_COUNT}"
    assert paging(first) == [("Previous", True), ("Next", False)]
    (link,) = [b for b in first.buttons() if b.custom_id is None]
    assert link.style == LINK
    component = next(
        c for row in first.components for c in row["components"] if c.get("style") == LINK
    )
    assert component["url"] == PUBLISHER_RULES_URL
    assert not first.attachments

    shown = first
    for page in range(1, PAGE_COUNT):
        shown = await edge.click(edge.host, shown, "Next").answer()
        assert shown.id == first.id, "the guide's own message turns its page"
        spec = PAGES[page]
        assert shown.embed_text().startswith(text(f"guide.{spec.key}.title", "en") + "\n")
        assert footer(shown).endswith(f"page {page + 1} of {PAGE_COUNT}")
        names = [a.filename for a in shown.attachments]
        (embed,) = shown.embeds
        if spec.scene is None:
            assert names == [], "a page without a picture shows none"
            assert "image" not in embed
        else:
            assert names == [picture_name(spec.scene)]
            assert shown.attachments[0].data.startswith(b"\x89PNG")
            assert embed["image"]["url"] == f"attachment://{picture_name(spec.scene)}"
    assert paging(shown) == [("Previous", False), ("Next", True)]

    for page in reversed(range(PAGE_COUNT - 1)):
        shown = await edge.click(edge.host, shown, "Previous").answer()
        assert footer(shown).endswith(f"page {page + 1} of {PAGE_COUNT}")
    assert paging(shown) == [("Previous", True), ("Next", False)]


async def test_each_reader_gets_the_guide_in_their_language(edge: Edge) -> None:
    french = await edge.slash(edge.guest, "marrakech", "rules").answer()
    assert french.embed_text().startswith("Un tour de jeu\n")
    assert paging(french) == [("Précédente", True), ("Suivante", False)]
    turned = await edge.click(edge.guest, french, "Suivante").answer()
    assert "babouches" in turned.embed_text()
    ukrainian = await edge.slash(edge.outsider, "marrakech", "rules").answer()
    assert footer(ukrainian) == f"Марракеш коротко · сторінка 1 з {PAGE_COUNT}"
    assert paging(ukrainian) == [("Назад", True), ("Далі", False)]
    assert "капці" in ukrainian.embed_text()


async def test_a_picture_is_drawn_once_then_kept(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[str] = []
    draw = worker_jobs.guide_png

    def counted(scene: str) -> bytes:
        drawn.append(scene)
        return draw(scene)

    monkeypatch.setattr(worker_jobs, "guide_png", counted)
    for user in (edge.host, edge.guest):
        first = await edge.slash(user, "marrakech", "rules").answer()
        label = "Next" if user is edge.host else "Suivante"
        moved = await edge.click(user, first, label).answer()
        assert [a.filename for a in moved.attachments] == ["guide-move.png"]
    assert drawn == ["move"], "one drawing serves every reader and every language"


async def test_a_slow_picture_defers_the_click_then_edits(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edge_guide, "PICTURE_PATIENCE_SECONDS", 0.0)
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)  # the handler's deferral
    first = await edge.slash(edge.host, "marrakech", "rules").answer()
    handle = edge.click(edge.host, first, "Next")
    assert (await handle.response()).response_type == 6  # deferred update
    edited = await handle.answer()
    assert edited.id == first.id
    assert [a.filename for a in edited.attachments] == ["guide-move.png"]


@pytest.mark.parametrize("custom_id", [f"mk:guide:{PAGE_COUNT}:prev", "mk:guide:01:next"])
async def test_a_forged_guide_id_is_an_unknown_button(edge: Edge, custom_id: str) -> None:
    first = await edge.slash(edge.host, "marrakech", "rules").answer()
    data = component_data(edge.fake.world.messages[first.id], custom_id, None, validate=False)
    handle = edge.dispatch(
        edge.fake.interaction_from_payload(
            MESSAGE_COMPONENT, edge.host, edge.channel, data, message=first
        )
    )
    answer = await handle.answer()
    assert answer.ephemeral
    assert answer.content == "This button no longer does anything."
    assert footer(edge.fake.world.messages[first.id]).endswith(f"page 1 of {PAGE_COUNT}")


@pytest.mark.parametrize(("step", "page"), [("prev", 1), ("next", PAGE_COUNT)])
async def test_a_click_past_either_end_of_the_guide_stays_on_the_page_at_that_end(
    edge: Edge, step: str, page: int
) -> None:
    """A disabled Previous or Next, clicked all the same (a forged payload), shows the page at
    that end of the guide again."""
    first = await edge.slash(edge.host, "marrakech", "rules").answer()
    for _ in range(page - 1):
        await edge.click(edge.host, edge.fake.world.messages[first.id], "Next").answer()
    shown = edge.fake.world.messages[first.id]
    assert footer(shown) == f"Marrakech in short · page {page} of {PAGE_COUNT}"
    data = component_data(shown, f"mk:guide:{page - 1}:{step}", None, validate=False)
    handle = edge.dispatch(
        edge.fake.interaction_from_payload(
            MESSAGE_COMPONENT, edge.host, edge.channel, data, message=shown
        )
    )
    answer = await handle.answer()
    assert answer.id == first.id, answer.content
    assert footer(answer) == f"Marrakech in short · page {page} of {PAGE_COUNT}"


def test_the_guide_module_names_every_page_once() -> None:
    assert len({page.key for page in guide.PAGES}) == PAGE_COUNT == 7
