-- Coached games: the same column as the SQLite migration at the same version, which says what
-- it holds.

ALTER TABLE games ADD COLUMN coach integer NOT NULL DEFAULT 0 CHECK (coach IN (0, 1));
ALTER TABLE games ADD CONSTRAINT games_coach_is_casual CHECK (coach = 0 OR casual = 1);
