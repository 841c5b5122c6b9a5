-- A held notice may also be the end of a person's days away ('back'): held when they go away,
-- released when the days run out, it tells each game waiting for their move that their clock
-- runs again. Coming back early, or going away again, marks it sent unsaid. SQLite cannot
-- change a CHECK in place: the table is built again with its rows and indexes.

CREATE TABLE held_notices_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id       INTEGER NOT NULL,
    guild_id      INTEGER,
    channel_id    INTEGER NOT NULL,
    game_id       INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('turn', 'remind', 'nudge', 'next', 'back')),
    locale        TEXT    NOT NULL,
    release_at    TEXT    NOT NULL,
    created_at    TEXT    NOT NULL,
    claimed_by    TEXT,
    claimed_until TEXT,
    sent_at       TEXT
);
INSERT INTO held_notices_new SELECT id, user_id, guild_id, channel_id, game_id, seq, kind,
    locale, release_at, created_at, claimed_by, claimed_until, sent_at FROM held_notices;
DROP TABLE held_notices;
ALTER TABLE held_notices_new RENAME TO held_notices;
CREATE UNIQUE INDEX held_notices_one_per_turn ON held_notices (user_id, game_id, seq, kind);
CREATE INDEX held_notices_unsent ON held_notices (release_at) WHERE sent_at IS NULL;
