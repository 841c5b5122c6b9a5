-- The language of what quiet hours hold: the Discord language the person used when they set
-- them (`/marrakech quiet-hours`), so the one direct message that brings what was held when
-- they end is written in it, whichever game it names first; NULL for quiet hours set before
-- it was kept (the language of each notice's game then).

ALTER TABLE quiet_hours ADD COLUMN locale TEXT;
