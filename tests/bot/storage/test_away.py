"""AwayStore on both back ends: a notice is claimed only once released, with when it was held,
and giving a claim back, or marking sent, touches that owner's claim only, while a claim whose
lease ran out is another owner's to take; a person's spells away since a time come oldest first,
one at a time, and going away again drops the end of the spell it ends unsaid (on that server
only), while each server's spell keeps its own end, even begun in the same second; quiet hours
set again are read back as last set, in the language they were set in then, and move the
release of that person's unsent held notices; notices held under an older schema are still sent
once it is upgraded."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.storage import Database, open_database
from bot.storage.away import AwayStore, HeldNotice, QuietRow, Spell
from bot.storage.values import time_to_column

T0 = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
LEASE = timedelta(minutes=1)
ANN, BEA = 501, 502


def notice(user_id: int, release_at: datetime) -> HeldNotice:
    return HeldNotice(user_id, 1, 10, 7, 3, "turn", "en", release_at)


def held_at(held: HeldNotice, when: datetime) -> HeldNotice:
    """The notice as a claim reads it back: with the moment it was held."""
    return replace(held, held_at=when)


async def test_a_held_notice_is_not_claimed_before_its_release(db: Database) -> None:
    """A claim takes the notices released by its time and leaves a later one held until its
    release."""
    away = AwayStore(db)
    now_one = notice(ANN, T0)
    later = notice(BEA, T0 + timedelta(hours=1))
    assert await away.hold(now_one, T0)
    assert await away.hold(later, T0 - LEASE)
    assert await away.claim_held(T0, "a", T0 + LEASE) == [held_at(now_one, T0)]
    assert await away.mark_sent(ANN, "a", T0) == 1
    claimed = await away.claim_held(later.release_at, "a", later.release_at + LEASE)
    assert claimed == [held_at(later, T0 - LEASE)]


async def test_giving_a_claim_back_leaves_another_owner_s_claim(db: Database) -> None:
    """One owner giving back its claim on a person's notices leaves the claim another owner
    holds: that owner still marks them sent, and no third owner can claim them meanwhile."""
    away = AwayStore(db)
    held = notice(ANN, T0)
    assert await away.hold(held, T0)
    assert await away.claim_held(T0, "a", T0 + LEASE) == [held_at(held, T0)]
    await away.give_back(ANN, "b")
    assert await away.claim_held(T0, "c", T0 + LEASE) == []
    assert await away.mark_sent(ANN, "a", T0) == 1


async def test_a_claim_whose_lease_ran_out_is_taken_by_another_owner(db: Database) -> None:
    """An owner that claimed a person's notices and died before marking them sent holds them
    until its lease runs out; then another owner claims them and marks them sent, and the dead
    owner's claim marks nothing."""
    away = AwayStore(db)
    held = notice(ANN, T0)
    assert await away.hold(held, T0)
    assert await away.claim_held(T0, "dead", T0 + LEASE) == [held_at(held, T0)]
    assert await away.claim_held(T0, "alive", T0 + LEASE) == [], "a live claim holds them"
    ran_out = T0 + LEASE
    # Were a claim held until its owner came back, the person would never get the notices.
    assert await away.claim_held(ran_out, "alive", ran_out + LEASE) == [held_at(held, T0)]
    assert await away.mark_sent(ANN, "alive", ran_out) == 1
    assert await away.mark_sent(ANN, "dead", ran_out) == 0


async def test_the_owner_of_a_live_claim_takes_it_back_at_once(db: Database) -> None:
    """An owner whose message went but whose marking a database outage cut off, or that was
    restarted in the same place, claims its notices again at once (and sends them again with
    the same nonce) rather than a lease later; another owner still waits for the lease."""
    away = AwayStore(db)
    held = notice(ANN, T0)
    assert await away.hold(held, T0)
    assert await away.claim_held(T0, "same", T0 + LEASE) == [held_at(held, T0)]
    soon = T0 + timedelta(seconds=2)
    assert await away.claim_held(soon, "other", soon + LEASE) == [], "a live claim holds them"
    assert await away.claim_held(soon, "same", soon + LEASE) == [held_at(held, T0)]
    assert await away.mark_sent(ANN, "same", soon) == 1


async def test_marking_sent_marks_only_the_notices_that_owner_claimed(db: Database) -> None:
    """Of a person's notices, an owner marks sent those it claimed: another owner's claim is
    that owner's to mark, and a notice held for a later release is still claimed at it."""
    away = AwayStore(db)
    first = notice(ANN, T0)
    second = replace(notice(ANN, T0 + timedelta(seconds=10)), seq=4)
    later = replace(notice(ANN, T0 + timedelta(hours=1)), seq=5)
    for held in (first, second, later):
        assert await away.hold(held, T0)
    assert await away.claim_held(T0, "a", T0 + LEASE) == [held_at(first, T0)]
    at = second.release_at
    assert await away.claim_held(at, "b", at + LEASE) == [held_at(second, T0)]
    assert await away.mark_sent(ANN, "a", at) == 1
    assert await away.mark_sent(ANN, "b", at) == 1
    claimed = await away.claim_held(later.release_at, "c", later.release_at + LEASE)
    assert claimed == [held_at(later, T0)], "the later notice still goes at its release"


SPELLS = ((0, 1), (3, 4), (6, 8))
"""Three spells away, in days from T0: (start, end)."""


async def test_a_person_s_spells_since_a_time_come_oldest_first_on_that_server_only(
    db: Database,
) -> None:
    """The spells that end after the time asked, oldest first (the days counted in a month add
    up from the first), of that person on that server alone."""
    away = AwayStore(db)
    day = timedelta(days=1)
    first, second, third = (Spell(T0 + start * day, T0 + end * day) for start, end in SPELLS)
    for spell in (first, second, third):
        await away.start_spell(1, ANN, spell)
    await away.start_spell(2, ANN, Spell(T0 + 5 * day, T0 + 6 * day))
    await away.start_spell(1, BEA, Spell(T0 + 5 * day, T0 + 6 * day))
    assert await away.spells_since(1, ANN, T0) == [first, second, third]
    assert await away.spells_since(1, ANN, T0 + 2 * day) == [second, third]


async def test_a_new_spell_ends_the_one_still_running_at_its_start(db: Database) -> None:
    """Away again before a spell's end (for fewer days), the person has one spell at a time:
    the first ends where the second starts."""
    away = AwayStore(db)
    day = timedelta(days=1)
    await away.start_spell(1, ANN, Spell(T0, T0 + 7 * day))
    await away.start_spell(1, ANN, Spell(T0 + day, T0 + 3 * day))
    assert await away.spells_since(1, ANN, T0) == [
        Spell(T0, T0 + day),
        Spell(T0 + day, T0 + 3 * day),
    ]
    assert await away.active_spells(T0 + 2 * day) == {(1, ANN): T0 + 3 * day}
    assert await away.active_spells(T0 + 4 * day) == {}, "back after the second spell's end"


async def test_going_away_again_drops_the_first_spell_s_end_unsaid(db: Database) -> None:
    """Away again before a spell's end, the person is told of the second spell's end only:
    the first's is never claimed, at its own end or after."""
    away = AwayStore(db)
    day = timedelta(days=1)
    await away.start_spell(1, ANN, Spell(T0, T0 + 2 * day))
    await away.start_spell(1, ANN, Spell(T0 + day, T0 + 4 * day))
    first_end = T0 + 2 * day
    assert await away.claim_held(first_end, "a", first_end + LEASE) == []
    second_end = T0 + 4 * day
    claimed = await away.claim_held(second_end, "a", second_end + LEASE)
    assert [(n.kind, n.release_at) for n in claimed] == [("back", second_end)]


async def test_coming_back_or_going_away_again_on_one_server_leaves_another_s_end_to_tell(
    db: Database,
) -> None:
    """Away days are per server: the end of the days away on server 2 is still told when it
    comes, though the person came back early on server 1 and went away there again."""
    away = AwayStore(db)
    day = timedelta(days=1)
    await away.start_spell(2, ANN, Spell(T0, T0 + 2 * day))
    await away.start_spell(1, ANN, Spell(T0 + LEASE, T0 + 5 * day))
    assert await away.end_spell(1, ANN, T0 + day) is not None
    await away.start_spell(1, ANN, Spell(T0 + day + LEASE, T0 + 4 * day))
    other_end = T0 + 2 * day
    claimed = await away.claim_held(other_end, "a", other_end + LEASE)
    assert [(n.guild_id, n.kind, n.release_at) for n in claimed] == [(2, "back", other_end)]


async def test_going_away_on_two_servers_in_the_same_second_tells_both_ends(
    db: Database,
) -> None:
    """Each server's days away have their own end to tell, though the person went away on
    both within the same second (their ends keep apart by server, not by the start alone)."""
    away = AwayStore(db)
    day = timedelta(days=1)
    await away.start_spell(1, ANN, Spell(T0, T0 + 2 * day))
    await away.start_spell(2, ANN, Spell(T0, T0 + 3 * day))
    first_end, second_end = T0 + 2 * day, T0 + 3 * day
    claimed = await away.claim_held(first_end, "a", first_end + LEASE)
    assert [(n.guild_id, n.release_at) for n in claimed] == [(1, first_end)]
    await away.mark_sent(ANN, "a", first_end)
    claimed = await away.claim_held(second_end, "a", second_end + LEASE)
    assert [(n.guild_id, n.release_at) for n in claimed] == [(2, second_end)]


async def test_going_away_again_within_the_same_second_tells_the_new_end(db: Database) -> None:
    """A second request for days away in the same second as the first (a double submit, or a
    change of mind) replaces the first: its end is the one told."""
    away = AwayStore(db)
    day = timedelta(days=1)
    await away.start_spell(1, ANN, Spell(T0, T0 + 2 * day))
    await away.start_spell(1, ANN, Spell(T0, T0 + 3 * day))
    first_end, second_end = T0 + 2 * day, T0 + 3 * day
    assert await away.claim_held(first_end, "a", first_end + LEASE) == []
    claimed = await away.claim_held(second_end, "a", second_end + LEASE)
    assert [(n.guild_id, n.kind, n.release_at) for n in claimed] == [(1, "back", second_end)]


async def test_quiet_hours_set_again_in_another_language_are_read_back_in_that_language(
    db: Database,
) -> None:
    """What quiet hours hold is told in the language they were set in: set again, in French
    after Ukrainian, every process (and the bot after a restart) reads French."""
    away = AwayStore(db)
    await away.set_quiet(ANN, QuietRow("22:00", "07:00", "Europe/Kyiv", "uk"), T0)
    again = QuietRow("23:00", "08:00", "Europe/Paris", "fr")
    await away.set_quiet(ANN, again, T0 + timedelta(minutes=1))
    assert await away.all_quiet() == {ANN: again}
    assert (await away.rules(1, ANN, T0)).quiet == again


async def test_quiet_hours_set_again_move_only_that_person_s_unsent_held_notices(
    db: Database,
) -> None:
    """What quiet hours held goes at their end as it is when it comes: setting them again
    moves the release of the person's unsent notices, in the same transaction, and leaves a
    notice already sent (sent once), the end of their days away and another person's."""
    away = AwayStore(db)
    hour = timedelta(hours=1)
    sent = replace(notice(ANN, T0), seq=2)
    assert await away.hold(sent, T0)
    assert await away.claim_held(T0, "a", T0 + LEASE) == [held_at(sent, T0)]
    assert await away.mark_sent(ANN, "a", T0) == 1
    mine, theirs = notice(ANN, T0 + hour), notice(BEA, T0 + hour)
    for held in (mine, theirs):
        assert await away.hold(held, T0)
    await away.start_spell(1, ANN, Spell(T0, T0 + hour))
    quiet = QuietRow("22:00", "07:00", "Europe/Kyiv")
    assert await away.set_quiet(ANN, quiet, T0 + LEASE, T0 + 3 * hour) == 1
    claimed = await away.claim_held(T0 + hour, "a", T0 + hour + LEASE)
    assert [(n.user_id, n.kind) for n in claimed] == [(ANN, "back"), (BEA, "turn")]
    for person in (ANN, BEA):
        assert await away.mark_sent(person, "a", T0 + hour) == 1
    claimed = await away.claim_held(T0 + 3 * hour, "b", T0 + 3 * hour + LEASE)
    assert claimed == [held_at(replace(mine, release_at=T0 + 3 * hour), T0)]


async def test_the_rules_since_a_moment_hold_the_quiet_hours_as_they_were_since(
    db: Database,
) -> None:
    """Quiet hours changed and turned off keep the moments each held between; those that
    stopped holding before the moment asked about are left out, and those older than the
    turns under way could need are dropped."""
    away = AwayStore(db)
    first = QuietRow("22:00", "07:00", "Europe/Kyiv", "uk")
    second = QuietRow("23:00", "08:00", "Europe/Paris", "fr")
    day = timedelta(days=1)
    await away.set_quiet(ANN, first, T0)
    await away.set_quiet(ANN, second, T0 + day)
    await away.set_quiet(ANN, None, T0 + 2 * day)
    rules = await away.rules(1, ANN, T0)
    assert [(span.quiet.starts, span.from_at, span.until_at) for span in rules.quiet_spans] == [
        ("22:00", T0, T0 + day),
        ("23:00", T0 + day, T0 + 2 * day),
    ]
    assert rules.quiet is None
    later = await away.rules(1, ANN, T0 + day + timedelta(hours=1))
    assert [span.from_at for span in later.quiet_spans] == [T0 + day]

    await away.set_quiet(ANN, first, T0 + 90 * day)
    spans = (await away.rules(1, ANN, T0)).quiet_spans
    assert [(span.from_at, span.until_at) for span in spans] == [(T0 + 90 * day, None)]


async def test_a_server_s_changes_of_clocks_in_quiet_hours_are_kept_as_they_alternate(
    db: Database,
) -> None:
    """Only a real change is kept, with its moment; two opposite changes at one moment cancel
    out."""
    away = AwayStore(db)
    hour = timedelta(hours=1)
    await away.set_clocks_in_quiet(1, False, T0)  # as it was: no change
    await away.set_clocks_in_quiet(1, True, T0 + hour)
    await away.set_clocks_in_quiet(1, True, T0 + 2 * hour)  # as it was
    await away.set_clocks_in_quiet(1, False, T0 + 3 * hour)
    await away.set_clocks_in_quiet(1, True, T0 + 4 * hour)
    await away.set_clocks_in_quiet(1, False, T0 + 4 * hour)  # undone at once
    rules = await away.rules(1, ANN, T0)
    assert rules.clock_changes == ((T0 + hour, True), (T0 + 3 * hour, False))
    assert not rules.settings.clocks_in_quiet
    assert (await away.rules(1, ANN, T0 + 2 * hour)).clock_changes == ((T0 + 3 * hour, False),)
    assert (await away.rules(2, ANN, T0)).clock_changes == (), "another server's own"


BACK_KIND_VERSION = 23
"""The migration that lets a held notice be the end of days away (0023), which SQLite makes by
building the table again."""


async def test_notices_held_before_the_end_of_days_away_was_kept_are_still_sent(
    database_target: str,
) -> None:
    """Notices held under the schema before migration 0023 are still there once it is applied:
    the unsent one is claimed at its release, with when it was held, and the one already sent
    is not sent again."""
    unsent = notice(ANN, T0)
    old = await open_database(database_target, schema_version=BACK_KIND_VERSION - 1)
    try:
        async with old.transaction() as conn:
            for held, sent_at in ((unsent, None), (notice(BEA, T0), T0)):
                await conn.execute(
                    "INSERT INTO held_notices (user_id, guild_id, channel_id, game_id, seq, "
                    "kind, locale, release_at, created_at, sent_at) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    held.user_id,
                    held.guild_id,
                    held.channel_id,
                    held.game_id,
                    held.seq,
                    held.kind,
                    held.locale,
                    time_to_column(held.release_at),
                    time_to_column(T0 - LEASE),
                    None if sent_at is None else time_to_column(sent_at),
                )
    finally:
        await old.close()
    database = await open_database(database_target)
    try:
        claimed = await AwayStore(database).claim_held(T0, "a", T0 + LEASE)
        assert claimed == [held_at(unsent, T0 - LEASE)]
    finally:
        await database.close()
