"""The words a supported claim rests on (`VerdictOut.rests_on`) as the auditor's spans.

Each span goes to the first source the claim cites whose passages hold it; one that no
cited source's passages hold is dropped, and only a verdict that stays `supported` keeps
any: the paraphrase tier rests on nothing else, and checks every span again.
"""

from __future__ import annotations

import pytest
from agents_helpers import source_of_passages

from evidence_desk.agents.base import ClaimToAudit
from evidence_desk.agents.outputs import AuditOut, VerdictOut, audit_output, to_audits
from evidence_desk.types import CitedSpan, ClaimAudit, Verdict

source = source_of_passages


S1 = source(
    "S1",
    ("a#0", "The banks were closed by order of the president in March."),
    ("a#1", "After a week the banks reopened, and deposits returned."),
)
S2 = source(
    "S2",
    ("b#0", "Farmers were helped by new loans."),
    ("b#1", "After a week the banks reopened, and deposits returned."),
)
SOURCES = [S1, S2]
BANKS = ClaimToAudit("The banks opened again a week later [S1].", ("S1",))
BOTH = ClaimToAudit("Farmers got loans and banks reopened [S2, S1].", ("S2", "S1"))


def audit(claim: ClaimToAudit, *verdicts: tuple[str, list[str], list[str]]) -> ClaimAudit:
    out = AuditOut(
        verdicts=[
            VerdictOut.model_validate(
                {"claim": 1, "verdict": name, "evidence": evidence, "rests_on": rests_on}
            )
            for name, evidence, rests_on in verdicts
        ]
    )
    [result] = to_audits(out, [claim], SOURCES)
    return result


def test_a_supported_verdicts_spans_go_to_the_cited_source_holding_them() -> None:
    result = audit(
        BOTH,
        ("supported", ["S1", "S2"], ["Farmers were helped", " banks were closed by order "]),
    )
    assert result.verdict is Verdict.SUPPORTED
    assert result.spans == (
        CitedSpan(source_id="S2", text="Farmers were helped"),
        CitedSpan(source_id="S1", text="banks were closed by order"),  # stripped
    )


def test_a_span_two_cited_sources_hold_goes_to_the_first_the_claim_cites() -> None:
    words = "the banks reopened, and deposits returned"
    assert audit(BOTH, ("supported", ["S1"], [words])).spans == (
        CitedSpan(source_id="S2", text=words),
    )
    assert audit(BANKS, ("supported", ["S1"], [words])).spans == (
        CitedSpan(source_id="S1", text=words),
    )


def test_a_span_no_cited_passage_holds_is_dropped_and_the_others_kept() -> None:
    result = audit(
        BANKS,
        (
            "supported",
            ["a#1"],
            [
                "the banks opened again",  # in no passage: the claim's own words
                "Farmers were helped",  # in S2, which the claim does not cite
                "After a week the banks reopened",
                "   ",
            ],
        ),
    )
    assert result.verdict is Verdict.SUPPORTED and result.evidence == ("a#1",)
    assert result.spans == (CitedSpan(source_id="S1", text="After a week the banks reopened"),)


def test_a_span_across_two_passages_is_held_by_neither() -> None:
    # the passages are judged one at a time, as the tier locates a span in one source text
    across = "in March. After a week"
    assert audit(BANKS, ("supported", ["a#0"], [across])).spans == ()


@pytest.mark.parametrize("name", ["partial", "unsupported", "contradicted"])
def test_the_spans_of_a_verdict_other_than_supported_are_ignored(name: str) -> None:
    result = audit(BANKS, (name, ["a#1"], ["After a week the banks reopened"]))
    assert result.verdict == Verdict(name) and result.spans == ()


def test_a_supported_verdict_demoted_for_want_of_evidence_keeps_no_spans() -> None:
    result = audit(BANKS, ("supported", ["b#0"], ["After a week the banks reopened"]))
    assert result.verdict is Verdict.UNSUPPORTED and result.spans == ()


def test_the_stricter_of_two_verdicts_keeps_no_spans_of_the_other() -> None:
    result = audit(
        BANKS,
        ("supported", ["a#1"], ["After a week the banks reopened"]),
        ("unsupported", [], []),
    )
    assert result.verdict is Verdict.UNSUPPORTED and result.spans == ()


def test_at_most_sixteen_spans_are_read() -> None:
    words = ["After a week the banks reopened"] * 20
    assert len(audit(BANKS, ("supported", ["a#1"], words)).spans) == 16


def test_a_verdict_without_rests_on_validates_with_no_spans() -> None:
    # a server that does not enforce the schema may leave the field out
    v = VerdictOut.model_validate({"claim": 1, "verdict": "supported", "evidence": ["a#1"]})
    [result] = to_audits(AuditOut(verdicts=[v]), [BANKS], SOURCES)
    assert result.verdict is Verdict.SUPPORTED and result.spans == ()


def test_the_offline_engines_reply_carries_its_auditors_spans() -> None:
    """`audit_output` is how the offline auditor's audits travel as a model's reply."""
    span = CitedSpan(source_id="S1", text="After a week the banks reopened")
    given = ClaimAudit(verdict=Verdict.SUPPORTED, evidence=("a#1",), rationale="r", spans=(span,))
    [back] = to_audits(audit_output([given]), [BANKS], SOURCES)
    assert back.verdict is Verdict.SUPPORTED and back.spans == (span,)
