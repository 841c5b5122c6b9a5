-- The language a game's public messages are written in (bot/locales/<locale>.json), chosen from
-- the server's locale when the game opens, so every edit of its messages, after restarts too,
-- stays in that language.

ALTER TABLE games ADD COLUMN locale text NOT NULL DEFAULT 'en'
    CHECK (length(locale) BETWEEN 2 AND 8);
