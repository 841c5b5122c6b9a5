-- Coached games (docs/coach.md): `games.coach` is 1 for a game opened with the coach, whose
-- players may ask for hints and get a private verdict on each decision. A coached game is
-- always casual (never rated); tournaments open their games uncoached.

ALTER TABLE games ADD COLUMN coach INTEGER NOT NULL DEFAULT 0
    CHECK (coach IN (0, 1) AND (coach = 0 OR casual = 1));
