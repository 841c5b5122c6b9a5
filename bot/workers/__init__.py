"""CPU-heavy work off the event loop: the worker process pool (`pool`) and the jobs it runs
(`jobs`: AI decisions, board pictures, replay GIFs)."""
