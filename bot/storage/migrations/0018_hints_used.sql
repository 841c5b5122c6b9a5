-- How many of a coached game's hints (docs/coach.md) the seat's person has used. Taken by one
-- guarded update that never passes the game's allowance, so two clicks or two processes at the
-- last hint give one; given back when the hint could not be shown. Kept with the seat, so a
-- restart or another process sees the hints used.

ALTER TABLE seats ADD COLUMN hints_used INTEGER NOT NULL DEFAULT 0 CHECK (hints_used >= 0);
