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


def test_unbalanced_marks_make_every_quote_of_the_sentence_unverifiable(
    sources: dict[str, EvidenceSource],
) -> None:
    checks, quotes = one('He said [S2] "four essential human freedoms.', sources)
    assert checks.has_citation and checks.citations_exist
    assert [q.text for q in quotes] == ["four essential human freedoms."]
    assert not checks.quotes_verbatim and not quotes[0].verbatim
    assert checks.unbalanced_quote_marks and not checks.passed
    checks, quotes = one('He said "four essential human freedoms" [S2] "and more.', sources)
    assert [q.verbatim for q in quotes] == [False, False]


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
    source = EvidenceSource("S1", "d", text, passages=(("d#0", 0, 6),))
    checks, _ = one("In 1933 it happened [S1].", {"S1": source})
    assert not checks.numbers_dates and checks.unmatched_numbers == ("1933",)


def test_the_metadata_date_counts_only_as_a_whole() -> None:
    text = "The ships sailed. They sailed in spring."
    source = EvidenceSource("S1", "d", text, (("d#0", 0, len(text)),), date="1963-03-14")
    for claim, unmatched in [
        ("In 1963 the ships sailed [S1].", ()),
        ("In March 1963 the ships sailed [S1].", ()),
        ("On March 14, 1963 the ships sailed [S1].", ()),
        ("On 3/14/1963 the ships sailed [S1].", ()),
        ("On March 15, 1963 the ships sailed [S1].", ("March 15, 1963",)),
        ("On 14 April 1963 the ships sailed [S1].", ("14 April 1963",)),
        ("14 ships sailed [S1].", ("14",)),
        ("3 ships sailed [S1].", ("3",)),
    ]:
        checks, _ = one(claim, {"S1": source})
        assert checks.unmatched_numbers == unmatched, claim


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
    source = source.model_copy(update={"names": ("Jane Doe",)})
    evidence = EvidenceSource.from_source(source, "Passage text. More.")
    assert evidence.id == "S3" and evidence.doc_id == "doc"
    assert evidence.text == "Passage text. More."
    assert evidence.passages == (("doc#0", 0, 13),)
    assert evidence.passage_texts == ("Passage text.",)
    assert (evidence.title, evidence.date, evidence.names) == (
        "Report",
        "2001-09-11",
        ("Jane Doe",),
    )
    assert evidence.number_evidence == ("Passage text.", "Report", "Jane Doe")
    assert evidence.stored is evidence.stored  # prepared once
    sparse = EvidenceSource.from_passages(source.model_copy(update={"passages": (
        ScoredPassage(id="doc#1", text="More.", start=14, end=19, score=1.0),
        ScoredPassage(id="doc#9", text="bad length", start=30, end=31, score=1.0),
    )}))  # fmt: skip
    assert sparse.text[14:19] == "More." and not sparse.text[:14].strip()
    assert not sparse.text[30:31].strip()  # a passage whose text does not fit is left out


def test_check_draft(sources: dict[str, EvidenceSource]) -> None:
    checked = check_draft("Fear itself [S1]. Nothing [S9].", sources)
    assert [c.claim.text for c in checked] == ["Fear itself [S1].", "Nothing [S9]."]
    assert [c.checks.citations_exist for c in checked] == [True, False]
    assert checked[1].text == "Nothing [S9]." and checked[1].citations == ("S9",)
