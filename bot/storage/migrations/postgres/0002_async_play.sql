-- Asynchronous play: AI seats taking over, turn deadlines, results for stats, guild settings.

-- The current turn's clock. `turn_started_at` is when the player to move began their turn;
-- `remind_at` when they get their one reminder (NULL once sent, or without a limit);
-- `due_at` when the bot must act by itself: at once for an AI seat, at the deadline for a
-- human one (NULL when nothing is due).
ALTER TABLE games ADD COLUMN turn_started_at text COLLATE "C";
ALTER TABLE games ADD COLUMN remind_at text COLLATE "C";
ALTER TABLE games ADD COLUMN due_at text COLLATE "C";
CREATE INDEX games_by_due ON games (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX games_by_remind ON games (remind_at) WHERE remind_at IS NOT NULL;

-- A human seat's timeouts in a row, and whether the AI plays it for the rest of the game
-- (until the player takes it back with /marrakech rejoin).
ALTER TABLE seats ADD COLUMN timeouts integer NOT NULL DEFAULT 0 CHECK (timeouts >= 0);
ALTER TABLE seats ADD COLUMN autoplay integer NOT NULL DEFAULT 0 CHECK (autoplay IN (0, 1));

-- One row per seat of every finished game, written with the final action: what stats count.
CREATE TABLE results (
    game_id  bigint  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat     integer NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id  bigint,             -- NULL for an AI seat
    ai_level text,               -- NULL for a human seat
    color    text    NOT NULL,   -- the seat's (first) rug colour
    score    integer NOT NULL,
    dirhams  integer NOT NULL,
    place    integer NOT NULL CHECK (place >= 1),
    won      integer NOT NULL CHECK (won IN (0, 1)),
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX results_by_user ON results (user_id) WHERE user_id IS NOT NULL;

-- Per-server settings chosen by moderators with /marrakech-admin.
CREATE TABLE guild_settings (
    guild_id           bigint PRIMARY KEY,
    turn_limit_seconds bigint CHECK (turn_limit_seconds IS NULL OR turn_limit_seconds > 0),
    variant            text CHECK (variant IS NULL OR variant IN ('standard', 'rotate-after')),
    updated_at         text COLLATE "C" NOT NULL
);

-- Channels where games may be opened; a server with none listed allows every channel.
CREATE TABLE guild_channels (
    guild_id   bigint NOT NULL,
    channel_id bigint NOT NULL,
    PRIMARY KEY (guild_id, channel_id)
);
