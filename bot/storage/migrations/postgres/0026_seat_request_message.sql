-- `message_id`, the message in the game's channel that asks the players to agree to a seat
-- request (with its Agree and Refuse buttons): once the request can no longer be answered (its
-- game ended, its time ran out) that message is edited to say so (NULL: not known).

ALTER TABLE seat_requests ADD COLUMN message_id bigint;
