-- The coach's judgement of each finished game (docs/coach.md, "One judgement per game"): every
-- decision of every seat judged, its options with their chances and facts, as the compact JSON
-- of ai/judge_json.py. Written once, by whichever of the analysis, the drill or the stats'
-- background job needs it first, and read by all three: judging costs seconds of CPU, reading a
-- few milliseconds. A row is never changed: the judge is deterministic, and a second writer's
-- row is dropped (INSERT ... ON CONFLICT DO NOTHING).

CREATE TABLE game_judgements (
    game_id   INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    judgement TEXT NOT NULL
);
