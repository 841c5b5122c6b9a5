-- A place after a shared one counts every seat ranked above it (1, 1, 3), as the final message,
-- the final picture, the analysis and a tournament's standings number places. The stats show
-- the places kept here (a rated game's "place 3 of 3", a game finished for someone), so they
-- are numbered the same way. Places kept without that gap (1, 1, 2) are renumbered: in each
-- game's results, a seat's place in the game's ranking (`finished_place` for a seat a
-- substitute finished, `place` for the others) and its place among the rated players
-- (`rated_place`, in a game with a substitute); a seat a substitute finished takes its new rated
-- place as its `place`; and each rating change takes the place its rating counted (the rated
-- place, else the place). A rating or a standing reads only the order of the places, which
-- stays as it was.
--
-- Every new number is worked out from the places as they were before any is written (the
-- statement's own snapshot).

UPDATE results SET place = n.place, rated_place = n.rated_place, finished_place = n.finished_place
FROM (
    SELECT game_id, seat,
           CASE WHEN finished_by IS NULL THEN ranked ELSE coalesce(rated, place) END AS place,
           rated AS rated_place,
           CASE WHEN finished_by IS NULL THEN NULL ELSE ranked END AS finished_place
    FROM (
        SELECT game_id, seat, place, finished_by,
               rank() OVER (PARTITION BY game_id
                            ORDER BY CASE WHEN finished_by IS NULL THEN place
                                          ELSE finished_place END) AS ranked,
               CASE WHEN rated_place IS NOT NULL THEN
                   rank() OVER (PARTITION BY game_id, rated_place IS NULL ORDER BY rated_place)
               END AS rated
        FROM results
    ) AS ranks
) AS n
WHERE n.game_id = results.game_id AND n.seat = results.seat
  AND (n.place <> results.place OR n.rated_place IS DISTINCT FROM results.rated_place
       OR n.finished_place IS DISTINCT FROM results.finished_place);

UPDATE rating_changes SET place = coalesce(r.rated_place, r.place)
FROM results r
WHERE r.game_id = rating_changes.game_id AND r.seat = rating_changes.seat
  AND rating_changes.place <> coalesce(r.rated_place, r.place);
