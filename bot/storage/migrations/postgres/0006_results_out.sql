-- Whether a seat was out of the game (eliminated) when it ended. Stats count an eliminated
-- seat's game and its loss, never its score: the final message shows it out, with no score.
-- Games finished before this column read 0.

ALTER TABLE results ADD COLUMN eliminated integer NOT NULL DEFAULT 0 CHECK (eliminated IN (0, 1));
