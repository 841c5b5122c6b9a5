-- `lobby_link_due`, the message a started game's lobby should lead to (its first turn, or its
-- result) while the lobby's edit to lead there has not gone through (NULL: the lobby leads
-- where it should). Written with the message's own record, after that edit: a start catches
-- up every lobby still due, once (bot.storage.display_marks). The games before this version
-- count as led to.

ALTER TABLE games ADD COLUMN lobby_link_due INTEGER;
