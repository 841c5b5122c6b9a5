-- Spectators (docs/watching.md): who watches which running game, whether they asked for a
-- direct message at each finished turn, and the game's seq up to which those messages are
-- sent. `sent_seq` moves forward by one conditional update before a message goes out, so a
-- turn is told at most once, by one process, across restarts; the rows of a game go when it
-- ends (a finished game stops the messages) and when the watcher stops watching.
-- `next_dms`: 1 if the player asked (/marrakech notify next) for a direct message when the
-- player before them starts their turn.

CREATE TABLE watchers (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL,
    dms        INTEGER NOT NULL DEFAULT 0 CHECK (dms IN (0, 1)),
    sent_seq   INTEGER NOT NULL DEFAULT 0 CHECK (sent_seq >= 0),
    created_at TEXT    NOT NULL,
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;

ALTER TABLE player_settings ADD COLUMN next_dms INTEGER NOT NULL DEFAULT 0
    CHECK (next_dms IN (0, 1));
