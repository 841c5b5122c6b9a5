-- A held notice may also be the end of a person's days away ('back'): held when they go away,
-- released when the days run out, it tells each game waiting for their move that their clock
-- runs again. Coming back early, or going away again, marks it sent unsaid.

ALTER TABLE held_notices DROP CONSTRAINT held_notices_kind_check;
ALTER TABLE held_notices ADD CONSTRAINT held_notices_kind_check
    CHECK (kind IN ('turn', 'remind', 'nudge', 'next', 'back'));
