"""How the offline answerer writes: short frames from metadata, lists named, quotes cut clean."""

from __future__ import annotations

import hashlib

import pytest
from agents_helpers import BagOfWordsEmbedder, profile

from evidence_desk.agents.offline.answerer import OfflineAnswerer
from evidence_desk.agents.offline.compose import clean, lead, listed, voice
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.judgment import check
from evidence_desk.trust.checks import EvidenceSource, check_claim
from evidence_desk.trust.claims import split_claims
from evidence_desk.types import ScoredPassage, Source

FREEDOMS = (
    "In the future days, which we seek to make secure, we look forward to a world founded "
    "upon four essential human freedoms.\n\n"
    "The first is freedom of speech and expression—everywhere in the world.\n\n"
    "The second is freedom of every person to worship God in his own way—everywhere in the "
    "world.\n\n"
    "The third is freedom from want—which, translated into world terms, means economic "
    "understandings.\n\n"
    "The fourth is freedom from fear—which, translated into world terms, means a world-wide "
    "reduction of armaments."
)


def _source(
    text: str,
    source_id: str = "S1",
    names: tuple[str, ...] = ("Franklin D. Roosevelt", "Roosevelt"),
    offices: tuple[str, ...] = ("President",),
    date: str = "1941-01-06",
) -> Source:
    return Source(
        id=source_id,
        doc_id=f"doc-{source_id}",
        title="Franklin D. Roosevelt — Annual Message to Congress, 1941",
        date=date,
        names=names,
        offices=offices,
        retrieved_at="2026-01-01T00:00:00Z",
        content_sha256=hashlib.sha256(text.encode()).hexdigest(),
        passages=(
            ScoredPassage(id=f"doc-{source_id}#0", text=text, start=0, end=len(text), score=1.0),
        ),
    )


def _passes(text: str, sources: list[Source]) -> bool:
    evidence = {s.id: EvidenceSource.from_passages(s) for s in sources}
    (claim,) = split_claims(text)
    return check_claim(claim, evidence)[0].passed


@pytest.mark.parametrize(
    ("quote", "cleaned"),
    [
        (
            "(2) Secondly, passage of the tax reforms previously urged, to apply to wages; and",
            "Secondly, passage of the tax reforms previously urged, to apply to wages",
        ),
        ("We must act now, and", "We must act now"),
        ("1. Cut the rates; or", "Cut the rates"),
        ("We must act now", "We must act now"),
        ("Peace and prosperity", "Peace and prosperity"),  # a whole phrase keeps its and
    ],
)
def test_a_quote_ends_on_a_whole_phrase(quote: str, cleaned: str) -> None:
    assert clean(quote) == cleaned
    assert cleaned in quote  # still verbatim


def test_a_speaker_with_an_office_goes_by_surname_unless_another_shares_it() -> None:
    fdr = _source("x", "S1")
    assert voice(fdr, [fdr]) is not None and voice(fdr, [fdr]).name == "Roosevelt"
    tr = _source("x", "S2", names=("Theodore Roosevelt", "Roosevelt"), date="1905-12-05")
    assert voice(fdr, [fdr, tr]).name == "Franklin D. Roosevelt"  # type: ignore[union-attr]
    author = _source("x", "S3", names=("lindsay young",), offices=())
    assert voice(author, [author]).name == "Lindsay Young"  # type: ignore[union-attr]
    assert voice(author, [author]).verb == "wrote"  # type: ignore[union-attr]
    assert voice(_source("x", names=()), []) is None
    assert voice(_source("x", names=("jparcell",), offices=()), []) is None


@pytest.mark.parametrize(
    ("dating", "again", "public", "expected"),
    [
        ("year", False, True, "In 1941, Roosevelt said"),
        ("full", False, True, "On January 6, 1941, Roosevelt said"),
        ("none", False, True, "Roosevelt said"),
        ("year", True, True, "Roosevelt also said"),
        ("full", True, True, "On January 6, 1941, Roosevelt said"),  # the date still given
        ("year", False, False, "In a 1941 article, Lindsay Young wrote"),
    ],
)
def test_frames_are_short_and_pass_the_contract(
    dating: str, again: bool, public: bool, expected: str
) -> None:
    names = ("Franklin D. Roosevelt", "Roosevelt") if public else ("lindsay young",)
    source = _source(FREEDOMS, names=names, offices=("President",) if public else ())
    who = voice(source, [source])
    assert who is not None
    frame = lead(source, who, dating, again)
    assert frame == expected
    assert _passes(f'{frame}: "we look forward to a world founded upon four" [S1].', [source])


def test_a_list_the_source_spells_out_is_named_item_by_item() -> None:
    source = _source(FREEDOMS)
    who = voice(source, [source])
    assert who is not None
    head = FREEDOMS.split("\n\n")[0]
    text = listed(source, who, FREEDOMS, head, "year", again=False)
    assert text == (
        'In 1941, Roosevelt spoke of "four essential human freedoms": "freedom of speech and '
        'expression", "freedom of every person to worship God in his own way", "freedom from '
        'want" and "freedom from fear" [S1].'
    )
    assert _passes(text, [source])
    # Three items of four spelled out: no list claim (it would name three of four).
    cut = FREEDOMS[: FREEDOMS.index("\n\nThe fourth")]
    assert listed(_source(cut), who, cut, head, "year", again=False) is None


def test_the_answerer_names_the_four_freedoms_in_a_short_frame() -> None:
    question = "What did Franklin Roosevelt say about the four freedoms?"
    source = _source(FREEDOMS)
    plan = OfflinePlanner().plan(question, profile())
    draft = OfflineAnswerer(BagOfWordsEmbedder()).answer(question, plan, [source]).text
    assert draft.startswith('In 1941, Roosevelt spoke of "four essential human freedoms": ')
    assert '"freedom from fear" [S1].' in draft
    assert "Annual Message to Congress" not in draft  # no title on the sentence
    checked = check(draft, [source], {"S1": FREEDOMS})
    assert checked and all(c.checks.passed for c in checked)


def test_a_second_claim_from_the_same_source_says_also() -> None:
    text = (
        "We must double our investment in the schools of this nation this very year. "
        "The schools of this nation must teach every child to read and to write well."
    )
    question = "What did Roosevelt say about the schools of this nation?"
    source = _source(text)
    plan = OfflinePlanner().plan(question, profile())
    draft = OfflineAnswerer(BagOfWordsEmbedder()).answer(question, plan, [source]).text
    claims = [c.text for c in split_claims(draft)]
    assert len(claims) == 2, draft
    assert claims[0].startswith("In 1941, Roosevelt said: ")
    assert claims[1].startswith("Roosevelt also said: ")
    checked = check(draft, [source], {"S1": text})
    assert all(c.checks.passed for c in checked)
