-- Tournaments: a moderator opens one in a channel, players sign up, and rounds of tables are
-- paired; each table is a game of its own, played in a thread of the tournament's channel.

CREATE TABLE tournaments (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id           INTEGER NOT NULL,
    channel_id         INTEGER NOT NULL, -- where the sign-up (later the standings) and threads are
    name               TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    format             TEXT    NOT NULL CHECK (format IN ('swiss', 'round-robin')),
    seats              INTEGER NOT NULL CHECK (seats BETWEEN 2 AND 4), -- per table, at most
    rounds             INTEGER CHECK (rounds IS NULL OR rounds >= 1), -- set at the start
    variant            TEXT    NOT NULL CHECK (variant IN ('standard', 'rotate-after')),
    turn_limit_seconds INTEGER CHECK (turn_limit_seconds IS NULL OR turn_limit_seconds > 0),
    locale             TEXT    NOT NULL DEFAULT 'en',
    status             TEXT    NOT NULL DEFAULT 'signup'
                       CHECK (status IN ('signup', 'running', 'over', 'cancelled', 'aborted')),
    created_by         INTEGER NOT NULL,
    ended_by           INTEGER,
    seed               TEXT    NOT NULL, -- orders the players at the start (the seeding)
    message_id         INTEGER,          -- the sign-up message, which shows the standings later
    created_at         TEXT    NOT NULL,
    updated_at         TEXT    NOT NULL
);

-- At most one tournament signing up or running per channel.
CREATE UNIQUE INDEX tournaments_one_open_per_channel
    ON tournaments (channel_id) WHERE status IN ('signup', 'running');
CREATE INDEX tournaments_by_status ON tournaments (status);

-- The players, in the order they signed up; `seed` is their place in the seeding, drawn at
-- the start.
CREATE TABLE tournament_players (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL,
    display_name  TEXT,
    joined_at     TEXT    NOT NULL,
    seed          INTEGER CHECK (seed IS NULL OR seed >= 1),
    PRIMARY KEY (tournament_id, user_id)
);

-- A round exists once it is paired: its row and its tables are written in one transaction,
-- and the key lets each round be paired once, whichever process tries first.
CREATE TABLE tournament_rounds (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL CHECK (round >= 1),
    paired_at     TEXT    NOT NULL,
    PRIMARY KEY (tournament_id, round)
);

-- A table of a round: its seats (a JSON list of user ids, null for a seat an AI fills), the
-- thread it is played in and its game once they exist. Setting a table up (its thread, then
-- its game) is claimed by one process at a time, for a lease, as a game's due work is.
CREATE TABLE tournament_tables (
    tournament_id INTEGER NOT NULL,
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL CHECK (table_no >= 1),
    seats         TEXT    NOT NULL,
    thread_id     INTEGER,
    game_id       INTEGER REFERENCES games (id),
    claimed_by    TEXT,
    claimed_until TEXT,
    PRIMARY KEY (tournament_id, round, table_no),
    FOREIGN KEY (tournament_id, round)
        REFERENCES tournament_rounds (tournament_id, round) ON DELETE CASCADE
);
CREATE UNIQUE INDEX tournament_tables_one_per_game ON tournament_tables (game_id)
    WHERE game_id IS NOT NULL;
