"""Executors: drive a run's state through the stages, in memory or stored as it goes.

Both run the same stage functions (`stages.py`) in the same order; they differ only in
where a state lives between stages:

* `drive` keeps it in memory (evaluation, and the stages before the first agent).
* `StoredExecutor` commits each stage's output to the store before the next stage starts,
  under a lease (`store/runs.py`), so a run interrupted anywhere — the process killed
  mid-stage — resumes at the stage it was in, with every finished stage's output as
  recorded and the model calls and tokens it already spent counted against its budget.

`on_event(kind, stage, state)` is called at each point a run can be interrupted: after a
stage started (`stage_started`), when a stage has produced its output but before it is
stored (`stage_done`), and once it is stored (`stage_stored`). The command line streams
progress from it; the crash tests kill the process at each point.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Collection, Mapping

from ..agents.base import RunBudget
from ..store.runs import RunRecords
from .stages import STAGE_FUNCTIONS, Deps, StageFunction, run_stage, spent
from .state import RunState

OnEvent = Callable[[str, str, RunState], None]
OPENING_FIELDS = {"run_id", "created_at", "question", "mode"}


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


class StoredExecutor:
    """Runs stored as they go, worked on under a lease by this worker."""

    def __init__(self, runs: RunRecords, *, lease_seconds: float = 600.0) -> None:
        self.runs = runs
        self.lease_seconds = lease_seconds
        self.owner = worker_id()

    def start(
        self,
        state: RunState,
        deps: Deps,
        *,
        functions: Mapping[str, StageFunction] | None = None,
        on_event: OnEvent = quiet,
    ) -> RunState:
        """Store a new run (id and time already minted in `state`) and run it to its end."""
        opening = state.model_dump(mode="json", include=OPENING_FIELDS)
        self.runs.open(opening, self.owner, self.lease_seconds)
        on_event("run_opened", state.next_stage or "", state)
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

        The budget starts from what the recorded stages spent. Raises `LeaseLost` when a live
        worker holds the run, `RunNotFound` for an unknown id.
        """
        self.runs.take_lease(run_id, self.owner, self.lease_seconds, is_dead)
        state = self.load(run_id)
        calls, tokens = spent(state.stages)
        budget.charge(calls, tokens)
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
            stage = state.next_stage
            status = self.runs.stage_started(state.run_id, stage, self.owner, self.lease_seconds)
            if status != "running":  # cancelled while it ran: stop before this stage
                self.runs.release(state.run_id, self.owner)
                break
            on_event("stage_started", stage, state)
            state = run_stage(stage, state, deps, functions)
            on_event("stage_done", stage, state)
            outcome = state.outcome if stage == "gate" else None
            self.runs.stage_finished(
                state.run_id,
                stage,
                state.output_of(stage),
                state.stages[-1].model_dump(mode="json"),
                state.next_stage,
                self.owner,
                self.lease_seconds,
                decision=outcome.decision.value if outcome else None,
                failure=state.failure.reason if stage == "gate" and state.failure else None,
            )
            on_event("stage_stored", stage, state)
        return state
