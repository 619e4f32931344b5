"""The grounding contract: one passage carries each sentence, all of it (docs/grounding.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evidence_desk.trust.checks import EvidenceSource, check_claim, check_draft
from evidence_desk.trust.claims import split_claims
from evidence_desk.trust.grounding import Carrier, Finding, Window, ground
from evidence_desk.trust.text import StoredText
from evidence_desk.trust.units import Metadata, fold, read_units, too_short

P1 = (
    "In the future days, which we seek to make secure, we look forward to a world founded "
    "upon four essential human freedoms. The first is freedom of speech and expression—"
    "everywhere in the world."
)
P2 = (
    "We will not raise taxes. We must, as a nation, invest in schools. It is false that the "
    "war is lost. Taxes rose to fund the navy in 1938. Congress passed the act, they falsely "
    "claim. The Senate approved the treaty and the House rejected the tariff. Posterity may "
    "have cause to regret if we fail."
)
TEXT = P1 + " " + P2
TITLE = "Franklin D. Roosevelt — State of the Union Address, 1941"


def source(passages: tuple[tuple[str, int, int], ...] | None = None) -> EvidenceSource:
    spans = passages or (("d#0", 0, len(P1)), ("d#1", len(P1) + 1, len(TEXT)))
    return EvidenceSource(
        "S1", "d", TEXT, spans, title=TITLE, date="1941-01-06", names=("Franklin D. Roosevelt",)
    )


def grounding(draft: str, src: EvidenceSource | None = None) -> tuple[str, ...]:
    (claim,) = split_claims(draft)
    checks, _ = check_claim(claim, {"S1": src or source()})
    return checks.grounding


GROUNDED = [
    'In his 1941 address, Franklin D. Roosevelt said: "The first is freedom of speech" [S1].',
    "Roosevelt said the first is freedom of speech and expression everywhere [S1].",
    "Roosevelt said that we must invest in schools [S1].",
    "We must, as a nation, invest in schools [S1].",
    'The address notes that "we look forward to a world" [S1].',  # "notes" folds to "note"
    'He adds: "we look forward to a world" [S1].',
    f'{TITLE}: "We must, as a nation, invest in schools" [S1].',
    'On January 6, 1941, Roosevelt said "we look forward to a world founded" [S1].',
    'Roosevelt said, "we look forward to a world founded." [S1]',  # American punctuation
    '"We will not raise taxes," Roosevelt said [S1].',
    'According to the address, "we look forward to a world" and "four essential human '
    'freedoms" [S1].',
    'He said "four essential human freedoms" and "we look forward to a world" [S1].',
    "The Senate approved the treaty [S1].",
    # a quote across the boundary of two passages
    'Roosevelt said "everywhere in the world. We will not raise taxes" [S1].',
]


@pytest.mark.parametrize("draft", GROUNDED)
def test_faithful_sentences_are_grounded(draft: str) -> None:
    assert grounding(draft) == ()


NOT_GROUNDED = [
    ("Roosevelt opposed freedom of speech and expression [S1].", "holds its words"),
    ("Roosevelt vetoed freedom of speech and expression [S1].", "holds its words"),
    ('In 1942, Roosevelt said: "The first is freedom of speech" [S1].', "holds its words"),
    ('Lincoln said: "The first is freedom of speech" [S1].', "holds its words"),
    ("We will raise taxes [S1].", "holds its words"),  # "not" skipped
    ("We raise taxes in schools [S1].", "holds its words"),
    ("The House approved the treaty [S1].", "holds its words"),  # another actor
    ("The Senate rejected the tariff [S1].", "holds its words"),  # words from two clauses
    ('Roosevelt said "the war is lost" [S1].', "negates or disclaims"),
    ("The war is lost [S1].", "negates or disclaims"),
    ("Congress passed the act [S1].", "negates or disclaims"),  # ", they falsely claim"
    ('Roosevelt said "Posterity may have cause to regret" [S1].', "negates or disclaims"),
    ("Roosevelt said that they will not raise taxes [S1].", "holds its words"),  # not "we"
    ("Roosevelt opposes raising taxes [S1].", "holds its words"),
    ("In 1941, taxes rose to fund the navy [S1].", "another year"),
    ("Taxes rose to fund the navy in 1941 [S1].", "another year"),
    ("Taxes rose in 1941 to fund the navy [S1].", "another year"),
    ("Taxes rose to fund the navy in 1942 [S1].", "holds its words"),  # not the source's year
    ('Roosevelt called it "possible" [S1].', "not in S1"),
    ('Roosevelt said "raise taxes" [S1].', "too short"),
    ('Roosevelt said "ssential human freedoms" [S1].', "inside a word"),
    ("Taxes rose [S1].", "too short"),
    ("In his 1941 address [S1].", "too short"),
    ("Freedom [S9].", "no source that exists"),
]


@pytest.mark.parametrize(("draft", "why"), NOT_GROUNDED)
def test_hostile_sentences_are_not_grounded(draft: str, why: str) -> None:
    problems = grounding(draft)
    assert problems and why in problems[0], problems


def test_one_passage_carries_the_sentence_not_two() -> None:
    draft = "We look forward to a world founded upon schools [S1]."
    assert grounding(draft)  # "schools" is in the other passage
    whole = source((("d#0", 0, len(TEXT)),))
    assert grounding("Roosevelt said the first is freedom of speech [S1].", whole) == ()


def test_a_quote_across_passages_that_are_not_contiguous_is_not_carried() -> None:
    gap = source((("d#0", 0, len(P1) - 10), ("d#1", len(P1) + 1, len(TEXT))))
    assert grounding('Roosevelt said "everywhere in the world. We will not" [S1].', gap)


def test_metadata_comes_from_the_carrying_source_only() -> None:
    other = EvidenceSource(
        "S2", "e", "Nothing here at all today.", (("e#0", 0, 26),), names=("Abraham Lincoln",)
    )
    (claim,) = split_claims('Lincoln said "we look forward to a world" [S1, S2].')
    checks, _ = check_claim(claim, {"S1": source(), "S2": other})
    assert checks.grounding and "S1" in checks.grounding[0]


def test_ground_tries_each_cited_source_and_reports_the_first() -> None:
    (claim,) = split_claims('He said "we look forward to a world" [S2, S1].')
    other = EvidenceSource("S2", "e", "Nothing here.", (("e#0", 0, 13),))
    found = ground(claim, [other.carrier, source().carrier])
    assert (
        found.grounded and found.source_id == "S1" and found.window == Window(0, len(P1), ("d#0",))
    )
    assert ground(claim, []) == Finding(("it cites no source that exists",), refused=True)
    missing = ground(claim, [other.carrier])
    assert not missing.grounded and "not in S2" in missing.problems[0]


def test_units_set_aside_frames_articles_and_metadata() -> None:
    meta = Metadata(title=TITLE, date="1941-01-06", names=("Franklin D. Roosevelt",))
    (claim,) = split_claims('In his 1941 address, Roosevelt said that the "quote here" won [S1].')
    reading = read_units(claim, meta)
    assert [u.word or u.quote for u in reading.units] == [0, "won"]
    assert reading.event_years == frozenset()
    (claim,) = split_claims("In 1941, Roosevelt vetoed the bill [S1].")
    reading = read_units(claim, meta)
    assert [u.word for u in reading.units] == ["roosevelt", "vetoed", "bill"]
    assert reading.event_years == {"1941"}
    assert Metadata(date="not a date", names=("—",)).phrases == ()


def test_fold_and_too_short() -> None:
    assert [fold(w) for w in ["Nation's", "nation’s", "taxes", "stories", "boxes", "class"]] == [
        "nation",
        "nation",
        "tax",
        "story",
        "box",
        "class",
    ]
    assert fold("10,000") == "10000"
    assert too_short("of the people", 3, 2) and not too_short("government of the people", 3, 2)


def test_carrier_windows() -> None:
    carrier = Carrier("S1", StoredText("ab cd ef"), [("x#1", 3, 5), ("x#0", 0, 2)], Metadata())
    assert [w.passage_ids for w in carrier.windows([(0, 5)])] == [
        ("x#0",),
        ("x#1",),
        ("x#0", "x#1"),
    ]
    assert [w.passage_ids for w in carrier.windows([(0, 1)])] == [("x#0",), ("x#1",)]


def test_the_examples_in_the_docs_behave_as_documented() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "grounding.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| (grounded|not grounded|held)\b", doc, re.MULTILINE)
    assert len(rows) >= 6
    text = P1
    speech = EvidenceSource(
        "S1", "d", text, (("d#0", 0, len(text)),), title=TITLE, date="1941-01-06",
        names=("Franklin D. Roosevelt",),
    )  # fmt: skip
    for draft, outcome in rows:
        (claim,) = split_claims(draft)
        checks, _ = check_claim(claim, {"S1": speech})
        assert checks.passed == (outcome == "grounded"), (draft, checks)


def test_the_examples_against_their_sources_behave_as_documented() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "grounding.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \| (grounded|not grounded)\b", doc, re.MULTILINE)
    assert len(rows) >= 12
    meta = {
        "title": "Barack Obama — State of the Union Address, 2012",
        "date": "2012-01-24",
        "names": ("Barack Obama",),
        "offices": ("President",),
        "addressees": ("Congress",),
    }
    other = "The navy grew larger than ever before in our history."
    for draft, text, outcome in rows:
        sources = {
            sid: EvidenceSource(sid, f"d{sid}", t, ((f"d{sid}#0", 0, len(t)),), **meta)
            for sid, t in (("S1", text), ("S2", other))
        }
        last = check_draft(draft, sources)[-1]
        assert last.checks.passed == (outcome == "grounded"), (draft, last.checks)


def test_a_second_quote_cut_away_from_a_negation_is_not_grounded() -> None:
    draft = 'He said "as a nation, invest in schools" and "raise taxes. We must" [S1].'
    problems = grounding(draft)
    assert problems and "negates or disclaims" in problems[0]


QUALIFIED = (
    "Their only interest is in a new one-way international law. Nearly all the ships came "
    "home to the harbor in May. The fleet sailed out in June and only the flagship came back "
    "to the harbor."
)


def qualified_source() -> EvidenceSource:
    return EvidenceSource(
        "S1",
        "q",
        QUALIFIED,
        (("q#0", 0, len(QUALIFIED)),),
        title=TITLE,
        date="1941-01-06",
        names=("Franklin D. Roosevelt",),
    )


@pytest.mark.parametrize(
    "draft",
    [
        "Roosevelt said that their interest is in a new one-way international law [S1].",
        "The ships came home to the harbor in May [S1].",  # "Nearly all" left out
        "The flagship came back to the harbor [S1].",  # "only" left out
    ],
)
def test_a_qualifier_left_out_just_before_the_words_is_not_carried(draft: str) -> None:
    problems = grounding(draft, qualified_source())
    assert problems and "qualifies the words it uses right before them" in problems[0], problems


@pytest.mark.parametrize(
    "draft",
    [
        "Roosevelt said that their only interest is in a new one-way international law [S1].",
        "Nearly all the ships came home to the harbor in May [S1].",
        "Only the flagship came back to the harbor [S1].",
        # A quote shows where it starts: a reader sees the words it leaves out are not in it.
        'He said "The fleet sailed out in June" and "the flagship came back to the harbor" [S1].',
        'The address says "ships came home to the harbor in May" [S1].',
    ],
)
def test_the_same_sentences_with_their_qualifiers_are_carried(draft: str) -> None:
    assert grounding(draft, qualified_source()) == ()


def test_a_quote_is_recorded_in_the_source_that_carries_the_sentence() -> None:
    other = EvidenceSource("S2", "e", "x we look forward to a world y", (("e#0", 0, 5),))
    (claim,) = split_claims('Roosevelt said "we look forward to a world" [S2, S1].')
    checks, quotes = check_claim(claim, {"S1": source(), "S2": other})
    assert checks.grounding == () and checks.carried_by == ("d#0",)
    assert quotes[0].source_id == "S1" and quotes[0].start == P1.index("we look")
