-- Skill ratings per server (bot/services/ratings.py, docs/ratings.md).
--
-- `games.casual`: 1 for a game opened as casual, which no rating counts.
--
-- `rated_games` is the order in which a server's rated games ended: written with the results,
-- in the same transaction as the game's last action, and never changed after. The ratings are
-- what applying these games one after the other, in that order, gives; `rating_guilds` counts
-- a server's rated games (`games`, the number the next one takes; its row is what the
-- transaction that numbers a game locks) and how many of them the ratings include so far
-- (`applied`). `ratings` (each player's skill now) and `rating_changes` (each rated seat's
-- skill before and after its game, with its place and the player's rated games so far) are
-- derived from them, and rebuilt from them by `marrakech-bot ratings rebuild`.
-- A player is a person (`user_id`) or an AI level (`ai_level`), a reference player per server.
--
-- The server's finished games from before this migration are queued in the order they ended;
-- the bot rates them when it starts.

ALTER TABLE games ADD COLUMN casual INTEGER NOT NULL DEFAULT 0 CHECK (casual IN (0, 1));

CREATE TABLE rating_guilds (
    guild_id INTEGER PRIMARY KEY,
    games    INTEGER NOT NULL CHECK (games >= 0),
    applied  INTEGER NOT NULL CHECK (applied BETWEEN 0 AND games)
) WITHOUT ROWID;

CREATE TABLE rated_games (
    guild_id INTEGER NOT NULL,
    number   INTEGER NOT NULL CHECK (number >= 1),  -- 1 for the server's first rated game
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    PRIMARY KEY (guild_id, number)
) WITHOUT ROWID;
CREATE UNIQUE INDEX rated_games_one_per_game ON rated_games (game_id);

CREATE TABLE ratings (
    id       INTEGER PRIMARY KEY,
    guild_id INTEGER NOT NULL,
    user_id  INTEGER,            -- NULL for an AI level
    ai_level TEXT,               -- NULL for a person
    mu       REAL    NOT NULL,
    sigma    REAL    NOT NULL CHECK (sigma > 0),
    games    INTEGER NOT NULL CHECK (games >= 1),  -- rated games played
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
);
CREATE UNIQUE INDEX ratings_one_per_user ON ratings (guild_id, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX ratings_one_per_ai_level
    ON ratings (guild_id, ai_level) WHERE ai_level IS NOT NULL;

CREATE TABLE rating_changes (
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat         INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    guild_id     INTEGER NOT NULL,
    number       INTEGER NOT NULL CHECK (number >= 1),  -- the game's in rated_games
    user_id      INTEGER,
    ai_level     TEXT,
    place        INTEGER NOT NULL CHECK (place >= 1),
    mu_before    REAL    NOT NULL,
    sigma_before REAL    NOT NULL,
    mu_after     REAL    NOT NULL,
    sigma_after  REAL    NOT NULL,
    games        INTEGER NOT NULL CHECK (games >= 1),  -- the player's rated games, this one included
    PRIMARY KEY (game_id, seat),
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
) WITHOUT ROWID;
CREATE INDEX rating_changes_by_user
    ON rating_changes (guild_id, user_id, number) WHERE user_id IS NOT NULL;

INSERT INTO rated_games (guild_id, number, game_id)
    SELECT guild_id, row_number() OVER (PARTITION BY guild_id ORDER BY updated_at, id), id
    FROM games
    WHERE status = 'over' AND guild_id IS NOT NULL
      AND EXISTS (SELECT 1 FROM results WHERE results.game_id = games.id
                  AND results.user_id IS NOT NULL);
INSERT INTO rating_guilds (guild_id, games, applied)
    SELECT guild_id, count(*), 0 FROM rated_games GROUP BY guild_id;
