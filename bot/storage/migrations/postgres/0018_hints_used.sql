-- The hints a seat's person has used in a coached game: the same column as the SQLite migration
-- at the same version, which says what it holds.

ALTER TABLE seats ADD COLUMN hints_used integer NOT NULL DEFAULT 0 CHECK (hints_used >= 0);
