-- Each person's accuracy in each finished game: the same table as the SQLite migration at the
-- same version, which says what it holds.

CREATE TABLE seat_accuracy (
    game_id  bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat     integer NOT NULL CHECK (seat >= 0),
    user_id  bigint NOT NULL,
    accuracy double precision CHECK (accuracy BETWEEN 0 AND 100),
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX seat_accuracy_by_user ON seat_accuracy (user_id, game_id);
