-- `tournament_players.withdrew_after`, the round after which a player withdrew from a running
-- tournament (the last round paired when the withdrawal was written; 0 before the first):
-- they are paired in no later round, and keep their points and place in the standings. NULL
-- for a player still in. Written in one transaction that takes the tournament's row first, as
-- a round's pairing does (bot.storage.tournaments), so the two come one after the other.

ALTER TABLE tournament_players ADD COLUMN withdrew_after INTEGER
    CHECK (withdrew_after IS NULL OR withdrew_after >= 0);
