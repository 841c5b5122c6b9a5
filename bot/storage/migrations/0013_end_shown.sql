-- Whether the end of a game stopped early (aborted, or abandoned by everyone) is shown: its last
-- turn's message down to its line with no button, and the end told in its channel. 0 until the
-- display has shown it, so a catch-up after a crash between the end's commit and its showing
-- shows it then, once. Games that ended before the column existed count as shown.

ALTER TABLE games ADD COLUMN end_shown INTEGER NOT NULL DEFAULT 0 CHECK (end_shown IN (0, 1));
UPDATE games SET end_shown = 1;
