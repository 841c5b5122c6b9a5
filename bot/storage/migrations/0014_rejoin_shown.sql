-- Whether a seat's return to its person (`/marrakech rejoin`, the AI stops playing it) is told
-- in the channel. Set to 0 by the same write that takes the seat back from the AI, and to 1 once
-- the display has told it, so a catch-up after a crash between the rejoin's commit and its
-- notice tells it then, once. Seats from before the column existed count as told.

ALTER TABLE seats ADD COLUMN rejoin_shown INTEGER NOT NULL DEFAULT 1 CHECK (rejoin_shown IN (0, 1));
