"""What the stored-run tests share: the question, a desk on a hashed copy of the small
archive, what a resumed run must leave behind, and the child process that is killed mid-run.
Their fixtures are in `conftest.py`; receipts are compared with
`evidence_desk.testing.receipts.comparable`.

The child is either a fresh interpreter running `CHILD`, or (`kill_at`) a fork of a server
process that imported the desk and LangGraph once: the same SIGKILL, without paying the
imports (seconds) at every point of a crash matrix. The server imports only; it opens no
database, so a fork inherits no connection. This module imports no `conftest`: in a child,
`conftest` is whichever one comes first on the path (the whole suite puts several there).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import textwrap
from pathlib import Path

from evidence_desk.desk import AskResult, Desk
from evidence_desk.runs.state import ARCHIVE_STAGES
from evidence_desk.settings import Settings
from evidence_desk.store.rows import StoredReceipt
from evidence_desk.testing.embedder import HashingEmbedder
from evidence_desk.trust.receipts import chain_problems

QUESTION = "What did Roosevelt say about the four freedoms in 1941?"


def desk_at(home: Path, cache: Path, executor: str | None = None, **values: object) -> Desk:
    """A desk on `home` embedding with `HashingEmbedder`; `executor` and `values` replace
    the settings'."""
    settings = Settings(home=home, cache_dir=cache, embed_workers=1)
    update = {"executor": executor} if executor is not None else {}
    update.update(values)
    if update:
        settings = settings.model_copy(update=update)
    return Desk(settings, embedder=HashingEmbedder())


def stored_stages(desk: Desk, run_id: str) -> list[str]:
    return [s["name"] for s in desk.run_record(run_id)["stages"]]


def starts(desk: Desk, run_id: str) -> list[str | None]:
    """The stage of every `stage_started` event of the run, in order."""
    return [e.stage for e in desk.run_events(run_id) if e.kind == "stage_started"]


def sound_chain(desk: Desk) -> list[StoredReceipt]:
    """The desk's receipts, once their chain and the database are checked sound."""
    receipts = list(desk.store.iter_receipts())
    assert chain_problems([json.loads(r.json) for r in receipts]) == []
    with sqlite3.connect(desk.settings.db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    return receipts


def assert_resumed_whole(desk: Desk, run_id: str, result: AskResult) -> None:
    """The run's receipt verified and written where the result says, every stage stored once
    in order, the only receipt in a sound chain."""
    assert result.receipt["run_id"] == run_id and desk.verify_receipt(result.receipt).ok
    assert result.path is not None and result.path == desk.publisher.receipt_path(run_id)
    assert json.loads(result.path.read_text()) == result.receipt
    assert stored_stages(desk, run_id) == list(ARCHIVE_STAGES)
    assert [r.run_id for r in sound_chain(desk)] == [run_id]


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

CRASH_POINTS = [
    (kind, stage) for stage in ARCHIVE_STAGES for kind in ("stage_started", "stage_done")
]
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
