-- The round after which a player withdrew from a running tournament: the same column as the
-- SQLite migration at the same version, which says what it holds.

ALTER TABLE tournament_players ADD COLUMN withdrew_after integer
    CHECK (withdrew_after IS NULL OR withdrew_after >= 0);
