-- A turn's clock stops in its player's quiet hours as they were at each moment, and as the
-- server let clocks run in them then (docs/async.md, "Do turn clocks run during quiet
-- hours?"): quiet hours set, changed or turned off during a turn, or a server's choice changed,
-- change only the time that follows, never the time that already ran.
--
-- `quiet_hours_past`: the quiet hours a change replaced, with the moments they held between
-- (`quiet_hours` keeps those in force, from its `updated_at`). Only the last 60 days' are kept:
-- no turn under way goes back further.
-- `quiet_clock_changes`: each change of a server's choice (`time_settings.clocks_in_quiet`),
-- with its moment and the choice from then on; before the first one kept the choice was the
-- other one (a change is kept only when the choice changes).
CREATE TABLE quiet_hours_past (
    user_id  INTEGER NOT NULL,
    starts   TEXT    NOT NULL,
    ends     TEXT    NOT NULL,
    timezone TEXT    NOT NULL,
    from_at  TEXT    NOT NULL,
    until_at TEXT    NOT NULL CHECK (until_at > from_at),
    PRIMARY KEY (user_id, until_at)
) WITHOUT ROWID;

CREATE TABLE quiet_clock_changes (
    guild_id        INTEGER NOT NULL,
    changed_at      TEXT    NOT NULL,
    clocks_in_quiet INTEGER NOT NULL CHECK (clocks_in_quiet IN (0, 1)),
    PRIMARY KEY (guild_id, changed_at)
) WITHOUT ROWID;
