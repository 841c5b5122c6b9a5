-- A round-robin's schedule, stored when the tournament starts: a JSON list of rounds, each a
-- list of tables, each a list of seats (a user id, null for a seat an AI fills). Working it
-- out takes up to a second of CPU at 64 players, so it is done once and each round reads its
-- tables from here. NULL for a Swiss tournament, and for a round-robin started before the
-- column existed (its schedule is worked out at its next round and stored then).

ALTER TABLE tournaments ADD COLUMN schedule TEXT;
