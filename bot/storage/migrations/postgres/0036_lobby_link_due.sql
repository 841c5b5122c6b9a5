-- `lobby_link_due`, the message a started game's lobby should lead to while the lobby's edit
-- to lead there has not gone through: the same column as the SQLite migration at the same
-- version, which says what it holds.

ALTER TABLE games ADD COLUMN lobby_link_due bigint;
