-- A round-robin's schedule, stored when the tournament starts: the same column as the SQLite
-- migration at the same version, which says what it holds.

ALTER TABLE tournaments ADD COLUMN schedule text;
