"""The run executor: runs execute here, at most `threads` at once, never in a request.

A request opens a run (`Workspace.ask`), which is stored queued with its id, and hands the
id to `submit`. A worker thread executes it through `Desk.execute`; the store's slot rule
(`max_concurrent_runs`) holds across processes too. A run whose worker died (the server
was killed) is `interrupted`; `resume_interrupted` picks such runs up when the app starts.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from .logs import RUN_ID, log

if TYPE_CHECKING:
    from ..desk import Desk


class RunExecutor:
    def __init__(self, desk: Desk, threads: int = 2) -> None:
        self.desk = desk
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="run")
        self.futures: dict[str, Future[None]] = {}

    def submit(self, run_id: str) -> Future[None]:
        future = self.pool.submit(self._execute, run_id)
        self.futures[run_id] = future
        future.add_done_callback(lambda _: self.futures.pop(run_id, None))
        return future

    def _execute(self, run_id: str) -> None:
        token = RUN_ID.set(run_id)
        try:
            log("run started", stage="executor")
            self.desk.execute(run_id)
            log("run ended", state=self.desk.runs_state(run_id))
        except Exception as exc:  # a run's failure is its record's; the worker lives on
            log(f"run failed: {exc}", level=logging.ERROR)
        finally:
            RUN_ID.reset(token)

    def resume_interrupted(self) -> list[str]:
        """Submit every run whose worker died; their ids."""
        ids = [r.run_id for r in self.desk.runs(state="interrupted", limit=100)]
        for run_id in ids:
            self.submit(run_id)
        return ids

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
