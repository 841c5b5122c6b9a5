-- Each person's accuracy in each finished game (docs/coach.md, "Accuracy in your stats"): the
-- judge's `SeatSummary.accuracy` (0-100) of a seat a person held when the game ended, written
-- once by a background job after the game (bot/services/accuracy.py). AI seats have none; a
-- seat with no decision that had a choice has NULL (judged, nothing to count). A row is never
-- changed: the judge is deterministic, and a second writer's row is dropped
-- (INSERT ... ON CONFLICT DO NOTHING). `/marrakech stats` reads the newest 20 of a person's.

CREATE TABLE seat_accuracy (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat     INTEGER NOT NULL CHECK (seat >= 0),
    user_id  INTEGER NOT NULL,
    accuracy REAL CHECK (accuracy BETWEEN 0 AND 100),
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;

CREATE INDEX seat_accuracy_by_user ON seat_accuracy (user_id, game_id);
