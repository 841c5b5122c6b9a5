-- Why the AI made a move for a person, recorded with the move: `ai_for` is 'timeout' (their
-- turn ran out of time), 'handed-over' (it ran out once too often in a row: the AI keeps the
-- seat) or 'autoplay' (the seat was already handed over), and `ai_in_a_row` their turns in a row
-- the AI played for them, this one included. Both are NULL for a person's own move, chance, an
-- AI seat's move and moves logged before the columns existed. A turn's line tells its timeout
-- from these, whatever the seat became since (a rejoin resets the seat's count).

ALTER TABLE actions ADD COLUMN ai_for TEXT
    CHECK (ai_for IS NULL OR ai_for IN ('timeout', 'handed-over', 'autoplay'));
ALTER TABLE actions ADD COLUMN ai_in_a_row INTEGER
    CHECK ((ai_in_a_row IS NULL) = (ai_for IS NULL) AND (ai_in_a_row IS NULL OR ai_in_a_row >= 1));
