-- `nudge_message_id`, the ping a player's nudge posted for the turn being played: once that
-- turn is over it is edited to say so, as the reminder is (NULL: none out).

ALTER TABLE games ADD COLUMN nudge_message_id INTEGER;
