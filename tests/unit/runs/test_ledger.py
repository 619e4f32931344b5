"""The ledger in the archive database: tries recorded under the run's lease, one reply per
key, a reply read back with the usage of every try it took, and a resumed run's budget
charged with what it spent."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from evidence_desk.agents.base import ModelUsage, RunBudget
from evidence_desk.runs.ledger import StoredLedger, charge_resumed
from evidence_desk.store.runs import LeaseLost, StoredCall
from evidence_desk.store.sqlite import ArchiveStore
from evidence_desk.types import StageRecord

ENGINE = "openai:gpt-4.1-mini"
OPENING = {
    "run_id": "run-1",
    "created_at": "2026-12-01T00:00:00Z",
    "question": "Q?",
    "mode": "quick",
}


@pytest.fixture
def store(tmp_path: Path) -> ArchiveStore:
    store = ArchiveStore(tmp_path / "archive.sqlite3")
    store.runs.open(OPENING, "worker-a", 60)
    return store


def usage(calls: int = 1, tokens: int = 100, spend: float | None = 0.001) -> ModelUsage:
    return ModelUsage(ENGINE, calls, tokens, tokens // 2, spend)


def test_a_reply_is_read_back_with_the_usage_of_every_try(store: ArchiveStore) -> None:
    ledger = StoredLedger(store.runs, "run-1", "worker-a")
    key = ledger.key("answerer", ENGINE, "prompt")
    assert ledger.reply(key) is None
    ledger.record(key, "answerer", usage(), None)  # a 503
    ledger.record(key, "answerer", usage(), '{"claims": []}')
    reply = ledger.reply(key)
    assert reply is not None and reply.output == '{"claims": []}'
    assert reply.usage == usage() + usage()
    # A restarted worker names the same call the same way, and another call differently.
    again = StoredLedger(store.runs, "run-1", "worker-a")
    assert again.key("answerer", ENGINE, "prompt") == key
    assert again.key("answerer", ENGINE, "prompt") != key  # asked a second time
    assert again.key("auditor", ENGINE, "prompt") != key


def test_only_the_lease_holder_records(store: ArchiveStore) -> None:
    intruder = StoredLedger(store.runs, "run-1", "worker-b")
    with pytest.raises(LeaseLost):
        intruder.record("k", "answerer", usage(), "{}")
    assert store.runs.calls("run-1") == []


def test_a_key_holds_one_reply(store: ArchiveStore) -> None:
    call = StoredCall("k", "answerer", ENGINE, "reply", 1, 10, 5, None, "{}")
    store.runs.record_call("run-1", "worker-a", call)
    with pytest.raises(sqlite3.IntegrityError):
        store.runs.record_call("run-1", "worker-a", call)
    assert len(store.runs.calls("run-1")) == 1


def test_recorded_hooks_run_after_the_commit(store: ArchiveStore) -> None:
    seen: list[int] = []
    ledger = StoredLedger(
        store.runs,
        "run-1",
        "worker-a",
        on_recorded=lambda key: seen.append(len(store.runs.calls("run-1"))),
    )
    ledger.record("k", "planner", usage(), "{}")
    assert seen == [1]


def stage(calls: int, tokens: int, spend: float | None, ms: float = 500.0) -> StageRecord:
    return StageRecord(
        name="plan",
        started_at="2026-12-01T00:00:00Z",
        latency_ms=ms,
        calls=calls,
        input_tokens=tokens,
        output_tokens=0,
        estimated_spend_usd=spend,
    )


def test_a_resumed_budget_counts_the_ledger_when_it_holds_more_than_the_stages() -> None:
    budget = RunBudget(max_calls=12, max_tokens=90_000, max_spend_usd=1.0)
    tries = [
        StoredCall("a", "planner", ENGINE, "reply", 1, 100, 50, 0.01),
        StoredCall("b", "answerer", ENGINE, "failed", 1, 300, 0, 0.02),  # an interrupted stage
    ]
    charge_resumed(budget, [stage(1, 150, 0.01)], tries)
    assert (budget.calls, budget.tokens) == (2, 450)
    assert budget.spend_usd == pytest.approx(0.03)
    assert budget.seconds == pytest.approx(0.5)


def test_a_run_with_no_ledger_is_charged_what_its_stages_say() -> None:
    budget = RunBudget(max_calls=12, max_tokens=90_000)
    charge_resumed(budget, [stage(2, 800, None), stage(1, 200, 0.5)], [])
    assert (budget.calls, budget.tokens, budget.spend_usd) == (3, 1000, 0.5)
