-- Games, their seats, the append-only action log, and a small key/value table for the bot.

CREATE TABLE games (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id           INTEGER,
    channel_id         INTEGER NOT NULL,
    host_id            INTEGER NOT NULL,
    status             TEXT    NOT NULL DEFAULT 'lobby'
                       CHECK (status IN ('lobby', 'running', 'over', 'aborted')),
    seats_wanted       INTEGER NOT NULL CHECK (seats_wanted BETWEEN 2 AND 4),
    variant            TEXT    NOT NULL CHECK (variant IN ('standard', 'rotate-after')),
    turn_limit_seconds INTEGER CHECK (turn_limit_seconds IS NULL OR turn_limit_seconds > 0),
    config             TEXT,            -- JSON: players, variant, first_player, piles (set at start)
    seed               TEXT    NOT NULL, -- secret, hex; revealed only in the final record
    seed_sha256        TEXT    NOT NULL, -- commitment shown from the start
    seq                INTEGER NOT NULL DEFAULT 0, -- number of actions in the log
    position           TEXT,            -- snapshot (marrakech-position/1) after `seq` actions
    board_message_id   INTEGER,         -- the message that shows the game now
    board_message_seq  INTEGER,         -- the seq that message shows
    end_reason         TEXT,
    ended_by           INTEGER,
    created_at         TEXT    NOT NULL,
    updated_at         TEXT    NOT NULL
);

-- At most one open (lobby or running) game per channel.
CREATE UNIQUE INDEX games_one_open_per_channel
    ON games (channel_id) WHERE status IN ('lobby', 'running');
CREATE INDEX games_by_status ON games (status);

CREATE TABLE seats (
    game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id   INTEGER,           -- NULL for an AI seat
    ai_level  TEXT,              -- NULL for a human seat
    seat      INTEGER CHECK (seat IS NULL OR seat BETWEEN 0 AND 3), -- assigned at start
    joined_at TEXT    NOT NULL,
    resigned  INTEGER NOT NULL DEFAULT 0 CHECK (resigned IN (0, 1)),
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
);
CREATE UNIQUE INDEX seats_one_per_user ON seats (game_id, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX seats_one_per_seat ON seats (game_id, seat) WHERE seat IS NOT NULL;

-- The game's log: every action notation in order (chance rolls included), plus resignations,
-- which are not notations (FORMATS.md keeps them in a record's "resignations" extra).
CREATE TABLE actions (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1), -- 1-based: the n-th entry of the game's log
    kind       TEXT    NOT NULL DEFAULT 'action' CHECK (kind IN ('action', 'resign')),
    notation   TEXT    CHECK (notation IS NULL OR length(notation) BETWEEN 1 AND 8),
    seat       INTEGER CHECK (seat IS NULL OR seat BETWEEN 0 AND 3), -- who resigned
    actor_id   INTEGER,          -- the Discord user who acted; NULL for chance and AI
    created_at TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq),
    CHECK ((kind = 'action') = (notation IS NOT NULL)),
    CHECK ((kind = 'resign') = (seat IS NOT NULL))
) WITHOUT ROWID;

-- The log is append-only: refuse edits and deletions of single actions.
CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
BEGIN
    SELECT RAISE(ABORT, 'the action log is append-only');
END;

CREATE TABLE bot_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
