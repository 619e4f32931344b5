"""Runs as stored records: the run row, one row per finished stage, and an event log.

A run row holds what the run was opened with and where it is (`status`, `next_stage`, its
decision once gated). Each finished stage is one `run_stages` row — the fields the stage set
and its `StageRecord`, as JSON — written in the same transaction that moves `next_stage` on,
so a stage's output is committed before the next stage starts and a crash loses at most the
stage in flight. Events (run opened, stage started and ended with latency, calls, tokens and
spend, run finished) are appended as they happen; `events_after` replays them from any point.
The run's ledger (`run_calls`) holds one row per model try as it returns, with its usage,
cost and price source, and a reply's output under the call's key (`runs/ledger.py`): the
spend record, and what spares a re-run stage a second request.

A run is worked on under a lease: `lease_owner` and `lease_expires` (ISO UTC). Taking the
lease succeeds only when it is free, expired, held by the same owner, or held by a process of
this host that is no longer alive; every stage commit renews it and fails when another owner
took it (`LeaseLost`). These rules map onto `SELECT ... FOR UPDATE SKIP LOCKED` on a server.

Status: a run opens `queued`; `claim_slot` makes it `running` when fewer than the desk's
cap of runs execute under a live lease and no live run opened before it waits (dead
workers hold no slot and keep no place); it ends `finished` or `cancelled`. A run taken over
after its worker died goes back to `queued`: its slot left with the dead worker.

The functions take a connection inside a write transaction (`ArchiveStore._write`) or a read
snapshot; SQL stays inside `store/`.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ..clock import Clock, iso_ms, iso_seconds, system_clock
from .rows import RunOwner


class LeaseLost(RuntimeError):
    """Another worker holds this run's lease now: this worker must stop working on it."""


class RunNotFound(KeyError):
    """No run has this id."""


@dataclass(frozen=True)
class StoredRun:
    run_id: str
    created_at: str
    updated_at: str
    question: str
    mode: str
    status: str
    next_stage: str | None
    decision: str | None
    failure: str | None
    lease_owner: str | None
    lease_expires: str | None
    opening: dict[str, Any]


@dataclass(frozen=True)
class StoredStage:
    seq: int
    stage: str
    output: dict[str, Any]
    record: dict[str, Any]


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    run_id: str
    at: str
    kind: str
    stage: str | None
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "run_id": self.run_id,
            "at": self.at,
            "kind": self.kind,
            "stage": self.stage,
            **self.data,
        }


_RUN_COLUMNS = (
    "run_id, created_at, updated_at, question, mode, status, next_stage, decision, failure, "
    "lease_owner, lease_expires, opening"
)


def _run(row: sqlite3.Row) -> StoredRun:
    return StoredRun(
        run_id=row["run_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        question=row["question"],
        mode=row["mode"],
        status=row["status"],
        next_stage=row["next_stage"],
        decision=row["decision"],
        failure=row["failure"],
        lease_owner=row["lease_owner"],
        lease_expires=row["lease_expires"],
        opening=json.loads(row["opening"]),
    )


def lease_until(now: dt.datetime, seconds: float) -> str:
    """The time `seconds` after `now`, as run rows write times (they compare as text)."""
    return iso_seconds(now + dt.timedelta(seconds=seconds))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def add_event(
    db: sqlite3.Connection,
    now: dt.datetime,
    run_id: str,
    kind: str,
    stage: str | None = None,
    data: Mapping[str, Any] | None = None,
) -> None:
    db.execute(
        "INSERT INTO run_events (run_id, at, kind, stage, data) VALUES (?, ?, ?, ?, ?)",
        (run_id, iso_ms(now), kind, stage, _dumps(dict(data or {}))),
    )


OWNER_COLUMNS = "run_id, owner_id, conv_id, channel, asked_at"


def own_run(db: sqlite3.Connection, now: dt.datetime, run_id: str, owner: RunOwner) -> None:
    """The run's owner row, inside the transaction `db` that opens the run."""
    db.execute(
        f"INSERT INTO run_owners ({OWNER_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
        (run_id, owner.owner_id, owner.conversation_id, owner.channel, iso_ms(now)),
    )


def open_run(
    db: sqlite3.Connection,
    now: dt.datetime,
    opening: Mapping[str, Any],
    worker: str,
    lease_seconds: float,
) -> None:
    """Insert a new run, queued and leased to `worker`, and its `run_opened` event; its first
    stage is the opening's `next_stage` (`plan` when it names none)."""
    db.execute(
        f"INSERT INTO runs ({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, 'queued', ?, NULL, "
        "NULL, ?, ?, ?)",
        (
            opening["run_id"],
            opening["created_at"],
            iso_seconds(now),
            opening["question"],
            opening["mode"],
            str(opening.get("next_stage") or "plan"),
            worker,
            lease_until(now, lease_seconds),
            _dumps(dict(opening)),
        ),
    )
    add_event(db, now, str(opening["run_id"]), "run_opened", data={"mode": opening["mode"]})


def get_run(db: sqlite3.Connection, run_id: str) -> StoredRun:
    row = db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        raise RunNotFound(run_id)
    return _run(row)


def stages_of(db: sqlite3.Connection, run_id: str) -> list[StoredStage]:
    rows = db.execute(
        "SELECT seq, stage, output, record FROM run_stages WHERE run_id = ? ORDER BY seq",
        (run_id,),
    )
    return [
        StoredStage(r["seq"], r["stage"], json.loads(r["output"]), json.loads(r["record"]))
        for r in rows
    ]


def take_lease(
    db: sqlite3.Connection,
    now: dt.datetime,
    run_id: str,
    owner: str,
    lease_seconds: float,
    is_dead: Callable[[str], bool],
) -> StoredRun:
    """Lease a running run to `owner` (see the module docstring); `LeaseLost` when another
    live worker holds it."""
    run = get_run(db, run_id)
    free = (
        run.lease_owner is None
        or run.lease_owner == owner
        or (run.lease_expires or "") < iso_seconds(now)
        or is_dead(run.lease_owner)
    )
    if not free:
        raise LeaseLost(
            f"Run {run_id} is being worked on by {run.lease_owner} until {run.lease_expires}."
        )
    # Back in the queue: the slot it held went with its dead worker (`claim_slot`).
    db.execute(
        "UPDATE runs SET lease_owner = ?, lease_expires = ?, updated_at = ?, status = 'queued' "
        "WHERE run_id = ?",
        (owner, lease_until(now, lease_seconds), iso_seconds(now), run_id),
    )
    if run.lease_owner != owner:  # taken over, not merely picked up by the worker that opened it
        add_event(db, now, run_id, "run_resumed", run.next_stage, {"worker": owner})
    return run


def _live(owner: str | None, expires: str | None, now: str, is_dead: Callable[[str], bool]) -> bool:
    return owner is not None and (expires or "") >= now and not is_dead(owner)


def claim_slot(
    db: sqlite3.Connection,
    now: dt.datetime,
    run_id: str,
    owner: str,
    lease_seconds: float,
    cap: int,
    is_dead: Callable[[str], bool],
) -> str:
    """Start a queued run when fewer than `cap` runs execute and no run opened before it
    still waits in the queue; returns the run's status afterwards ("running", still "queued", or
    "cancelled"). Runs whose worker is dead hold no slot and keep no place in the queue.
    Renews the lease either way."""
    run = _check_lease(db, run_id, owner)
    if run.status != "queued":
        return run.status
    at = iso_seconds(now)
    rows = db.execute(
        "SELECT rowid, status, lease_owner, lease_expires FROM runs "
        "WHERE status IN ('running', 'queued') AND run_id != ?",
        (run_id,),
    ).fetchall()
    live = [r for r in rows if _live(r["lease_owner"], r["lease_expires"], at, is_dead)]
    executing = sum(1 for r in live if r["status"] == "running")
    ahead = any(r["status"] == "queued" and r["rowid"] < run.opened for r in live)
    status = "running" if executing < cap and not ahead else "queued"
    db.execute(
        "UPDATE runs SET status = ?, lease_expires = ?, updated_at = ? WHERE run_id = ?",
        (status, lease_until(now, lease_seconds), at, run_id),
    )
    if status == "running":
        add_event(db, now, run_id, "run_started", run.next_stage, {"worker": owner})
    return status


def executing(
    db: sqlite3.Connection, now: dt.datetime, is_dead: Callable[[str], bool]
) -> list[str]:
    """The runs executing at `now`: status running, under a live lease."""
    at = iso_seconds(now)
    rows = db.execute(
        "SELECT run_id, lease_owner, lease_expires FROM runs WHERE status = 'running'"
    ).fetchall()
    return [r["run_id"] for r in rows if _live(r["lease_owner"], r["lease_expires"], at, is_dead)]


@dataclass(frozen=True)
class _Held:
    """The few fields a worker checks on every stage (no opening JSON to parse)."""

    status: str
    next_stage: str | None
    decision: str | None
    opened: int  # the run's place in the order runs were opened (its rowid)


def _check_lease(db: sqlite3.Connection, run_id: str, owner: str) -> _Held:
    row = db.execute(
        "SELECT lease_owner, status, next_stage, decision, rowid FROM runs WHERE run_id = ?",
        (run_id,),
    ).fetchone()
    if row is None:
        raise RunNotFound(run_id)
    if row["lease_owner"] != owner:
        raise LeaseLost(f"Run {run_id} was taken over by {row['lease_owner']}.")
    return _Held(row["status"], row["next_stage"], row["decision"], row["rowid"])


def stage_started(
    db: sqlite3.Connection,
    now: dt.datetime,
    run_id: str,
    stage: str,
    owner: str,
    lease_seconds: float,
) -> str:
    """Renew the lease and log the stage's start; returns the run's status (a cancelled run
    is not worked on further)."""
    run = _check_lease(db, run_id, owner)
    if run.status != "running":
        return run.status
    db.execute(
        "UPDATE runs SET lease_expires = ?, updated_at = ? WHERE run_id = ?",
        (lease_until(now, lease_seconds), iso_seconds(now), run_id),
    )
    add_event(db, now, run_id, "stage_started", stage)
    return run.status


def stage_finished(
    db: sqlite3.Connection,
    now: dt.datetime,
    run_id: str,
    stage: str,
    output: Mapping[str, Any],
    record: Mapping[str, Any],
    next_stage: str | None,
    owner: str,
    lease_seconds: float,
    decision: str | None = None,
    failure: str | None = None,
) -> None:
    """Commit one stage: its output row, the run's next stage, and its `stage_ended` event
    (and `run_finished` when it was the last). A run cancelled while the stage ran stays
    cancelled: its worker stops before the next stage."""
    run = _check_lease(db, run_id, owner)
    seq = db.execute(
        "SELECT coalesce(max(seq), 0) + 1 FROM run_stages WHERE run_id = ?", (run_id,)
    ).fetchone()[0]
    db.execute(
        "INSERT INTO run_stages (run_id, seq, stage, output, record) VALUES (?, ?, ?, ?, ?)",
        (run_id, seq, stage, _dumps(dict(output)), _dumps(dict(record))),
    )
    finished = next_stage is None
    db.execute(
        "UPDATE runs SET next_stage = ?, status = ?, updated_at = ?, "
        "decision = coalesce(?, decision), failure = coalesce(?, failure), "
        "lease_owner = ?, lease_expires = ? WHERE run_id = ?",
        (
            next_stage,
            "finished" if finished else ("cancelled" if run.status == "cancelled" else "running"),
            iso_seconds(now),
            decision,
            failure,
            None if finished else owner,
            None if finished else lease_until(now, lease_seconds),
            run_id,
        ),
    )
    add_event(db, now, run_id, "stage_ended", stage, record)
    if finished:
        add_event(db, now, run_id, "run_finished", data={"decision": decision or run.decision})


def release(db: sqlite3.Connection, run_id: str, owner: str) -> None:
    """Give up the lease (a worker stopping without finishing, e.g. on cancel)."""
    db.execute(
        "UPDATE runs SET lease_owner = NULL, lease_expires = NULL WHERE run_id = ? "
        "AND lease_owner = ?",
        (run_id, owner),
    )


def cancel(db: sqlite3.Connection, now: dt.datetime, run_id: str) -> StoredRun:
    """Mark a running or queued run cancelled (its worker stops before its next stage)."""
    run = get_run(db, run_id)
    if run.status in ("running", "queued"):
        db.execute(
            "UPDATE runs SET status = 'cancelled', updated_at = ? WHERE run_id = ?",
            (iso_seconds(now), run_id),
        )
        add_event(db, now, run_id, "run_cancelled", run.next_stage)
    return run


def list_runs(
    db: sqlite3.Connection, status: str | None = None, limit: int = 50
) -> list[StoredRun]:
    where, args = ("WHERE status = ?", (status,)) if status else ("", ())
    rows = db.execute(
        f"SELECT {_RUN_COLUMNS} FROM runs {where} ORDER BY created_at DESC, run_id DESC LIMIT ?",
        (*args, limit),
    )
    return [_run(r) for r in rows]


def explanations(db: sqlite3.Connection, answer_run_id: str) -> list[StoredRun]:
    """The explanation runs opened on one answer, oldest first."""
    rows = db.execute(
        f"SELECT {_RUN_COLUMNS} FROM runs WHERE json_extract(opening, '$.explains') = ? "
        "ORDER BY created_at, run_id",
        (answer_run_id,),
    )
    return [_run(r) for r in rows]


def events_after(db: sqlite3.Connection, run_id: str, after: int = 0) -> list[StoredEvent]:
    rows = db.execute(
        "SELECT seq, run_id, at, kind, stage, data FROM run_events "
        "WHERE run_id = ? AND seq > ? ORDER BY seq",
        (run_id, after),
    )
    return [
        StoredEvent(r["seq"], r["run_id"], r["at"], r["kind"], r["stage"], json.loads(r["data"]))
        for r in rows
    ]


@dataclass(frozen=True)
class StoredCall:
    """One model try in a run's ledger: what it used and cost, and a reply's output (JSON)."""

    call_key: str
    role: str
    engine: str
    outcome: str  # "reply" or "failed"
    requests: int
    input_tokens: int
    output_tokens: int
    spend_usd: float | None
    output: str | None = None
    price_source: str | None = None  # where `spend_usd`'s price came from (None: unpriced)


_CALL_COLUMNS = (
    "call_key, role, engine, outcome, requests, input_tokens, output_tokens, spend_usd, output, "
    "price_source"
)


def record_call(
    db: sqlite3.Connection, now: dt.datetime, run_id: str, owner: str, call: StoredCall
) -> None:
    """Append a try to the run's ledger, as the lease holder; a second reply under one key
    is refused by the database (`run_calls_reply`)."""
    _check_lease(db, run_id, owner)
    seq = db.execute(
        "SELECT coalesce(max(seq), 0) + 1 FROM run_calls WHERE run_id = ?", (run_id,)
    ).fetchone()[0]
    db.execute(
        f"INSERT INTO run_calls (run_id, seq, at, {_CALL_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run_id,
            seq,
            iso_ms(now),
            call.call_key,
            call.role,
            call.engine,
            call.outcome,
            call.requests,
            call.input_tokens,
            call.output_tokens,
            call.spend_usd,
            call.output,
            call.price_source,
        ),
    )


def calls_of(db: sqlite3.Connection, run_id: str) -> list[StoredCall]:
    rows = db.execute(
        f"SELECT {_CALL_COLUMNS} FROM run_calls WHERE run_id = ? ORDER BY seq", (run_id,)
    )
    return [StoredCall(*r) for r in rows]


Transaction = Callable[[], AbstractContextManager[sqlite3.Connection]]


class RunRecords:
    """The runs of one archive database (`ArchiveStore.runs`): each write one transaction
    through the store's writer, each read one snapshot; times read from `clock`."""

    def __init__(self, write: Transaction, read: Transaction, clock: Clock = system_clock) -> None:
        self._write = write
        self._read = read
        self.clock = clock

    def now(self) -> str:
        """The clock's time as run rows write it (leases compare against it)."""
        return iso_seconds(self.clock())

    def open(
        self,
        opening: Mapping[str, Any],
        worker: str,
        lease_seconds: float,
        *,
        owned_by: RunOwner | None = None,
    ) -> None:
        """Store a new run leased to `worker`, and in the same transaction whose it is
        (`owned_by`: its reader; None: nobody's, a run of the command line)."""
        with self._write() as db:
            now = self.clock()
            open_run(db, now, opening, worker, lease_seconds)
            if owned_by is not None:
                own_run(db, now, str(opening["run_id"]), owned_by)

    def get(self, run_id: str) -> StoredRun:
        with self._read() as db:
            return get_run(db, run_id)

    def explanations(self, answer_run_id: str) -> list[StoredRun]:
        """The explanation runs of the answer `answer_run_id`, oldest first."""
        with self._read() as db:
            return explanations(db, answer_run_id)

    def load(self, run_id: str) -> tuple[StoredRun, list[StoredStage]]:
        """The run row and its finished stages, from one snapshot."""
        with self._read() as db:
            return get_run(db, run_id), stages_of(db, run_id)

    def take_lease(
        self, run_id: str, owner: str, lease_seconds: float, is_dead: Callable[[str], bool]
    ) -> StoredRun:
        with self._write() as db:
            return take_lease(db, self.clock(), run_id, owner, lease_seconds, is_dead)

    def claim_slot(
        self,
        run_id: str,
        owner: str,
        lease_seconds: float,
        cap: int,
        is_dead: Callable[[str], bool],
    ) -> str:
        with self._write() as db:
            return claim_slot(db, self.clock(), run_id, owner, lease_seconds, cap, is_dead)

    def executing(self, is_dead: Callable[[str], bool]) -> list[str]:
        with self._read() as db:
            return executing(db, self.clock(), is_dead)

    def stage_started(self, run_id: str, stage: str, owner: str, lease_seconds: float) -> str:
        with self._write() as db:
            return stage_started(db, self.clock(), run_id, stage, owner, lease_seconds)

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
        with self._write() as db:
            stage_finished(
                db,
                self.clock(),
                run_id,
                stage,
                output,
                record,
                next_stage,
                owner,
                lease_seconds,
                decision,
                failure,
            )

    def release(self, run_id: str, owner: str) -> None:
        with self._write() as db:
            release(db, run_id, owner)

    def cancel(self, run_id: str) -> StoredRun:
        with self._write() as db:
            return cancel(db, self.clock(), run_id)

    def recent(self, status: str | None = None, limit: int = 50) -> list[StoredRun]:
        with self._read() as db:
            return list_runs(db, status, limit)

    def events(self, run_id: str, after: int = 0) -> list[StoredEvent]:
        with self._read() as db:
            return events_after(db, run_id, after)

    def record_call(self, run_id: str, owner: str, call: StoredCall) -> None:
        with self._write() as db:
            record_call(db, self.clock(), run_id, owner, call)

    def calls(self, run_id: str) -> list[StoredCall]:
        with self._read() as db:
            return calls_of(db, run_id)
