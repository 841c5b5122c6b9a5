-- Spectators and the "when I am next" direct message: the same table and column as the SQLite
-- migration at the same version, which says what they hold.

CREATE TABLE watchers (
    game_id    bigint  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id    bigint  NOT NULL,
    dms        integer NOT NULL DEFAULT 0 CHECK (dms IN (0, 1)),
    sent_seq   integer NOT NULL DEFAULT 0 CHECK (sent_seq >= 0),
    created_at text    COLLATE "C" NOT NULL,
    PRIMARY KEY (game_id, user_id)
);

ALTER TABLE player_settings ADD COLUMN next_dms integer NOT NULL DEFAULT 0
    CHECK (next_dms IN (0, 1));
