"""The bot's runtime: settings, logging, the composition root that builds everything and runs
it (`app`), the turn-clock scheduler, and liveness (heartbeat file, event loop lag)."""
