"""The Marrakech Discord bot: the only layer that talks to Discord or to the database."""
