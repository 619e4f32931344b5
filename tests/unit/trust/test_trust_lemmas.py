"""Inflection variants (trust/lemmas.py) and the reported speaker: `I am proposing` carries
`Kennedy proposed` (docs/grounding.md, "Wider frames")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evidence_desk.trust import lemmas
from evidence_desk.trust.claims import split_claims
from evidence_desk.trust.grounding import CRITICAL, Carrier, ground
from evidence_desk.trust.text import StoredText
from evidence_desk.trust.units import Metadata, read_units

TEXT = (
    "So tonight I am proposing that every State requires that students stay in school. "
    "I have directed an estimate of the appropriations to be laid before you. "
    "I will submit a budget to the Congress. The fort was attacked by the enemy. "
    "We raised taxes on imports. I would not veto the bill."
)
ADDRESS = Metadata(
    title="Barack Obama — State of the Union Address, 2012",
    date="2012-01-24",
    names=("Barack Obama",),
    offices=("President",),
)


def grounded(draft: str, metadata: Metadata = ADDRESS) -> bool:
    (claim,) = split_claims(draft)
    carrier = Carrier("S1", StoredText(TEXT), [("d#0", 0, len(TEXT))], metadata)
    return ground(claim, [carrier]).grounded


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("proposed", "propose", True),
        ("propos", "proposing", True),  # `fold` made `proposes` into `propos`
        ("directed", "direct", True),
        ("rose", "rise", True),
        ("tax", "taxed", True),
        ("better", "good", False),  # an adjective's forms do not vary
        ("will", "would", False),  # a stop word, and a critical one
        ("cannot", "can", False),
        ("1941", "1942", False),
        ("xyzzyq", "xyzzyqs", False),  # not in the lexicon
        ("am", "be", False),
    ],
)
def test_forms_of_one_verb(a: str, b: str, same: bool) -> None:
    assert lemmas.variant(a, b, CRITICAL) is same


def test_the_verb_lexicon_is_read_on_first_use() -> None:
    # The lexicon is read once a process; read it again here, whatever ran first (the
    # adversarial sets read it outside the coverage measure).
    lemmas._lexicon.cache_clear()
    table = lemmas._verbs()
    assert table["proposed"] == frozenset({"propose"}) and "ran" in table


def test_a_protected_word_is_only_itself() -> None:
    assert lemmas.variant("raised", "raise")
    assert not lemmas.variant("raised", "raise", frozenset({"raise"}))
    assert lemmas.variant("raise", "raise", frozenset({"raise"}))


GROUNDED = [
    "In January 2012, Obama proposed that every State requires that students stay in school [S1].",
    "The President proposes that every State requires that students stay in school [S1].",
    "In 2012, Barack Obama directed an estimate of the appropriations [S1].",
    "He directs an estimate of the appropriations [S1].",
    "We raise taxes on imports [S1].",  # a verb's tense
]
HELD = [
    "Obama submitted a budget to the Congress [S1].",  # `will` is never skipped
    "The enemy attacked the fort [S1].",  # roles: not in the passage's order
    "The fort attacked the enemy [S1].",  # `was` before a participle is a passive
    "Obama vetoed the bill [S1].",  # `would not` is never skipped
    "Lincoln proposed that every State requires that students stay in school [S1].",
    "They proposed that every State requires that students stay in school [S1].",
]


@pytest.mark.parametrize("draft", GROUNDED)
def test_inflections_and_the_reported_speaker_are_carried(draft: str) -> None:
    assert grounded(draft)


@pytest.mark.parametrize("draft", HELD)
def test_what_the_variants_never_carry(draft: str) -> None:
    assert not grounded(draft)


def test_the_speaker_is_read_as_i_only_when_it_opens_the_sentence() -> None:
    def first_person(draft: str) -> list[str] | None:
        (claim,) = split_claims(draft)
        alt = read_units(claim, ADDRESS).first_person
        return None if alt is None else [u.word for u in alt]

    assert first_person("In 2012, the President proposed a cut [S1].") == ["i", "proposed", "cut"]
    assert first_person("She proposed a cut [S1].") == ["i", "proposed", "cut"]
    assert first_person("Obama said he proposed a cut [S1].") is None  # a frame
    assert first_person("They proposed a cut [S1].") is None  # not the speaker
    assert first_person("Congress proposed a cut [S1].") is None
    assert first_person("Obama [S1].") is None  # no content word after the speaker


def test_the_lexicon_must_be_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lemmas.importlib.util, "find_spec", lambda _name: None)
    with pytest.raises(RuntimeError, match="lemminflect"):
        lemmas._lexicon_path()


def test_the_lexicon_is_read_as_data() -> None:
    assert lemmas._lexicon_path().name == "lemma_lu.csv.gz"


def test_synonyms_share_a_common_wordnet_sense(wordnet: None) -> None:
    from evidence_desk.trust.lemmas import synonym

    assert synonym("nation", "country") and synonym("purchase", "buy")
    assert synonym("cut", "reduce")  # `cut`'s second sense is `reduce`'s first
    assert not synonym("increase", "decrease") and not synonym("war", "peace")
    assert synonym("propos", "proposed")  # forms of one verb are variants first
    assert not synonym("will", "would") and not synonym("not", "never")  # stop words
    assert not synonym("nation", "country", frozenset({"nation"}))


def test_a_word_s_senses_are_what_synonyms_share(wordnet: None) -> None:
    assert lemmas.senses("found") & lemmas.senses("establishing")  # a verb's form too
    assert not lemmas.senses("found") & lemmas.senses("university")
    assert lemmas.senses("the") == frozenset()  # a stop word has none


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """WordNet read from `tmp_path` alone (its caches cleared before and after)."""
    monkeypatch.setenv("WNSEARCHDIR", str(tmp_path))
    monkeypatch.setattr(lemmas, "_WORDNET_DIRS", ())
    lemmas._senses.cache_clear()
    lemmas._synsets.cache_clear()
    yield tmp_path
    lemmas._senses.cache_clear()
    lemmas._synsets.cache_clear()


def test_the_index_is_read_as_data(index: Path) -> None:
    """WordNet's index format: lemma, part of speech, synset count, pointers, then the
    synset offsets most frequent sense first; license lines start with a space."""
    (index / "index.noun").write_text(
        "  1 This software and database is being provided to you\n"
        "country n 5 1 @ 5 5 08168978 08544813 08166552 08644722 08497294\n"
        "nation n 4 1 @ 4 2 08168978 08166552 11201061 08303692\n"
        "land n 2 1 @ 2 0 08544813 99999999\n"
        "soil n 4 1 @ 4 0 11111111 22222222 33333333 08544813\n"
        "united_states n 1 0 1 0 08544813\n",
        encoding="utf-8",
    )
    assert lemmas.synonym("nation", "country") and lemmas.synonym("land", "country")
    assert not lemmas.synonym("soil", "country")  # only a fourth sense in common
    assert not lemmas.synonym("united_states", "country")  # a phrase is no synonym


def test_without_wordnet_no_word_has_a_synonym(index: Path) -> None:
    (index / "elsewhere").mkdir()
    assert lemmas.wordnet_dir() is None
    assert not lemmas.synonym("nation", "country")
    assert lemmas.synonym("propos", "proposed")


def test_parts_of_speech_come_from_the_lexicon() -> None:
    assert {"noun", "verb"} <= lemmas.parts_of_speech("Tax")
    assert lemmas.parts_of_speech("unwarranted") == frozenset({"adj"})
    assert lemmas.parts_of_speech("the") == frozenset()
