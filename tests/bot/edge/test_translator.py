"""Command localisations: every command, option and choice has a French and a Ukrainian text
within Discord's limits, base names stay English, and the sync hash follows the translations."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any, cast

import discord
import pytest
from discord import app_commands

from bot.edge.commands import build_commands
from bot.edge.community import CommunityController
from bot.edge.game_handlers import GameHandlers
from bot.edge.player_games import PlayerGamesController
from bot.edge.sync import command_payloads, tree_digest
from bot.edge.translator import CatalogueTranslator
from bot.presentation import messages

Json = dict[str, Any]
TRANSLATED_LOCALES = {"fr": "fr", "uk": "uk"}
"""Discord locale -> catalogue language, for the locales the bot translates into."""
SUB_COMMAND = 1
NAME_LIMIT = 32
DESCRIPTION_LIMIT = 100
CHOICE_NAME_LIMIT = 100


def is_valid_name(name: str) -> bool:
    """Discord's rule for command and option names, lowercase where a letter has a lowercase:
    ^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$"""
    if not 1 <= len(name) <= NAME_LIMIT or name != name.lower():
        return False
    for char in name:
        category = unicodedata.category(char)
        if char in "-_" or category[0] in "LN":
            continue
        if "DEVANAGARI" in unicodedata.name(char, "") or "THAI" in unicodedata.name(char, ""):
            continue
        return False
    return True


def command_tree() -> app_commands.CommandTree[discord.Client]:
    """The bot's commands in a tree of their own (the controllers are never called here)."""
    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    controllers = (
        cast(GameHandlers, object()),
        cast(CommunityController, object()),
        cast(PlayerGamesController, object()),
    )
    for group in build_commands(*controllers):
        tree.add_command(group)
    return tree


async def payloads(translator: app_commands.Translator | None) -> list[Json]:
    tree = command_tree()
    if translator is not None:
        await tree.set_translator(translator)
    return await command_payloads(tree)


def walk(commands: list[Json], path: str = "") -> Iterator[tuple[str, str, Json]]:
    """(kind, path, payload) for every command, subcommand, option and choice."""
    for command in commands:
        here = f"{path} {command['name']}".strip()
        is_command = not path or command.get("type") == SUB_COMMAND
        yield ("command" if is_command else "option"), here, command
        for choice in command.get("choices") or []:
            yield "choice", f"{here}={choice['value']}", choice
        yield from walk(command.get("options") or [], here)


@pytest.fixture
async def translated() -> list[Json]:
    return await payloads(CatalogueTranslator())


def test_the_name_rule_accepts_and_refuses_what_discord_does() -> None:
    assert is_valid_name("temps_par_tour")
    assert is_valid_name("règles")
    assert is_valid_name("марракеш-модерація")
    assert is_valid_name("час_на_хід")
    for bad in ("", "Règles", "two words", "x" * 33, "п'ять", "a.b"):
        assert not is_valid_name(bad), bad


@pytest.mark.parametrize("locale", sorted(TRANSLATED_LOCALES))
async def test_every_name_description_and_choice_is_translated_within_discord_limits(
    translated: list[Json], locale: str
) -> None:
    seen = 0
    as_in_english = set()
    for kind, path, item in walk(translated):
        seen += 1
        name = item["name_localizations"][locale]
        if kind == "choice":
            assert 1 <= len(name) <= CHOICE_NAME_LIMIT, path
            if name == item["name"]:
                as_in_english.add(name)
            continue
        assert is_valid_name(name), (path, name)
        description = item["description_localizations"][locale]
        assert 1 <= len(description) <= DESCRIPTION_LIMIT, (path, description)
        assert description != item["description"], path
    assert seen >= 20, "the walk saw the commands, options and choices"
    assert as_in_english <= SAME_AS_ENGLISH[locale], "choices left in English"


SAME_AS_ENGLISH = {"fr": {"5 minutes", "pause"}, "uk": set[str]()}
"""The choices whose translation is the English word itself."""


@pytest.mark.parametrize("locale", sorted(TRANSLATED_LOCALES))
async def test_sibling_names_stay_distinct_in_every_language(
    translated: list[Json], locale: str
) -> None:
    def check(siblings: list[Json]) -> None:
        names = [item["name_localizations"][locale] for item in siblings]
        assert len(names) == len(set(names)), names
        for item in siblings:
            check(item.get("options") or [])
            choices = [choice["name_localizations"][locale] for choice in item.get("choices") or []]
            assert len(choices) == len(set(choices)), choices

    check(translated)


async def test_base_names_stay_english_and_other_locales_get_no_localisation(
    translated: list[Json],
) -> None:
    untranslated = await payloads(None)
    names = [command["name"] for command in translated]
    assert names == ["marrakech", "marrakech-mod", "marrakech-admin"]
    for (_, path, item), (_, plain_path, plain) in zip(
        walk(translated), walk(untranslated), strict=True
    ):
        assert path == plain_path
        assert item["name"] == plain["name"]
        localised = set(item.get("name_localizations") or {})
        assert localised == set(TRANSLATED_LOCALES), path
        if "description" in item:
            assert item["description"] == plain["description"], path


def test_english_command_names_in_the_catalogue_are_the_registered_names() -> None:
    for key, name in messages.ENGLISH.items():
        if key.startswith(("command_name.", "option_name.")):
            assert key.split(".", 1)[1] == name


async def test_translator_answers_nothing_for_strings_without_a_key_or_other_locales() -> None:
    translator = CatalogueTranslator()
    context: app_commands.TranslationContextTypes = app_commands.TranslationContext(
        location=app_commands.TranslationContextLocation.other, data=None
    )
    keyed = app_commands.locale_str("join", key="command_name.join")
    assert await translator.translate(keyed, discord.Locale.french, context) == "rejoindre"
    assert await translator.translate(keyed, discord.Locale.german, context) is None
    assert await translator.translate(keyed, discord.Locale.british_english, context) is None
    plain = app_commands.locale_str("join")
    assert await translator.translate(plain, discord.Locale.french, context) is None


async def test_the_sync_hash_changes_when_a_translation_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tree = command_tree()
    plain = await tree_digest(tree, ())
    await tree.set_translator(CatalogueTranslator())
    translated = await tree_digest(tree, ())
    assert translated != plain
    assert await tree_digest(tree, ()) == translated
    french = dict(messages.catalogue("fr"))
    french["command.rules"] = "Les règles, autrement dit"
    real = messages.translation
    monkeypatch.setattr(
        "bot.edge.translator.translation",
        lambda key, language: french.get(key) if language == "fr" else real(key, language),
    )
    assert await tree_digest(tree, ()) != translated


COMMAND_SIZE_LIMIT = 4000
"""Discord's cap on a command's combined name, description and value characters (options and
choices included), counting only the longest localisation of each field."""


def counted_size(item: Json) -> int:
    total = 0
    for field in ("name", "description"):
        if field in item:
            texts = [item[field], *(item.get(f"{field}_localizations") or {}).values()]
            total += max(map(len, texts))
    if "value" in item:
        total += len(str(item["value"]))
    for child in [*(item.get("options") or []), *(item.get("choices") or [])]:
        total += counted_size(child)
    return total


async def test_every_command_fits_discord_s_size_cap_with_its_translations(
    translated: list[Json],
) -> None:
    untranslated = await payloads(None)
    for command, plain in zip(translated, untranslated, strict=True):
        assert counted_size(plain) < counted_size(command) <= COMMAND_SIZE_LIMIT, command["name"]
