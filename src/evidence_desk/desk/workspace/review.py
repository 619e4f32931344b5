"""The standards desk: editors decide what becomes of a held run.

Three decisions, each recorded with the editor's name and time:

* **approve** publishes the held draft exactly as the answerer wrote it. The gate's verdict
  is not rewritten: a new receipt (its own run id, `<held>-r<n>`) repeats the held run's
  content with its `HELD_FOR_REVIEW` decision and adds `review`: the editor, the time, the
  held receipt's hash, and the text published (every sentence of the draft). So the chain
  shows a person, not the gate, published it, and `receipt verify` still re-derives the
  gate's decision from the claims.
* **reject** publishes nothing; the reason is kept and readers are told the desk did not
  publish the answer.
* **edit** takes a new draft and judges it the way the run judged its own (`judgment.py`:
  the same checks, auditor and gate) against the held run's own sources, each with the text
  the run read: looked up by its content hash (the archive's current text while it still
  has that hash, the text kept since a re-ingest replaced it, or the snapshot of a web page
  or attached file), never the archive's newer text; a source whose text is gone refuses
  the edit, naming it. If the gate publishes it, a new receipt with that decision (and
  `review`) is sealed; if not, nothing is published, and the review keeps the draft and its
  checked claims so the editor sees which sentence the gate still holds.

One decision closes a run: the check that it is still open and the decision's record happen
under one lock, so two editors deciding at once in this process cannot both publish it (the
second is refused as already reviewed).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...agents.base import Auditor, RunBudget
from ...clock import Clock, iso_us
from ...judgment import Judgment, MissingText, TextLookup, judge, source_texts
from ...runs.publish import Publisher
from ...settings import Settings
from ...store.accounts import Accounts, Review, ReviewAction, User, new_id
from ...store.protocol import Store
from ...types import Coverage, GatePolicy, Receipt, Source
from .errors import Conflict, NotFound, WorkspaceError, shown

MAX_DRAFT_CHARS = 20_000


@dataclass(frozen=True)
class ReviewResult:
    review: Review
    receipt: dict[str, Any] | None


class StandardsDesk:
    """Approve, reject or edit held runs; every decision a review row, publications receipts."""

    def __init__(
        self,
        store: Store,
        accounts: Accounts,
        publisher: Publisher,
        auditor: Callable[[], Auditor],
        settings: Settings,
        clock: Clock,
        texts: TextLookup,
    ) -> None:
        """`texts`: the text each (doc_id, content hash) names, current, kept since a
        re-ingest, or a snapshot's (the archive's `texts`)."""
        self.store = store
        self.accounts = accounts
        self.publisher = publisher
        self._auditor = auditor
        self._texts = texts
        self.settings = settings
        self.clock = clock
        self._lock = threading.Lock()  # held from `_open` to `_record`: one decision per run

    def held_receipt(self, run_id: str) -> tuple[dict[str, Any], str]:
        """The held run's receipt and its hash; a run that is not held is refused."""
        stored = self.store.get_receipt(run_id)
        if stored is None:
            raise NotFound(f"There is no finished run {shown(run_id)}.")
        receipt: dict[str, Any] = json.loads(stored.json)
        if receipt.get("decision") != "HELD_FOR_REVIEW" or receipt.get("review"):
            raise Conflict(f"Run {run_id} is not held for review.")
        return receipt, stored.canonical_sha256

    def _open(self, run_id: str) -> tuple[dict[str, Any], str]:
        receipt, sha = self.held_receipt(run_id)
        if run_id in self.accounts.closed_reviews():
            raise Conflict(f"Run {run_id} has been reviewed already.")
        return receipt, sha

    def _review_block(
        self, action: ReviewAction, editor: User, held_id: str, sha: str, note: str
    ) -> dict[str, Any]:
        return {
            "action": action,
            "editor": editor.label,
            "reviewed_at": iso_us(self.clock()),
            "held_run_id": held_id,
            "held_receipt_sha256": sha,
            "note": note,
        }

    def _next_id(self, held_id: str) -> str:
        n = 1
        while self.store.get_receipt(f"{held_id}-r{n}") is not None:
            n += 1
        return f"{held_id}-r{n}"

    def _seal(self, body: dict[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in body.items() if k != "integrity"}
        stored = self.publisher.publish(Receipt.model_validate(body))
        sealed: dict[str, Any] = json.loads(stored.json)
        return sealed

    def _record(
        self,
        action: ReviewAction,
        editor: User,
        held_id: str,
        reason: str,
        receipt: dict[str, Any] | None,
        outcome: dict[str, Any],
    ) -> ReviewResult:
        review = self.accounts.add_review(
            Review(
                new_id("rv"),
                held_id,
                editor.user_id,
                editor.label,
                action,
                reason,
                "",
                receipt["run_id"] if receipt else None,
                outcome,
            )
        )
        return ReviewResult(review, receipt)

    def approve(self, editor: User, run_id: str, note: str = "") -> ReviewResult:
        with self._lock:
            receipt, sha = self._open(run_id)
            text = " ".join(c["text"] for c in receipt.get("claims", []))
            if not text.strip():
                raise WorkspaceError(f"Run {run_id} has no draft to publish; reject it or edit it.")
            review = self._review_block("approved", editor, run_id, sha, note.strip())
            review["published_answer"] = text
            body = {
                **receipt,
                "run_id": self._next_id(run_id),
                "created_at": review["reviewed_at"],
                "review": review,
            }
            sealed = self._seal(body)
            return self._record(
                "approved", editor, run_id, note.strip(), sealed, {"published": True}
            )

    def reject(self, editor: User, run_id: str, reason: str) -> ReviewResult:
        reason = reason.strip()
        with self._lock:
            self._open(run_id)
            if not reason:
                raise WorkspaceError(
                    "Say why the answer is rejected: readers are told it was not "
                    "published, and the reason is kept."
                )
            return self._record("rejected", editor, run_id, reason, None, {"published": False})

    def edit(self, editor: User, run_id: str, draft: str, note: str = "") -> ReviewResult:
        """Judge `draft` against the held run's sources the way the run was judged."""
        receipt, _ = self._open(run_id)
        draft = draft.strip()
        if not draft:
            raise WorkspaceError("The edited draft is empty.")
        if len(draft) > MAX_DRAFT_CHARS:
            raise WorkspaceError(f"An edited draft has at most {MAX_DRAFT_CHARS:,} characters.")
        judged = self._check(receipt, draft)
        claims, outcome = judged.claims, judged.outcome
        summary: dict[str, Any] = {
            "decision": outcome.decision.value,
            "reason": outcome.reason,
            "published": bool(outcome.published_answer),
            "failure": judged.failure.reason if judged.failure is not None else None,
            "draft": draft,
        }
        with self._lock:  # the check ran unlocked: another editor may have decided meanwhile
            receipt, sha = self._open(run_id)
            if not outcome.published_answer:
                summary["claims"] = [c.model_dump(mode="json") for c in claims]
                return self._record("edited", editor, run_id, outcome.reason, None, summary)
            review = self._review_block("edited", editor, run_id, sha, note.strip())
            body = {
                **receipt,
                "run_id": self._next_id(run_id),
                "created_at": review["reviewed_at"],
                "draft": draft,
                "claims": [c.model_dump(mode="json") for c in claims],
                "quotes": [q.model_dump(mode="json") for c in claims for q in c.quotes],
                "decision": outcome.decision.value,
                "reason": outcome.reason,
                "published_answer": outcome.published_answer,
                "review": review,
            }
            sealed = self._seal(body)
            return self._record("edited", editor, run_id, outcome.reason, sealed, summary)

    def _check(self, receipt: dict[str, Any], draft: str) -> Judgment:
        """The one judgment (`judgment.judge`) of `draft` against the held run's own sources,
        each with the text the run read (`judgment.source_texts`), its coverage and policy."""
        sources = [Source.model_validate(s) for s in receipt.get("sources", [])]
        try:
            texts = source_texts(sources, self._texts)
        except MissingText as gone:
            raise Conflict(str(gone)) from None
        raw = receipt.get("coverage")
        coverage = None if raw is None else Coverage.model_validate(raw)
        policy = GatePolicy.model_validate(receipt["policy"])
        s = self.settings
        budget = RunBudget(s.max_model_calls, s.max_model_tokens)
        question = str(receipt["question"])
        return judge(draft, question, sources, texts, self._auditor(), budget, coverage, policy)
