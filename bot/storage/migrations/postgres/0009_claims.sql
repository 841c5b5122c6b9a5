-- Several bot processes may share one database: each piece of due work of a game (an automatic
-- turn, a reminder, a display to repair) is claimed before it is done, so exactly one process
-- does it. `claimed_by` names the process holding the claim, `claimed_until` when its lease
-- runs out (a process killed mid-work leaves a claim that another takes after that). Both are
-- NULL when the game is not claimed.
-- `rev` counts the changes to the game's seats (joins, leaves, the start, timeouts, hand-overs
-- and rejoins), which the game's own row would not show: a process checks its copy of a game
-- against the row and `rev` before it trusts it.

ALTER TABLE games ADD COLUMN claimed_by text;
ALTER TABLE games ADD COLUMN claimed_until text COLLATE "C";
ALTER TABLE games ADD COLUMN rev integer NOT NULL DEFAULT 0 CHECK (rev >= 0);
