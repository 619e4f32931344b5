"""Checking answers written elsewhere (`evidence-desk check FILE`).

A draft is `{"question", "answer", "sources": [{"id": "S1", "doc_id": "..."}]}`; a file
holds one JSON draft or a JSONL file of drafts. Each draft goes through the same
deterministic checks, the same auditor and the same gate as the desk's own answers,
against the archive's stored text. Two differences, by necessity: there is no retrieval, so
coverage is not evaluated; and there are no selected passages, so each cited document's
whole stored text counts as its passage (a number must appear somewhere in the document).
A source whose doc_id the archive does not hold does not exist for the checks: any claim
citing it is held.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .agents.base import AgentFailure, Auditor, ClaimToAudit, RunBudget
from .archive.chunking import chunk
from .runs.selection import source_of
from .settings import Settings
from .store.sqlite import ArchiveStore
from .trust import gate
from .trust.checks import EvidenceSource, check_draft
from .types import ClaimAudit, Document, GatePolicy, Source, Verdict


class DraftFileError(ValueError):
    """A draft file that cannot be used, with the place that broke it."""


class DraftSource(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^S[1-9][0-9]*$")
    doc_id: str = Field(min_length=1)


class DraftInput(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    question: str = ""
    answer: str = Field(min_length=1)
    sources: list[DraftSource]


def _parse_one(obj: Any, where: str) -> DraftInput:
    try:
        draft = DraftInput.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "draft"
        raise DraftFileError(f"{where}: {loc}: {first['msg']}.") from exc
    ids = [s.id for s in draft.sources]
    if len(set(ids)) != len(ids):
        raise DraftFileError(f"{where}: sources: the same id is listed twice.")
    return draft


def read_drafts(path: Path) -> list[DraftInput]:
    """One JSON object (or a list of them) or JSONL; every line or item must be valid."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DraftFileError(f"Cannot read {path}: {exc}.") from exc
    if not text.strip():
        raise DraftFileError(f"{path} is empty.")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        return [_parse_one(whole, str(path))]
    if isinstance(whole, list):
        return [_parse_one(obj, f"{path}[{i}]") for i, obj in enumerate(whole)]
    drafts = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DraftFileError(f"{path}:{lineno}: not JSON ({exc.msg}).") from exc
        drafts.append(_parse_one(obj, f"{path}:{lineno}"))
    return drafts


def _sources(draft: DraftInput, docs: dict[str, Document], settings: Settings) -> list[Source]:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = []
    for ds in draft.sources:
        doc = docs.get(ds.doc_id)
        if doc is None:
            continue
        passages = chunk(doc, settings.passage_words, settings.passage_max_words)
        out.append(source_of(ds.id, doc, [(p, 0.0) for p in passages], now))
    return out


def check_one(
    draft: DraftInput,
    store: ArchiveStore,
    auditor: Auditor,
    policy: GatePolicy,
    settings: Settings,
) -> dict[str, Any]:
    docs = store.get_documents([s.doc_id for s in draft.sources])
    sources = _sources(draft, docs, settings)
    evidence = {
        s.id: EvidenceSource(
            id=s.id,
            doc_id=s.doc_id,
            text=docs[s.doc_id].text,
            passages=(docs[s.doc_id].text,),
            metadata=tuple(m for m in (s.title, s.date, s.url, *docs[s.doc_id].meta.values()) if m),
        )
        for s in sources
    }
    checked = check_draft(draft.answer, evidence)
    budget = RunBudget(settings.max_model_calls, settings.max_model_tokens)
    failure: str | None = None
    try:
        audits = auditor.audit(
            draft.question, [ClaimToAudit(c.text, c.citations) for c in checked], sources, budget
        ).value
    except AgentFailure as exc:  # no verdict: every claim unsupported, so the gate holds
        failure = exc.reason
        audits = [ClaimAudit(verdict=Verdict.UNSUPPORTED, rationale=exc.reason) for _ in checked]
    claims, outcome = gate.decide(checked, audits, None, policy)
    if failure is not None:
        outcome = outcome.model_copy(update={"reason": f"{failure} Nothing was published."})
    return {
        "question": draft.question,
        "decision": outcome.decision.value,
        "reason": outcome.reason,
        "published_answer": outcome.published_answer,
        "claims": [c.model_dump(mode="json") for c in claims],
        "quotes": [q.model_dump(mode="json") for c in claims for q in c.quotes],
        "sources": [
            {"id": s.id, "doc_id": s.doc_id, "in_archive": s.doc_id in docs} for s in draft.sources
        ],
        "policy": policy.model_dump(mode="json"),
        "auditor": auditor.engine_id,
        "failure": failure,
    }


def check_drafts(
    drafts: Sequence[DraftInput],
    store: ArchiveStore,
    auditor: Auditor,
    policy: GatePolicy,
    settings: Settings,
) -> list[dict[str, Any]]:
    return [check_one(d, store, auditor, policy, settings) for d in drafts]
