"""Receipts: seal then verify succeeds; any change to signed content, the chain link or the
signing key is detected; chains link in order."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_desk.trust.checks import EvidenceSource, check_draft
from evidence_desk.trust.gate import decide
from evidence_desk.trust.receipts import chain_problems, seal, verify_receipt
from evidence_desk.trust.signing import key_id_for, raw_public_key
from evidence_desk.types import (
    ClaimAudit,
    Coverage,
    EngineIds,
    GatePolicy,
    Plan,
    Receipt,
    ScoredPassage,
    Source,
    StageRecord,
    Usage,
    Verdict,
)

SETTINGS = settings(max_examples=200, deadline=None)
KEY = Ed25519PrivateKey.generate()
OTHER_KEY = Ed25519PrivateKey.generate()
TRUSTED = {raw_public_key(KEY)}
DOCUMENTS = {
    "1933/inaugural.md": "The only thing we have to fear is\nfear itself. In 1933 some "
    "13,000,000 were idle.",
    "1941/four-freedoms.md": "We look forward to a world founded upon four essential human "
    "freedoms. The first is freedom of speech.",
}
CLAIMS = [
    'He said "the only thing we have to fear is fear itself." [S1]',
    "In 1933 some 13,000,000 were idle [S1].",
    'He spoke of "four essential human freedoms" [S2].',
    'He said "four essential freedoms" [S2].',
    "Freedom of speech came first [S2].",
    "In 1934 nobody was idle [S1].",
    "This cites nothing.",
    "This cites [S7].",
    "Fear is “itself” [Source 1].",
]


def sources() -> list[Source]:
    out = []
    for i, (doc_id, text) in enumerate(DOCUMENTS.items(), start=1):
        passage = ScoredPassage(id=f"{doc_id}#0", text=text, start=0, end=len(text), score=0.8)
        out.append(
            Source(
                id=f"S{i}",
                doc_id=doc_id,
                title="Address",
                date=None,
                retrieved_at="2024-01-01T00:00:00Z",
                content_sha256=hashlib.sha256(text.encode()).hexdigest(),
                passages=(passage,),
            )
        )
    return out


@st.composite
def receipts(draw: st.DrawFn) -> dict[str, Any]:
    """An unsealed receipt built by the real checks and gate from a generated run."""
    run_sources = sources()
    evidence = {s.id: EvidenceSource.from_source(s, DOCUMENTS[s.doc_id]) for s in run_sources}
    draft = " ".join(draw(st.lists(st.sampled_from(CLAIMS), max_size=5)))
    checked = check_draft(draft, evidence)
    audits = [ClaimAudit(verdict=draw(st.sampled_from(list(Verdict)))) for _ in checked]
    coverage = draw(
        st.none() | st.builds(Coverage, covered=st.booleans(), score=st.floats(0, 1),
                              floor=st.just(0.4), reason=st.text(max_size=20))
    )  # fmt: skip
    policy = GatePolicy(
        coverage_floor=0.4,
        max_pruned_fraction=draw(st.floats(0, 1)),
        min_kept_claims=draw(st.integers(0, 3)),
    )
    claims, outcome = decide(checked, audits, coverage, policy)
    receipt = Receipt(
        run_id=draw(st.uuids()).hex,
        created_at="2024-05-01T12:00:00Z",
        question=draw(st.text(max_size=40)),
        plan=Plan(subquestions=(), queries=("fear",)),
        sources=run_sources,
        draft=draft,
        claims=claims,
        quotes=[q for c in claims for q in c.quotes],
        decision=outcome.decision,
        reason=outcome.reason,
        published_answer=outcome.published_answer,
        engine=EngineIds(planner="offline", answerer="offline", auditor="offline"),
        policy=policy,
        coverage=coverage,
        stages=[StageRecord(name="answer", started_at="2024-05-01T12:00:00Z", latency_ms=1.5)],
        usage=Usage(active_seconds=draw(st.floats(0, 100))),
    )
    return receipt.model_dump(mode="json")


previous = st.none() | st.text("0123456789abcdef", min_size=64, max_size=64)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every location inside a JSON value, nested ones included."""
    found: list[tuple[Any, ...]] = []
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else []
    )
    for k, v in items:
        found.append((*prefix, k))
        found.extend(paths(v, (*prefix, k)))
    return found


def altered(value: Any) -> Any:
    """A different JSON value of the same shape where possible."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x" if not value else value[:-1] + ("x" if value[-1] != "x" else "y")
    if isinstance(value, list):
        return [*value, None]
    if isinstance(value, dict):
        return {**value, "extra": 1}
    return "null"


@SETTINGS
@given(receipts(), previous)
def test_sealed_receipts_verify(receipt: dict[str, Any], prev: str | None) -> None:
    sealed = seal(receipt, KEY, prev)
    report = verify_receipt(sealed, trusted_public_keys=TRUSTED, documents=DOCUMENTS)
    assert report.ok, report.problems
    # Stored as JSON (any formatting) and read back, it still verifies.
    reread = json.loads(json.dumps(sealed, indent=2))
    assert verify_receipt(reread, trusted_public_keys=TRUSTED, documents=DOCUMENTS).ok
    assert sealed["integrity"]["previous_receipt_sha256"] == prev


@SETTINGS
@given(receipts(), previous, st.data())
def test_any_change_is_detected(
    receipt: dict[str, Any], prev: str | None, data: st.DataObject
) -> None:
    sealed = seal(receipt, KEY, prev)
    path = data.draw(st.sampled_from(paths(sealed)))
    tampered = copy.deepcopy(sealed)
    parent = tampered
    for step in path[:-1]:
        parent = parent[step]
    if data.draw(st.booleans()) and not isinstance(parent, list):
        del parent[path[-1]]  # drop a field
    else:
        parent[path[-1]] = altered(parent[path[-1]])
    assert tampered != sealed
    assert not verify_receipt(tampered).ok, path


@SETTINGS
@given(receipts(), previous, previous)
def test_changed_chain_link_is_detected(
    receipt: dict[str, Any], prev: str | None, other: str | None
) -> None:
    sealed = seal(receipt, KEY, prev)
    sealed["integrity"]["previous_receipt_sha256"] = other
    assert verify_receipt(sealed).ok == (other == prev)


@SETTINGS
@given(receipts(), previous)
def test_re_signed_with_another_key_fails_against_the_trusted_key(
    receipt: dict[str, Any], prev: str | None
) -> None:
    forged = seal(receipt, OTHER_KEY, prev)
    assert verify_receipt(forged).ok
    report = verify_receipt(forged, trusted_public_keys=TRUSTED)
    assert report.problems == [
        f"The receipt was signed with key {key_id_for(raw_public_key(OTHER_KEY))}, which this "
        "desk does not trust."
    ]


@settings(max_examples=50, deadline=None)
@given(st.lists(receipts(), min_size=2, max_size=4), st.data())
def test_chains_link_in_order(runs: list[dict[str, Any]], data: st.DataObject) -> None:
    chain: list[dict[str, Any]] = []
    for receipt in runs:
        link = chain[-1]["integrity"]["canonical_sha256"] if chain else None
        chain.append(seal(receipt, KEY, link))
    assert chain_problems(chain) == []
    i = data.draw(st.integers(1, len(chain) - 1))
    reordered = [*chain[: i - 1], chain[i], chain[i - 1], *chain[i + 1 :]]
    assert chain_problems(reordered) != []
    dropped = chain[:i] + chain[i + 1 :]
    if i < len(chain) - 1:
        assert chain_problems(dropped) != []
    edited = copy.deepcopy(chain)
    edited[i - 1]["question"] += "?"
    assert chain_problems(edited) != []
