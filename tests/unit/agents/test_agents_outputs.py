"""The typed model outputs: what they reject, and how each becomes the desk's own types.

Conversions may only make a model's output stricter: key terms come from code, a bad
citation stays visible to `trust/`, and an audit verdict is never more lenient than the
model's own.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evidence_desk.agents.base import ClaimToAudit
from evidence_desk.agents.outputs import (
    MAX_CLAIMS,
    MAX_QUERIES,
    MAX_SUBQUESTIONS,
    AnswerOut,
    AuditOut,
    ClaimOut,
    PlanOut,
    SubQuestionOut,
    VerdictOut,
    WindowOut,
    answer_output,
    audit_output,
    claim_sentence,
    plan_output,
    to_audits,
    to_draft,
    to_plan,
)
from evidence_desk.trust.claims import DraftClaim, split_claims, strip_markers
from evidence_desk.types import (
    ClaimAudit,
    Draft,
    Plan,
    ScoredPassage,
    Source,
    SubQuestion,
    TimeWindow,
    Verdict,
)

# --------------------------------------------------------------------------- helpers


def window(start: str = "1930-01-01", end: str = "1939-12-31", label: str = "the 1930s") -> dict:
    return {"start": start, "end": end, "label": label}


def plan_out(**changes: object) -> PlanOut:
    fields: dict[str, object] = {
        "kind": "temporal",
        "subquestions": [{"text": "What did the president say about banks?"}],
        "time_windows": [window()],
        "queries": ["banks 1933"],
    }
    fields.update(changes)
    return PlanOut.model_validate(fields)


def source(source_id: str, *passage_ids: str) -> Source:
    return Source(
        id=source_id,
        doc_id=f"doc-{source_id}",
        title=f"Document {source_id}",
        retrieved_at="2026-01-01T00:00:00Z",
        content_sha256="0" * 64,
        passages=tuple(
            ScoredPassage(id=pid, text=f"Text of {pid}.", start=0, end=10, score=1.0)
            for pid in passage_ids
        ),
    )


SOURCES = [source("S1", "a#0", "a#1"), source("S2", "b#0")]


def verdict(claim: int, name: str, evidence: list[str] | None = None, why: str = "") -> VerdictOut:
    return VerdictOut.model_validate(
        {"claim": claim, "verdict": name, "evidence": evidence or [], "rationale": why}
    )


def audits(verdicts: list[VerdictOut], claims: list[ClaimToAudit]) -> list[ClaimAudit]:
    return to_audits(AuditOut(verdicts=verdicts), claims, SOURCES)


CITES_S1 = ClaimToAudit('The banks reopened "after a week" [S1].', ("S1",))
CITES_S2 = ClaimToAudit("Farmers were helped [S2].", ("S2",))

# --------------------------------------------------------------------------- plan


@pytest.mark.parametrize("bad", ["1933/03/04", "March 4, 1933", "1933-3-4", "33-03-04", ""])
def test_window_rejects_dates_not_in_iso_form(bad: str) -> None:
    with pytest.raises(ValidationError, match="YYYY-MM-DD"):
        WindowOut.model_validate(window(start=bad))


@pytest.mark.parametrize("bad", ["2023-02-30", "2023-13-01", "1900-02-29", "2023-04-31"])
def test_window_rejects_impossible_dates(bad: str) -> None:
    with pytest.raises(ValidationError, match="not a calendar date"):
        WindowOut.model_validate(window(start="1899-01-01", end=bad))


def test_a_window_that_ends_before_it_starts_is_kept_as_an_empty_period() -> None:
    # The offline planner writes one when a question's year and person do not overlap
    # ("Washington in 1789"); it matches no document, so coverage stops the run.
    w = WindowOut.model_validate(window(start="1790-01-08", end="1789-12-31"))
    assert (w.start, w.end) == ("1790-01-08", "1789-12-31")


def test_window_accepts_a_one_day_window_and_a_leap_day() -> None:
    w = WindowOut.model_validate(window(start="2024-02-29", end="2024-02-29", label="that day"))
    assert (w.start, w.end) == ("2024-02-29", "2024-02-29")


def test_outputs_reject_fields_the_schema_does_not_name() -> None:
    with pytest.raises(ValidationError):
        WindowOut.model_validate({**window(), "confidence": 1.0})


def test_plan_needs_at_least_one_subquestion() -> None:
    with pytest.raises(ValidationError, match="at least one sub-question"):
        plan_out(subquestions=[])


@pytest.mark.parametrize("queries", [[], [""], ["   ", "\n"]])
def test_plan_needs_at_least_one_non_empty_query(queries: list[str]) -> None:
    with pytest.raises(ValidationError, match="at least one non-empty search query"):
        plan_out(queries=queries)


def test_plan_keeps_at_most_three_stripped_queries_in_order() -> None:
    out = plan_out(queries=["  first ", "", "second", "third", "fourth", "fifth"])
    assert MAX_QUERIES == 3
    assert out.queries == ["first", "second", "third"]


def test_plan_keeps_at_most_six_subquestions() -> None:
    out = plan_out(subquestions=[{"text": f"Part {i}?"} for i in range(1, 10)])
    assert len(out.subquestions) == MAX_SUBQUESTIONS == 6
    assert [sq.text for sq in out.subquestions] == [f"Part {i}?" for i in range(1, 7)]


def test_plan_rejects_an_unknown_kind() -> None:
    with pytest.raises(ValidationError):
        plan_out(kind="essay")


def test_plan_rejects_a_bad_window_inside_a_subquestion() -> None:
    with pytest.raises(ValidationError, match="calendar date"):
        plan_out(subquestions=[{"text": "q", "window": window(end="1939-02-30")}])


def test_to_plan_takes_key_terms_from_its_argument() -> None:
    out = plan_out(
        subquestions=[
            {"text": "  What about banks?  ", "window": window(), "entity": "roosevelt"},
            {"text": "And farms?"},
        ]
    )
    plan = to_plan(out, ["banks", "reopened"])
    assert plan.key_terms == ("banks", "reopened")
    assert plan.kind == "temporal"
    assert plan.queries == ("banks 1933",)
    assert plan.time_windows == (
        TimeWindow(start="1930-01-01", end="1939-12-31", label="the 1930s"),
    )
    assert plan.subquestions == (
        SubQuestion(text="What about banks?", window=plan.time_windows[0], entity="roosevelt"),
        SubQuestion(text="And farms?"),
    )


def test_a_model_cannot_supply_key_terms() -> None:
    # The schema has no such field, so a model trying to loosen the coverage check fails.
    with pytest.raises(ValidationError):
        plan_out(key_terms=["anything"])
    assert to_plan(plan_out(), []).key_terms == ()


def test_plan_output_round_trips_a_plan() -> None:
    w1 = TimeWindow(start="1933-01-01", end="1933-12-31", label="1933")
    w2 = TimeWindow(start="1961-01-20", end="1963-11-22", label="Kennedy's term")
    plan = Plan(
        subquestions=(
            SubQuestion(
                text="What did Roosevelt say about banks in 1933?",
                window=w1,
                entity="franklin d. roosevelt",
            ),
            SubQuestion(text="What did Kennedy say about banks?", window=w2, entity="kennedy"),
            SubQuestion(text="Which banks are named?"),
        ),
        time_windows=(w1, w2),
        queries=("roosevelt banks", "kennedy banks", "bank holiday"),
        key_terms=("banks",),
        kind="comparison",
    )
    assert to_plan(plan_output(plan), plan.key_terms) == plan


# --------------------------------------------------------------------------- claims


def sentence(text: str, citations: list[str], quotes: list[str] | None = None) -> str:
    return claim_sentence(ClaimOut(text=text, citations=citations, quotes=quotes or []))


def test_marker_goes_before_a_final_period() -> None:
    assert sentence('Framing: "quote".', ["S1"]) == 'Framing: "quote" [S1].'


@pytest.mark.parametrize("mark", ["?", "!"])
def test_marker_goes_before_a_final_question_or_exclamation_mark(mark: str) -> None:
    assert sentence(f"Was it the banks{mark}", ["S2"]) == f"Was it the banks [S2]{mark}"


def test_marker_is_appended_after_a_closing_quote_mark() -> None:
    text = 'Lincoln said "We cannot escape history."'
    assert sentence(text, ["S1"]) == text + " [S1]"
    curly = "Lincoln said “We cannot escape history.”"
    assert sentence(curly, ["S1"]) == curly + " [S1]"


def test_marker_is_appended_to_a_sentence_without_an_end_mark() -> None:
    assert sentence("Banks reopened in 1933", ["S1", "S2"]) == "Banks reopened in 1933 [S1, S2]"


def test_several_citations_share_one_marker() -> None:
    assert sentence("Banks reopened.", ["S2", "S1"]) == "Banks reopened [S2, S1]."


def test_markers_written_in_the_text_merge_with_citations_in_order_once_each() -> None:
    out = sentence("Banks [S2] reopened [S1; S3] in 1933 [S2].", ["S1", " S4 "])
    assert out == "Banks reopened in 1933 [S1, S4, S2, S3]."
    assert split_claims(out)[0].citations == ("S1", "S4", "S2", "S3")


def test_duplicate_citations_are_written_once() -> None:
    assert sentence("Banks reopened.", ["S1", "S1", "[S1]"]) == "Banks reopened [S1]."


def test_a_claim_without_citations_has_no_marker() -> None:
    out = sentence("Banks reopened.", [])
    assert out == "Banks reopened."
    claim = split_claims(out)[0]
    assert claim.citations == () and claim.malformed == ()


def test_white_space_in_the_text_is_tidied() -> None:
    assert sentence("  Banks \n reopened\tin 1933. ", ["S1"]) == "Banks reopened in 1933 [S1]."


@pytest.mark.parametrize(
    ("citations", "marker"),
    [(["Source 1"], "[Source 1]"), (["1"], "[1]"), (["s1"], "[s1]"), (["S"], "[S]")],
)
def test_a_malformed_citation_stays_visible_for_trust(citations: list[str], marker: str) -> None:
    out = sentence("Banks reopened.", citations)
    assert out == f"Banks reopened {marker}."
    [claim] = split_claims(out)
    assert claim.citations == ()
    assert claim.malformed == (marker,)


def test_a_malformed_citation_next_to_a_good_one_is_still_reported() -> None:
    out = sentence("Banks reopened.", ["S1", "Source 2"])
    [claim] = split_claims(out)
    assert claim.citations == ("S1",)
    assert claim.malformed == ("[Source 2]",)


def test_bracketed_text_that_is_not_a_marker_stays_in_the_text() -> None:
    out = sentence("Banks reopened [Source 2].", ["S1"])
    assert "[Source 2]" in out
    [claim] = split_claims(out)
    assert claim.citations == ("S1",)
    assert claim.malformed == ("[Source 2]",)


def test_claim_accepts_quotes_it_contains() -> None:
    claim = ClaimOut(
        text='He said "We cannot escape history" and “the fiery trial”.',
        citations=["S1"],
        quotes=["We cannot escape history", "the fiery trial"],
    )
    assert claim.quotes == ["We cannot escape history", "the fiery trial"]


@pytest.mark.parametrize(
    "quote",
    ["We can not escape history", "escape history", "We cannot escape history.", "history"],
)
def test_claim_rejects_a_quote_not_between_double_quotes_in_its_text(quote: str) -> None:
    with pytest.raises(ValidationError, match="does not contain it between double quotes"):
        ClaimOut(
            text='He said "We cannot escape history" of history.', citations=["S1"], quotes=[quote]
        )


def test_claim_rejects_a_quote_written_without_quote_marks() -> None:
    with pytest.raises(ValidationError, match="between double quotes"):
        ClaimOut(
            text="He said we cannot escape history.",
            citations=["S1"],
            quotes=["we cannot escape history"],
        )


def test_answer_accepts_twelve_claims_and_rejects_thirteen() -> None:
    claims = [{"text": f"Fact {i}.", "citations": ["S1"]} for i in range(MAX_CLAIMS + 1)]
    assert MAX_CLAIMS == 12
    assert len(AnswerOut.model_validate({"claims": claims[:12]}).claims) == 12
    with pytest.raises(ValidationError, match="at most 12 claims"):
        AnswerOut.model_validate({"claims": claims})


def test_an_empty_answer_is_an_empty_draft() -> None:
    assert to_draft(AnswerOut(claims=[])).text == ""
    assert split_claims(to_draft(AnswerOut(claims=[])).text) == []


def test_to_draft_gives_one_claim_per_claim_out_even_in_lower_case() -> None:
    out = AnswerOut(
        claims=[
            ClaimOut(text="The banks reopened in March 1933.", citations=["S1"]),
            ClaimOut(text="and farmers were helped.", citations=["S2"]),
            ClaimOut(text='e.g. he said "We cannot escape history."', citations=["S1"]),
            ClaimOut(text="no end mark here", citations=["S2"]),
        ]
    )
    draft = to_draft(out)
    assert draft.text.count("\n\n") == 3
    claims = split_claims(draft.text)
    assert [c.citations for c in claims] == [("S1",), ("S2",), ("S1",), ("S2",)]
    assert [c.text for c in claims] == [claim_sentence(c) for c in out.claims]


def test_a_claim_written_as_two_sentences_splits_and_the_second_has_no_citation() -> None:
    out = AnswerOut(claims=[ClaimOut(text="Banks reopened. Farms failed.", citations=["S1"])])
    claims = split_claims(to_draft(out).text)
    assert len(claims) == 2
    assert claims[0].citations == ()
    assert claims[1].citations == ("S1",)


OFFLINE_DRAFT = (
    'Abraham Lincoln — Annual Message, 1862: "We cannot escape history." [S1].\n\n'
    "Franklin D. Roosevelt — Annual Message, 1934: the banks reopened after "
    '"a week of careful examination" [S2, S3].'
)


def test_answer_output_round_trip_keeps_every_claim_as_split_claims_reads_it() -> None:
    before = split_claims(OFFLINE_DRAFT)
    assert len(before) == 2
    after = split_claims(to_draft(answer_output(Draft(text=OFFLINE_DRAFT))).text)
    assert [(c.text, c.citations, c.quotes, c.malformed) for c in after] == [
        (c.text, c.citations, c.quotes, c.malformed) for c in before
    ]
    assert after[0].text.endswith('history." [S1].')
    assert after[1].citations == ("S2", "S3")


def test_answer_output_keeps_claims_that_run_together_in_one_paragraph() -> None:
    draft = Draft(
        text='Banks reopened in 1933 [S1]. Farmers said "we wait." [S2] Then rain came [S3].'
    )
    before = split_claims(draft.text)
    after = split_claims(to_draft(answer_output(draft)).text)
    assert len(before) == 3
    assert [(c.text, c.citations) for c in after] == [(c.text, c.citations) for c in before]


def test_answer_output_keeps_citations_quotes_and_words_for_other_marker_styles() -> None:
    draft = Draft(
        text="Banks reopened in 1933. [S2] They said “we are ready” [S1][S3].\n\n"
        "Farmers waited [Source 1].\n\nrain came [S4; S1]."
    )
    before = split_claims(draft.text)
    after = split_claims(to_draft(answer_output(draft)).text)
    assert len(before) == len(after) == 4

    def read(c: DraftClaim) -> tuple[object, ...]:
        return (strip_markers(c.text), c.citations, c.quotes, c.malformed)

    assert [read(c) for c in after] == [read(c) for c in before]
    assert after[2].malformed == ("[Source 1]",)


# --------------------------------------------------------------------------- audit


def test_a_claim_the_auditor_skipped_is_unsupported_with_a_rationale() -> None:
    result = audits([verdict(2, "supported", ["b#0"], "Stated.")], [CITES_S1, CITES_S2])
    assert result[0].verdict is Verdict.UNSUPPORTED
    assert result[0].rationale
    assert result[0].evidence == ()
    assert result[1] == ClaimAudit(
        verdict=Verdict.SUPPORTED, evidence=("b#0",), rationale="Stated."
    )


def test_every_claim_gets_exactly_one_audit_in_order() -> None:
    result = audits([], [CITES_S1, CITES_S2, CITES_S1])
    assert [a.verdict for a in result] == [Verdict.UNSUPPORTED] * 3


@pytest.mark.parametrize(
    ("names", "strictest"),
    [
        (["supported", "partial"], "partial"),
        (["partial", "supported"], "partial"),
        (["supported", "unsupported", "partial"], "unsupported"),
        (["contradicted", "supported"], "contradicted"),
        (["partial", "unsupported", "contradicted", "supported"], "contradicted"),
    ],
)
def test_several_verdicts_for_one_claim_keep_the_strictest(
    names: list[str], strictest: str
) -> None:
    result = audits([verdict(1, name, ["a#0"], name) for name in names], [CITES_S1])
    assert result[0].verdict == Verdict(strictest)
    assert result[0].rationale == strictest


@pytest.mark.parametrize("number", [0, -1, 3, 99])
def test_verdicts_for_claim_numbers_out_of_range_are_ignored(number: int) -> None:
    result = audits([verdict(number, "supported", ["a#0"])], [CITES_S1, CITES_S2])
    assert [a.verdict for a in result] == [Verdict.UNSUPPORTED, Verdict.UNSUPPORTED]


def test_a_verdict_out_of_range_does_not_override_one_in_range() -> None:
    result = audits(
        [verdict(1, "supported", ["a#0"]), verdict(2, "contradicted", ["a#1"])], [CITES_S1]
    )
    assert result == [ClaimAudit(verdict=Verdict.SUPPORTED, evidence=("a#0",))]


def test_evidence_ids_that_are_not_passages_or_sources_of_the_run_are_dropped() -> None:
    result = audits(
        [verdict(1, "supported", ["S9", "a#9", "a#1", "doc-S1", "a#1", "a#0"], "Both.")],
        [CITES_S1],
    )
    assert result[0].evidence == ("a#1", "a#0")
    assert result[0].verdict is Verdict.SUPPORTED


@pytest.mark.parametrize("name", ["supported", "partial"])
@pytest.mark.parametrize("evidence", [[], ["missing#0"], ["b#0"]])
def test_supported_or_partial_without_a_passage_of_a_cited_source_is_unsupported(
    name: str, evidence: list[str]
) -> None:
    # b#0 belongs to S2, which the claim does not cite.
    [result] = audits([verdict(1, name, evidence, "Looks fine.")], [CITES_S1])
    assert result.verdict is Verdict.UNSUPPORTED
    assert result.rationale != "Looks fine."
    assert name in result.rationale


def test_partial_with_a_passage_of_a_cited_source_stays_partial() -> None:
    [result] = audits([verdict(1, "partial", ["b#0", "a#1"], " Half. ")], [CITES_S1])
    assert result == ClaimAudit(verdict=Verdict.PARTIAL, evidence=("b#0", "a#1"), rationale="Half.")


def test_contradicted_stays_contradicted_without_evidence() -> None:
    [result] = audits([verdict(1, "contradicted", [], "Says the opposite.")], [CITES_S1])
    assert result == ClaimAudit(verdict=Verdict.CONTRADICTED, rationale="Says the opposite.")


def test_unsupported_stays_unsupported_with_evidence() -> None:
    [result] = audits([verdict(1, "unsupported", ["a#0"], "Not stated.")], [CITES_S1])
    assert result == ClaimAudit(
        verdict=Verdict.UNSUPPORTED, evidence=("a#0",), rationale="Not stated."
    )


def test_a_claim_that_cites_nothing_cannot_be_supported() -> None:
    uncited = ClaimToAudit("Banks reopened.", ())
    [result] = audits([verdict(1, "supported", ["a#0"])], [uncited])
    assert result.verdict is Verdict.UNSUPPORTED


def test_verdict_rejects_an_unknown_verdict_name() -> None:
    with pytest.raises(ValidationError):
        verdict(1, "plausible")


def test_audit_output_round_trips_audits() -> None:
    original = [
        ClaimAudit(verdict=Verdict.SUPPORTED, evidence=("a#0", "a#1"), rationale="Quoted."),
        ClaimAudit(verdict=Verdict.PARTIAL, evidence=("b#0",), rationale="Only the year."),
        ClaimAudit(verdict=Verdict.UNSUPPORTED, rationale="Not in the passages."),
        ClaimAudit(verdict=Verdict.CONTRADICTED, evidence=("a#1",), rationale="The opposite."),
    ]
    claims = [CITES_S1, CITES_S2, CITES_S1, CITES_S1]
    out = audit_output(original)
    assert [v.claim for v in out.verdicts] == [1, 2, 3, 4]
    assert to_audits(out, claims, SOURCES) == original


def test_subquestion_out_defaults() -> None:
    sq = SubQuestionOut(text="q")
    assert sq.window is None and sq.entity is None
