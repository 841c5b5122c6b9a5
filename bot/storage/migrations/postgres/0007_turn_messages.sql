-- A player's own settings, kept per Discord user for the whole bot (not per server): a direct
-- message reaches the player outside every server, so one choice covers all their games.
-- `turn_dms`: 1 if the player asked (/marrakech notify on) for a direct message when it
-- becomes their turn; turned back to 0 by the bot when Discord refuses to deliver one.

CREATE TABLE player_settings (
    user_id    bigint  PRIMARY KEY,
    turn_dms   integer NOT NULL DEFAULT 0 CHECK (turn_dms IN (0, 1)),
    updated_at text COLLATE "C" NOT NULL
);
