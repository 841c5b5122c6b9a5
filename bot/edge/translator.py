"""Command localisations for Discord: names, descriptions and choice names from the catalogues.

Every translatable command string is an `app_commands.locale_str` carrying its catalogue key
(bot.presentation.messages.command_text, command_name, option_name); discord.py asks this
translator for each Discord locale when it builds the commands' payload, and Discord shows
French and Ukrainian users those texts. Base names stay English, so interactions always name
commands in English.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.presentation.messages import DISCORD_LANGUAGES, ENGLISH_LANGUAGE, translation


class CatalogueTranslator(app_commands.Translator):
    """Looks a command string's key up in the language of the Discord locale asked for."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        language = DISCORD_LANGUAGES.get(locale.value)
        if not isinstance(key, str) or language is None or language == ENGLISH_LANGUAGE:
            return None
        return translation(key, language)
