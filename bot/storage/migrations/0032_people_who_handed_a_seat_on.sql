-- Everyone who handed a seat of a game on (docs/async.md, Substitutes): a seat's row keeps
-- only the person holding it and the one who left it first (`stands_in_for`), so a substitute
-- who handed the seat on again would be free to take another seat of the same game, where no
-- one who is or was in it may. Each hand-over adds a row. A game handed over before this table
-- is filled from what is left of it: the seats' first leavers, and the people whose moves its
-- log holds who no longer hold a seat (a substitute who handed the seat on without a move is
-- not known).
CREATE TABLE seat_leavers (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL,
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;

INSERT INTO seat_leavers (game_id, user_id)
    SELECT game_id, stands_in_for FROM seats WHERE stands_in_for IS NOT NULL
    UNION
    SELECT actions.game_id, actions.actor_id FROM actions
    WHERE actions.actor_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM seats
        WHERE seats.game_id = actions.game_id AND seats.user_id = actions.actor_id);
