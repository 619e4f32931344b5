"""What a run writes down and reads back: its records and its external effects, as Protocols.

The run pipeline keeps two logs in the store, and these are the whole of what it asks of them:

* `RunLog`, the run records (`store/runs.py`, `RunRecords`): the executors (`loop.py`,
  `graph.py`) open a run, lease it, commit each stage and load it back; the ledger
  (`ledger.py`) appends each model try and reads them again.
* `EffectLog`, the snapshots and run effects (`store/snapshots.py`, `Snapshots`): the web
  parts (`effects.py`) record each search and fetch under its idempotency key and store
  what a fetch read; the read stage (`web.py`) opens the question's attached files.

runs/ names no store class: the desk hands in its store's records, and mypy checks where
it does that they satisfy these Protocols. What crosses either log is plain data, the
store's frozen records (`StoredRun`, `StoredCall`, `Effect`, `Snapshot`, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ..store.rows import RunOwner
from ..store.runs import StoredCall, StoredRun, StoredStage
from ..store.snapshots import Effect, EffectKind, EffectOutcome, Snapshot


class RunLog(Protocol):
    """A store's run records, as the executors and the ledger use them. Every method that
    writes under a lease raises `LeaseLost` when another worker holds the run."""

    def open(
        self,
        opening: Mapping[str, Any],
        worker: str,
        lease_seconds: float,
        *,
        owned_by: RunOwner | None = None,
    ) -> None:
        """Store a new run, queued and leased to `worker`, with whose it is (`owned_by`)."""
        ...

    def get(self, run_id: str) -> StoredRun: ...

    def load(self, run_id: str) -> tuple[StoredRun, Sequence[StoredStage]]:
        """The run row and its finished stages, in order, from one snapshot."""
        ...

    def take_lease(
        self, run_id: str, owner: str, lease_seconds: float, is_dead: Callable[[str], bool]
    ) -> StoredRun: ...

    def claim_slot(
        self,
        run_id: str,
        owner: str,
        lease_seconds: float,
        cap: int,
        is_dead: Callable[[str], bool],
    ) -> str:
        """The run's status once it asked for one of `cap` execution slots."""
        ...

    def stage_started(self, run_id: str, stage: str, owner: str, lease_seconds: float) -> str:
        """Renew the lease as `stage` starts; the run's status (cancelled: stop)."""
        ...

    def stage_finished(
        self,
        run_id: str,
        stage: str,
        output: Mapping[str, Any],
        record: Mapping[str, Any],
        next_stage: str | None,
        owner: str,
        lease_seconds: float,
        *,
        decision: str | None = None,
        failure: str | None = None,
    ) -> None:
        """Commit one stage's output and the run's next stage in one transaction."""
        ...

    def release(self, run_id: str, owner: str) -> None: ...

    def record_call(self, run_id: str, owner: str, call: StoredCall) -> None: ...

    def calls(self, run_id: str) -> Sequence[StoredCall]:
        """The run's ledger of model tries, in the order they were recorded."""
        ...


class EffectLog(Protocol):
    """A store's snapshots and run effects, as the web parts and the read stage use them."""

    def put(self, snap: Snapshot) -> None:
        """Store `snap`; a snapshot already stored keeps its first record."""
        ...

    def get(self, snapshot_id: str) -> Snapshot | None: ...

    def record_effect(
        self,
        run_id: str,
        effect_key: str,
        kind: EffectKind,
        outcome: EffectOutcome,
        detail: dict[str, Any],
        snapshot_id: str | None = None,
    ) -> Effect:
        """Record an effect under its key, or return the one already recorded there."""
        ...

    def effect(self, run_id: str, effect_key: str) -> Effect | None: ...
