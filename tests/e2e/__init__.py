"""End-to-end tests: the real bot process against fakecord, a local fake of the Discord API."""
