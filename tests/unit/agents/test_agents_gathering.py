"""A list a claim names, gathered from the consecutive sentences that spell it out
(`agents/offline/gathering.py`), and the auditor naming them as its spans."""

from __future__ import annotations

from agents_helpers import BagOfWordsEmbedder, source_from_text

from evidence_desk.agents.base import ClaimToAudit
from evidence_desk.agents.offline.auditor import OfflineAuditor
from evidence_desk.agents.offline.evidence import evidence_sentences
from evidence_desk.agents.offline.gathering import gathered, list_parts
from evidence_desk.types import Verdict

SPEECH = (
    "We look forward to a world founded upon four essential human freedoms. "
    "The first is freedom of speech and expression everywhere in the world. "
    "The second is freedom of every person to worship God in his own way. "
    "The third is freedom from want. The fourth is freedom from fear. "
    "That is no vision of a distant millennium."
)
LIST = (
    "Roosevelt named four freedoms: freedom of speech and expression, freedom of worship, "
    "freedom from want and freedom from fear"
)


def sentences(text: str = SPEECH) -> list:  # type: ignore[type-arg]
    return evidence_sentences([source_from_text(text)])


def test_a_claim_is_a_list_after_a_colon_with_two_items_or_more() -> None:
    assert list_parts(LIST) == (
        "Roosevelt named four freedoms",
        ["freedom of speech", "expression", "freedom of worship", "freedom from want",
         "freedom from fear"],
    )  # fmt: skip
    assert list_parts("Roosevelt spoke of one thing: freedom") is None
    assert list_parts('He said: "freedom of speech, and freedom from fear"') is None
    assert list_parts("No colon, no list") is None


def test_the_sentences_that_spell_the_list_out_are_gathered_head_first() -> None:
    found = gathered(LIST, sentences(), {"roosevelt"})
    assert [s.text.split()[:3] for s in found] == [
        ["We", "look", "forward"],
        ["The", "first", "is"],
        ["The", "second", "is"],
        ["The", "third", "is"],
        ["The", "fourth", "is"],
    ]


def test_no_gathering_without_every_item_the_head_or_consecutive_sentences() -> None:
    assert not gathered(LIST.replace("want", "hunger"), sentences(), {"roosevelt"})
    assert not gathered(LIST.replace("four", "five"), sentences(), {"roosevelt"})
    gap = SPEECH.replace("The third is", "Some doubt it. The third is")
    assert not gathered(LIST, sentences(gap), {"roosevelt"})
    # items out of the source's order
    swapped = "Roosevelt named four freedoms: freedom from fear and freedom from want"
    assert not gathered(swapped, sentences(), {"roosevelt"})


def test_the_offline_auditor_names_the_gathered_sentences() -> None:
    source = source_from_text(SPEECH).model_copy(update={"names": ("Roosevelt",)})
    claim = ClaimToAudit(text=LIST + " [S1].", citations=("S1",))
    (audit,) = OfflineAuditor(BagOfWordsEmbedder()).audit("q", [claim], [source])
    assert audit.verdict == Verdict.SUPPORTED
    assert [s.text.split()[1] for s in audit.spans] == [
        "look",
        "first",
        "second",
        "third",
        "fourth",
    ]
