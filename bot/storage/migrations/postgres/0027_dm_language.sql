-- The language a person's direct messages are written in: the Discord language they used
-- when they asked for them (`/marrakech notify`, or Watch and "Message me each turn" on a
-- game), kept with that choice; NULL for a choice made before it was kept (the game's
-- language then).

ALTER TABLE player_settings ADD COLUMN locale TEXT;
ALTER TABLE watchers ADD COLUMN locale TEXT;
