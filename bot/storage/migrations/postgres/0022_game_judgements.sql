-- The coach's judgement of each finished game: the same table as the SQLite migration at the
-- same version, which says what it holds.

CREATE TABLE game_judgements (
    game_id   bigint PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    judgement text NOT NULL
);
