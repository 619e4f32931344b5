"""The offline auditor's verdicts, evidence ids and calibration loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agents_helpers import BagOfWordsEmbedder, profile, sotu_sources, source_from_text

from evidence_desk.agents.base import ClaimToAudit
from evidence_desk.agents.offline.answerer import OfflineAnswerer
from evidence_desk.agents.offline.auditor import OfflineAuditor
from evidence_desk.agents.offline.calibration import (
    AuditThresholds,
    calibration_path,
    load_thresholds,
)
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.trust.claims import split_claims
from evidence_desk.types import ClaimAudit, Source, Verdict

TEXT = (
    "In the past year the Government put 4,000,000 men back to work on public projects. "
    "The banks of the Nation were reopened after a week of careful examination. "
    "We shall not abandon the farmers of the plains while the drought persists."
)
SOURCE = source_from_text(TEXT, title="Annual Message to Congress")


def audit(
    text: str, citations: tuple[str, ...] = ("S1",), sources: list[Source] | None = None
) -> ClaimAudit:
    auditor = OfflineAuditor(BagOfWordsEmbedder())
    return auditor.audit("q", [ClaimToAudit(text, citations)], sources or [SOURCE])[0]


def test_verbatim_quote_is_supported_with_its_passage() -> None:
    result = audit(
        'Annual Message to Congress (1941): "The banks of the Nation were reopened" [S1].'
    )
    assert result.verdict == Verdict.SUPPORTED
    assert result.evidence == ("doc-S1#0",)
    assert result.confidence >= 0.9


def test_paraphrase_with_the_same_content_is_supported() -> None:
    result = audit("The banks of the Nation were reopened after a careful examination [S1].")
    assert result.verdict == Verdict.SUPPORTED
    assert result.evidence == ("doc-S1#0",)


def test_a_supported_paraphrase_names_its_cover_sentence_as_the_span_it_rests_on() -> None:
    result = audit("The banks of the Nation were reopened after a careful examination [S1].")
    assert result.verdict == Verdict.SUPPORTED
    [span] = result.spans
    assert span.source_id == "S1"
    assert span.text == "The banks of the Nation were reopened after a week of careful examination."
    assert span.text in TEXT  # verbatim: the paraphrase tier checks it again


def test_a_verdict_short_of_supported_names_no_spans() -> None:
    partial = audit("The banks of the Nation were reopened by the army [S1].")
    assert partial.verdict != Verdict.SUPPORTED and partial.spans == ()
    assert audit("In the past year the Government put 5,000,000 men to work [S1].").spans == ()


def test_a_quote_in_another_case_is_verbatim_as_the_contract_reads_it() -> None:
    result = audit('The message said that "the banks of the Nation were reopened" [S1].')
    assert result.verdict == Verdict.SUPPORTED and result.confidence >= 0.9


def test_changed_number_is_not_supported() -> None:
    result = audit("In the past year the Government put 5,000,000 men back to work [S1].")
    assert result.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)
    assert "5" in result.rationale


def test_changed_number_inside_a_quote_is_not_supported() -> None:
    result = audit(
        'It said: "the Government put 4,500,000 men back to work on public projects" [S1].'
    )
    assert result.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED)


def test_negated_claim_is_contradicted() -> None:
    result = audit("The banks of the Nation were not reopened after a week of examination [S1].")
    assert result.verdict == Verdict.CONTRADICTED
    assert result.evidence


def test_dropped_negation_is_contradicted() -> None:
    result = audit("We shall abandon the farmers of the plains while the drought persists [S1].")
    assert result.verdict == Verdict.CONTRADICTED


def test_negated_framing_of_a_verbatim_quote_is_contradicted() -> None:
    result = audit('The message never said "The banks of the Nation were reopened" [S1].')
    assert result.verdict == Verdict.CONTRADICTED


def test_negation_inside_a_verbatim_quote_is_not_a_contradiction() -> None:
    result = audit('The message said: "We shall not abandon the farmers of the plains" [S1].')
    assert result.verdict == Verdict.SUPPORTED


def test_unrelated_claim_is_unsupported() -> None:
    result = audit("The price of cotton in Liverpool collapsed after the war with Spain [S1].")
    assert result.verdict == Verdict.UNSUPPORTED
    assert result.evidence == ()


@pytest.mark.parametrize("citations", [(), ("S9",)])
def test_claim_citing_nothing_known_is_unsupported(citations: tuple[str, ...]) -> None:
    result = audit("The banks of the Nation were reopened [S9].", citations)
    assert result.verdict == Verdict.UNSUPPORTED
    assert result.confidence == 1.0


def test_only_cited_sources_count_as_evidence() -> None:
    other = source_from_text("The weather was fine all year long in the capital city.", "S2")
    result = audit(
        "The banks of the Nation were reopened after examination [S2].", ("S2",), [SOURCE, other]
    )
    assert result.verdict == Verdict.UNSUPPORTED


def test_non_verbatim_quote_is_at_most_partial() -> None:
    result = audit('It said: "The banks of the whole Nation were reopened quickly" [S1].')
    assert result.verdict in (Verdict.PARTIAL, Verdict.UNSUPPORTED)


def test_one_verdict_per_claim_in_order() -> None:
    auditor = OfflineAuditor(BagOfWordsEmbedder())
    claims = [
        ClaimToAudit("The banks of the Nation were reopened [S1].", ("S1",)),
        ClaimToAudit("The cotton price collapsed in Liverpool [S1].", ("S1",)),
    ]
    verdicts = [a.verdict for a in auditor.audit("q", claims, [SOURCE])]
    assert verdicts == [Verdict.SUPPORTED, Verdict.UNSUPPORTED]


def test_offline_answers_are_supported_by_the_offline_auditor() -> None:
    question = "What did Lincoln say in 1862 about slavery?"
    sources = sotu_sources(["1862-Lincoln-1"], question)
    embedder = BagOfWordsEmbedder()
    plan = OfflinePlanner().plan(question, profile())
    draft = OfflineAnswerer(embedder).answer(question, plan, sources).text
    claims = [ClaimToAudit(c.text, c.citations) for c in split_claims(draft)]
    assert claims
    results = OfflineAuditor(embedder).audit(question, claims, sources)
    assert all(r.verdict == Verdict.SUPPORTED for r in results)
    passage_ids = {p.id for s in sources for p in s.passages}
    assert all(r.evidence and set(r.evidence) <= passage_ids for r in results)


def test_packaged_calibration_loads() -> None:
    path = calibration_path()
    assert path.exists(), "run: python bench/wice.py --calibrate"
    data = json.loads(path.read_text(encoding="utf-8"))
    loaded = load_thresholds()
    assert loaded.supported == data["thresholds"]["supported"]
    assert {"dev", "test", "date"} <= set(data)
    assert data["test"]["n"] > 0 and 0.0 <= data["test"]["accuracy"] <= 1.0


def test_code_defaults_are_the_packaged_calibration() -> None:
    assert load_thresholds() == AuditThresholds()


def test_missing_or_broken_calibration_falls_back_to_defaults(tmp_path: Path) -> None:
    assert load_thresholds(tmp_path / "absent.json") == AuditThresholds()
    broken = tmp_path / "broken.json"
    broken.write_text('{"thresholds": {"supported": 0.1, "partial": 0.9}}', encoding="utf-8")
    assert load_thresholds(broken) == AuditThresholds()
    good = tmp_path / "good.json"
    good.write_text('{"thresholds": {"supported": 0.95, "unknown_key": 1}}', encoding="utf-8")
    assert load_thresholds(good).supported == 0.95


def test_stricter_thresholds_only_lower_verdicts() -> None:
    claim = [ClaimToAudit("The banks were reopened after a week [S1].", ("S1",))]
    lenient = OfflineAuditor(BagOfWordsEmbedder(), AuditThresholds(supported=0.3, partial=0.1))
    strict = OfflineAuditor(BagOfWordsEmbedder(), AuditThresholds(supported=0.99, partial=0.98))
    assert lenient.audit("q", claim, [SOURCE])[0].verdict == Verdict.SUPPORTED
    assert strict.audit("q", claim, [SOURCE])[0].verdict == Verdict.UNSUPPORTED
