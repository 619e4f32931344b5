"""The publish stage: seal and sign the receipt, append it to the chain, write its file.

The receipt's run id is the effect's idempotency key: the chain holds at most one receipt
per run (`receipts.run_id` is unique), and a publish stage that finds its run's receipt
already appended — the process died after appending, before the stage was stored — uses
that receipt instead of sealing another. The file is written last, atomically (a temporary
file renamed over the target), from the chain's own text, so a resumed publish rewrites the
same file.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ..errors import DeskError
from ..store.rows import ReceiptChainError, StoredReceipt
from ..trust.receipts import seal
from ..types import Receipt
from .deps import Deps, Step
from .stages import receipt_of
from .state import RunState
from .teach import answer_of, lesson_receipt


class ReceiptChain(Protocol):
    """What publishing needs from the store."""

    def get_receipt(self, run_id: str) -> StoredReceipt | None: ...

    def last_receipt_sha(self) -> str | None: ...

    def append_receipt(
        self,
        run_id: str,
        created_at: str,
        decision: str,
        canonical_sha256: str,
        previous_sha256: str | None,
        receipt_json: str,
    ) -> None: ...


class ChainBusy(DeskError, RuntimeError):
    """The receipt chain kept changing under three attempts to append."""


def write_receipt_file(folder: Path, run_id: str, text: str) -> Path:
    """`folder/<run_id>.json`, replaced atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{run_id}.json"
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".receipt-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    os.replace(tmp, target)
    return target


class Publisher:
    """Publishes runs into one chain and one receipts folder, signed with one key."""

    def __init__(
        self,
        chain: ReceiptChain,
        key: Callable[[], Any],
        receipts_dir: Path,
        *,
        on_appended: Callable[[str], None] | None = None,
    ) -> None:
        """`key` returns the signing key (loaded only when a receipt is sealed);
        `on_appended(run_id)` is called between appending and writing the file."""
        self.chain = chain
        self.key = key
        self.receipts_dir = receipts_dir
        self.on_appended = on_appended

    def receipt_path(self, run_id: str) -> Path:
        return self.receipts_dir / f"{run_id}.json"

    def stage(self, state: RunState, deps: Deps) -> Step:
        """The publish stage function."""
        stored = self.chain.get_receipt(state.run_id)
        if stored is None and state.explains is not None:
            stored = self._append(lesson_receipt(state, answer_of(state, deps)))
        elif stored is None:
            stored = self._append(receipt_of(state, deps.engine, deps.config.policy))
        if self.on_appended is not None:
            self.on_appended(state.run_id)
        write_receipt_file(self.receipts_dir, state.run_id, stored.json)
        return Step({"receipt_sha256": stored.canonical_sha256}, None)

    def publish(self, receipt: Receipt) -> StoredReceipt:
        """Seal, append and write a receipt made outside a run's stages (an editor's review),
        once per run id: publishing the same id again returns the stored one."""
        stored = self.chain.get_receipt(receipt.run_id) or self._append(receipt)
        write_receipt_file(self.receipts_dir, receipt.run_id, stored.json)
        return stored

    def _append(self, receipt: Receipt) -> StoredReceipt:
        body = receipt.model_dump(mode="json")
        for _ in range(3):  # another process may append between our read and our write
            previous = self.chain.last_receipt_sha()
            sealed = seal(body, self.key(), previous)
            sha = sealed["integrity"]["canonical_sha256"]
            text = json.dumps(sealed, ensure_ascii=False, indent=2)
            try:
                self.chain.append_receipt(
                    sealed["run_id"], sealed["created_at"], sealed["decision"], sha, previous, text
                )
            except ReceiptChainError:  # the chain moved: seal against its new end
                continue
            found = self.chain.get_receipt(sealed["run_id"])
            if found is not None:
                return found
        raise ChainBusy("Could not append the receipt: the receipt chain kept changing.")
