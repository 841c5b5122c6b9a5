-- Every seat gets an explicit id (it was SQLite's hidden rowid, which the bot used as the seat
-- row's key): the same ids, now a column that other databases have too. SQLite cannot add a
-- primary key to a table, so the table is rebuilt with its rows, constraints and indexes.

CREATE TABLE seats_with_ids (
    id           INTEGER PRIMARY KEY,
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id      INTEGER,           -- NULL for an AI seat
    ai_level     TEXT,              -- NULL for a human seat
    seat         INTEGER CHECK (seat IS NULL OR seat BETWEEN 0 AND 3), -- assigned at start
    joined_at    TEXT    NOT NULL,
    resigned     INTEGER NOT NULL DEFAULT 0 CHECK (resigned IN (0, 1)),
    timeouts     INTEGER NOT NULL DEFAULT 0 CHECK (timeouts >= 0),
    autoplay     INTEGER NOT NULL DEFAULT 0 CHECK (autoplay IN (0, 1)),
    display_name TEXT
                 CHECK (display_name IS NULL OR length(display_name) BETWEEN 1 AND 100),
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
);
INSERT INTO seats_with_ids (id, game_id, user_id, ai_level, seat, joined_at, resigned, timeouts,
                            autoplay, display_name)
    SELECT rowid, game_id, user_id, ai_level, seat, joined_at, resigned, timeouts, autoplay,
           display_name
    FROM seats;
DROP TABLE seats;
ALTER TABLE seats_with_ids RENAME TO seats;
CREATE UNIQUE INDEX seats_one_per_user ON seats (game_id, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX seats_one_per_seat ON seats (game_id, seat) WHERE seat IS NOT NULL;
