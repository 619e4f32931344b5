"""The auditor's evidence in both forms: passage ids, and source ids (`S1`) as answers cite.

A source id stands for that source's passages that share the most content terms with the
claim (all of them when none does); it is still judged by the cited-source rule, so naming
a source the claim does not cite backs nothing, however the model words it.
"""

from __future__ import annotations

import pytest
from agents_helpers import source_of_passages

from evidence_desk.agents.base import ClaimToAudit
from evidence_desk.agents.outputs import AuditOut, VerdictOut, source_evidence, to_audits
from evidence_desk.types import ClaimAudit, Verdict

source = source_of_passages


S1 = source(
    "S1",
    ("a#0", "The banks were closed by order of the president in March."),
    ("a#1", "After a week the banks reopened, and deposits returned."),
    ("a#2", "Congress passed the farm bill in May."),
)
S2 = source("S2", ("b#0", "Farmers were helped by new loans."))
SOURCES = [S1, S2]

BANKS = ClaimToAudit('The banks reopened "after a week" [S1].', ("S1",))
FARMERS = ClaimToAudit("Farmers were helped [S2].", ("S2",))
BOTH = ClaimToAudit("The banks reopened and farmers were helped [S1, S2].", ("S1", "S2"))


def audit(claim: ClaimToAudit, name: str, evidence: list[str], why: str = "ok") -> ClaimAudit:
    v = VerdictOut.model_validate(
        {"claim": 1, "verdict": name, "evidence": evidence, "rationale": why}
    )
    [result] = to_audits(AuditOut(verdicts=[v]), [claim], SOURCES)
    return result


# --------------------------------------------------------------------------- S# accepted


def test_the_cited_source_id_backs_a_supported_claim_with_its_best_passage() -> None:
    result = audit(BANKS, "supported", ["S1"], "Stated.")
    assert result == ClaimAudit(verdict=Verdict.SUPPORTED, evidence=("a#1",), rationale="Stated.")


@pytest.mark.parametrize("written", [" S1 ", "[S1]", " [S1] "])
def test_a_source_id_written_with_spaces_or_as_a_marker_is_read(written: str) -> None:
    assert audit(BANKS, "supported", [written]).evidence == ("a#1",)


def test_partial_with_the_cited_source_id_stays_partial() -> None:
    assert audit(BANKS, "partial", ["S1"]).verdict is Verdict.PARTIAL


def test_both_forms_in_one_verdict_keep_their_order_once_each() -> None:
    result = audit(BANKS, "supported", ["a#0", "S1", "a#1", "S1", "b#0"])
    assert result.evidence == ("a#0", "a#1", "b#0")
    assert result.verdict is Verdict.SUPPORTED


def test_a_claim_citing_two_sources_is_backed_by_either_source_id() -> None:
    assert audit(BOTH, "supported", ["S2"]).verdict is Verdict.SUPPORTED
    assert audit(BOTH, "supported", ["S2"]).evidence == ("b#0",)


# --------------------------------------------------------------------------- which passages


def test_a_source_stands_for_the_passages_sharing_most_terms_with_the_claim() -> None:
    assert source_evidence(S1, BANKS.text) == ("a#1",)
    assert source_evidence(S1, "Congress passed a farm bill [S1].") == ("a#2",)


def test_passages_that_tie_are_all_kept_in_source_order() -> None:
    # "banks" is in a#0 and a#1, and nothing else of the claim is in either.
    assert source_evidence(S1, "Banks [S1].") == ("a#0", "a#1")


def test_a_claim_sharing_no_term_with_the_source_gets_every_passage() -> None:
    assert source_evidence(S1, "Gold was found in California [S1].") == ("a#0", "a#1", "a#2")


def test_citation_markers_do_not_count_as_shared_terms() -> None:
    s = source("S1", ("x#0", "Nothing here."), ("x#1", "See S1 for more."))
    assert source_evidence(s, "Unrelated words [S1].") == ("x#0", "x#1")


def test_a_source_without_passages_stands_for_none() -> None:
    empty = source("S3")
    assert source_evidence(empty, BANKS.text) == ()
    claim = ClaimToAudit("Something [S3].", ("S3",))
    v = VerdictOut(claim=1, verdict="supported", evidence=["S3"], rationale="")
    [result] = to_audits(AuditOut(verdicts=[v]), [claim], [*SOURCES, empty])
    assert result.verdict is Verdict.UNSUPPORTED and result.evidence == ()


# --------------------------------------------------------------------------- hostile


@pytest.mark.parametrize("name", ["supported", "partial"])
@pytest.mark.parametrize("evidence", [["S2"], ["[S2]"], ["S2", "b#0"], ["S9"], ["s1"], ["S1#0"]])
def test_evidence_naming_no_cited_source_backs_nothing(name: str, evidence: list[str]) -> None:
    # The claim cites only S1: S2 is another source, S9 does not exist, "s1" and "S1#0"
    # are neither a source nor a passage of the run.
    result = audit(BANKS, name, evidence, "Looks fine.")
    assert result.verdict is Verdict.UNSUPPORTED
    assert result.rationale == (
        f"The auditor said {name} without naming a passage or source the claim cites."
    )
    assert not set(result.evidence) & {p.id for p in S1.passages}


def test_an_unknown_source_id_is_dropped_like_an_unknown_passage_id() -> None:
    result = audit(BANKS, "supported", ["S9", "S1", "a#9"])
    assert result.evidence == ("a#1",)


def test_a_source_id_never_loosens_a_stricter_verdict() -> None:
    assert audit(BANKS, "unsupported", ["S1"]).verdict is Verdict.UNSUPPORTED
    assert audit(BANKS, "contradicted", ["S1"]).verdict is Verdict.CONTRADICTED
    assert audit(FARMERS, "contradicted", ["S1"]).verdict is Verdict.CONTRADICTED


def test_a_claim_citing_nothing_is_not_backed_by_any_source_id() -> None:
    uncited = ClaimToAudit("The banks reopened after a week.", ())
    assert audit(uncited, "supported", ["S1", "S2"]).verdict is Verdict.UNSUPPORTED
