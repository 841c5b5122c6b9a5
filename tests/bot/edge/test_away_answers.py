"""Bad input to `/marrakech away` and `/marrakech quiet-hours` gets a short, clear answer and
changes nothing: an unknown time zone, quiet hours of no length or of 24 hours, longer than
16 hours, a time not written HH:MM, only some of the options, away days beyond the server's
allowance or refused by it, and `back` from someone who is not away; a moderator's cap on a
tournament's away days is answered privately. The time zone of quiet hours is offered as it is
typed. Through the in-process client on the fake Discord API (tests/bot/edge/test_edge.py)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.edge.inflight import HANDLERS
from tests.bot.edge.test_edge import Edge, only_private_answer, private, started
from tests.bot.edge.test_edge import edge as edge_fixture  # noqa: F401  (a fixture, used below)
from tests.e2e.fakecord.interaction_payloads import command_data
from tests.e2e.fakecord.interactions import AUTOCOMPLETE_RESULT

NOTHING = "Nothing changed."
AUTOCOMPLETE = 4
"""The interaction Discord sends as an option marked for autocompletion is typed."""


@pytest.fixture
def edge(edge_fixture: Edge) -> Edge:  # noqa: F811  (the imported fixture, by name)
    return edge_fixture


@pytest.mark.parametrize(
    ("starts", "ends", "zone", "said"),
    [
        ("23:00", "08:00", "Europe/Atlantis", "is not a time zone"),
        ("23:00", "08:00", "Europe/Kyiv/", "is not a time zone"),
        ("23:00", "08:00", "zone.tab", "is not a time zone"),
        ("08:00", "08:00", "Europe/Kyiv", "at different times"),
        ("00:00", "00:00", "UTC", "at different times"),
        ("06:00", "23:30", "UTC", "at most 16 hours"),
        ("11 pm", "08:00", "UTC", "HH:MM"),
        ("23:00", "8h", "UTC", "HH:MM"),
        ("23:00", "07.30", "Europe/Paris", "HH:MM"),
        ("23.30", "07:00", "Europe/Paris", "HH:MM"),
        ("23:00", "07,30", "Europe/Paris", "HH:MM"),
        ("23:00", "0730Z", "Europe/Paris", "HH:MM"),
    ],
    ids=[
        "timezone",
        "timezone-slash",
        "timezone-file",
        "same-times",
        "midnight-twice",
        "too-long",
        "bad-from",
        "bad-to",
        "dotted-to",
        "dotted-from",
        "comma-to",
        "offset-to",
    ],
)
async def test_bad_quiet_hours_are_refused_and_change_nothing(
    edge: Edge, starts: str, ends: str, zone: str, said: str
) -> None:
    """The answer names what is wrong: a badly written `to:` is told how to write a time, not
    that the hours are too long."""
    options: dict[str, Any] = {"from": starts, "to": ends, "timezone": zone}
    answer = await private(edge.slash(edge.guest, "marrakech", "quiet-hours", **options))
    assert said in answer, answer
    assert NOTHING in answer
    assert await edge.service.away.quiet_hours(edge.guest.id) is None


@pytest.mark.parametrize(
    ("starts", "ends", "said"),
    [
        ("23:00", "25:00", "“25:00” is not a time of day for `to`"),
        ("23:00", "12:60", "“12:60” is not a time of day for `to`"),
        ("24:00", "07:00", "“24:00” is not a time of day for `from`"),
        ("7pm", "07:00", "“7pm” is not a time of day for `from`"),
    ],
    ids=["hour-25", "minute-60", "hour-24", "pm"],
)
async def test_a_time_of_day_that_does_not_exist_is_named_with_its_option_and_the_range(
    edge: Edge, starts: str, ends: str, said: str
) -> None:
    """A time written HH:MM that no clock shows (25:00, 12:60) is not told to be written HH:MM:
    the answer names what was typed, in which option, and the times a day has."""
    options: dict[str, Any] = {"from": starts, "to": ends, "timezone": "Europe/Paris"}
    answer = await private(edge.slash(edge.guest, "marrakech", "quiet-hours", **options))
    assert answer.startswith(said), answer
    assert "HH:MM, from 00:00 to 23:59" in answer, answer
    assert answer.endswith(NOTHING), answer
    assert await edge.service.away.quiet_hours(edge.guest.id) is None


@pytest.mark.parametrize(
    "partial",
    [
        {"from": "22:00"},
        {"to": "06:00"},
        {"timezone": "Europe/Kyiv"},
        {"from": "22:00", "timezone": "UTC"},
    ],
    ids=["from", "to", "timezone", "from-and-timezone"],
)
async def test_quiet_hours_need_their_three_options_or_none(
    edge: Edge, partial: dict[str, Any]
) -> None:
    """Some of the options, a time zone alone too, are refused and leave the quiet hours as
    they were; no option at all turns them off."""
    options: dict[str, Any] = {"from": "23:00", "to": "07:00", "timezone": "Europe/Paris"}
    told = await private(edge.slash(edge.guest, "marrakech", "quiet-hours", **options))
    assert "23:00 to 07:00 (Europe/Paris)" in told
    before = await edge.service.away.quiet_hours(edge.guest.id)
    assert before is not None
    half = await private(edge.slash(edge.guest, "marrakech", "quiet-hours", **partial))
    assert NOTHING in half, half
    assert await edge.service.away.quiet_hours(edge.guest.id) == before
    assert "no quiet hours" in await private(edge.slash(edge.guest, "marrakech", "quiet-hours"))
    assert await edge.service.away.quiet_hours(edge.guest.id) is None


async def test_the_time_zone_is_offered_as_it_is_typed(edge: Edge) -> None:
    """`timezone:` offers the IANA names that hold what was typed so far, case and spaces
    aside, as many as Discord shows (25)."""
    guild = edge.channel.guild
    assert guild is not None
    command = edge.fake.world.commands.find(guild.id, "marrakech")
    assert command is not None
    (registered,) = [o for o in command["options"] if o["name"] == "quiet-hours"]
    (zone,) = [o for o in registered["options"] if o["name"] == "timezone"]
    assert zone.get("autocomplete"), "Discord asks for the names only of an option marked so"

    async def offered(typed: str) -> list[str]:
        data = command_data(
            edge.fake.world,
            edge.channel,
            command,
            ["quiet-hours"],
            {"timezone": typed},
            validate=True,
        )
        (quiet_hours,) = data["options"]
        (timezone,) = quiet_hours["options"]
        timezone["focused"] = True
        handle = edge.fake.interaction_from_payload(AUTOCOMPLETE, edge.guest, edge.channel, data)
        response = await edge.dispatch(handle).response()
        assert response.response_type == AUTOCOMPLETE_RESULT
        assert response.data is not None
        return [choice["value"] for choice in response.data["data"]["choices"]]

    assert await offered("kyiv") == ["Europe/Kyiv"]
    assert await offered("new york") == ["America/New_York"]
    assert await offered("EUROPE/PAR") == ["Europe/Paris"]
    assert len(await offered("a")) == 25, "no more than Discord shows"


async def test_away_beyond_the_allowance_is_refused_and_changes_nothing(edge: Edge) -> None:
    guild = edge.channel.guild
    assert guild is not None
    refused = await private(edge.slash(edge.guest, "marrakech", "away", days=8))
    assert "at most 7 days at once" in refused
    assert NOTHING in refused
    assert (await edge.service.away.availability(guild.id, edge.guest.id)).reachable
    assert "not away" in await private(edge.slash(edge.guest, "marrakech", "back"))
    await edge.service.away.set_away_days(guild.id, 0)  # as /marrakech-admin away-days sets it
    off = await private(edge.slash(edge.guest, "marrakech", "away", days=1))
    assert "does not allow away days" in off
    assert (await edge.service.away.availability(guild.id, edge.guest.id)).reachable


async def test_back_from_someone_not_away_is_one_short_private_answer_and_changes_nothing(
    edge: Edge,
) -> None:
    """No "welcome back" after it; their game's channel is told nothing, and they are as
    reachable as before."""
    guild = edge.channel.guild
    assert guild is not None
    await started(edge)
    assert await HANDLERS.drained(30.0), "the start's handler is still running"
    seq = (await edge.service.play.look(1)).seq
    posted = [m.id for m in edge.fake.messages(edge.channel)]
    answer = await only_private_answer(edge.slash(edge.guest, "marrakech", "back"))
    assert answer == "You are not away on this server."
    assert (await edge.service.away.availability(guild.id, edge.guest.id)).reachable
    assert [m.id for m in edge.fake.messages(edge.channel)] == posted, "the channel is told nothing"
    assert (await edge.service.play.look(1)).seq == seq


async def test_a_moderator_s_cap_on_a_tournament_s_away_days_is_answered_privately(
    edge: Edge,
) -> None:
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    capped = await private(
        edge.slash(edge.moderator, "marrakech-mod", "tournament-away-days", days=3)
    )
    assert "may be away at most 3 days at once" in capped
    public = [message.id for message in edge.fake.messages(edge.channel) if not message.ephemeral]
    assert public == [signup.id], "the channel sees only the sign-up"


async def test_a_tournament_that_refuses_away_days_says_so_to_its_moderator_and_its_player(
    edge: Edge,
) -> None:
    """A cap of 0 is told as a refusal of away days, as a server that refuses them says it,
    not as "at most 0 days at once": to the moderator who sets it, and to a player of the
    tournament who asks for a day."""
    options: dict[str, Any] = {"name": "Cup", "format": "swiss"}
    signup = await edge.slash(edge.moderator, "marrakech-mod", "tournament", **options).answer()
    await edge.click(edge.guest, signup, "Join").answer()
    capped = await private(
        edge.slash(edge.moderator, "marrakech-mod", "tournament-away-days", days=0)
    )
    assert capped == "While this tournament is open, its players may not take away days."
    refused = await private(edge.slash(edge.guest, "marrakech", "away", days=1))
    assert refused == (
        "A tournament you play in on this server does not allow away days. Nothing changed."
    )
