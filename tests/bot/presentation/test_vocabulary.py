"""The French and Ukrainian texts speak the game's own vocabulary, taken from the publisher's
rulebooks (verbatim excerpts in tests/data/rulebooks/: fr.txt from the French rules, uk.txt
from the Ukrainian ones), and the commands they mention are the ones a user of that language
sees."""

# ruff: noqa: RUF001  (Ukrainian text on purpose: Cyrillic letters look like Latin ones)

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.presentation import messages
from bot.presentation.messages import LANGUAGES, catalogue

FRENCH_RULEBOOK = "fr.txt"
UKRAINIAN_RULEBOOK = "uk.txt"


@dataclass(frozen=True)
class Term:
    """A game concept: where English says `english`, French must say `french` and Ukrainian
    `ukrainian` (regular expressions, case-insensitive); `rulebook` holds the words each
    rulebook uses for it."""

    concept: str
    english: str
    french: str
    ukrainian: str
    rulebook_fr: tuple[str, ...]
    rulebook_uk: tuple[str, ...]


VOCABULARY = (
    Term("rug", r"\brugs?\b", r"\btapis\b", r"килим", ("tapis",), ("килим",)),
    Term("dirham", r"\bdirhams?\b", r"\bdirhams?\b", r"дирхам", ("dirhams",), ("дирхам",)),
    Term("Assam", r"\bAssam\b", r"\bAssam\b", r"Ассам", ("Assam",), ("Ассам",)),
    Term("die", r"\bdie\b|\bdice\b|\broll\b", r"\bdés?\b", r"кубик|кидок", ("dé",), ("кубик",)),
    Term("market", r"\bmarket\b", r"\bmarché\b", r"ринок|ринк", ("marché",), ("ринок",)),
    Term(
        "board",
        r"\bboard\b",
        r"\bplateau\b|\bmarché\b",
        r"\bпол[еяі]\b|ринок|ринк",
        ("plateau",),
        ("поле",),
    ),
    Term(
        "turn",
        r"\b(?:your|a|per|each) turn\b|\bturn \{|\bturn time\b",
        r"\btour\b",
        r"\bх[іо]д",
        ("son tour",),
        ("хід",),
    ),
    Term(
        "orientation",
        r"keep him straight|kept Assam facing|\bstraight on\b",
        r"\borientation\b|\btout droit\b",
        r"положенн|\bпрямо\b",
        ("orientation",),
        ("положенні",),
    ),
    Term(
        "quarter turn",
        r"quarter turn",
        r"quart de tour",
        r"90°",
        ("quart de tour",),
        ("90°",),
    ),
    Term("square", r"\bsquares?\b", r"\bcases?\b", r"клітин", ("case",), ("клітин",)),
    Term(
        "payment",
        r"\bpa(?:y|id|yment)\b|\bowed\b",
        r"\bdîme\b",
        r"плат",
        ("dîme",),
        ("заплатити",),
    ),
    Term(
        "elimination",
        r"\bis out\b|\bout of the game\b",
        r"élimin",
        r"вибува",
        ("éliminé",),
        (),  # the Ukrainian rulebook has no elimination paragraph
    ),
    Term(
        "player",
        r"\bplayers?\b",
        r"\bjoueurs?\b|\badversaires?\b",
        r"гравц|гравець|противник",
        ("joueur", "adversaire"),
        ("гравець", "противник"),
    ),
    Term(
        "game",
        r"\bgames?\b",
        r"\bparties?\b|\bjeu\b|\bjou(?:er|e)\b",
        r"\b(?:гра|гри|грі|гру|грою|ігор|ігри|грати|грають)\b",
        ("partie",),
        ("гри",),
    ),
    Term(
        "die face",
        r"\bThe die shows\b",
        r"\bbabouches?\b",
        r"капц",
        ("babouches",),
        ("капців",),
    ),
)


def words(template: str) -> str:
    """The template's own words: literal text and plural forms, without placeholder names."""
    parts = []
    for literal, name, spec, _ in string.Formatter().parse(template):
        parts.append(literal)
        if name is not None and spec and "|" in spec:
            parts.append(" " + spec.replace("|", " "))
        parts.append(" ")
    return "".join(parts)


@pytest.mark.parametrize("term", VOCABULARY, ids=lambda term: term.concept)
def test_every_text_about_a_game_term_uses_the_rulebook_word(term: Term) -> None:
    mentions = [
        key
        for key, english in messages.ENGLISH.items()
        if re.search(term.english, words(english), re.IGNORECASE)
    ]
    assert mentions, f"no English text mentions {term.concept}"
    wrong = [
        (language, key)
        for key in mentions
        for language, wanted in (("fr", term.french), ("uk", term.ukrainian))
        if not re.search(wanted, words(catalogue(language)[key]), re.IGNORECASE)
    ]
    assert wrong == []


@pytest.mark.parametrize("term", VOCABULARY, ids=lambda term: term.concept)
def test_the_vocabulary_is_the_rulebooks_own(term: Term, data_dir: Path) -> None:
    rulebooks = data_dir / "rulebooks"
    french = (rulebooks / FRENCH_RULEBOOK).read_text("utf-8").lower()
    ukrainian = (rulebooks / UKRAINIAN_RULEBOOK).read_text("utf-8").lower()
    for word in term.rulebook_fr:
        assert word.lower() in french, word
        assert re.search(term.french, word, re.IGNORECASE), word
    for word in term.rulebook_uk:
        assert word.lower() in ukrainian, word
        assert re.search(term.ukrainian, word, re.IGNORECASE), word


def test_a_rug_is_always_tapis_and_килим() -> None:
    """The plainest case, spelled out: every key that mentions a rug."""
    for key, english in messages.ENGLISH.items():
        if re.search(r"\brugs?\b", words(english)):
            assert "tapis" in catalogue("fr")[key], key
            assert "килим" in catalogue("uk")[key].lower(), key


COMMAND_MENTION = re.compile(r"`/(?P<group>[^\s`]+) (?P<sub>[^\s`]+)`")
BARE_COMMAND = re.compile(r"`(?P<sub>[^\s`/]+)`")


@pytest.mark.parametrize("language", LANGUAGES)
def test_commands_named_in_texts_are_the_ones_that_language_sees(language: str) -> None:
    texts = catalogue(language)
    groups = {texts["command_name.marrakech"], texts["command_name.marrakech-mod"]}
    subcommands = {
        value
        for key, value in texts.items()
        if key.startswith("command_name.")
        and key not in ("command_name.marrakech", "command_name.marrakech-mod")
    }
    named = 0
    for key, template in texts.items():
        for mention in COMMAND_MENTION.finditer(template):
            named += 1
            assert mention["group"] in groups, (key, mention.group())
            assert mention["sub"] in subcommands, (key, mention.group())
        if key == "guide.turn.body":
            for bare in BARE_COMMAND.finditer(template):
                assert bare["sub"] in subcommands, (key, bare.group())
    assert named >= 3
