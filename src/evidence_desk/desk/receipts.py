"""Re-checking receipts: one receipt file, a parsed receipt, or the whole stored chain.

A receipt is trusted for its signer only when that key is this desk's own, listed in the
data directory's trusted-keys file, or given by the reader (`--trust-key`); a receipt's own
embedded key is never trusted for being there. Quotes are re-checked against the text each
source's content hash names, current or kept since a re-ingest (`store/versions.py`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..clock import system_clock
from ..errors import DeskError
from ..settings import Settings
from ..store.protocol import Store
from ..store.snapshots import SNAPSHOT_PREFIXES
from ..trust.canonical import DuplicateKeyError, loads_strict
from ..trust.receipts import VerifyReport, content_sha256, verify_receipt
from ..trust.signing import (
    decode_public_key,
    key_id_for,
    parse_key_list,
    parse_public_key,
    raw_public_key,
)


@dataclass(frozen=True)
class ChainOutcome:
    """`verify_chain`: how many receipts were read, and the first break (run id, problems)."""

    receipts: int
    broken_run: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.broken_run is None


@dataclass(frozen=True)
class VerifyOutcome:
    problems: list[str]
    passed: list[str]
    notes: list[str]
    run_id: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


class ReceiptChecker:
    """Verifies receipts against one data directory's keys and archive."""

    def __init__(
        self, settings: Settings, store: Callable[[], Store], key: Callable[[], Any]
    ) -> None:
        """`store` and `key` open the archive and the signing key only when needed."""
        self.settings = settings
        self._store = store
        self._key = key

    def trusted_keys(self, key_files: Sequence[Path] = ()) -> dict[bytes, str]:
        """The public keys receipts may be signed with, each with where it was trusted.

        This desk's own key (if it has one yet), the keys listed in the trusted-keys file of
        the data directory, and the keys in `key_files` (each one base64 key or PEM). A
        receipt's own embedded key is never trusted for being there.
        """
        trusted: dict[bytes, str] = {}
        if self.settings.key_path.exists():
            trusted[raw_public_key(self._key())] = "this desk's key"
        listed = self.settings.trusted_keys_path
        if listed.exists():
            try:
                keys = parse_key_list(listed.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise DeskError(f"The trusted-keys file {listed} cannot be used: {exc}.") from exc
            for raw in keys:
                trusted.setdefault(raw, f"listed in {listed}")
        for path in key_files:
            try:
                given = parse_public_key(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise DeskError(
                    f"The key file {path} cannot be used: {exc}; it must hold one base64 "
                    "Ed25519 public key (as `evidence-desk receipt key` prints) or a PEM "
                    "public key."
                ) from exc
            trusted.setdefault(given, f"given in {path}")
        return trusted

    def verify_file(self, path: Path, *, key_files: Sequence[Path] = ()) -> VerifyOutcome:
        """`verify_receipt` on a receipt file; a key given twice in one object is a problem."""
        trusted = self.trusted_keys(key_files)
        try:
            data = loads_strict(path.read_text(encoding="utf-8"))
        except DuplicateKeyError as exc:
            return VerifyOutcome(
                [
                    f"The receipt has the key {exc.key!r} twice in one object; JSON readers "
                    "differ on which value counts, so it could say two things."
                ],
                [],
                [],
            )
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DeskError(f"{path} is not a JSON receipt ({exc}).") from exc
        return self._verify(data, trusted)

    def verify(self, data: Any, *, key_files: Sequence[Path] = ()) -> VerifyOutcome:
        """Re-check a parsed receipt against the keys `trusted_keys(key_files)` trusts."""
        return self._verify(data, self.trusted_keys(key_files))

    def verify_chain(self, *, key_files: Sequence[Path] = ()) -> ChainOutcome:
        """Walk every stored receipt in chain order: its JSON, hash, trusted signature and
        decision (`verify_receipt` without re-reading documents), the hash its row records,
        and its link to the receipt before it. Stops at the first break and names it."""
        trusted = self.trusted_keys(key_files)
        previous: str | None = None
        count = 0
        if not self.settings.db_path.exists():
            return ChainOutcome(0)
        for stored in self._store().iter_receipts():
            count += 1
            try:
                data = loads_strict(stored.json)
            except (DuplicateKeyError, json.JSONDecodeError) as exc:
                return ChainOutcome(count, stored.run_id, [f"It is not one JSON receipt ({exc})."])
            hint = f"pass --trust-key FILE or add it to {self.settings.trusted_keys_path}"
            problems = verify_receipt(data, trusted_public_keys=trusted, untrusted_hint=hint)
            found = list(problems.problems)
            if not found and content_sha256(data) != stored.canonical_sha256:
                found.append("Its stored row records another hash than the receipt's own.")
            integrity = data.get("integrity") if isinstance(data, dict) else None
            link = integrity.get("previous_receipt_sha256") if isinstance(integrity, dict) else None
            if link != previous or stored.previous_sha256 != previous:
                found.append(
                    "It does not link to the receipt before it"
                    + (f" ({previous[:12]}…)." if previous else " (it should be the first).")
                )
            if found:
                return ChainOutcome(count, stored.run_id, found)
            previous = stored.canonical_sha256
        return ChainOutcome(count)

    def _verify(self, data: Any, trusted: dict[bytes, str]) -> VerifyOutcome:
        if not isinstance(data, dict):
            return VerifyOutcome(["The file does not hold a JSON receipt object."], [], [])
        documents, missing, kept = self._documents_for(data)
        notes = [
            f"{doc_id} was re-ingested since this receipt was written; its quotes were "
            "checked against the earlier text the archive kept, the one the receipt records."
            for doc_id in kept
        ]
        if missing:
            notes.append(
                f"The archive does not hold {', '.join(missing)}; quotes were not re-checked "
                "against stored text."
            )
        report: VerifyReport = verify_receipt(
            data,
            trusted_public_keys=trusted,
            documents=None if missing else documents,
            untrusted_hint=(
                f"pass --trust-key FILE or add it to {self.settings.trusted_keys_path}"
            ),
        )
        passed = ["hash", "signature", "decision follows from the recorded verdicts"]
        integrity = data.get("integrity")
        signer = (
            decode_public_key(str(integrity.get("public_key")))
            if isinstance(integrity, dict)
            else None
        )
        if signer is not None and signer in trusted:  # always so when the report is ok
            passed.insert(2, f"signed by trusted key {key_id_for(signer)} ({trusted[signer]})")
        if not missing and documents:
            passed.append("quotes at their offsets in the stored text")
        return VerifyOutcome(report.problems, passed, notes, str(data.get("run_id", "")))

    def _documents_for(self, data: dict[str, Any]) -> tuple[dict[str, str], list[str], list[str]]:
        """(doc_id -> the text to re-check quotes against, doc ids the archive does not hold,
        doc ids checked against a kept earlier text).

        Each source's text is the one whose hash the receipt records, current or kept since
        a re-ingest replaced it (`store/versions.py`); when the archive holds neither, the
        current text is given, so verification reports the document as changed. A web or
        attached source's text is its snapshot's."""
        sources = data.get("sources")
        if not isinstance(sources, list):
            return {}, [], []
        recorded: dict[str, str] = {}
        for source in sources:
            doc_id = source.get("doc_id") if isinstance(source, dict) else None
            if isinstance(doc_id, str):
                recorded.setdefault(doc_id, str(source.get("content_sha256", "")))
        wanted = list(recorded)
        if not wanted or not self.settings.db_path.exists():
            return {}, wanted, []
        found = self._store().texts_by_hash(recorded.items())
        documents = {d: found[d, sha].text for d, sha in recorded.items() if (d, sha) in found}
        kept = [d for d, sha in recorded.items() if (d, sha) in found and not found[d, sha].current]
        current = self._store().get_documents([d for d in wanted if d not in documents])
        documents.update({d: doc.text for d, doc in current.items()})
        # Web pages and attached files: the snapshot the run read (it never changes).
        rest = [d for d in wanted if d not in documents and d.startswith(SNAPSHOT_PREFIXES)]
        if rest:
            read = self._store().snapshots_on(system_clock).documents(rest)
            documents.update({d: doc.text for d, doc in read.items()})
        return documents, [d for d in wanted if d not in documents], kept
