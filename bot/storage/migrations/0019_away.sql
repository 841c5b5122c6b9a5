-- Time away from the games (docs/async.md): away days, quiet hours, and what was held for a
-- person while their quiet hours lasted.
--
-- `away_spells`: each time a person went away on a server, from `started_at` to `ends_at`
-- (the end they asked for, or the moment they came back early). A turn's clock does not run
-- inside a spell, and the month's days away are counted from these rows.
-- `quiet_hours`: a person's daily quiet hours, bot-wide ('HH:MM' local times in an IANA zone).
-- `time_settings`: a server's rules of time: the most days one may be away at once (0: away
-- days refused) and whether turn clocks run during a player's quiet hours (0: they pause).
-- `tournament_away`: a tournament's own cap on away days (0: refused), set by a moderator,
-- since a round waits for its slowest table; it holds for its players while it is open.
-- `held_notices`: a ping or direct message held during quiet hours (their turn, its reminder,
-- a nudge, or a message that their turn is next), sent as one message with
-- the others of its person once `release_at` has passed. Its sending is claimed (`claimed_by`,
-- `claimed_until`, a lease) and marked (`sent_at`), so of several processes one sends it, once;
-- one row per person, game, turn and kind, so a ping and a direct message of the same turn are
-- held once.

CREATE TABLE away_spells (
    guild_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    started_at TEXT    NOT NULL,
    ends_at    TEXT    NOT NULL,
    PRIMARY KEY (guild_id, user_id, started_at),
    CHECK (ends_at >= started_at)
) WITHOUT ROWID;

CREATE TABLE quiet_hours (
    user_id    INTEGER PRIMARY KEY,
    starts     TEXT    NOT NULL CHECK (length(starts) = 5),
    ends       TEXT    NOT NULL CHECK (length(ends) = 5),
    timezone   TEXT    NOT NULL CHECK (length(timezone) BETWEEN 1 AND 64),
    updated_at TEXT    NOT NULL,
    CHECK (starts <> ends)
) WITHOUT ROWID;

CREATE TABLE time_settings (
    guild_id        INTEGER PRIMARY KEY,
    away_days       INTEGER NOT NULL DEFAULT 7 CHECK (away_days BETWEEN 0 AND 14),
    clocks_in_quiet INTEGER NOT NULL DEFAULT 0 CHECK (clocks_in_quiet IN (0, 1)),
    updated_at      TEXT    NOT NULL
) WITHOUT ROWID;

CREATE TABLE tournament_away (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments (id) ON DELETE CASCADE,
    away_days     INTEGER NOT NULL CHECK (away_days BETWEEN 0 AND 14)
) WITHOUT ROWID;

CREATE TABLE held_notices (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id       INTEGER NOT NULL,
    guild_id      INTEGER,
    channel_id    INTEGER NOT NULL,
    game_id       INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('turn', 'remind', 'nudge', 'next')),
    locale        TEXT    NOT NULL,
    release_at    TEXT    NOT NULL,
    created_at    TEXT    NOT NULL,
    claimed_by    TEXT,
    claimed_until TEXT,
    sent_at       TEXT
);
CREATE UNIQUE INDEX held_notices_one_per_turn ON held_notices (user_id, game_id, seq, kind);
CREATE INDEX held_notices_unsent ON held_notices (release_at) WHERE sent_at IS NULL;
