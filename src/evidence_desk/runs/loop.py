"""Executors: drive a run's state through the stages, in memory or stored as it goes.

Both run the same stage functions (`stages.py`) in the same order; they differ only in
where a state lives between stages:

* `drive` keeps it in memory (evaluation, and the stages before the first agent).
* `StoredExecutor` commits each stage's output to the run's records (`logs.RunLog`; the
  store's are `store/runs.py`) before the next stage starts, under a lease, so a run
  interrupted anywhere — the process killed mid-stage — resumes at the stage it was in,
  with every finished stage's output as recorded and the model calls and tokens it
  already spent counted against its budget.
* `GraphExecutor` (`graph.py`) does the same through a LangGraph graph. Both take each
  stage through `stored_stage`, so they write the same records and either can resume a
  run the other started.

`on_event(kind, stage, state)` is called at each point a run can be interrupted: after a
stage started (`stage_started`), when a stage has produced its output but before it is
stored (`stage_done`), and once it is stored (`stage_stored`). The command line streams
progress from it; the crash tests kill the process at each point.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable, Collection, Mapping

from ..agents.base import RunBudget
from ..store.rows import RunOwner
from .deps import Deps, StageFunction
from .ledger import StoredLedger, charge_resumed
from .logs import RunLog
from .stages import STAGE_FUNCTIONS, run_stage
from .state import RunState

OnEvent = Callable[[str, str, RunState], None]
OPENING_FIELDS = {
    "run_id",
    "created_at",
    "question",
    "mode",
    "attachments",
    "thread",
    "explains",
    "illustrate",
}


def quiet(kind: str, stage: str, state: RunState) -> None:
    return None


def drive(
    state: RunState,
    deps: Deps,
    *,
    until: Collection[str] = (),
    functions: Mapping[str, StageFunction] | None = None,
    on_event: OnEvent = quiet,
) -> RunState:
    """Run stages in memory from `state.next_stage` until the run ends or its next stage is
    one of `until`."""
    while state.next_stage is not None and state.next_stage not in until:
        stage = state.next_stage
        on_event("stage_started", stage, state)
        state = run_stage(stage, state, deps, functions)
        on_event("stage_done", stage, state)
    return state


def worker_id() -> str:
    """This worker's lease name: host, process id and a random tag."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def is_dead(owner: str) -> bool:
    """True when `owner` names a process of this host that no longer runs."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


LESSON_DECISIONS = {"PUBLISHED": "LESSON_PUBLISHED", "WITHHELD": "LESSON_WITHHELD"}


def decision_of(stage: str, state: RunState) -> str | None:
    """The decision a stage records on its run's row: the gate's, for an answer; the
    teaching review's (`LESSON_PUBLISHED`, `LESSON_WITHHELD`), for an explanation."""
    if stage == "gate" and state.outcome is not None:
        return state.outcome.decision.value
    if stage == "teaching_review" and state.teaching is not None:
        return LESSON_DECISIONS[state.teaching.decision]
    return None


def stored_stage(
    runs: RunLog,
    owner: str,
    lease_seconds: float,
    state: RunState,
    deps: Deps,
    functions: Mapping[str, StageFunction],
    on_event: OnEvent,
) -> RunState | None:
    """Run the stage `state` is at and commit its output before returning the next state.

    None when the run was cancelled: the stage is not run and the lease is released.
    """
    stage = state.next_stage
    if stage is None:
        raise RuntimeError(f"Run {state.run_id} has finished: it has no stage to run.")
    status = runs.stage_started(state.run_id, stage, owner, lease_seconds)
    if status != "running":  # cancelled while it ran: stop before this stage
        runs.release(state.run_id, owner)
        return None
    on_event("stage_started", stage, state)
    state = run_stage(stage, state, deps, functions)
    on_event("stage_done", stage, state)
    runs.stage_finished(
        state.run_id,
        stage,
        state.output_of(stage),
        state.stages[-1].model_dump(mode="json"),
        state.next_stage,
        owner,
        lease_seconds,
        decision=decision_of(stage, state),
        failure=state.failure.reason if stage == "gate" and state.failure else None,
    )
    on_event("stage_stored", stage, state)
    return state


class StoredExecutor:
    """Runs stored as they go, worked on under a lease by this worker.

    Opening, leasing and loading a run are the same for every executor; a subclass changes
    only how `_drive` walks the stages (`graph.GraphExecutor`).
    """

    def __init__(self, runs: RunLog, *, lease_seconds: float = 600.0, max_running: int = 2) -> None:
        """`max_running`: runs that may execute at once on this store; more wait in order.
        `on_call_recorded(key)`: called after each model try is committed to a run's ledger."""
        self.runs = runs
        self.lease_seconds = lease_seconds
        self.max_running = max_running
        self.owner = worker_id()
        self.on_call_recorded: Callable[[str], None] | None = None

    def ledger(self, run_id: str) -> StoredLedger:
        """The ledger this worker records a run's model calls in (`ledger.py`)."""
        return StoredLedger(self.runs, run_id, self.owner, self.on_call_recorded)

    def wait_for_slot(self, state: RunState, on_event: OnEvent) -> bool:
        """Wait until this queued run may execute (`store/runs.py`, `claim_slot`), renewing
        its lease meanwhile; False when it was cancelled while it waited."""
        delay = 0.005
        while True:
            status = self.runs.claim_slot(
                state.run_id, self.owner, self.lease_seconds, self.max_running, is_dead
            )
            if status == "running":
                on_event("run_started", state.next_stage or "", state)
                return True
            if status != "queued":
                self.runs.release(state.run_id, self.owner)
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.25)

    def open(self, state: RunState, *, owned_by: RunOwner | None = None) -> None:
        """Store a new run, queued and leased to this worker, with whose it is (`owned_by`)
        in the same transaction. `resume` then runs it (the web app opens in the request,
        runs in a pool)."""
        opening = state.model_dump(mode="json", include={*OPENING_FIELDS, "next_stage"})
        self.runs.open(opening, self.owner, self.lease_seconds, owned_by=owned_by)

    def start(
        self,
        state: RunState,
        deps: Deps,
        *,
        functions: Mapping[str, StageFunction] | None = None,
        on_event: OnEvent = quiet,
    ) -> RunState:
        """Store a new run (id and time already minted in `state`) and run it to its end."""
        self.open(state)
        deps.budget.ledger = self.ledger(state.run_id)
        on_event("run_opened", state.next_stage or "", state)
        if not self.wait_for_slot(state, on_event):
            return state
        return self._drive(state, deps, functions, on_event)

    def resume(
        self,
        run_id: str,
        make_deps: Callable[[RunBudget], Deps],
        budget: RunBudget,
        *,
        functions: Mapping[str, StageFunction] | None = None,
        on_event: OnEvent = quiet,
    ) -> RunState:
        """Take over a stored run and continue it from the stage it was in.

        The budget starts from what the run spent before (`ledger.charge_resumed`), and
        records in the run's ledger. Raises `LeaseLost` when a live worker holds the run,
        `RunNotFound` for an unknown id.
        """
        self.runs.take_lease(run_id, self.owner, self.lease_seconds, is_dead)
        state = self.load(run_id)
        charge_resumed(budget, state.stages, self.runs.calls(run_id))
        budget.ledger = self.ledger(run_id)
        if not self.wait_for_slot(state, on_event):
            return state
        return self._drive(state, make_deps(budget), functions, on_event)

    def load(self, run_id: str) -> RunState:
        """The stored state of a run, as far as it got."""
        run, stages = self.runs.load(run_id)
        outputs = [(s.output, s.record) for s in stages]
        return RunState.resumed(run.opening, outputs, run.next_stage)

    def _drive(
        self,
        state: RunState,
        deps: Deps,
        functions: Mapping[str, StageFunction] | None,
        on_event: OnEvent,
    ) -> RunState:
        functions = functions or STAGE_FUNCTIONS
        while state.next_stage is not None:
            after = stored_stage(
                self.runs, self.owner, self.lease_seconds, state, deps, functions, on_event
            )
            if after is None:  # cancelled
                break
            state = after
        return state
