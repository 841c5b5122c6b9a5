-- A person's accuracy in a game is now the share of what their decisions had at stake that
-- their choices kept (docs/coach.md, "Accuracy"). The figures written under the earlier
-- formula (the mean of lichess's curve over the decisions, which counted decided decisions as
-- perfect) are dropped, so that no member's average or trend mixes the two. The stats' job
-- writes them again at the next start, newest first, for every game a member's stats show
-- (their newest 20 finished games in the server, however old; bot/services/accuracy.py), from
-- the judgement kept for each game (migration 0022); a game that ended before judgements were
-- kept is judged once more, in the background, at the job's usual pace.

DELETE FROM seat_accuracy;
