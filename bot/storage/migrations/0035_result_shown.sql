-- `games.end_shown` also says, for a finished game, that its result shows all the game has: 1
-- once the result posted shows the game's rating changes. A rated game whose ratings were
-- applied after its result was posted without them (applying failed at its end) is shown again
-- (bot.storage.display_marks): its result is edited to show them, then marked. The results
-- posted before this version count as shown.

UPDATE games SET end_shown = 1 WHERE status = 'over';
