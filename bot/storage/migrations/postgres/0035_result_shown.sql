-- A finished game's result shows all the game has: the same column and rows as the SQLite
-- migration at the same version, which says what it holds.

UPDATE games SET end_shown = 1 WHERE status = 'over';
