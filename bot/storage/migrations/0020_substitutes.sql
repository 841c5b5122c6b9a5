-- Substitutes and nudges (docs/async.md#substitutes).
--
-- A seat handed to another member keeps, with the seat, the person the game rates for it: the
-- first one who left it (`stands_in_for`, NULL while the seat's first person holds it), and how
-- many seats were out of the game at that moment (`left_with_out`), which is where a
-- resignation then would have placed them. Later substitutes are never rated for the seat.
ALTER TABLE seats ADD COLUMN stands_in_for INTEGER;
ALTER TABLE seats ADD COLUMN left_with_out INTEGER
    CHECK ((left_with_out IS NULL) = (stands_in_for IS NULL)
           AND (left_with_out IS NULL OR left_with_out >= 0));

-- A finished seat that was handed over: `user_id` is the person who left (rated and counted as
-- if they resigned then: `place` is where that puts them), `finished_by` the substitute who
-- played it to its end and `finished_place` the seat's own place (their stats show it as a game
-- finished for someone). `rated_place` orders every seat of such a game for the ratings (the
-- ratings read `place` when it is NULL, as in every game without a substitute).
ALTER TABLE results ADD COLUMN rated_place INTEGER CHECK (rated_place IS NULL OR rated_place >= 1);
ALTER TABLE results ADD COLUMN finished_by INTEGER;
ALTER TABLE results ADD COLUMN finished_place INTEGER
    CHECK ((finished_place IS NULL) = (finished_by IS NULL)
           AND (finished_place IS NULL OR finished_place >= 1));
CREATE INDEX results_by_finisher ON results (finished_by) WHERE finished_by IS NOT NULL;

-- The last nudge of each game: one guarded upsert takes the next, so two players (or two
-- processes) nudging at once give one ping.
CREATE TABLE nudges (
    game_id   INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    user_id   INTEGER NOT NULL,   -- who nudged
    nudged_at TEXT    NOT NULL
) WITHOUT ROWID;

-- A host's request to hand a seat over, waiting for the other players' agreement: every person
-- in `waiting_for` (a JSON list of user ids) presses Agree before `expires_at`; one refusal or
-- the time running out closes it. The agreements are rows, so two presses at once both count.
CREATE TABLE seat_requests (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    out_user_id INTEGER NOT NULL,
    in_user_id  INTEGER NOT NULL,
    in_name     TEXT CHECK (in_name IS NULL OR length(in_name) BETWEEN 1 AND 100),
    asked_by    INTEGER NOT NULL,
    waiting_for TEXT    NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'open'
                CHECK (status IN ('open', 'done', 'refused', 'expired', 'failed')),
    asked_at    TEXT    NOT NULL,
    expires_at  TEXT    NOT NULL
);
CREATE INDEX seat_requests_by_game ON seat_requests (game_id);

CREATE TABLE seat_agreements (
    request_id INTEGER NOT NULL REFERENCES seat_requests (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL,
    PRIMARY KEY (request_id, user_id)
) WITHOUT ROWID;
