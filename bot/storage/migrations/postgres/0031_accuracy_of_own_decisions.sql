-- A person's accuracy in a game counts the decisions they made themselves: a seat may have a
-- row for each person who played it. The same change as the SQLite migration at the same
-- version, which says why; the figures written before are dropped and written again.

DELETE FROM seat_accuracy;
ALTER TABLE seat_accuracy DROP CONSTRAINT seat_accuracy_pkey;
ALTER TABLE seat_accuracy ADD PRIMARY KEY (game_id, seat, user_id);
