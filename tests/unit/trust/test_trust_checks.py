"""The deterministic checks of one claim against the run's sources."""

from __future__ import annotations

from evidence_desk.trust.checks import EvidenceSource, check_claim, check_draft
from evidence_desk.trust.claims import split_claims
from evidence_desk.types import ClaimChecks, Quote, ScoredPassage, Source


def one(draft: str, sources: dict[str, EvidenceSource]) -> tuple[ClaimChecks, tuple[Quote, ...]]:
    (claim,) = split_claims(draft)
    return check_claim(claim, sources)


def test_good_claim_passes_everything(sources: dict[str, EvidenceSource]) -> None:
    checks, quotes = one('He said "the only thing we have to fear is fear itself." [S1]', sources)
    assert checks.passed
    (quote,) = quotes
    assert quote.verbatim and quote.source_id == "S1"
    text = sources["S1"].text
    assert quote.start is not None and quote.end is not None
    assert text[quote.start : quote.end] == "the only thing we have to fear is\nfear itself."


def test_missing_citation(sources: dict[str, EvidenceSource]) -> None:
    checks, _ = one("Roosevelt spoke about fear.", sources)
    assert not checks.has_citation
    assert checks.citations_exist
    assert not checks.passed


def test_unknown_and_malformed_citations(sources: dict[str, EvidenceSource]) -> None:
    checks, _ = one("Roosevelt spoke [S1, S9] [Source 2].", sources)
    assert checks.has_citation
    assert not checks.citations_exist
    assert checks.unknown_citations == ("S9", "[Source 2]")


def test_only_malformed_markers(sources: dict[str, EvidenceSource]) -> None:
    checks, _ = one("Roosevelt spoke [S].", sources)
    assert not checks.has_citation
    assert not checks.citations_exist
    assert checks.unknown_citations == ("[S]",)


def test_quote_must_be_in_a_cited_source(sources: dict[str, EvidenceSource]) -> None:
    checks, quotes = one('He said "four essential human freedoms" [S1].', sources)
    assert not checks.quotes_verbatim
    assert quotes[0].source_id is None and not quotes[0].verbatim
    checks, quotes = one('He said "four essential human freedoms" [S1][S2].', sources)
    assert checks.quotes_verbatim and quotes[0].source_id == "S2"


def test_uncited_quote_is_never_verbatim(sources: dict[str, EvidenceSource]) -> None:
    checks, quotes = one('He said "four essential human freedoms".', sources)
    assert not checks.quotes_verbatim and not quotes[0].verbatim


def test_quote_cited_only_through_an_unknown_source(sources: dict[str, EvidenceSource]) -> None:
    checks, quotes = one('He said "four essential human freedoms" [S7].', sources)
    assert not checks.quotes_verbatim and not checks.citations_exist
    assert quotes[0].source_id is None


def test_unclosed_quote_is_never_verbatim(sources: dict[str, EvidenceSource]) -> None:
    checks, quotes = one('He said [S2] "four essential human freedoms.', sources)
    assert checks.has_citation and checks.citations_exist
    assert [q.text for q in quotes] == ["four essential human freedoms."]
    assert not checks.quotes_verbatim and not quotes[0].verbatim
    checks, quotes = one('He said "four essential human freedoms" [S2] "and more.', sources)
    assert [q.verbatim for q in quotes] == [True, False]


def test_numbers_come_from_cited_passages(sources: dict[str, EvidenceSource]) -> None:
    checks, _ = one("About 25% were idle [S1].", sources)
    assert checks.numbers_dates
    checks, _ = one("About 25% were idle [S2].", sources)
    assert not checks.numbers_dates
    assert checks.unmatched_numbers == ("25%",)


def test_numbers_from_metadata_and_not_from_markers(sources: dict[str, EvidenceSource]) -> None:
    checks, _ = one("He spoke on March 4, 1933 [S1].", sources)  # date from metadata
    assert checks.numbers_dates
    checks, _ = one("He spoke [S2].", sources)  # the 2 of S2 is not a number
    assert checks.numbers_dates


def test_numbers_must_be_in_passages_not_only_in_the_text() -> None:
    text = "Intro. In 1933 it happened."
    source = EvidenceSource("S1", "d", text, passages=("Intro.",))
    checks, _ = one("In 1933 it happened [S1].", {"S1": source})
    assert not checks.numbers_dates and checks.unmatched_numbers == ("1933",)


def test_evidence_source_from_source() -> None:
    source = Source(
        id="S3",
        doc_id="doc",
        title="Report",
        date="2001-09-11",
        url=None,
        retrieved_at="2024-01-01T00:00:00Z",
        content_sha256="0" * 64,
        passages=(ScoredPassage(id="doc#0", text="Passage text.", start=0, end=13, score=1.0),),
    )
    evidence = EvidenceSource.from_source(source, "Full text.", extra=("Jane Doe",))
    assert evidence.id == "S3" and evidence.doc_id == "doc" and evidence.text == "Full text."
    assert evidence.passages == ("Passage text.",)
    assert evidence.metadata == ("Report", "2001-09-11", "Jane Doe")
    assert evidence.stored is evidence.stored  # prepared once


def test_check_draft(sources: dict[str, EvidenceSource]) -> None:
    checked = check_draft("Fear itself [S1]. Nothing [S9].", sources)
    assert [c.claim.text for c in checked] == ["Fear itself [S1].", "Nothing [S9]."]
    assert [c.checks.citations_exist for c in checked] == [True, False]
    assert checked[1].text == "Nothing [S9]." and checked[1].citations == ("S9",)
