"""Tests of the bot package: settings, health, logging, entry point, services, storage, UI."""
