"""Checking answers written elsewhere (`evidence-desk check FILE`).

A draft is `{"question", "answer", "sources": [{"id": "S1", "doc_id": "..."}]}`; a file
holds one JSON draft, a JSON list of drafts, or JSONL. A draft may also carry its writer's
own verdicts (`verdicts`: for a sentence of the answer, a verdict, the spans of the sources
it rests on and who judged it; docs/grounding.md, "Verdicts from outside"). They stand in
for the desk's auditor on the sentences they name, and are advice exactly as its verdicts
are: every check still runs, and the paraphrase tier still checks every anchor against the
spans. Each draft goes through the one judgment the desk's own answers get (`judgment.py`:
the same checks, auditor and gate), against the archive's current stored text. Two
differences, by necessity: there is no retrieval, so coverage is not evaluated; and there
are no selected passages, so every passage of each cited document counts (the same
sentence-aligned windows the archive is chunked into), and a sentence must still be carried
by one of them (the grounding contract, docs/grounding.md).
In place of coverage, `check` reads the question against the passages that carry the
draft (`question_reader`): a draft that answers another question than the one it gives, of
another time or another subject, is held for review, never cleared.
A source whose doc_id the archive does not hold does not exist for the checks: any claim
citing it is held.

An invalid draft in a list or a JSONL file is read as an `InvalidDraft` in its place and
the others are still checked, so one bad line does not hide the answers around it; only a
file that cannot be read as drafts at all is an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..agents.base import Advice, Auditor, ClaimToAudit, ModelUsage, RunBudget
from ..archive.chunking import chunk
from ..errors import DeskError
from ..judgment import QuestionReader, judge
from ..retrieval.coverage import ArchiveStats, SubjectRule, dated_in, unanswered
from ..runs.retrieve import reach_windows, text_dates_into
from ..runs.selection import source_of
from ..settings import Settings
from ..store.protocol import Store
from ..trust.checks import CheckedClaim
from ..trust.claims import split_claims, strip_markers
from ..types import (
    CitedSpan,
    ClaimAudit,
    Document,
    GatePolicy,
    Plan,
    Source,
    TimeWindow,
    Verdict,
)


class DraftFileError(DeskError, ValueError):
    """A draft file that cannot be used at all (unreadable, empty, neither JSON nor JSONL)."""


@dataclass(frozen=True)
class InvalidDraft:
    """One draft of a file that cannot be checked, in its place; the others still are.

    `message` starts with the place (`drafts.jsonl:3: not JSON (...)`); exactly one of
    `line` (JSONL, from 1) and `index` (a JSON list, from 0) is set.
    """

    message: str
    line: int | None = None
    index: int | None = None

    def to_json(self) -> dict[str, Any]:
        """What `check --json` prints in this draft's place: `decision` null marks it."""
        place = {"line": self.line} if self.line is not None else {"index": self.index}
        return {**place, "error": self.message, "decision": None}


class DraftSource(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^S[1-9][0-9]*$")
    doc_id: str = Field(min_length=1)


class DraftSpan(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(pattern=r"^S[1-9][0-9]*$")
    text: str = Field(min_length=1, max_length=4000)


class DraftVerdict(BaseModel):
    """The writer's own verdict on a sentence of the answer (`text`, as written; citation
    markers may be left in or out)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1, max_length=20_000)
    verdict: Verdict
    spans: list[DraftSpan] = Field(default_factory=list, max_length=16)
    by: str = Field("draft", min_length=1, max_length=120)
    rationale: str = Field("", max_length=2000)

    def sentences(self) -> list[str]:
        """The sentences of `text`, split as an answer is and without citation markers."""
        return [_plain(c.text) for c in split_claims(self.text)]

    def audit(self) -> ClaimAudit:
        spans = tuple(CitedSpan(source_id=s.source, text=s.text) for s in self.spans)
        return ClaimAudit(
            verdict=self.verdict,
            evidence=tuple(dict.fromkeys(s.source for s in self.spans)),
            rationale=self.rationale,
            spans=spans,
            by=self.by,
        )


def _plain(text: str) -> str:
    return " ".join(strip_markers(text).split())


class DraftInput(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    question: str = ""
    answer: str = Field(min_length=1)
    sources: list[DraftSource]
    verdicts: list[DraftVerdict] = Field(default_factory=list, max_length=500)

    def verdict_for(self, claim_text: str) -> DraftVerdict | None:
        """The writer's verdict on a sentence of the answer: the first whose text is that
        sentence or holds it among its sentences (a writer may split coarser than the desk;
        a sentence whose words are only part of another is not that one)."""
        plain = _plain(claim_text)
        return next((v for v in self.verdicts if plain and plain in v.sentences()), None)


class OutsideVerdicts:
    """The auditor a draft with its own verdicts is judged with: the draft's verdict for each
    sentence it names, the desk's `inner` auditor for the others."""

    def __init__(self, inner: Auditor, draft: DraftInput) -> None:
        self._inner, self._draft = inner, draft
        self.engine_id = f"{inner.engine_id} + the draft's verdicts"

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        given = [self._draft.verdict_for(c.text) for c in claims]
        left = [c for c, v in zip(claims, given, strict=True) if v is None]
        if not left:
            return Advice([v.audit() for v in given if v is not None], ModelUsage(self.engine_id))
        advice = self._inner.audit(question, left, sources, budget)
        theirs = iter(advice.value)
        audits = [v.audit() if v is not None else next(theirs) for v in given]
        return Advice(audits, advice.usage)


def _parse_one(
    obj: Any, where: str, *, line: int | None = None, index: int | None = None
) -> DraftInput | InvalidDraft:
    try:
        draft = DraftInput.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "draft"
        return InvalidDraft(f"{where}: {loc}: {first['msg']}.", line, index)
    ids = [s.id for s in draft.sources]
    if len(set(ids)) != len(ids):
        return InvalidDraft(f"{where}: sources: the same id is listed twice.", line, index)
    sentences = [_plain(c.text) for c in split_claims(draft.answer)]
    for k, v in enumerate(draft.verdicts):
        if not any(s and s in v.sentences() for s in sentences):
            return InvalidDraft(
                f"{where}: verdicts.{k}.text: not a sentence of the answer.", line, index
            )
        unknown = sorted({s.source for s in v.spans} - set(ids))
        if unknown:
            return InvalidDraft(
                f"{where}: verdicts.{k}.spans: {unknown[0]} is not one of the draft's sources.",
                line,
                index,
            )
    return draft


def read_drafts(path: Path) -> list[DraftInput | InvalidDraft]:
    """The drafts of a file in file order, each parsed or an `InvalidDraft` saying why not.

    A file holds one JSON draft, a JSON list of drafts, or JSONL (one draft per line). A bad
    item of a list or line of JSONL does not stop the others; a file that cannot be used at
    all (unreadable, empty, neither JSON nor JSONL, one invalid draft) raises
    `DraftFileError`.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DraftFileError(f"Cannot read {path}: {exc}.") from exc
    if not text.strip():
        raise DraftFileError(f"{path} is empty.")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as exc:
        return _read_jsonl(path, text, exc)
    if isinstance(whole, dict):
        draft = _parse_one(whole, str(path))
        if isinstance(draft, InvalidDraft):
            raise DraftFileError(draft.message)
        return [draft]
    if isinstance(whole, list):
        return [_parse_one(obj, f"{path}[{i}]", index=i) for i, obj in enumerate(whole)]
    raise DraftFileError(f"{path} holds a single JSON value that is neither a draft nor a list.")


def _read_jsonl(
    path: Path, text: str, whole_error: json.JSONDecodeError
) -> list[DraftInput | InvalidDraft]:
    # Lines end at "\n" only: `str.splitlines` also breaks at U+2028, U+2029 and U+0085,
    # which JSON allows unescaped inside strings.
    drafts: list[DraftInput | InvalidDraft] = []
    any_json = False
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.removesuffix("\r")
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            drafts.append(InvalidDraft(f"{path}:{number}: not JSON ({exc.msg}).", line=number))
            continue
        any_json = True
        drafts.append(_parse_one(obj, f"{path}:{number}", line=number))
    if not any_json:  # not one line is JSON: the file is no JSONL, and not JSON either
        raise DraftFileError(
            f"{path} is neither JSON nor JSONL ({whole_error.msg} at line "
            f"{whole_error.lineno}, column {whole_error.colno})."
        )
    return drafts


def draft_sources(draft: DraftInput, docs: dict[str, Document], settings: Settings) -> list[Source]:
    """The draft's sources the archive holds, each with every passage of its document (the
    archive's own chunking); a source whose document is not in `docs` is left out."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = []
    for ds in draft.sources:
        doc = docs.get(ds.doc_id)
        if doc is None:
            continue
        passages = chunk(doc, settings.passage_words, settings.passage_max_words)
        out.append(source_of(ds.id, doc, [(p, 0.0) for p in passages], now))
    return out


def reaching(reach_days: int) -> Callable[[Source, TimeWindow], bool]:
    """Whether a source dates what it says in a window: its own date is inside, or, for a
    window of at most a month, it is dated in the `reach_days` after it and one of its
    passages dates a sentence into it against its date (`In early April, ...` on August
    28: the runs' `reach_windows` and `dates_into`)."""

    def dates(source: Source, window: TimeWindow) -> bool:
        if dated_in(source, window):
            return True
        tails = reach_windows([window], reach_days)
        return any(dated_in(source, t) for t in tails) and any(
            text_dates_into(p.text, source.date, [window]) for p in source.passages
        )

    return dates


def question_reader(
    plan: Callable[[str], Plan],
    stats: ArchiveStats,
    rule: SubjectRule,
    reach_days: int = 0,
) -> QuestionReader:
    """What `check` reads a draft's question with (`retrieval.coverage.unanswered`): the
    question's plan (`plan`, the offline planner's, so code decides) against the cited
    sources with only the passages that carry a sentence of the draft; when none carries
    one, against the whole of each cited document. A draft with no question is not read.
    A later source may date what it says into a short window (`reaching`)."""
    dates = reaching(reach_days)

    def read(
        question: str, checked: Sequence[CheckedClaim], sources: Sequence[Source]
    ) -> str | None:
        if not question.strip():
            return None
        ids = {pid for c in checked for pid in c.checks.carried_by}
        carrying = [
            s.model_copy(update={"passages": tuple(p for p in s.passages if p.id in ids)})
            for s in sources
        ]
        carrying = [s for s in carrying if s.passages] or list(sources)
        return unanswered(question, plan(question), carrying, stats, rule, dates)

    return read


def check_one(
    draft: DraftInput,
    store: Store,
    auditor: Auditor,
    policy: GatePolicy,
    settings: Settings,
    reads_question: QuestionReader | None = None,
) -> dict[str, Any]:
    """One draft through the one judgment (`judgment.judge`), as `check --json` prints it."""
    docs = store.get_documents([s.doc_id for s in draft.sources])
    sources = draft_sources(draft, docs, settings)
    texts = {s.id: docs[s.doc_id].text for s in sources}
    budget = RunBudget(settings.max_model_calls, settings.max_model_tokens)
    if draft.verdicts:
        auditor = OutsideVerdicts(auditor, draft)
    judged = judge(
        draft.answer, draft.question, sources, texts, auditor, budget, None, policy, reads_question
    )
    claims, outcome = judged.claims, judged.outcome
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
        "failure": judged.failure.reason if judged.failure is not None else None,
    }


def check_drafts(
    drafts: Sequence[DraftInput],
    store: Store,
    auditor: Auditor,
    policy: GatePolicy,
    settings: Settings,
    reads_question: QuestionReader | None = None,
) -> list[dict[str, Any]]:
    return [check_one(d, store, auditor, policy, settings, reads_question) for d in drafts]
