"""What the stored-run tests share: the question, a receipt's comparable content, a desk on a
hashed copy of the small archive, and the child process that is killed mid-run.

The child is either a fresh interpreter running `CHILD`, or (`kill_at`) a fork of a server
process that imported the desk and LangGraph once: the same SIGKILL, without paying the
imports (seconds) at every point of a crash matrix. The server imports only; it opens no
database, so a fork inherits no connection. This module imports no `conftest`: in a child,
`conftest` is whichever one comes first on the path (the whole suite puts several there).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import textwrap
from pathlib import Path
from typing import Any

from evidence_desk.desk import Desk
from evidence_desk.runs.state import STAGES
from evidence_desk.settings import Settings
from evidence_desk.testing.embedder import HashingEmbedder

QUESTION = "What did Roosevelt say about the four freedoms in 1941?"


def desk_at(home: Path, cache: Path, executor: str | None = None) -> Desk:
    """A desk on `home` embedding with `HashingEmbedder`; `executor` replaces the setting's."""
    settings = Settings(home=home, cache_dir=cache, embed_workers=1)
    if executor is not None:
        settings = settings.model_copy(update={"executor": executor})
    return Desk(settings, embedder=HashingEmbedder())


def content(receipt: dict[str, Any]) -> dict[str, Any]:
    """A receipt without what differs between two runs of one question: ids, times,
    latencies, the signature."""
    body = {
        k: v
        for k, v in receipt.items()
        if k not in {"run_id", "created_at", "integrity", "stages", "usage"}
    }
    body["sources"] = [{k: v for k, v in s.items() if k != "retrieved_at"} for s in body["sources"]]
    body["stages"] = [s["name"] for s in receipt["stages"]]
    body["calls"] = receipt["usage"]["model_calls"]
    return body


# The executor comes from the environment (`EVIDENCE_DESK_EXECUTOR`), as in production.
CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from evidence_desk.desk import Desk
    from evidence_desk.settings import Settings
    from evidence_desk.testing.embedder import HashingEmbedder

    home, cache, question, kind, stage = sys.argv[1:6]
    desk = Desk(Settings(home=Path(home), cache_dir=Path(cache), embed_workers=1),
                embedder=HashingEmbedder())

    def die(*_):
        os.kill(os.getpid(), signal.SIGKILL)

    def on_event(k, s, state):
        if (k, s) == (kind, stage):
            die()

    if kind == "appended":
        desk.publisher.on_appended = die
    desk.ask(question, on_event=on_event)
    """
)

CRASH_POINTS = [(kind, stage) for stage in STAGES for kind in ("stage_started", "stage_done")]
CRASH_POINTS.append(("appended", "publish"))

# Modules of the package, not of the tests: Python 3.11's server does not take the tests'
# sys.path, and a module it cannot import it skips in silence.
_WARM = multiprocessing.get_context("forkserver")
_WARM.set_forkserver_preload(
    [
        "evidence_desk.desk",
        "evidence_desk.runs.graph",
        "evidence_desk.testing.embedder",
        "langgraph.graph",
        "langgraph.checkpoint.sqlite",
        "langchain_core.tracers.context",
    ]
)


def _run_until(
    home: Path, cache: Path, executor: str, kind: str, stage: str, question: str, run_id: str
) -> None:
    """Ask `question` (or resume `run_id`) and die by SIGKILL at `(kind, stage)`."""
    desk = desk_at(home, cache, executor)

    def die(*_: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    def on_event(k: str, s: str, state: object) -> None:
        if (k, s) == (kind, stage):
            die()

    if kind == "appended":
        desk.publisher.on_appended = die
    if run_id:
        desk.resume(run_id, on_event=on_event)
    else:
        desk.ask(question, on_event=on_event)


def kill_at(
    home: Path,
    cache: Path,
    executor: str,
    kind: str,
    stage: str,
    *,
    question: str = QUESTION,
    run_id: str = "",
) -> None:
    """Ask `question`, or resume `run_id`, under `executor` in a child process killed with
    SIGKILL at `(kind, stage)`; fails unless it was."""
    child = _WARM.Process(
        target=_run_until, args=(home, cache, executor, kind, stage, question, run_id)
    )
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL, f"the child ended with {child.exitcode}"
