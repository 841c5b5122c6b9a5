-- `tournament_id`, the tournament whose table a game is (NULL: an ordinary game), read with the
-- game's row: a tournament's game offers no Rematch, the tournament pairing the next round. It
-- repeats tournament_tables.game_id, set with it when the table's game is made; games made
-- before this column are filled in from there. No foreign key: copying a database moves the
-- games before the tournaments' tables, as their own foreign key asks.

ALTER TABLE games ADD COLUMN tournament_id INTEGER;

UPDATE games SET tournament_id = (
    SELECT tournament_tables.tournament_id FROM tournament_tables
    WHERE tournament_tables.game_id = games.id
)
WHERE id IN (SELECT game_id FROM tournament_tables WHERE game_id IS NOT NULL);
