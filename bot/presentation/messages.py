"""Every sentence the bot writes, by message key, in English, French and Ukrainian.

The texts live in bot/presentation/locales/<language>.json (flat: key -> template with
{placeholders}); this module loads them once and fills them: `text(key, language, **params)`.
English is the reference: a language without a text for a key falls back to English for that
key, and an unknown language (any other Discord locale) gets English. Code never writes
user-facing text inline.

A whole-number placeholder can choose the word form that agrees with it through a format spec
listing the plural forms: "{rugs} {rugs:rug|rugs} left". English and French have two forms
(one|other), Ukrainian three (one|few|many: 1 килим, 2 килими, 5 килимів).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Final

import discord
from discord import app_commands

ENGLISH_LANGUAGE: Final = "en"
LANGUAGES: Final = ("en", "fr", "uk")
"""The languages the bot speaks, by the catalogue file name (locales/<language>.json)."""

DISCORD_LANGUAGES: Final[Mapping[str, str]] = {
    discord.Locale.american_english.value: "en",
    discord.Locale.british_english.value: "en",
    discord.Locale.french.value: "fr",
    discord.Locale.ukrainian.value: "uk",
}
"""Discord locale -> catalogue language; every other locale is answered in English."""


class MissingMessageError(KeyError):
    """A message key that the English catalogue does not have."""


@cache
def catalogue(language: str) -> Mapping[str, str]:
    """The texts of `language` (one of LANGUAGES), read once from bot/presentation/locales/."""
    if language not in LANGUAGES:
        raise ValueError(f"no catalogue for language {language!r}")
    raw = (
        resources.files("bot.presentation")
        .joinpath("locales", f"{language}.json")
        .read_text("utf-8")
    )
    texts = json.loads(raw)
    if not isinstance(texts, dict) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in texts.items()
    ):
        raise ValueError(f"bot/presentation/locales/{language}.json must map keys to strings")
    return texts


ENGLISH: Final[Mapping[str, str]] = catalogue(ENGLISH_LANGUAGE)


def language_of(locale: discord.Locale | str | None) -> str:
    """The catalogue language for a Discord locale ("fr", "uk", "en-US"...); English otherwise."""
    if locale is None:
        return ENGLISH_LANGUAGE
    value = locale.value if isinstance(locale, discord.Locale) else locale
    return DISCORD_LANGUAGES.get(value, value if value in LANGUAGES else ENGLISH_LANGUAGE)


def translation(key: str, language: str) -> str | None:
    """The template of `key` in `language` exactly as written there; None if it has none."""
    if language not in LANGUAGES:
        return None
    return catalogue(language).get(key)


def text(key: str, language: str, /, **params: object) -> str:
    """The message `key` in `language` (English fallback) with its {placeholders} filled."""
    template = translation(key, language)
    if template is None:
        language = ENGLISH_LANGUAGE
        template = ENGLISH.get(key)
        if template is None:
            raise MissingMessageError(key)
    counted = {name: _counted(value, language) for name, value in params.items()}
    return template.format(**counted)


def listed(words: Sequence[str], language: str) -> str:
    """Words as a list in `language`: "A", "A and B", "A, B and C"."""
    if len(words) == 1:
        return words[0]
    return text("end.names_and", language, first=", ".join(words[:-1]), last=words[-1])


def within(lines: Sequence[str], compose: Callable[[Sequence[str]], str], limit: int) -> str:
    """`compose(shown)` for the longest start of `lines` (one line at least) whose text is
    within `limit` characters: a list that gives way, from its end, to what counts the rest."""
    shown = list(lines)
    composed = compose(shown)
    while len(shown) > 1 and len(composed) > limit:
        shown.pop()
        composed = compose(shown)
    return composed


def allowed_channels(
    channel_ids: Sequence[int], language: str, compose: Callable[[str], str], limit: int
) -> str:
    """`compose(channels)`, `channels` naming the channels that allow games in order, as many
    as keep the text within `limit` characters (one at least), and counting the others ("and
    57 more channels"): a server may allow all of its 500 channels."""
    mentions = [f"<#{channel}>" for channel in channel_ids]

    def listing(shown: Sequence[str]) -> str:
        left_out = len(mentions) - len(shown)
        more = [text("admin.channels_more", language, count=left_out)] if left_out else []
        return compose(", ".join([*shown, *more]))

    return within(mentions, listing, limit)


def command_text(key: str, /) -> app_commands.locale_str:
    """A command description or choice name: English text, carrying its key for translators."""
    return app_commands.locale_str(text(key, ENGLISH_LANGUAGE), key=key)


def command_name(name: str, /) -> app_commands.locale_str:
    """A command or option name: the English `name`, translated from key `command_name.<name>`
    (or `option_name.<name>` for options: see option_name)."""
    return app_commands.locale_str(name, key=f"command_name.{name}")


def option_name(name: str, /) -> app_commands.locale_str:
    """An option name: the English `name`, translated from key `option_name.<name>`."""
    return app_commands.locale_str(name, key=f"option_name.{name}")


# --- plural forms ----------------------------------------------------------------------------


def _english_form(count: int) -> int:
    return 0 if count == 1 else 1


def _french_form(count: int) -> int:
    return 0 if count in (0, 1) else 1


def _ukrainian_form(count: int) -> int:
    count = abs(count)
    if count % 10 == 1 and count % 100 != 11:
        return 0
    if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
        return 1
    return 2


PLURAL_RULES: Final[Mapping[str, Callable[[int], int]]] = {
    "en": _english_form,
    "fr": _french_form,
    "uk": _ukrainian_form,
}
"""Which of a language's plural forms (index into "one|few|many") a count takes."""
PLURAL_FORMS: Final[Mapping[str, int]] = {"en": 2, "fr": 2, "uk": 3}


class _Count(int):
    """A whole-number parameter that formats "{n:form|forms}" as the form agreeing with it."""

    language: str

    def __new__(cls, value: int, language: str) -> _Count:
        count = super().__new__(cls, value)
        count.language = language
        return count

    def __format__(self, spec: str) -> str:
        if "|" not in spec:
            return format(int(self), spec)
        forms = spec.split("|")
        if len(forms) != PLURAL_FORMS[self.language]:
            raise ValueError(f"{self.language} needs {PLURAL_FORMS[self.language]} forms: {spec}")
        return forms[PLURAL_RULES[self.language](int(self))]


GROUP_SEPARATORS: Final[Mapping[str, str]] = {"en": ",", "fr": "\u202f", "uk": "\u00a0"}
"""How each language separates thousands: 1,234; 1 234 (narrow no-break space); 1 234."""
DECIMAL_MARKS: Final[Mapping[str, str]] = {"en": ".", "fr": ",", "uk": ","}
"""Each language's decimal mark: 27.5; 27,5; 27,5."""


def _written(value: float, language: str, decimals: int) -> str:
    plain = f"{value:,.{decimals}f}"
    group = GROUP_SEPARATORS.get(language, GROUP_SEPARATORS[ENGLISH_LANGUAGE])
    mark = DECIMAL_MARKS.get(language, DECIMAL_MARKS[ENGLISH_LANGUAGE])
    return "".join(group if c == "," else mark if c == "." else c for c in plain)


class _Number(_Count):
    """A count written as its language writes numbers (thousands grouped), still agreeing
    with the word forms that follow it."""

    def __format__(self, spec: str) -> str:
        if spec:
            return super().__format__(spec)
        return _written(int(self), self.language, 0)


def _decimal_english_form(value: float) -> int:
    return 1  # "1.0 points", "0.5 points"


def _decimal_french_form(value: float) -> int:
    return 0 if abs(value) < 2 else 1  # "1,9 point", "2,0 points"


DECIMAL_PLURAL_RULES: Final[Mapping[str, Callable[[float], int]]] = {
    "en": _decimal_english_form,
    "fr": _decimal_french_form,
}
"""Which plural form a number written with decimals takes, where the language has one among
its forms. Ukrainian has none: a fraction takes the genitive singular ("1,9 пункта"), which no
count takes, so its texts write that word after a decimal number."""


class _Decimal(str):
    """A number written with decimals that "{n:form|forms}" agrees with, as its language
    makes a fraction agree."""

    value: float
    language: str

    def __new__(cls, value: float, language: str, decimals: int, signed: bool) -> _Decimal:
        shown = _written(value, language, decimals)
        if signed:  # a plus, or a minus sign (U+2212) rather than a hyphen
            sign = "+" if round(value, decimals) >= 0 else "\u2212"
            shown = sign + _written(abs(value), language, decimals)
        written = super().__new__(cls, shown)
        written.value = round(value, decimals)
        written.language = language
        return written

    def __format__(self, spec: str) -> str:
        if "|" not in spec:
            return format(str(self), spec)
        forms = spec.split("|")
        rule = DECIMAL_PLURAL_RULES.get(self.language)
        if rule is None or len(forms) != PLURAL_FORMS[self.language]:
            raise ValueError(f"{self.language} has no word form for a decimal number: {spec}")
        return forms[rule(self.value)]

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return (str, (str(self),))  # a picture drawn by a worker gets the plain text


def number(value: float, language: str, decimals: int = 0, *, signed: bool = False) -> int | str:
    """`value` as `language` writes numbers: thousands separators and decimal mark
    ("1,234.5" in English, "1 234,5" in French and Ukrainian). A whole number with no
    decimals stays a count that "{n:form|forms}" agrees with; a number with decimals agrees
    as its language makes a fraction agree (French: under 2 singular, "1,5 point").
    `signed`: with a plus or a minus sign in front ("+3.5", "\u22122,0"), written with
    decimals."""
    if decimals == 0 and isinstance(value, int) and not signed:
        return _Number(value, language)
    return _Decimal(value, language, decimals, signed)


def _counted(value: object, language: str) -> object:
    if isinstance(value, _Count):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return _Count(value, language)
    return value
