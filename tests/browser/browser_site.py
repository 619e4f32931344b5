"""The desk the browser tests use: the sample archive (the real embedding model) plus one
planted page whose text gives orders to a model, so `HELD_QUESTION` is held for review.

The answerer is wrapped in a gate (`Gate`): open, it answers at once; closed, a run waits
in its answer stage until it opens, so a test can reload a page in the middle of a run.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidence_desk.agents.registry import Agents
from evidence_desk.agents.registry import resolve as resolve_agents
from evidence_desk.desk import Desk
from evidence_desk.settings import Settings
from evidence_desk.testing.archives import HELD_QUESTION as HELD_QUESTION
from evidence_desk.testing.archives import PLANTED as PLANTED
from evidence_desk.testing.archives import QUESTION as QUESTION

EDITOR = "editor"
PASSWORD = "correct horse battery staple"


class GatedAnswerer:
    """The real answerer, waiting for `gate` before each answer (at most 60 s)."""

    def __init__(self, inner: Any, gate: threading.Event) -> None:
        self.inner = inner
        self.gate = gate
        self.waiting = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def answer(self, *args: Any, **kwargs: Any) -> Any:
        if not self.gate.is_set():
            self.waiting.set()
            self.gate.wait(60)
        self.waiting.clear()
        return self.inner.answer(*args, **kwargs)


@dataclass
class Site:
    desk: Desk
    gate: threading.Event
    answerer: GatedAnswerer
    base_url: str = ""


def build_desk(home: Path) -> Site:
    settings = Settings(home=home)
    plain = Desk(settings)
    plain.ingest_sample("sotu")
    planted = home.parent / "planted.jsonl"
    planted.write_text(json.dumps(PLANTED) + "\n", encoding="utf-8")
    plain.ingest([planted])
    gate = threading.Event()
    gate.set()
    real = resolve_agents(settings, plain.embedder)
    answerer = GatedAnswerer(real.answerer, gate)
    agents = Agents(real.planner, answerer, real.auditor, real.teacher)  # type: ignore[arg-type]
    desk = Desk(settings, store=plain.store, embedder=plain.embedder, agents=agents)
    desk.workspace.people.add(EDITOR, PASSWORD, editor=True)
    return Site(desk, gate, answerer)
