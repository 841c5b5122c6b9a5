"""The Analysis button on a finished game's result, and `/marrakech replay`: the analysis picture
for the presser alone (in their language, the channel left quiet), or with the replay; a game
not played to its end is refused in a short private answer.

Through real discord.py interactions on the fake Discord (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.edge import replies
from bot.edge.buttons import ANALYSIS_TEMPLATE
from bot.presentation import messages
from bot.presentation.analysis import AnalysisPictures
from bot.presentation.images import Pictures
from bot.services.analysis import FinishedGame
from bot.services.views import Player
from bot.storage.judgements import JudgementStore
from bot.workers.pool import WorkerPool
from tests.bot.edge.test_edge import (
    Edge,
    confirm,
    on_the_gateway,
    private,
    running_edge,
    started,
    thinking_privately_once,
)
from tests.bot.edge.test_edge_faults import Outage, judgement_kept
from tests.bot.edge.test_edge_faults import away as away_fixture  # noqa: F401  (a fixture)
from tests.e2e.fakecord import FakeMessage, FakeUser, InteractionHandle, permissions
from tests.e2e.fakecord.model import iter_components
from tests.polling import until

DEFERRED_CHANNEL_MESSAGE = 5
SECONDARY = 2


@pytest.fixture
async def edge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Edge]:
    async with running_edge(
        tmp_path, monkeypatch, user_locales=("en-US", "fr", "uk", "en-GB")
    ) as running:
        yield running


@pytest.fixture
def away(away_fixture: Outage) -> Outage:  # noqa: F811  (the imported fixture, by name)
    """An outage to start on the edge's database, as in test_edge_faults.py."""
    return away_fixture


async def finished(edge: Edge) -> FakeMessage:
    """Game 1, host against guest, over: the guest resigned. Its result message."""
    await started(edge)
    await (await confirm(edge, edge.guest, "marrakech", "resign", button="Abandonner")).answer()
    return await edge.fake.wait_for_message(
        edge.channel, lambda m: any(a.filename.endswith(".json") for a in m.attachments)
    )


def picture(message: FakeMessage, name: str) -> Image.Image:
    (attachment,) = [a for a in message.attachments if a.filename == name]
    return Image.open(io.BytesIO(attachment.data))


async def analysis_of(edge: Edge, user: FakeUser, message: FakeMessage, label: str) -> FakeMessage:
    """The analysis `user` is shown for pressing `label` on `message`: to them alone, and
    nothing of the press in the channel, however it was acknowledged first (the handler's own
    deferral is `test_the_analysis_is_deferred_before_it_is_drawn`'s)."""
    clicking = edge.click(user, message, label)
    answer = await clicking.answer(timeout=30.0)
    assert answer.ephemeral
    assert answer.visible_to == user.id
    shown = [event.message for event in clicking.events if event.message is not None]
    assert all(m.ephemeral for m in shown), "the bot thinks privately: the channel sees nothing"
    return answer


async def test_the_result_offers_the_analysis_to_anyone_privately(edge: Edge) -> None:
    final = await finished(edge)
    labels = [(b.label, b.emoji, b.style) for b in final.enabled_buttons()]
    assert labels[:2] == [("Rematch", "🔁", 1), ("Analysis", "📈", SECONDARY)]
    (analysis,) = [b for b in final.buttons() if b.label == "Analysis"]
    assert analysis.custom_id == "mk:analysis:1"
    assert ANALYSIS_TEMPLATE.fullmatch(analysis.custom_id)
    public = len(edge.fake.messages(edge.channel))

    answer = await analysis_of(edge, edge.host, final, "Analysis")
    assert answer.content.startswith("Game #1: each player's chance of winning")
    image = picture(answer, "marrakech-analysis-1.png")
    assert image.width == 720
    assert image.height > image.width

    french = await analysis_of(edge, edge.guest, final, "Analysis")
    assert french.content.startswith("Partie n° 1 : les chances de victoire")
    outsider = await analysis_of(edge, edge.outsider, final, "Analysis")
    assert outsider.content.startswith("Гра №1")
    drawn = {
        picture(answer, "marrakech-analysis-1.png").tobytes()
        for answer in (answer, french, outsider)
    }
    assert len(drawn) == 3, "each picture is drawn in its presser's language"
    assert len(edge.fake.messages(edge.channel)) == public, "the channel stays quiet"
    assert edge.fake.world.messages[final.id].enabled_buttons() == final.enabled_buttons()


async def test_the_analysis_is_deferred_before_it_is_drawn(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers analyse the game and draw its picture, a few seconds, more than Discord
    waits for an answer: the click is deferred (the bot thinking, privately) before the picture
    is asked for, and the analysis follows once it comes. The watchdog that defers a late
    answer is kept out of it, so the deferral seen is the handler's own."""
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)
    final = await finished(edge)
    reached, release = asyncio.Event(), asyncio.Event()
    png = AnalysisPictures.png

    async def held(self: AnalysisPictures, game: FinishedGame, language: str) -> bytes:
        reached.set()
        await release.wait()
        return await png(self, game, language)

    monkeypatch.setattr(AnalysisPictures, "png", held)
    clicking = edge.click(edge.host, final, "Analysis")
    await thinking_privately_once(clicking, reached)
    release.set()
    answer = await clicking.answer(timeout=30.0)
    assert answer.ephemeral
    assert answer.content.startswith("Game #1: each player's chance of winning")
    assert picture(answer, "marrakech-analysis-1.png").width == 720


async def test_a_game_not_played_to_its_end_has_no_analysis(edge: Edge) -> None:
    final = await finished(edge)
    rematch = await edge.click(edge.host, final, "Rematch").answer()
    assert "lobby" in rematch.embed_text()

    def point_at(game_id: int) -> None:
        """The result's Analysis button made to name another game (a client may send any id a
        message carries)."""
        shown = edge.fake.world.messages[final.id]
        for component in iter_components(shown.components):
            if str(component.get("custom_id", "")).startswith("mk:analysis:"):
                component["custom_id"] = f"mk:analysis:{game_id}"

    point_at(2)
    refused = await private(edge.click(edge.host, final, "Analysis"))
    assert refused == "Game #2 is not over yet: its analysis comes once it ends."

    cancelled = await edge.click(edge.host, rematch, "Cancel").answer()
    assert "cancelled" in cancelled.embed_text()
    refused = await private(edge.click(edge.guest, final, "Analysis"))
    assert refused.startswith("La partie n° 2 a été arrêtée avant la fin")

    point_at(99)
    refused = await private(edge.click(edge.host, final, "Analysis"))
    assert refused == "There is no finished game with that number in this server."


async def test_the_replay_comes_with_the_analysis(edge: Edge) -> None:
    await finished(edge)
    replay = await edge.slash(edge.outsider, "marrakech", "replay", game=1).answer(timeout=30.0)
    assert not replay.ephemeral
    assert replay.content == (
        "Game #1 from start to end: the animation, the analysis and the game record."
    )
    names = [a.filename for a in replay.attachments]
    assert names == [
        "marrakech-game-1.gif",
        "marrakech-analysis-1.png",
        "marrakech-game-1.json",
    ]
    assert picture(replay, "marrakech-analysis-1.png").width == 720


async def test_a_game_in_a_channel_the_member_cannot_see_is_not_theirs_to_replay(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/marrakech replay game:` posts a game's replay in public only for a member who can see
    the game's channel: one denied View Channel there, asking in another channel, is told so
    privately in their language, and that channel gets none of the game's board, analysis or
    record."""
    await finished(edge)
    guild = edge.channel.guild
    assert guild is not None
    lounge = edge.fake.add_text_channel(guild, "lounge")
    edge.fake.set_overwrite(edge.channel, edge.outsider, deny=permissions.VIEW_CHANNEL)
    async with on_the_gateway(edge, monkeypatch):
        refused = await edge.slash(
            edge.outsider, "marrakech", "replay", channel=lounge, game=1
        ).answer(timeout=30.0)
    assert refused.ephemeral
    assert refused.content == "Гра №1 йде в каналі, який ви не бачите."  # their language
    assert not refused.attachments
    assert not edge.fake.messages(lounge), "nothing of the game reached the channel"


async def test_the_replay_s_animation_names_the_game_s_players(edge: Edge) -> None:
    """The replay's GIF is the game drawn with its players' names on the panel, as its turns
    showed them, not with bare seat labels."""
    await finished(edge)
    replay = await edge.slash(edge.outsider, "marrakech", "replay", game=1).answer(timeout=30.0)
    (gif,) = [a.data for a in replay.attachments if a.filename == "marrakech-game-1.gif"]
    record = await edge.service.play.record(1)
    players = (await edge.service.play.look(1)).players
    assert {player.name for player in players} >= {"host", "guest"}
    pictures = Pictures(WorkerPool(workers=0))
    assert gif == await pictures.replay_gif(record, "en", players)
    assert gif != await pictures.replay_gif(record, "en"), "names, not seat labels"


async def test_the_replay_is_deferred_before_its_pictures_are_drawn(
    edge: Edge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers draw the GIF of a whole game and its analysis, seconds for a long game,
    more than Discord waits for an answer: the command is deferred (the bot thinking, in the
    channel) before either picture is asked for. Each drawing notes the answers given by the
    time it starts. The watchdog that defers a late answer is kept out of it, so the deferral
    seen is the command's own."""
    monkeypatch.setattr(replies, "ACKNOWLEDGE_AFTER_SECONDS", 3600.0)
    await finished(edge)
    replaying: list[InteractionHandle] = []
    answered: list[tuple[str, list[int | None]]] = []

    def note(drawing: str) -> None:
        (handle,) = replaying
        callbacks = [event for event in handle.events if event.kind == "callback"]
        answered.append((drawing, [event.response_type for event in callbacks]))

    gif, png = Pictures.replay_gif, AnalysisPictures.png

    async def noted_gif(
        self: Pictures, record: dict[str, Any], language: str, players: Sequence[Player] = ()
    ) -> bytes:
        note("replay")
        return await gif(self, record, language, players)

    async def noted_png(self: AnalysisPictures, game: FinishedGame, language: str) -> bytes:
        note("analysis")
        return await png(self, game, language)

    monkeypatch.setattr(Pictures, "replay_gif", noted_gif)
    monkeypatch.setattr(AnalysisPictures, "png", noted_png)
    replaying.append(edge.slash(edge.outsider, "marrakech", "replay", game=1))
    replay = await replaying[0].answer(timeout=30.0)
    deferred: list[int | None] = [DEFERRED_CHANNEL_MESSAGE]
    assert answered == [("replay", deferred), ("analysis", deferred)], "deferred first"
    (thinking,) = [event for event in replaying[0].events if event.kind == "callback"]
    assert thinking.message is not None
    assert not thinking.message.ephemeral, "the bot thinks in the channel it answers in"
    assert not replay.ephemeral
    names = [a.filename for a in replay.attachments]
    assert names == ["marrakech-game-1.gif", "marrakech-analysis-1.png", "marrakech-game-1.json"]


async def test_the_replay_s_analysis_is_drawn_in_the_server_s_language_whoever_asks(
    edge: Edge,
) -> None:
    """A Ukrainian asks for the replay on an English server: its picture is the one an English
    presser of Analysis gets, not the Ukrainian one."""
    final = await finished(edge)
    replay = await edge.slash(edge.outsider, "marrakech", "replay", game=1).answer(timeout=30.0)
    assert replay.content.startswith("Game #1 from start to end")
    english = await analysis_of(edge, edge.host, final, "Analysis")
    ukrainian = await analysis_of(edge, edge.outsider, final, "Analysis")
    name = "marrakech-analysis-1.png"
    assert picture(english, name).tobytes() != picture(ukrainian, name).tobytes()
    assert picture(replay, name).tobytes() == picture(english, name).tobytes()


async def test_a_game_replayed_after_the_server_changed_its_language_is_drawn_in_the_new_one(
    edge: Edge,
) -> None:
    """A game played on an English server, replayed once the server speaks French: the answer
    and the analysis picture are both French, not in the language the game was played in."""
    final = await finished(edge)
    guild = edge.channel.guild
    assert guild is not None
    guild.preferred_locale = "fr"
    replay = await edge.slash(edge.outsider, "marrakech", "replay", game=1).answer(timeout=30.0)
    assert replay.content.startswith("La partie n° 1 du début à la fin"), replay.content
    french = await analysis_of(edge, edge.guest, final, "Analysis")
    english = await analysis_of(edge, edge.host, final, "Analysis")
    name = "marrakech-analysis-1.png"
    assert picture(french, name).tobytes() != picture(english, name).tobytes()
    assert picture(replay, name).tobytes() == picture(french, name).tobytes()


async def test_the_analysis_is_given_though_the_database_fails_to_read_its_judgement(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The database fails as the game's kept judgement is read: the presser gets the analysis
    all the same (the game judged afresh in the workers), and the log has no traceback and
    nothing at WARNING but the outage's own line."""
    final = await finished(edge)
    await until(lambda: judgement_kept(edge, 1), "the game judged in the background")
    with caplog.at_level(logging.INFO):
        away.fail_in(JudgementStore, "judgement")
        away.fail()
        answer = await analysis_of(edge, edge.host, final, "Analysis")
        away.end()
        await until(lambda: edge.store.database.availability.up, "the database back")
    assert answer.content.startswith("Game #1: each player's chance of winning")
    assert picture(answer, "marrakech-analysis-1.png").width == 720
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]
    warned = [r.name for r in caplog.records if r.levelno >= logging.WARNING]
    assert set(warned) <= {"bot.runtime.outage"}, warned


async def test_the_analysis_while_the_database_is_away_is_the_short_outage_answer(
    edge: Edge, away: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    """The database away altogether: the presser is told, privately and in their language,
    the usual one line, with no traceback in the log; the analysis comes once it is back."""
    final = await finished(edge)
    told = await away.told_while_away(lambda: edge.click(edge.guest, final, "Analysis"), caplog)
    assert told == messages.text("error.database_paused", "fr")
    answer = await analysis_of(edge, edge.host, final, "Analysis")
    assert answer.content.startswith("Game #1: each player's chance of winning")
