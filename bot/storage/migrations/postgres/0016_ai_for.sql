-- Why the AI made a move for a person: the same columns as the SQLite migration at the same
-- version, which says what they hold.

ALTER TABLE actions ADD COLUMN ai_for text
    CHECK (ai_for IS NULL OR ai_for IN ('timeout', 'handed-over', 'autoplay'));
ALTER TABLE actions ADD COLUMN ai_in_a_row integer
    CHECK ((ai_in_a_row IS NULL) = (ai_for IS NULL) AND (ai_in_a_row IS NULL OR ai_in_a_row >= 1));
