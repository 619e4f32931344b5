"""Sources beyond the archive as the desk provides them: web search, safe fetch, reading,
attached files and stored snapshots, all built from `Settings`.

`DeskWeb.parts()` is what a run gets (`runs/effects.py`'s `WebParts`); `fetch_report` reads one
URL through exactly the same fetch, reader and passage selection for `evidence-desk fetch`,
storing nothing; `attach` reads a reader's file into a snapshot a run can cite; `snapshot`
re-opens what a run read (`evidence-desk sources show`).
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..clock import Clock, iso_us
from ..errors import DeskError
from ..retrieval.embedder import Embedder
from ..runs.effects import WebLimits, WebParts
from ..settings import Settings
from ..sources.fetch import Fetcher, FetchPolicy
from ..sources.netguard import FetchRefused
from ..sources.passages import default_scorers, select_passages
from ..sources.pool import pool_evidence, source_meta
from ..sources.reading import ReadLimits, ReadRefused, read_page
from ..sources.search import SearchFailed, SearchProvider, search_provider
from ..store.protocol import Store
from ..store.snapshots import Snapshot, Snapshots, snapshot_id_of
from ..types import Document

MAX_ATTACHMENT_BYTES = 20_000_000
ATTACHMENT_TYPES = {
    ".pdf": "application/pdf",
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "application/xhtml+xml",
    ".txt": "text/plain",
    ".text": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
}


@dataclass(frozen=True)
class FetchReport:
    """What `evidence-desk fetch URL` found: the page as it would become a source, or the
    refusal and its reason."""

    url: str
    refused: str | None = None
    page: dict[str, Any] = field(default_factory=dict)
    passages: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        if self.refused is not None:
            return {"url": self.url, "refused": True, "reason": self.refused}
        return {"url": self.url, "refused": False, **self.page, "passages": self.passages}


class DeskWeb:
    """The desk's web parts over one store (see the module docstring)."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder, clock: Clock) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.clock = clock

    @cached_property
    def snapshots(self) -> Snapshots:
        return self.store.snapshots_on(self.clock)

    @cached_property
    def fetcher(self) -> Fetcher:
        s = self.settings
        policy = FetchPolicy(
            max_bytes=s.fetch_max_bytes,
            max_redirects=s.fetch_max_redirects,
            total_seconds=s.fetch_seconds,
            ports=tuple(s.fetch_ports),
            allow_loopback=s.fetch_allow_loopback,
        )
        return Fetcher(policy, clock=self.clock)

    @cached_property
    def provider(self) -> SearchProvider | None:
        s = self.settings
        key = s.api_key.get_secret_value() if s.api_key is not None else None
        try:
            return search_provider(s.search_provider, api_key=key)
        except SearchFailed as exc:
            raise DeskError(str(exc)) from None

    def read(self, body: bytes, content_type: str, doc_id: str, url: str) -> Document:
        return read_page(body, content_type, doc_id=doc_id, url=url, limits=ReadLimits())

    def similarity(self, question: str, texts: Sequence[str]) -> list[float]:
        """Cosine of the question to each text, by the archive's own embedder."""
        q = self.embedder.embed_query(question)
        m = self.embedder.embed(list(texts))
        return [round(float(x), 6) for x in np.asarray(m) @ np.asarray(q)]

    def parts(self) -> WebParts:
        s = self.settings
        return WebParts(
            provider=self.provider,
            fetch=self.fetcher.fetch,
            read=self.read,
            snapshots=self.snapshots,
            similarity=self.similarity,
            embedder=self.embedder,
            limits=WebLimits(
                pages_quick=s.web_pages_quick,
                pages_deep=s.web_pages_deep,
                results_per_search=s.web_results_per_search,
                budget_tokens=s.evidence_pool_tokens,
            ),
        )

    # ------------------------------------------------------------------ one page

    def fetch_report(self, url: str, question: str | None = None) -> FetchReport:
        """Fetch and read `url` as a run would, and select its passages for `question`
        (without one, for the page's own title); nothing is stored."""
        try:
            page = self.fetcher.fetch(url)
        except FetchRefused as refused:
            return FetchReport(url, refused=refused.reason)
        snapshot_id = snapshot_id_of(page.final_url, page.sha256)
        try:
            doc = self.read(page.body, page.content_type_header, snapshot_id, page.final_url)
        except ReadRefused as refused:
            return FetchReport(url, refused=str(refused))
        scorer, window_scorer = default_scorers(self.embedder)
        selection = select_passages(
            doc.text,
            question or doc.title,
            doc_id=doc.doc_id,
            scorer=scorer,
            window_scorer=window_scorer,
        )
        pool = pool_evidence([selection], [source_meta(doc)], self.settings.evidence_pool_tokens)
        shown = {p.id for s in pool.sources for p in s.passages}
        meta = source_meta(doc)
        return FetchReport(
            url,
            page={
                "final_url": page.final_url,
                "redirects": [h.url for h in page.hops[:-1]],
                "content_type": page.content_type,
                "title": doc.title,
                "site": meta.site or meta.domain,
                "author": doc.meta.get("author"),
                "date": doc.date,
                "retrieved_at": page.retrieved_at,
                "snapshot_id": snapshot_id,
                "body_sha256": page.sha256,
                "content_sha256": doc.content_sha256,
                "bytes": len(page.body),
                "text_chars": len(doc.text),
                "pages": len(doc.pages),
                "pool": {"budget_tokens": pool.budget_tokens, "used_tokens": pool.used_tokens},
            },
            passages=[
                {
                    "id": p.id,
                    "start": p.start,
                    "end": p.end,
                    "score": p.score,
                    "text": p.text,
                    "quote": p.quotation.text,
                }
                for p in selection.best_first()
                if p.id in shown
            ],
        )

    # ------------------------------------------------------------------ attachments

    def attach(self, path: Path) -> str:
        """Read a reader's file into a snapshot of its own (not into the shared archive) and
        return its id, which `Desk.ask(attachments=...)` makes a source of that run."""
        try:
            if path.stat().st_size > MAX_ATTACHMENT_BYTES:
                raise DeskError(f"{path.name} is larger than {MAX_ATTACHMENT_BYTES // 10**6} MB.")
            body = path.read_bytes()
        except OSError as exc:
            raise DeskError(f"Cannot read {path}: {exc.strerror}.") from None
        return self.attach_bytes(path.name, body)

    def attach_bytes(self, file_name: str, body: bytes) -> str:
        """`attach` for a file's name and bytes (the workspace's upload control)."""
        name = Path(file_name).name or "attachment"  # never a path: a name to show
        content_type = ATTACHMENT_TYPES.get(Path(name).suffix.lower())
        if content_type is None:
            guessed = mimetypes.guess_type(name)[0] or "of an unknown type"
            raise DeskError(f"{name} is {guessed}; attach PDF, HTML, plain text or markdown files.")
        if len(body) > MAX_ATTACHMENT_BYTES:
            raise DeskError(f"{name} is larger than {MAX_ATTACHMENT_BYTES // 10**6} MB.")
        sha = hashlib.sha256(body).hexdigest()
        where = f"file:{name}"
        snapshot_id = snapshot_id_of(where, sha, "upload")
        try:
            doc = self.read(body, content_type, snapshot_id, where)
        except ReadRefused as refused:
            raise DeskError(f"{name} cannot be attached: {refused}") from None
        if doc.title == snapshot_id or not doc.title.strip():
            doc = doc.model_copy(update={"title": name})
        doc = doc.model_copy(update={"origin": "upload", "url": None})
        self.snapshots.put(
            Snapshot(
                snapshot_id=snapshot_id,
                url=where,
                final_url=where,
                origin="upload",
                content_type=content_type,
                charset=None,
                body_sha256=sha,
                body=body,
                retrieved_at=iso_us(self.clock()),
                fetch={"file_name": name, "bytes": len(body)},
                document=doc,
            )
        )
        return snapshot_id

    def snapshot(self, snapshot_id: str) -> Snapshot:
        snap = self.snapshots.get(snapshot_id)
        if snap is None:
            raise DeskError(f"No stored source {snapshot_id!r}; ids look like web-… or upload-….")
        return snap
