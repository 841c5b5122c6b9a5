"""What the edge may know of the database: that it cannot be used now
(`DatabaseUnavailableError`, which every use raises meanwhile), and when it is back
(`Availability.back`). Both are the storage's own (bot/storage/availability.py); the services
hand them on so that the edge, which never imports storage, can answer an outage and wait it out.
"""

from __future__ import annotations

from bot.storage.availability import Availability as Availability
from bot.storage.errors import DatabaseUnavailableError as DatabaseUnavailableError
