"""Stored runs driven by a LangGraph graph: the second executor (`executor = "langgraph"`).

`GraphExecutor` is a `StoredExecutor` (it opens, leases and loads runs the same way) that
drives the stage functions through a LangGraph `StateGraph`: one node per stage of `STAGES`,
every edge following the state's `next_stage` (the graph ends when it is None). Each node
takes its stage through `loop.stored_stage`, so both executors write the same records, and
either resumes a run the other started.

The desk's store is the record; LangGraph's checkpoints only say where to pick up. They live
in a file of their own (`Settings.graph_db_path`, thread id = run id) and are written before
the next node starts (`durability="sync"`: LangGraph's default writes them in the background
and can lose the last one to a kill). A process killed after a stage was committed but
before its checkpoint was written re-runs that node on resume: the node finds its stage in
the store and returns the stored state instead, so no stored stage runs twice. A run the
checkpoints do not know (started by the other executor, or the file deleted) starts its
graph from its stored state.

A run that reads the web fetches through the safe fetch wrapped as a LangChain structured
tool (`sources/tool.py`): the same function behind a second door, refusing what it refuses.

The graph's state is a plain dict holding the run state as JSON, which the checkpointer
serialises without knowing the desk's types. LangSmith tracing is off for every graph run,
whatever the environment says: a run's question and sources do not leave the desk.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from ..sources.tool import fetch_tool, through_tool
from .deps import Deps, StageFunction
from .logs import RunLog
from .loop import OnEvent, StoredExecutor, stored_stage
from .stages import STAGE_FUNCTIONS
from .state import STAGES, RunState

if TYPE_CHECKING:
    from langgraph.graph import StateGraph


class GraphState(TypedDict):
    """What the graph carries from node to node (and the checkpointer stores)."""

    run: dict[str, Any]  # RunState.model_dump(mode="json")
    stopped: bool  # the run was cancelled: no further stage runs


class Node(Protocol):
    """A node of the graph, as LangGraph types one: called with the graph state."""

    def __call__(self, state: GraphState) -> GraphState: ...


def as_values(state: RunState, *, stopped: bool = False) -> GraphState:
    return {"run": state.model_dump(mode="json"), "stopped": stopped}


def route(values: GraphState) -> str:
    """The node after this one: the run's next stage, or the graph's end."""
    from langgraph.graph import END

    next_stage: str | None = values["run"]["next_stage"]
    return END if values["stopped"] or next_stage is None else next_stage


class GraphExecutor(StoredExecutor):
    """Runs stored as they go, driven by a LangGraph graph under this worker's lease."""

    def __init__(
        self,
        runs: RunLog,
        checkpoints: Path,
        *,
        lease_seconds: float = 600.0,
        max_running: int = 2,
    ) -> None:
        """`checkpoints` is the SQLite file of the graph's checkpoints (created when needed)."""
        super().__init__(runs, lease_seconds=lease_seconds, max_running=max_running)
        self.checkpoints = checkpoints

    def _drive(
        self,
        state: RunState,
        deps: Deps,
        functions: Mapping[str, StageFunction] | None,
        on_event: OnEvent,
    ) -> RunState:
        """Run the graph of `state`'s run: from its checkpoint when one has a node still to
        run, else (a new run, one the other executor started, a deleted checkpoint file)
        from `state`, the stored state."""
        from langchain_core.runnables import RunnableConfig
        from langgraph.checkpoint.sqlite import SqliteSaver
        from langsmith import tracing_context

        if deps.web is not None:
            # The graph's door to the web: the same fetch, as a LangChain structured tool.
            web = replace(deps.web, fetch=through_tool(fetch_tool(deps.web.fetch)))
            deps = replace(deps, web=web)
        builder = self._builder(deps, functions or STAGE_FUNCTIONS, on_event)
        config = RunnableConfig(configurable={"thread_id": state.run_id})
        self.checkpoints.parent.mkdir(parents=True, exist_ok=True)
        # The saver serialises its use of the connection with a lock; LangGraph writes
        # checkpoints from a thread of its own.
        with closing(sqlite3.connect(self.checkpoints, check_same_thread=False)) as db:
            graph = builder.compile(checkpointer=SqliteSaver(db))
            pending = bool(graph.get_state(config).next)
            with tracing_context(enabled=False):
                values = graph.invoke(
                    None if pending else as_values(state), config, durability="sync"
                )
        return RunState.model_validate(values["run"])

    def _builder(
        self, deps: Deps, functions: Mapping[str, StageFunction], on_event: OnEvent
    ) -> StateGraph[GraphState, None, GraphState, GraphState]:
        from langgraph.graph import END, START, StateGraph

        builder = StateGraph(GraphState)
        destinations = [*STAGES, END]
        builder.add_conditional_edges(START, route, destinations)
        for name in STAGES:
            builder.add_node(name, self._node(deps, functions, on_event))
            builder.add_conditional_edges(name, route, destinations)
        return builder

    def _node(self, deps: Deps, functions: Mapping[str, StageFunction], on_event: OnEvent) -> Node:
        def node(state: GraphState) -> GraphState:
            run = RunState.model_validate(state["run"])
            if self.runs.get(run.run_id).next_stage != run.next_stage:
                # The store is past this checkpoint (the stage was committed, its checkpoint
                # never written, or another executor went on): go on from the record.
                return as_values(self.load(run.run_id))
            after = stored_stage(
                self.runs, self.owner, self.lease_seconds, run, deps, functions, on_event
            )
            return as_values(run, stopped=True) if after is None else as_values(after)

        return node
