"""The project's test suite; folders mirror the packages (engine, render, bot) plus e2e."""
