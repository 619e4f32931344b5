"""A surname names one speaker among an answer's sources, or the frame gives more."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evidence_desk.trust.checks import EvidenceSource, check_draft
from evidence_desk.trust.surnames import Speakers, ambiguous_surname

TR = "We must keep the navy strong and ready for any call upon it."
FDR = "We look forward to a world founded upon four essential human freedoms."


def _source(sid: str, name: str, date: str, text: str) -> EvidenceSource:
    return EvidenceSource(
        id=sid,
        doc_id=f"doc-{sid}",
        text=text,
        passages=((f"doc-{sid}#0", 0, len(text)),),
        title=f"{name} — Annual Message",
        date=date,
        names=(name, name.split()[-1]),
        offices=("President",),
    )


SOURCES = {
    "S1": _source("S1", "Theodore Roosevelt", "1905-12-05", TR),
    "S2": _source("S2", "Franklin D. Roosevelt", "1941-01-06", FDR),
}


def _problems(draft: str, sources: dict[str, EvidenceSource] = SOURCES) -> list[tuple[str, ...]]:
    return [c.checks.grounding for c in check_draft(draft, sources)]


@pytest.mark.parametrize(
    "draft",
    [
        f'Roosevelt said: "{FDR}" [S2].',
        f'Roosevelt also said: "{FDR}" [S2].',
        "Roosevelt said that we look forward to a world founded upon four essential human "
        "freedoms [S2].",
    ],
)
def test_a_surname_two_speakers_share_is_held(draft: str) -> None:
    (problems,) = _problems(draft)
    assert any("names more than one speaker" in p for p in problems), problems


@pytest.mark.parametrize(
    "draft",
    [
        f'In 1941, Roosevelt said: "{FDR}" [S2].',
        f'Franklin D. Roosevelt said: "{FDR}" [S2].',
        f'"{FDR}" [S2].',  # no frame: the quote alone names no one
    ],
)
def test_the_year_or_the_full_name_makes_it_one_speaker(draft: str) -> None:
    assert _problems(draft) == [()]


def test_one_speaker_in_several_sources_is_no_rival() -> None:
    again = _source("S1", "Franklin D. Roosevelt", "1943-01-07", TR)
    assert _problems(f'Roosevelt said: "{FDR}" [S2].', {"S1": again, "S2": SOURCES["S2"]}) == [()]


def test_a_source_with_no_speaker_or_no_full_name_names_no_one() -> None:
    speakers = {"S1": Speakers(("Roosevelt",)), "S2": Speakers(("Theodore Roosevelt",))}
    assert ambiguous_surname("Roosevelt said it.", (), "S1", speakers) is None
    assert ambiguous_surname("Roosevelt said it.", (), "S9", speakers) is None
    # The surname only inside a quote is the source's word, not a frame.
    text = '"Roosevelt" was his name.'
    assert (
        ambiguous_surname(
            text, ((1, 10),), "S2", {**speakers, "S3": Speakers(("Franklin Roosevelt",))}
        )
        is None
    )


def test_the_surname_table_in_the_docs_behaves_as_documented() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "grounding.md").read_text(encoding="utf-8")
    section = doc[
        doc.index("**A surname names one speaker**") : doc.index("One speaker in several")
    ]
    rows = re.findall(r"^\| `([^`]+)` \| (passes|refused)\b", section, re.MULTILINE)
    assert len(rows) == 3
    for draft, outcome in rows:
        (problems,) = _problems(draft)
        assert (not problems) == (outcome == "passes"), (draft, problems)
