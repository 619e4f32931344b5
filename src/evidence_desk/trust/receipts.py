"""Sealing receipts, and verifying them offline.

Sealing. `integrity.canonical_sha256` is the SHA-256 of the canonical JSON (`canonical.py`)
of the whole receipt with `integrity.canonical_sha256` and `integrity.signature` removed.
Everything else is covered, `integrity.previous_receipt_sha256`, `key_id`, `public_key` and
`algorithm` included, so a receipt cannot be moved in the chain or re-attributed without
breaking its hash. The signature is Ed25519 over that hash (`signing.py`).

Verifying (`verify_receipt`) reports every problem it finds, each as one sentence:

* structure: the receipt is a valid `Receipt` (types.py) and is sealed;
* integrity: the hash matches the content (any changed byte of signed content fails), the
  key id belongs to the public key, the signature is valid, and, when trusted public keys
  are given, the receipt was signed with one of them. A receipt carries its own public key,
  so without this check a forger could edit a receipt and re-sign it with any key; an empty
  collection trusts no key, and only `None` skips the check;
* evidence, when the archive's documents are given: each source document still has its
  recorded SHA-256, and each quote marked verbatim is at its recorded offsets in its source
  document's text (compared under the white-space rule of `text.py`);
* decision: the recorded decision, kept flags and published answer follow from the recorded
  claims, coverage and policy, and the claims from the recorded draft (`consistency.py`);
* teaching, in an explanation's receipt: the lesson's hash matches its reviewed blocks and
  relations, and every review decision and the lesson's own follow from them (`teaching.py`).

`chain_problems` checks that each receipt links to the hash of the one before it.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import ValidationError

from ..types import Receipt
from .canonical import canonical_json, sha256_hex
from .consistency import consistency_problems
from .signing import (
    ALGORITHM,
    decode_public_key,
    key_id_for,
    public_key_b64,
    raw_public_key,
    sign_hash,
    signature_valid,
)
from .teaching import teaching_problems
from .text import matches_at

_UNSIGNED_FIELDS = ("canonical_sha256", "signature")


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of verifying one receipt: `ok` when no problem was found."""

    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def content_sha256(receipt: Mapping[str, Any]) -> str:
    """The hash a seal records: the receipt without its hash and signature, canonical JSON."""
    content = dict(receipt)
    integrity = content.get("integrity")
    if isinstance(integrity, Mapping):
        content["integrity"] = {k: v for k, v in integrity.items() if k not in _UNSIGNED_FIELDS}
    return sha256_hex(canonical_json(content))


def seal(
    receipt: Mapping[str, Any], key: Ed25519PrivateKey, previous_sha256: str | None
) -> dict[str, Any]:
    """A copy of `receipt` with its integrity block: chain link, key, hash and signature.

    The receipt must be plain JSON data (e.g. `Receipt.model_dump(mode="json")`); it is
    validated against `Receipt` first, so an invalid receipt is never signed.
    """
    Receipt.model_validate(receipt)
    sealed = copy.deepcopy(dict(receipt))
    raw = raw_public_key(key)
    sealed["integrity"] = {
        "algorithm": ALGORITHM,
        "key_id": key_id_for(raw),
        "public_key": public_key_b64(key),
        "previous_receipt_sha256": previous_sha256,
    }
    digest = content_sha256(sealed)
    sealed["integrity"]["canonical_sha256"] = digest
    sealed["integrity"]["signature"] = sign_hash(key, digest)
    return sealed


def _integrity_problems(
    receipt: Mapping[str, Any], trusted: Collection[bytes] | None, hint: str
) -> list[str]:
    integrity = receipt.get("integrity")
    if not isinstance(integrity, Mapping):
        return ["The receipt is not sealed: it has no integrity block."]
    problems: list[str] = []
    try:
        digest = content_sha256(receipt)
    except ValueError as exc:
        return [f"The receipt cannot be hashed: {exc}"]
    recorded = integrity.get("canonical_sha256")
    if recorded != digest:
        problems.append(
            "The receipt's content does not match its hash: it was changed after sealing."
        )
    if integrity.get("algorithm") != ALGORITHM:
        problems.append(f"The receipt is signed with {integrity.get('algorithm')!r}, not ed25519.")
    raw = decode_public_key(str(integrity.get("public_key")))
    if raw is None:
        return [*problems, "The receipt's public key is not a valid Ed25519 public key."]
    if integrity.get("key_id") != key_id_for(raw):
        problems.append("The receipt's key id does not belong to its public key.")
    if not signature_valid(raw, str(recorded), str(integrity.get("signature"))):
        problems.append("The receipt's signature is not valid for its hash and public key.")
    if trusted is not None and raw not in trusted:
        problems.append(
            f"The receipt was signed with key {key_id_for(raw)}, which this desk does not "
            f"trust{'; ' + hint if hint else ''}."
        )
    return problems


def _evidence_problems(receipt: Receipt, documents: Mapping[str, str]) -> list[str]:
    problems: list[str] = []
    by_id = {s.id: s for s in receipt.sources}
    for source in receipt.sources:
        text = documents.get(source.doc_id)
        if text is None:
            problems.append(f"Document {source.doc_id} ({source.id}) is not in the archive.")
        elif hashlib.sha256(text.encode("utf-8")).hexdigest() != source.content_sha256:
            problems.append(
                f"Document {source.doc_id} ({source.id}) changed since the receipt was written."
            )
    for quote in (q for c in receipt.claims for q in c.quotes if q.verbatim):
        quoted = by_id.get(quote.source_id or "")
        if quoted is None:
            problems.append(f"The quote {quote.text!r} names no source of this run.")
            continue
        text = documents.get(quoted.doc_id)
        if text is not None and not matches_at(quote.text, text, quote.start, quote.end):
            problems.append(
                f"The quote {quote.text!r} is not at its recorded place in {quoted.doc_id}."
            )
    return problems


def verify_receipt(
    receipt: Any,
    *,
    trusted_public_keys: Collection[bytes] | None = None,
    documents: Mapping[str, str] | None = None,
    untrusted_hint: str = "",
) -> VerifyReport:
    """Every problem with a receipt (see the module docstring).

    `trusted_public_keys`: raw 32-byte Ed25519 public keys the receipt may be signed with
    (`None`: any key). `documents`: doc_id -> stored text. `untrusted_hint`: what the reader
    can do about a key that is not trusted, appended to that problem's sentence.
    """
    if not isinstance(receipt, Mapping):
        return VerifyReport(["The receipt is not a JSON object."])
    problems = _integrity_problems(receipt, trusted_public_keys, untrusted_hint)
    try:
        model = Receipt.model_validate(receipt)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "the receipt"
            problems.append(f"The receipt field {where} is invalid: {error['msg']}.")
        return VerifyReport(problems)
    if documents is not None:
        problems.extend(_evidence_problems(model, documents))
    problems.extend(consistency_problems(model))
    problems.extend(teaching_problems(model))
    return VerifyReport(problems)


def chain_problems(receipts_in_order: Sequence[Mapping[str, Any]]) -> list[str]:
    """Problems with the chain links: each receipt must name the hash of the one before it."""
    problems: list[str] = []
    for i in range(1, len(receipts_in_order)):
        before, after = receipts_in_order[i - 1], receipts_in_order[i]
        integrity = after.get("integrity")
        link = integrity.get("previous_receipt_sha256") if isinstance(integrity, Mapping) else None
        try:
            expected = content_sha256(before)
        except ValueError:
            expected = None
        if link is None or link != expected:
            problems.append(
                f"Receipt {i + 1} (run {after.get('run_id')}) does not link to receipt {i} "
                f"(run {before.get('run_id')})."
            )
    return problems
