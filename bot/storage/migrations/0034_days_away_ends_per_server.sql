-- The end of a person's days away ('back') is one per server and spell: its key is the
-- server and the spell's start, so days away begun on two servers within the same second each
-- keep their end to tell. The other held notices stay one per game, turn and kind.
DROP INDEX held_notices_one_per_turn;
CREATE UNIQUE INDEX held_notices_one_per_turn ON held_notices (user_id, game_id, seq, kind)
    WHERE kind <> 'back';
CREATE UNIQUE INDEX held_notices_one_back ON held_notices (user_id, guild_id, seq)
    WHERE kind = 'back';
