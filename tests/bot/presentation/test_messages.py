"""The message catalogues: every key in every language, the same placeholders everywhere,
plural forms that agree with their count, and the English fallback."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import importlib.resources
import re
import string

import discord
import pytest

from bot.presentation import messages
from bot.presentation.messages import (
    LANGUAGES,
    PLURAL_FORMS,
    catalogue,
    language_of,
    listed,
    text,
)

OTHER_LANGUAGES = [language for language in LANGUAGES if language != "en"]


def fields(template: str) -> dict[str, set[str]]:
    """Placeholder name -> the format specs it is used with in `template`."""
    found: dict[str, set[str]] = {}
    for _, name, spec, _ in string.Formatter().parse(template):
        if name is not None:
            found.setdefault(name, set()).add(spec or "")
    return found


def sample_params(template: str) -> dict[str, object]:
    """A value for every placeholder: a count where a plural spec asks for one."""
    return {
        name: 3 if any("|" in spec for spec in specs) else "X"
        for name, specs in fields(template).items()
    }


@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_every_english_key_has_a_text_in_every_language(language: str) -> None:
    missing = sorted(set(messages.ENGLISH) - set(catalogue(language)))
    assert missing == [], f"{language} lacks {missing}"


@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_no_language_has_a_key_english_lacks(language: str) -> None:
    assert sorted(set(catalogue(language)) - set(messages.ENGLISH)) == []


@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_placeholders_are_the_same_in_every_language(language: str) -> None:
    different = {
        key: (sorted(fields(english)), sorted(fields(catalogue(language)[key])))
        for key, english in messages.ENGLISH.items()
        if key in catalogue(language)
        and set(fields(english)) != set(fields(catalogue(language)[key]))
    }
    assert different == {}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_text_formats_and_plural_specs_have_the_language_s_form_count(
    language: str,
) -> None:
    for key, template in catalogue(language).items():
        for name, specs in fields(template).items():
            for spec in specs:
                if "|" in spec:
                    assert len(spec.split("|")) == PLURAL_FORMS[language], (key, name)
        filled = text(key, language, **sample_params(template))
        assert "{" not in filled, key
        assert "}" not in filled, key
        assert filled, key
        assert filled.strip() == filled, key


@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_translations_are_not_left_in_english(language: str) -> None:
    """Sentences (several words) must differ from English; short words may coincide
    ("5 minutes", "dirhams", "score"), and so may a line of placeholders alone."""
    same = [
        key
        for key, english in messages.ENGLISH.items()
        if len(words_of(english)) > 3 and catalogue(language).get(key) == english
    ]
    assert same == []


def words_of(template: str) -> list[str]:
    """The words a template writes itself: not its placeholders, not its punctuation."""
    bare = re.sub(r"\{[^}]*\}", " ", template)
    return [word for word in bare.split() if any(c.isalpha() for c in word)]


def test_a_sentence_left_in_english_is_found() -> None:
    assert len(words_of("{user}, game #{game_id} is waiting for you ({by} nudged).")) > 3
    assert words_of("{thread} · {players} · {status}") == []


@pytest.mark.parametrize(
    ("language", "counts"),
    [
        ("en", {0: "dirhams", 1: "dirham", 2: "dirhams", 11: "dirhams", 21: "dirhams"}),
        ("fr", {0: "dirham", 1: "dirham", 2: "dirhams"}),
        (
            "uk",
            {
                1: "дирхам",
                2: "дирхами",
                4: "дирхами",
                5: "дирхамів",
                11: "дирхамів",
                12: "дирхамів",
                21: "дирхам",
                22: "дирхами",
                25: "дирхамів",
                111: "дирхамів",
                112: "дирхамів",
                114: "дирхамів",
                122: "дирхами",
                212: "дирхамів",
                1012: "дирхамів",
                0: "дирхамів",
            },
        ),
    ],
)
def test_counts_choose_the_agreeing_form(language: str, counts: dict[int, str]) -> None:
    for count, word in counts.items():
        line = text("event.paid_short", language, payer="a", payee="b", owed=count, paid=0)
        assert re.search(rf"(?<!\d){count} {word}(?!\w)", line), (count, line)


def strays(template: str) -> list[str]:
    """The counts of `template`'s word forms that are neither the number written last before
    the form nor the first written after it ("{left:залишилася|...} {left} {left:підказка|...}"
    puts a verb before its count)."""
    parts = [
        (name, "|" in (spec or ""))
        for _, name, spec, _ in string.Formatter().parse(template)
        if name is not None
    ]
    found = []
    for index, (name, form) in enumerate(parts):
        if form:
            before = next((n for n, f in reversed(parts[:index]) if not f), None)
            after = next((n for n, f in parts[index + 1 :] if not f), None)
            if name not in (before, after):
                found.append(name)
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_form_agrees_with_the_number_it_stands_beside(language: str) -> None:
    """A text with several counts ("45 points (32 dirhams + 13 squares)") gives each word the
    form of its own number, not of another count of the line."""
    wrong = {
        key: found for key, template in catalogue(language).items() if (found := strays(template))
    }
    assert wrong == {}
    bound_elsewhere = "{total} {total:a|b} ({dirhams} {total:a|b})"
    assert strays(bound_elsewhere) == ["total"], "a form of another count is found"


UKRAINIAN_WORDS = [
    ("день", "дні", "днів"),
    ("дня", "днів", "днів"),
    ("дирхам", "дирхами", "дирхамів"),
    ("дирхама", "дирхамів", "дирхамів"),
    ("хід", "ходи", "ходів"),
    ("попередній хід", "попередні ходи", "попередніх ходів"),
    ("тур", "тури", "турів"),
    ("гравця", "гравців", "гравців"),
    ("очко", "очки", "очок"),
    ("пункт", "пункти", "пунктів"),
    ("гра", "гри", "ігор"),
    ("гру", "ігри", "ігор"),
    ("остання гра", "останні гри", "останніх ігор"),
    ("останню оцінену гру", "останні оцінені ігри", "останніх оцінених ігор"),
    ("рейтингова гра", "рейтингові гри", "рейтингових ігор"),
    ("рейтингової гри", "рейтингових ігор", "рейтингових ігор"),
    ("місце", "місця", "місць"),
    ("стіл", "столи", "столів"),
    ("канал", "канали", "каналів"),
    ("капець", "капці", "капців"),
    ("клітинка", "клітинки", "клітинок"),
    ("клітинку", "клітинки", "клітинок"),
    ("клітинки", "клітинок", "клітинок"),
    ("видима клітинка", "видимі клітинки", "видимих клітинок"),
    ("підказка", "підказки", "підказок"),
    ("підказку", "підказки", "підказок"),
    ("перемога", "перемоги", "перемог"),
    ("поразка", "поразки", "поразок"),
    ("нічия", "нічиї", "нічиїх"),
    ("неточність", "неточності", "неточностей"),
    ("помилка", "помилки", "помилок"),
    ("груба помилка", "грубі помилки", "грубих помилок"),
    ("залишився", "залишилося", "залишилося"),
    ("залишилася", "залишилися", "залишилося"),
    ("залишається", "залишається", "залишається"),
]
"""Ukrainian words in their forms for one, few (2 to 4) and many (5 and more, 11 to 14)."""


def test_ukrainian_word_forms_come_in_the_order_one_few_many() -> None:
    """Every plural spec of the Ukrainian texts holds the three forms of a word known here, in
    the order the count chooses from ("{days:день|дні|днів}"): swapped, "3 днів" and "7 дні"
    would read wrong, and every form would still be there. A spec of a word the table does not
    know yet is found too, so that its order is checked once it is added."""
    order = {frozenset(forms): forms for forms in UKRAINIAN_WORDS}
    specs = [
        (key, tuple(spec.split("|")))
        for key, template in catalogue("uk").items()
        for _, name, spec, _ in string.Formatter().parse(template)
        if name is not None and spec and "|" in spec
    ]
    assert len(specs) > 30, "the texts' plural specs are found"
    unknown = [(key, forms) for key, forms in specs if frozenset(forms) not in order]
    assert unknown == [], "words to add to UKRAINIAN_WORDS, forms one|few|many"
    swapped = [(key, forms) for key, forms in specs if forms != order[frozenset(forms)]]
    assert swapped == []


PEOPLE = ("user", "users", "host", "outgoing", "incoming", "player", "players", "by", "who")
"""Placeholders that name a person (or people) a text says something of."""
MASCULINE = re.compile(r"[аеиіоуяї]в(?:ся)?$|^(?:відсутній|готовий|певен|повинен)$")
"""A masculine past tense ("зіграв", "приєднався") or a masculine adjective ("відсутній")."""
SAID_OF_A_THING = {"substitute.closed.expired"}
"""Texts whose word after a person's name is said of a thing: "Час запиту ... {incoming}
вийшов" (the request's time ran out)."""


def said_of_people(template: str) -> list[str]:
    """The word a template says of each person it names: the first after the placeholder,
    past "ще", "уже", "не" and the like ("{user} ще не зіграв" says "зіграв")."""
    names = "|".join(PEOPLE)
    found = re.finditer(
        rf"\{{(?:{names})\}}\s+(?:(?:ще|уже|вже|не|більше|зараз|знову)\s+)*([^\s.,:;()]+)",
        template,
    )
    return [match.group(1) for match in found]


def test_ukrainian_texts_say_what_a_person_does_without_presuming_their_gender() -> None:
    """A masculine past tense after a person's name tells a woman she "has not played" in the
    masculine; the present tense or an impersonal form (locales/README.md) fits everyone."""
    gendered = {
        key: words
        for key, template in catalogue("uk").items()
        if key not in SAID_OF_A_THING
        and (words := [word for word in said_of_people(template) if MASCULINE.search(word)])
    }
    assert gendered == {}
    assert said_of_people("{user} ще не зіграв, {host} повертає") == ["зіграв", "повертає"]
    assert MASCULINE.search("зіграв")
    assert MASCULINE.search("приєднався")
    assert not MASCULINE.search("повертає")


def test_a_ukrainian_final_line_gives_points_and_dirhams_each_the_form_of_its_own_count() -> None:
    line = text(
        "end.rank_line", "uk", place=1, dot="🟥", user="Оля", total=45, dirhams=32, visible=13
    )
    assert "45 очок (32 дирхами + 13 видимих клітинок)" in line, line


def test_french_singular_covers_zero_and_one_and_ukrainian_has_three_forms() -> None:
    assert "0 dirham " in text("event.paid_short", "fr", payer="a", payee="b", owed=0, paid=0)
    assert "1 dirham " in text("event.paid_short", "fr", payer="a", payee="b", owed=1, paid=0)
    assert "2 dirhams " in text("event.paid_short", "fr", payer="a", payee="b", owed=2, paid=0)
    assert "3 дирхами" in text("event.paid_short", "uk", payer="a", payee="b", owed=3, paid=0)
    assert "7 дирхамів" in text("event.paid_short", "uk", payer="a", payee="b", owed=7, paid=0)


@pytest.mark.parametrize(
    ("language", "two", "three"),
    [
        ("en", "A and B", "A, B and C"),
        ("fr", "A et B", "A, B et C"),
        ("uk", "A і B", "A, B і C"),
    ],
)
def test_a_list_of_names_is_joined_in_the_language_asked_for(
    language: str, two: str, three: str
) -> None:
    assert listed(["A"], language) == "A"
    assert listed(["A", "B"], language) == two
    assert listed(["A", "B", "C"], language) == three


def test_a_key_missing_in_a_language_falls_back_to_english_for_that_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    french = dict(catalogue("fr"))
    del french["error.lobby_full"]
    monkeypatch.setattr(
        messages,
        "translation",
        lambda key, language: french.get(key) if language == "fr" else messages.ENGLISH.get(key),
    )
    assert text("error.lobby_full", "fr") == messages.ENGLISH["error.lobby_full"]
    assert text("error.lobby_closed", "fr") == catalogue("fr")["error.lobby_closed"]


@pytest.mark.parametrize("language", ["fr", "uk"])
def test_a_key_missing_in_a_language_falls_back_to_english_counts_included(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The English text's counts agree as English has them: counted by the language asked
    for, French would say "0 day per turn", and Ukrainian, which has three forms, would find
    English's two and fail. Only the catalogue lacks the key: the lookup is the real one."""
    partial = dict(catalogue(language))
    del partial["turn_limit.days"]
    real = messages.catalogue
    monkeypatch.setattr(
        messages, "catalogue", lambda asked: partial if asked == language else real(asked)
    )
    said = [text("turn_limit.days", language, days=days) for days in (2, 1, 0)]
    assert said == ["2 days per turn", "1 day per turn", "0 days per turn"]


def test_an_unknown_key_is_an_error_in_every_language() -> None:
    for language in LANGUAGES:
        with pytest.raises(messages.MissingMessageError):
            text("no.such.key", language)


def test_an_unknown_language_gets_english() -> None:
    assert text("error.lobby_full", "de") == messages.ENGLISH["error.lobby_full"]


@pytest.mark.parametrize(
    ("locale", "language"),
    [
        (discord.Locale.french, "fr"),
        (discord.Locale.ukrainian, "uk"),
        (discord.Locale.american_english, "en"),
        (discord.Locale.british_english, "en"),
        (discord.Locale.german, "en"),
        (discord.Locale.japanese, "en"),
        ("fr", "fr"),
        ("uk", "uk"),
        ("pt-BR", "en"),
        (None, "en"),
    ],
)
def test_discord_locales_map_to_languages(
    locale: discord.Locale | str | None, language: str
) -> None:
    assert language_of(locale) == language


BUTTON_LABEL_LIMIT = 80
EMBED_TITLE_LIMIT = 256


@pytest.mark.parametrize("language", LANGUAGES)
def test_button_labels_and_titles_fit_discord_s_limits(language: str) -> None:
    """A label is any text whose key has a `button` part, whatever comes before it
    (`button.roll`, `drill.button.open`, `confirm.resign.button`, ...)."""
    for key, template in catalogue(language).items():
        filled = text(key, language, **sample_params(template))
        if "button" in key.split("."):
            assert len(filled) <= BUTTON_LABEL_LIMIT, (key, len(filled))
        if key.endswith((".title", ".title_channel", ".title_server")):
            assert len(filled.replace("X", "123456")) <= EMBED_TITLE_LIMIT, key


def test_a_plural_spec_with_the_wrong_number_of_forms_is_refused() -> None:
    """A Ukrainian count needs its three forms: two would give a wrong word for 5 rugs."""
    with pytest.raises(ValueError, match="uk needs 3 forms"):
        "{n:килим|килими}".format(n=messages._Count(5, "uk"))
    with pytest.raises(ValueError, match="en needs 2 forms"):
        "{n:rug|rugs|rugses}".format(n=messages._Count(1, "en"))


@pytest.mark.parametrize("raw", ['["a list"]', '{"key": 3}', '{"key": ["a", "b"]}'])
def test_a_catalogue_that_is_not_a_map_of_texts_is_refused_when_loaded(
    raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    class File:
        def read_text(self, encoding: str) -> str:
            return raw

    class Package:
        def joinpath(self, *parts: str) -> File:
            return File()

    monkeypatch.setattr(importlib.resources, "files", lambda package: Package())
    with pytest.raises(ValueError, match="must map keys to strings"):
        messages.catalogue.__wrapped__("fr")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_two_ways_back_have_names_not_to_be_taken_for_each_other(language: str) -> None:
    """`rejoin` takes a seat back from the AI, `back` ends days away: someone back from a
    holiday typing the one for the other is refused, so their names must not read alike."""
    names = catalogue(language)
    rejoin, back = names["command_name.rejoin"], names["command_name.back"]
    assert rejoin[:5] != back[:5], (rejoin, back)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_closed_request_names_the_one_who_no_longer_plays_in_every_language(
    language: str,
) -> None:
    """A request closes because its host left the game, or because the person it would move
    out did: each language names the host, and the person leaving, once in the request and
    once more as the one who no longer plays; one whose newcomer came into the game otherwise
    names the newcomer once more, as the one already in it."""
    host, outgoing, incoming = "<@100>", "<@101>", "<@102>"

    def closed(why: str) -> str:
        return text(
            f"substitute.closed.{why}",
            language,
            host=host,
            outgoing=outgoing,
            incoming=incoming,
            game_id=1,
        )

    host_left, left = closed("host_left"), closed("left")
    assert (host_left.count(host), host_left.count(outgoing)) == (2, 1), host_left
    assert (left.count(host), left.count(outgoing)) == (1, 2), left
    came_in = closed("came_in")
    assert (came_in.count(host), came_in.count(outgoing), came_in.count(incoming)) == (1, 1, 2), (
        came_in
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_text_writes_a_plain_space_before_a_percent_sign(language: str) -> None:
    """A percentage is written as `percent` writes it, a narrow no-break space before the sign
    where the language puts one: a plain space would write one figure two ways in a message
    and let a line wrap leave the sign alone at the start of the next."""
    plain = sorted(key for key, said in catalogue(language).items() if " %" in said)
    assert plain == [], plain
