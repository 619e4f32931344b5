"""How a stored run reads to a person: its display state, a one-line summary, its record.

A stored run's `status` says only whether it is running, finished or cancelled; a reader
wants to know more: a finished run was `published`, `held` (for an editor's review) or
`outside` (coverage); a run may be `queued` (waiting for one of the desk's execution
slots, `max_concurrent_runs`); a queued or running run whose worker died (its lease
expired, or its process on this host is gone) is `interrupted` and can be resumed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..store.runs import StoredCall, StoredRun
from ..types import Decision
from .state import RunState

DISPLAY_STATES = (
    "queued",
    "running",
    "interrupted",
    "published",
    "held",
    "outside",
    "explained",
    "withheld",
    "cancelled",
)

# What a person reads for each display state (the decisions' words, `Decision.words`).
STATE_WORDS = {
    "queued": "Waiting to start",
    "running": "Running",
    "interrupted": "Interrupted",
    "published": Decision.AUTO_CLEARED.words,
    "held": Decision.HELD_FOR_REVIEW.words,
    "outside": Decision.OUTSIDE_COVERAGE.words,
    "explained": "Lesson published",
    "withheld": "Lesson withheld",
    "cancelled": "Cancelled",
}


def state_words(state: str) -> str:
    return STATE_WORDS.get(state, state)


_BY_DECISION = {
    Decision.AUTO_CLEARED.value: "published",
    Decision.PUBLISHED_AFTER_PRUNING.value: "published",
    Decision.HELD_FOR_REVIEW.value: "held",
    Decision.OUTSIDE_COVERAGE.value: "outside",
    "LESSON_PUBLISHED": "explained",  # an explanation run (`teach.py`)
    "LESSON_WITHHELD": "withheld",
}


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    created_at: str
    updated_at: str
    state: str
    next_stage: str | None
    decision: str | None
    question: str
    mode: str
    failure: str | None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def display_state(run: StoredRun, is_dead: Callable[[str], bool], now: str) -> str:
    """What `runs list` calls the run at `now` (the records' clock, as run rows write it)."""
    if run.status == "cancelled":
        return "cancelled"
    if run.status == "finished":
        return _BY_DECISION.get(run.decision or "", "held")
    if run.lease_owner is None or (run.lease_expires or "") < now or is_dead(run.lease_owner):
        return "interrupted"
    return "queued" if run.status == "queued" else "running"


def summarize(run: StoredRun, is_dead: Callable[[str], bool], now: str) -> RunSummary:
    return RunSummary(
        run_id=run.run_id,
        created_at=run.created_at,
        updated_at=run.updated_at,
        state=display_state(run, is_dead, now),
        next_stage=run.next_stage,
        decision=run.decision,
        question=run.question,
        mode=run.mode,
        failure=run.failure,
    )


def ledger_json(calls: Sequence[StoredCall]) -> dict[str, Any]:
    """A run's ledger of model tries (`ledger.py`): each try without its output, and totals."""
    priced = [c.spend_usd for c in calls if c.spend_usd is not None]
    return {
        "tries": [
            {
                "key": c.call_key,
                "role": c.role,
                "engine": c.engine,
                "outcome": c.outcome,
                "requests": c.requests,
                "input_tokens": c.input_tokens,
                "output_tokens": c.output_tokens,
                "spend_usd": c.spend_usd,
                "price_source": c.price_source,
            }
            for c in calls
        ],
        "requests": sum(c.requests for c in calls),
        "tokens": sum(c.input_tokens + c.output_tokens for c in calls),
        "spend_usd": round(sum(priced), 6),
        "unpriced_tries": len(calls) - len(priced),
    }


def run_json(summary: RunSummary, state: RunState, calls: Sequence[StoredCall]) -> dict[str, Any]:
    """`runs show --json`: the summary, each finished stage's record, the ledger of model
    tries, the plan, sources by doc id and content hash, coverage, the draft, and the gate's
    outcome once it ran."""
    return {
        **summary.to_json(),
        "stages": [s.model_dump(mode="json") for s in state.stages],
        "ledger": ledger_json(calls),
        "plan": state.plan.model_dump(mode="json") if state.plan else None,
        "sources": [
            {"id": s.id, "doc_id": s.doc_id, "title": s.title, "content_sha256": s.content_sha256}
            for s in state.sources or ()
        ],
        "coverage": state.coverage.model_dump(mode="json") if state.coverage else None,
        "draft": state.draft,
        "outcome": state.outcome.model_dump(mode="json") if state.outcome else None,
        "receipt_sha256": state.receipt_sha256,
    }
