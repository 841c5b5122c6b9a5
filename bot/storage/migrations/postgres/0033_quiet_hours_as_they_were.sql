-- Quiet hours and a server's choice of clocks in them, as they were at each moment: the same
-- tables as the SQLite migration at the same version, which says why.
CREATE TABLE quiet_hours_past (
    user_id  bigint NOT NULL,
    starts   text COLLATE "C" NOT NULL,
    ends     text COLLATE "C" NOT NULL,
    timezone text NOT NULL,
    from_at  text COLLATE "C" NOT NULL,
    until_at text COLLATE "C" NOT NULL CHECK (until_at > from_at),
    PRIMARY KEY (user_id, until_at)
);

CREATE TABLE quiet_clock_changes (
    guild_id        bigint NOT NULL,
    changed_at      text COLLATE "C" NOT NULL,
    clocks_in_quiet integer NOT NULL CHECK (clocks_in_quiet IN (0, 1)),
    PRIMARY KEY (guild_id, changed_at)
);
