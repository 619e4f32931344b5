"""Sealing and verifying receipts: hash, signature, trusted key, evidence, chain."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence_desk.trust.canonical import canonical_json, sha256_hex
from evidence_desk.trust.receipts import (
    VerifyReport,
    chain_problems,
    content_sha256,
    seal,
    verify_receipt,
)
from evidence_desk.trust.signing import key_id_for, raw_public_key

MakeReceipt = Callable[..., dict[str, Any]]


@pytest.fixture
def sealed(make_receipt: MakeReceipt, key: Ed25519PrivateKey) -> dict[str, Any]:
    return seal(make_receipt(), key, previous_sha256=None)


def test_seal_then_verify(
    sealed: dict[str, Any], key: Ed25519PrivateKey, documents: dict[str, str]
) -> None:
    integrity = sealed["integrity"]
    assert integrity["algorithm"] == "ed25519"
    assert integrity["canonical_sha256"] == content_sha256(sealed)
    assert len(integrity["key_id"]) == 16
    report = verify_receipt(sealed, trusted_public_keys={raw_public_key(key)}, documents=documents)
    assert report.ok, report.problems
    assert report == VerifyReport([])


def test_seal_does_not_change_its_input(make_receipt: MakeReceipt, key: Ed25519PrivateKey) -> None:
    receipt = make_receipt()
    before = copy.deepcopy(receipt)
    seal(receipt, key, None)
    assert receipt == before


def test_seal_refuses_an_invalid_receipt(make_receipt: MakeReceipt, key: Ed25519PrivateKey) -> None:
    receipt = make_receipt()
    del receipt["question"]
    with pytest.raises(ValueError, match="question"):
        seal(receipt, key, None)


def test_changed_content_fails(sealed: dict[str, Any]) -> None:
    sealed["question"] = sealed["question"] + " "
    report = verify_receipt(sealed)
    assert not report.ok
    assert report.problems == [
        "The receipt's content does not match its hash: it was changed after sealing."
    ]


def test_chain_link_and_key_fields_are_covered(sealed: dict[str, Any]) -> None:
    for field, value in [("previous_receipt_sha256", "0" * 64), ("algorithm", "ed448")]:
        tampered = copy.deepcopy(sealed)
        tampered["integrity"][field] = value
        assert not verify_receipt(tampered).ok


def test_wrong_algorithm_is_reported(sealed: dict[str, Any]) -> None:
    sealed["integrity"]["algorithm"] = "rsa"
    assert "The receipt is signed with 'rsa', not ed25519." in verify_receipt(sealed).problems


def test_bad_signature(sealed: dict[str, Any]) -> None:
    sig = sealed["integrity"]["signature"]
    sealed["integrity"]["signature"] = ("A" if sig[0] != "A" else "B") + sig[1:]
    assert verify_receipt(sealed).problems == [
        "The receipt's signature is not valid for its hash and public key."
    ]


def test_bad_public_key_and_key_id(sealed: dict[str, Any]) -> None:
    bad_key = copy.deepcopy(sealed)
    bad_key["integrity"]["public_key"] = "not a key"
    assert (
        "The receipt's public key is not a valid Ed25519 public key."
        in verify_receipt(bad_key).problems
    )
    bad_id = copy.deepcopy(sealed)
    bad_id["integrity"]["key_id"] = "0" * 16
    assert (
        "The receipt's key id does not belong to its public key." in verify_receipt(bad_id).problems
    )


def test_resigned_with_another_key(sealed: dict[str, Any], key: Ed25519PrivateKey) -> None:
    other = Ed25519PrivateKey.generate()
    forged = seal({k: v for k, v in sealed.items() if k != "integrity"}, other, None)
    assert verify_receipt(forged).ok  # without trusted keys a re-signed receipt looks sound
    report = verify_receipt(forged, trusted_public_keys=[raw_public_key(key)])
    other_id = key_id_for(raw_public_key(other))
    assert report.problems == [
        f"The receipt was signed with key {other_id}, which this desk does not trust."
    ]
    hinted = verify_receipt(
        forged, trusted_public_keys=[raw_public_key(key)], untrusted_hint="add it to keys.txt"
    )
    assert hinted.problems == [
        f"The receipt was signed with key {other_id}, which this desk does not trust; "
        "add it to keys.txt."
    ]


def test_any_of_several_trusted_keys_will_do(
    sealed: dict[str, Any], key: Ed25519PrivateKey
) -> None:
    others = [raw_public_key(Ed25519PrivateKey.generate()) for _ in range(2)]
    assert verify_receipt(sealed, trusted_public_keys=[*others, raw_public_key(key)]).ok
    assert not verify_receipt(sealed, trusted_public_keys=others).ok


def test_no_trusted_key_trusts_no_receipt(sealed: dict[str, Any]) -> None:
    report = verify_receipt(sealed, trusted_public_keys=())
    assert len(report.problems) == 1 and "does not trust" in report.problems[0]


def test_not_an_object_and_not_sealed(make_receipt: MakeReceipt) -> None:
    assert verify_receipt([1, 2]).problems == ["The receipt is not a JSON object."]
    report = verify_receipt(make_receipt())
    assert report.problems == ["The receipt is not sealed: it has no integrity block."]


def test_unhashable_content(sealed: dict[str, Any]) -> None:
    sealed["usage"]["active_seconds"] = float("nan")
    problems = verify_receipt(sealed).problems
    assert problems[0].startswith("The receipt cannot be hashed: Canonical JSON cannot hold nan")


def test_structural_problems_are_listed(sealed: dict[str, Any]) -> None:
    del sealed["draft"]
    sealed["decision"] = "MAYBE"
    problems = verify_receipt(sealed).problems
    assert "The receipt field draft is invalid: Field required." in problems
    assert any(p.startswith("The receipt field decision is invalid") for p in problems)


def test_changed_document_and_missing_document(
    sealed: dict[str, Any], documents: dict[str, str]
) -> None:
    changed = dict(documents)
    changed["1941-Roosevelt-1"] += " Amended."
    del changed["1933-Roosevelt-1"]
    problems = verify_receipt(sealed, documents=changed).problems
    assert problems == [
        "Document 1933-Roosevelt-1 (S1) is not in the archive.",
        "Document 1941-Roosevelt-1 (S2) changed since the receipt was written.",
    ]


def test_quote_not_at_its_offsets(
    make_receipt: MakeReceipt, key: Ed25519PrivateKey, documents: dict[str, str]
) -> None:
    receipt = make_receipt()
    quote = receipt["claims"][2]["quotes"][0]
    quote["start"] += 1
    quote["end"] += 1
    receipt["quotes"][1] = quote
    problems = verify_receipt(seal(receipt, key, None), documents=documents).problems
    assert (
        "The quote 'four essential human freedoms' is not at its recorded place in "
        "1941-Roosevelt-1." in problems
    )


def test_quote_naming_no_source(
    make_receipt: MakeReceipt, key: Ed25519PrivateKey, documents: dict[str, str]
) -> None:
    receipt = make_receipt()
    receipt["claims"][2]["quotes"][0]["source_id"] = "S7"
    receipt["quotes"][1]["source_id"] = "S7"
    problems = verify_receipt(seal(receipt, key, None), documents=documents).problems
    assert problems == ["The quote 'four essential human freedoms' names no source of this run."]


def test_chain(make_receipt: MakeReceipt, key: Ed25519PrivateKey) -> None:
    first = seal(make_receipt(), key, None)
    second = seal(make_receipt(), key, first["integrity"]["canonical_sha256"])
    third = seal(make_receipt(), key, second["integrity"]["canonical_sha256"])
    assert chain_problems([first, second, third]) == []
    assert chain_problems([first]) == chain_problems([]) == []
    assert chain_problems([first, third]) == [
        "Receipt 2 (run run-1) does not link to receipt 1 (run run-1)."
    ]
    unsealed = make_receipt()
    assert len(chain_problems([first, unsealed])) == 1
    broken = copy.deepcopy(first)
    broken["usage"]["active_seconds"] = float("inf")
    assert len(chain_problems([broken, second])) == 1
    edited = copy.deepcopy(first)
    edited["question"] = "Another question?"
    assert len(chain_problems([edited, second])) == 1


def test_content_hash_of_an_unsealed_receipt_is_its_canonical_hash(
    make_receipt: MakeReceipt,
) -> None:
    receipt = make_receipt()
    assert content_sha256(receipt) == sha256_hex(canonical_json(receipt))
