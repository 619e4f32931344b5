"""A receipt's decision must follow from its own content, whoever signed it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evidence_desk.trust.consistency import consistency_problems
from evidence_desk.types import Coverage, GatePolicy, Receipt, Verdict

MakeReceipt = Callable[..., dict[str, Any]]


def problems(receipt: dict[str, Any]) -> list[str]:
    return consistency_problems(Receipt.model_validate(receipt))


def test_receipts_from_the_pipeline_are_consistent(make_receipt: MakeReceipt) -> None:
    assert problems(make_receipt()) == []
    pruned = make_receipt(
        draft="Our greatest primary task [S1]. Fear is all. Put people to work [S1]."
    )
    assert pruned["decision"] == "PUBLISHED_AFTER_PRUNING"
    assert problems(pruned) == []
    held = make_receipt(draft='He said "we fear" [S9]. [S]')
    assert held["decision"] == "HELD_FOR_REVIEW"
    assert problems(held) == []
    outside = make_receipt(coverage=Coverage(covered=False, score=0.1, floor=0.4, reason=""))
    assert problems(outside) == []
    strict = make_receipt(policy=GatePolicy(coverage_floor=0.4, min_kept_claims=5))
    assert strict["decision"] == "HELD_FOR_REVIEW"
    assert problems(strict) == []


def test_decision_published_answer_and_kept_must_follow(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt(verdicts=[Verdict.SUPPORTED, Verdict.CONTRADICTED, Verdict.SUPPORTED])
    assert receipt["decision"] == "HELD_FOR_REVIEW"
    receipt["decision"] = "AUTO_CLEARED"
    receipt["published_answer"] = receipt["draft"]
    receipt["claims"][0]["kept"] = True
    assert problems(receipt) == [
        "The recorded decision AUTO_CLEARED does not follow from the recorded claims under "
        "the recorded policy, which give HELD_FOR_REVIEW.",
        "The published answer is not the kept claims of the recorded answer.",
        "The claims marked kept are not the ones the gate keeps.",
    ]


def test_verdict_must_follow_from_auditor_and_checks(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt(draft="Fear itself. Fear [S1].")
    receipt["claims"][0]["verdict"] = "supported"  # the auditor cannot rescue a failed check
    found = problems(receipt)
    assert "Claim 1's verdict does not follow from the auditor and the checks." in found


def test_check_flags_must_follow_from_the_draft(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt(draft="Fear itself [S9]. Fear is 7 [S1].")
    first, second = receipt["claims"]
    first["checks"]["citations_exist"] = True
    first["checks"]["unknown_citations"] = []
    first["citations"] = ["S1"]
    second["checks"]["numbers_dates"] = True
    for claim in (first, second):
        claim["checks"]["grounding"] = []
    second["checks"]["markup"] = ["<b>"]
    assert problems(receipt)[:7] == [
        "Claim 1's citations are not the ones its sentence gives.",
        "Claim 1's cited-sources check does not match the run's sources.",
        "Claim 1's grounding check does not match its recorded passages (not carried when "
        "re-checked).",
        "Claim 2's grounding check does not match its recorded passages (not carried when "
        "re-checked).",
        "Claim 2's character, markup or quotation-mark check does not match.",
        # with its flags forged to pass, the recorded `unsupported` no longer follows
        "Claim 1's verdict does not follow from the auditor and the checks.",
        "Claim 2's number check does not match its unmatched numbers.",
    ]


def test_a_forged_ungrounded_flag_is_caught(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt()
    receipt["claims"][1]["checks"]["grounding"] = ["forged"]
    assert problems(receipt)[0] == (
        "Claim 2's grounding check does not match its recorded passages (carried when re-checked)."
    )


def test_a_forged_lean_is_caught(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt()
    receipt["claims"][1]["checks"]["leans_on"] = [1]  # so the gate would prune it with claim 1
    assert problems(receipt)[0] == (
        "Claim 2's sentences it leans on are not the ones its answer gives."
    )


def test_quotes_must_follow_from_the_draft(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt()
    receipt["claims"][0]["quotes"][0]["text"] = "fear itself"
    receipt["claims"][2]["quotes"] = []
    receipt["claims"][2]["checks"]["quotes_verbatim"] = False
    found = problems(receipt)
    assert "Claim 1's quotes are not the ones its sentence gives." in found
    assert "Claim 3's quotes are not the ones its sentence gives." in found
    assert "Claim 3's quote check does not match its quotes." in found
    assert "The receipt's quotes list is not the claims' quotes in order." in found


def test_claims_must_be_the_draft_sentences(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt()
    receipt["draft"] = receipt["draft"].replace("Roosevelt said", "Hoover said")
    assert problems(receipt) == ["The recorded claims are not the sentences of the recorded draft."]


def test_verbatim_quote_inside_a_passage_must_match_it(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt()
    passage = receipt["sources"][0]["passages"][0]
    passage["text"] = passage["text"].replace("fear itself", "fear Itself")
    assert problems(receipt) == [
        "Claim 1's grounding check does not match its recorded passages (not carried when "
        "re-checked).",
        "The quote 'the only thing we have to fear is fear itself.' "
        "does not match passage 1933-Roosevelt-1#0.",
    ]


def test_quote_outside_passages_or_without_source_is_left_to_the_evidence_check(
    make_receipt: MakeReceipt,
) -> None:
    receipt = make_receipt()
    receipt["sources"][0]["passages"][0]["end"] = 10  # the quote is no longer inside it
    receipt["sources"][1]["passages"] = []
    # no passage carries the sentences any more: only the grounding re-check notices
    assert problems(receipt) == [
        f"Claim {n}'s grounding check does not match its recorded passages (not carried "
        "when re-checked)."
        for n in (1, 2, 3)
    ]
    unsourced = make_receipt()
    unsourced["claims"][0]["quotes"][0]["source_id"] = "S5"
    unsourced["quotes"][0]["source_id"] = "S5"
    assert problems(unsourced) == []
    no_offsets = make_receipt()
    for q in (no_offsets["claims"][0]["quotes"][0], no_offsets["quotes"][0]):
        q["start"] = None
    assert problems(no_offsets) == []


def test_version_1_receipts_predate_the_grounding_contract(make_receipt: MakeReceipt) -> None:
    receipt = make_receipt()
    receipt["sources"][1]["passages"] = []
    assert problems(receipt)
    receipt["receipt_version"] = 1
    assert problems(receipt) == []
