-- The name a player is shown by in the pictures (the board's panel, the final ranking, the
-- replay): their server nickname, else their global name, else their username, as it was when
-- they opened or joined the lobby. NULL for an AI seat, and for seats taken before names were
-- kept: the picture then shows the seat's label.

ALTER TABLE seats ADD COLUMN display_name text
    CHECK (display_name IS NULL OR length(display_name) BETWEEN 1 AND 100);
