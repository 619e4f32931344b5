"""The child process the ledger's crash tests kill with SIGKILL (`test_providers_ledger.py`).

A forked child imports this module by name to find its target, so it imports nothing from
the tests' `conftest` files (in a child, `conftest` is whichever comes first on the path).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from pydantic_ai.models import override_allow_model_requests

from evidence_desk.agents.base import ModelUsage
from evidence_desk.desk import Desk
from evidence_desk.runs.ledger import StoredLedger
from evidence_desk.settings import Settings
from evidence_desk.testing.embedder import HashingEmbedder

ENGINE = "openai:gpt-4.1-mini"
QUESTION = "When was the Erie Canal opened?"


def provider_desk(home: Path, base_url: str, executor: str = "stages", **more: Any) -> Desk:
    """A desk on `home` (embedded with `HashingEmbedder`) whose roles call `base_url`;
    `more`: further settings (an illustrator, a spend cap)."""
    os.environ["OPENAI_BASE_URL"] = base_url
    os.environ["OPENAI_API_KEY"] = "sk-test-key-0000"
    settings = Settings(
        home=home,
        cache_dir=None,
        embed_workers=1,
        model=ENGINE,
        model_backoff=0.01,
        model_timeout=10.0,
        executor=executor,
        **more,
    )
    return Desk(settings, embedder=HashingEmbedder())


def ingested_home(root: Path) -> Path:
    """`root/home`: a desk on the provider tests' tiny archive (`provider_helpers.DOCS`)."""
    from provider_helpers import DOCS, write_docs

    home = root / "home"
    added = provider_desk(home, "http://127.0.0.1:9").ingest([write_docs(root / "docs")]).added
    assert added == len(DOCS)
    return home


def _die(*_: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def ask_until(home: Path, base_url: str, executor: str, kind: str, role: str) -> None:
    """Ask `QUESTION` and die by SIGKILL when `role`'s reply has come back (`call_received`,
    before the ledger records it) or has been recorded (`call_recorded`, before its stage is
    stored)."""
    desk = provider_desk(home, base_url, executor)
    if kind == "call_recorded":
        desk.executor.on_call_recorded = lambda key: _die() if key.startswith(role) else None
    else:
        record = StoredLedger.record

        def lost(
            self: StoredLedger, key: str, r: str, usage: ModelUsage, output: str | None
        ) -> None:
            if r == role:
                _die()
            record(self, key, r, usage, output)

        StoredLedger.record = lost  # type: ignore[method-assign]
    with override_allow_model_requests(True):
        desk.ask(QUESTION)
