"""A stored run's ledger of model calls: every try recorded as it returns, so none is paid twice.

A model call is named by what it sends: the run, the role, the engine, the prompt, and how
many times before this run asked exactly that (`key`). The caller (`agents/calls.py`)
records each try here as it returns, before its stage goes on; a reply is kept with its
output. When a run is killed after a reply was recorded but before its stage was stored,
the resumed stage asks again with the same prompt, gets the same key, and reads the reply
back instead of sending the call: the scripted model in the crash tests counts one request
per key. A reply that came back but was not yet recorded when the process died is lost and
is asked for again; its tokens were spent once more, and only then.

The ledger is also the run's spend record: a resumed run's budget is charged with every try
it holds (`charge_resumed`), failed tries and tries of an interrupted stage included, so a restart
hands a run no fresh calls, tokens or spend. Calls to the offline engine cost nothing and
are not recorded. Archive searches need no ledger: they read the local archive, cost nothing, and a
finished retrieve stage's hits are stored with it. Web searches and fetches are external
effects recorded by the run's web parts (`runs/effects.py`, `store/snapshots.py`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from ..agents.base import ModelUsage, RecordedReply, RunBudget
from ..store.runs import StoredCall
from ..types import StageRecord
from .logs import RunLog


def _usage(call: StoredCall) -> ModelUsage:
    return ModelUsage(
        engine=call.engine,
        calls=call.requests,
        input_tokens=call.input_tokens,
        output_tokens=call.output_tokens,
        spend_usd=call.spend_usd,
        price_source=call.price_source,
    )


class StoredLedger:
    """The `CallLedger` of one stored run, written under the executor's lease.

    `on_recorded(key)` is called after each try is committed (the crash tests kill the
    process there: recorded, the stage not yet stored).
    """

    def __init__(
        self,
        runs: RunLog,
        run_id: str,
        owner: str,
        on_recorded: Callable[[str], None] | None = None,
    ) -> None:
        self.runs = runs
        self.run_id = run_id
        self.owner = owner
        self.on_recorded = on_recorded
        self._asked: Counter[str] = Counter()
        self._lock = threading.Lock()

    def key(self, role: str, engine: str, prompt: str) -> str:
        digest = hashlib.sha256(
            "\n".join((self.run_id, role, engine, prompt)).encode("utf-8")
        ).hexdigest()
        with self._lock:
            nth = self._asked[digest]
            self._asked[digest] += 1
        return f"{role}-{digest[:24]}-{nth}"

    def reply(self, key: str) -> RecordedReply | None:
        """The recorded reply under `key`, with the usage of every try it took."""
        tries = [c for c in self.runs.calls(self.run_id) if c.call_key == key]
        replies = [c for c in tries if c.outcome == "reply" and c.output is not None]
        if not replies:
            return None
        usage = _total(tries)
        return RecordedReply(output=replies[0].output or "", usage=usage)

    def record(self, key: str, role: str, usage: ModelUsage, output: str | None) -> None:
        call = StoredCall(
            call_key=key,
            role=role,
            engine=usage.engine,
            outcome="failed" if output is None else "reply",
            requests=usage.calls,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            spend_usd=usage.spend_usd,
            output=output,
            price_source=usage.price_source,
        )
        self.runs.record_call(self.run_id, self.owner, call)
        if self.on_recorded is not None:
            self.on_recorded(key)


def _total(calls: Iterable[StoredCall]) -> ModelUsage:
    usages = [_usage(c) for c in calls]
    total = usages[0]
    for u in usages[1:]:
        total = total + u
    return total


def charge_resumed(
    budget: RunBudget, stages: Sequence[StageRecord], calls: Sequence[StoredCall]
) -> None:
    """Charge a resumed run's `budget` with what it spent before: the recorded stages'
    active seconds, and its calls, tokens and spend as the ledger counts them (every try,
    an interrupted stage's too). A run whose ledger counts less than its stages (one begun
    before the ledger existed, or on the offline engine) is charged what its stages say."""
    budget.add_seconds(sum(s.latency_ms for s in stages) / 1000.0)
    budget.charge(
        max(sum(c.requests for c in calls), sum(s.calls for s in stages)),
        max(
            sum(c.input_tokens + c.output_tokens for c in calls),
            sum(s.input_tokens + s.output_tokens for s in stages),
        ),
        max(
            sum(c.spend_usd or 0.0 for c in calls),
            sum(s.estimated_spend_usd or 0.0 for s in stages),
        ),
    )
