-- A person's accuracy in a game counts the decisions they made themselves (docs/coach.md,
-- "Accuracy in your stats"): in a seat handed to a substitute, each person has a row for the
-- decisions they made in it, and the turns the AI played for someone (their time ran out, or
-- the AI played their seat until they rejoined) count for nobody. So a seat may have a row
-- for each person who played it. SQLite cannot change a primary key in place: the table is
-- built again. The figures written before, each over a whole seat, are dropped; the stats'
-- job writes them again at the next start, newest first, for every game a member's stats
-- show, from the judgement kept for each game (migration 0022), as after migration 0029.

CREATE TABLE seat_accuracy_new (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat     INTEGER NOT NULL CHECK (seat >= 0),
    user_id  INTEGER NOT NULL,
    accuracy REAL CHECK (accuracy BETWEEN 0 AND 100),
    PRIMARY KEY (game_id, seat, user_id)
) WITHOUT ROWID;
DROP TABLE seat_accuracy;
ALTER TABLE seat_accuracy_new RENAME TO seat_accuracy;
CREATE INDEX seat_accuracy_by_user ON seat_accuracy (user_id, game_id);
