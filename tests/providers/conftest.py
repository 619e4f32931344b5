"""Fixtures for the provider tests: a tiny archive, and desks whose roles talk to local servers.

Each test starts a `FakeProvider` (fakes.py) on 127.0.0.1 speaking one protocol and points
the desk's engines at it through the SDKs' normal settings: `OPENAI_BASE_URL` and
`OPENAI_API_KEY` for OpenAI, `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY` for Anthropic, a
base URL after `@` for an OpenAI-compatible server. Pydantic AI's guard against real model
requests is lifted only here, and only these loopback servers ever answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from provider_helpers import DOCS, ENGINE, INJECTION, DeskFactory
from pydantic_ai.models import override_allow_model_requests

from evidence_desk.desk import Desk
from evidence_desk.retrieval.embedder import MiniLMEmbedder
from evidence_desk.settings import Settings
from evidence_desk.testing.fakeproviders import Protocol


def write_doc(folder: Path, name: str, title: str, date: str, text: str) -> None:
    """A markdown file with front matter, or for `*.jsonl` one JSONL record, whose text is
    stored exactly as written (markdown is rendered, which would drop tag look-alikes)."""
    stem = name.removesuffix(".md").removesuffix(".jsonl")
    url = f"https://example.org/{stem}"
    if name.endswith(".jsonl"):
        record = {"id": stem, "title": title, "date": date, "url": url, "text": text}
        (folder / name).write_text(json.dumps(record) + "\n", encoding="utf-8")
        return
    front = f"---\ntitle: {title}\ndate: {date}\nurl: {url}\n---\n\n"
    (folder / name).write_text(front + text + "\n", encoding="utf-8")


@pytest.fixture(autouse=True)
def _allow_local_model_requests() -> Iterator[None]:
    with override_allow_model_requests(True):
        yield


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


def _build(folder: Path, home: Path, embedder: MiniLMEmbedder, docs: list[tuple[str, ...]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, title, date, text in docs:
        write_doc(folder, name, title, date, text)
    desk = Desk(Settings(home=home, cache_dir=None, embed_workers=1), embedder=embedder)
    summary = desk.ingest([folder])
    assert summary.added == len(docs)
    return home


@pytest.fixture(scope="session")
def archive_home(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Path:
    root = tmp_path_factory.mktemp("provider-archive")
    docs = [(name, *fields) for name, fields in DOCS.items()]
    return _build(root / "docs", root / "home", embedder, docs)


@pytest.fixture(scope="session")
def injected_home(tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder) -> Path:
    """The same archive plus a document whose text gives the model orders."""
    root = tmp_path_factory.mktemp("provider-archive-injected")
    docs = [(name, *fields) for name, fields in DOCS.items()] + [INJECTION]
    return _build(root / "docs", root / "home", embedder, docs)


@pytest.fixture
def make_desk(
    archive_home: Path, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> DeskFactory:
    """`make_desk(protocol, base_url, home=..., **settings)`: a desk on the fake provider."""

    def make(protocol: Protocol, base_url: str, home: Path | None = None, **kw: Any) -> Desk:
        if protocol == "anthropic":
            monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-0000")
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", base_url)
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
        values: dict[str, Any] = {
            "home": home or archive_home,
            "cache_dir": None,
            "model": ENGINE[protocol],
            "model_backoff": 0.01,
            "model_timeout": 10.0,
        }
        values.update(kw)
        return Desk(Settings(**values), embedder=embedder)

    return make
