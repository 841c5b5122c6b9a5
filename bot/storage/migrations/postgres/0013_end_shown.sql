-- Whether the end of a game stopped early is shown: the same column as the SQLite migration at
-- the same version, which says what it holds.

ALTER TABLE games ADD COLUMN end_shown integer NOT NULL DEFAULT 0 CHECK (end_shown IN (0, 1));
UPDATE games SET end_shown = 1;
