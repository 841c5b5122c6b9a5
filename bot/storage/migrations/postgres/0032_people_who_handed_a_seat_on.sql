-- Everyone who handed a seat of a game on: the same table as the SQLite migration at the same
-- version, which says why, filled the same way.
CREATE TABLE seat_leavers (
    game_id bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id bigint NOT NULL,
    PRIMARY KEY (game_id, user_id)
);

INSERT INTO seat_leavers (game_id, user_id)
    SELECT game_id, stands_in_for FROM seats WHERE stands_in_for IS NOT NULL
    UNION
    SELECT actions.game_id, actions.actor_id FROM actions
    WHERE actions.actor_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM seats
        WHERE seats.game_id = actions.game_id AND seats.user_id = actions.actor_id);
