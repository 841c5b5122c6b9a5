-- Time away from the games: the same tables and columns as the SQLite migration at the same
-- version, which says what they hold.

CREATE TABLE away_spells (
    guild_id   bigint NOT NULL,
    user_id    bigint NOT NULL,
    started_at text COLLATE "C" NOT NULL,
    ends_at    text COLLATE "C" NOT NULL,
    PRIMARY KEY (guild_id, user_id, started_at),
    CHECK (ends_at >= started_at)
);

CREATE TABLE quiet_hours (
    user_id    bigint PRIMARY KEY,
    starts     text NOT NULL CHECK (length(starts) = 5),
    ends       text NOT NULL CHECK (length(ends) = 5),
    timezone   text NOT NULL CHECK (length(timezone) BETWEEN 1 AND 64),
    updated_at text COLLATE "C" NOT NULL,
    CHECK (starts <> ends)
);

CREATE TABLE time_settings (
    guild_id        bigint PRIMARY KEY,
    away_days       integer NOT NULL DEFAULT 7 CHECK (away_days BETWEEN 0 AND 14),
    clocks_in_quiet integer NOT NULL DEFAULT 0 CHECK (clocks_in_quiet IN (0, 1)),
    updated_at      text COLLATE "C" NOT NULL
);

CREATE TABLE tournament_away (
    tournament_id bigint PRIMARY KEY REFERENCES tournaments (id) ON DELETE CASCADE,
    away_days     integer NOT NULL CHECK (away_days BETWEEN 0 AND 14)
);

CREATE TABLE held_notices (
    id            bigserial PRIMARY KEY,
    user_id       bigint NOT NULL,
    guild_id      bigint,
    channel_id    bigint NOT NULL,
    game_id       bigint NOT NULL,
    seq           bigint NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('turn', 'remind', 'nudge', 'next')),
    locale        text NOT NULL,
    release_at    text COLLATE "C" NOT NULL,
    created_at    text COLLATE "C" NOT NULL,
    claimed_by    text,
    claimed_until text COLLATE "C",
    sent_at       text COLLATE "C"
);
CREATE UNIQUE INDEX held_notices_one_per_turn ON held_notices (user_id, game_id, seq, kind);
CREATE INDEX held_notices_unsent ON held_notices (release_at) WHERE sent_at IS NULL;
