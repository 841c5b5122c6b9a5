-- Whether a seat's return to its person is told: the same column as the SQLite migration at the
-- same version, which says what it holds.

ALTER TABLE seats ADD COLUMN rejoin_shown integer NOT NULL DEFAULT 1 CHECK (rejoin_shown IN (0, 1));
