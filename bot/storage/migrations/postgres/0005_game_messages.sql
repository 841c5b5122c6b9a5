-- Messages of a game besides the one that shows it now (`board_message_id`):
-- `lobby_message_id`, the lobby's message, kept once the game starts: the lobby goes on saying
-- where the game is (the turn being played, or the result); NULL if it was never recorded.
-- `reminder_message_id`, the reminder sent to the player of the turn being played: once that
-- turn is over it is edited to say so (NULL: none out).

ALTER TABLE games ADD COLUMN lobby_message_id bigint;
ALTER TABLE games ADD COLUMN reminder_message_id bigint;
