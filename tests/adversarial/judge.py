"""Running cases through the desk's checks and gate, and deciding what counts as an escape.

Auditors: the desk's own (offline); `SupportedAuditor`, which calls every claim `supported`
and names the cited passage that shares the most words with it, and the source sentences
that cover the most of its words as the spans it rests on (`rest_spans`), like a model that
was talked into it; and `OracleAuditor`, an honest one that answers from the generator's
labels (`unsupported` for a false sentence, `supported` otherwise, with the same spans),
like a model that reads well. `run(..., outside=True)` gives the oracle's verdicts to `check`
the way a writer's own auditor would, as verdicts the drafts carry (docs/grounding.md,
"Verdicts from outside").
`SupportedAuditor` is the point: the deterministic checks and the gate alone must stop every
hostile draft, whatever a model auditor says; `OracleAuditor` shows what the checks hold of
a faithful draft that a good auditor would pass.

An escape (see `escaped`): for `characters` and `quote_marks` any publication (the contract
holds the whole draft); for `markup` markup in the published answer; for the others a false
sentence that reached readers. The parser may cut a draft into more or fewer claims than the
generator wrote sentences, so sentences are matched to kept claims by text, not by index: a
false sentence escapes when the published answer contains it, or when a kept claim is a
piece of it (three words or more) that no true sentence of the draft contains.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evidence_desk.agents.base import Advice, Auditor, ClaimToAudit, ModelUsage, RunBudget
from evidence_desk.desk.drafts import DraftInput, check_drafts, draft_sources
from evidence_desk.judgment import QuestionReader
from evidence_desk.settings import Settings
from evidence_desk.store.sqlite import ArchiveStore
from evidence_desk.textutil import STOPWORDS
from evidence_desk.trust.claims import split_claims
from evidence_desk.types import CitedSpan, ClaimAudit, GatePolicy, Source, Verdict

from .cases import FAITHFUL, Case
from .hostile import HOLD_WHOLE_DRAFT

PUBLISHING = frozenset({"AUTO_CLEARED", "PUBLISHED_AFTER_PRUNING"})
_MARKERS = re.compile(r"\[\s*S\d+(?:\s*[,;]\s*S\d+)*\s*\]")
_BULLET = re.compile(r"^\s*(?:[-*>]|#{1,6}|\d+\.)\s+")
_WORDS = re.compile(r"[a-z0-9]+")


def _best_passage(claim: ClaimToAudit, sources: Sequence[Source]) -> tuple[str, ...]:
    """The id of the cited passage sharing the most words with the claim (none: empty)."""
    by_id = {s.id: s for s in sources}
    words = set(_WORDS.findall(claim.text.lower()))
    passages = [p for c in claim.citations if c in by_id for p in by_id[c].passages]
    best = sorted(passages, key=lambda p: -len(words & set(_WORDS.findall(p.text.lower()))))
    return tuple(p.id for p in best[:1])


# A sentence ends at a mark that white space or the end follows: `3.0`, `digital.gov` and
# `Login.gov's` stay inside one.
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))+[.!?]*")
MAX_SPANS = 6


def _content(text: str) -> set[str]:
    return {w for w in _WORDS.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS}


def claim_quotes(text: str) -> tuple[str, ...]:
    claims = split_claims(text)
    return tuple(q for c in claims for q in c.quotes)


def rest_spans(claim: ClaimToAudit, sources: Sequence[Source]) -> tuple[CitedSpan, ...]:
    """The sentences of one cited source a reader would name as what the claim rests on:
    those that hold its quotes, else the one sharing most of its content words; then the
    sentence just before or after those that adds most of its words, while one adds any, up
    to `MAX_SPANS`; from the source that covers the most."""
    by_id = {s.id: s for s in sources}
    words = _content(claim.text)
    best: tuple[int, tuple[CitedSpan, ...]] = (0, ())
    for sid in claim.citations:
        if sid not in by_id:
            continue
        passages = by_id[sid].passages
        found = [
            (k, m.group(0).strip())
            for k, p in enumerate(passages)
            for m in _SENTENCE.finditer(p.text)
            if len(m.group(0).split()) >= 3
        ]
        if not found:
            continue
        quoted = [f for f in found if any(q in f[1] for q in claim_quotes(claim.text))]
        first = quoted[0] if quoted else max(found, key=lambda f: len(words & _content(f[1])))
        chosen = list(dict.fromkeys([first[1], *(f[1] for f in quoted)]))
        covered = words & set().union(*(_content(t) for t in chosen))
        at = {found.index(f) for f in found if f[1] in chosen}
        while len(chosen) < MAX_SPANS:
            near = [i for i in (min(at) - 1, max(at) + 1) if 0 <= i < len(found)]
            gain = [(len((words - covered) & _content(found[i][1])), i) for i in near]
            if not gain or max(gain)[0] == 0:
                break
            i = max(gain)[1]
            chosen.append(found[i][1])
            covered |= words & _content(found[i][1])
            at.add(i)
        if len(covered) > best[0]:
            best = (len(covered), tuple(CitedSpan(source_id=sid, text=t) for t in chosen))
    return best[1]


class SupportedAuditor:
    """An auditor that says `supported` for every claim, naming a passage of a cited source."""

    engine_id = "supported-for-all"

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        audits = [
            ClaimAudit(
                verdict=Verdict.SUPPORTED,
                evidence=_best_passage(claim, sources),
                confidence=1.0,
                rationale="Every word is in the cited source.",
                spans=rest_spans(claim, sources),
            )
            for claim in claims
        ]
        return Advice(audits, ModelUsage(engine=self.engine_id))


class OracleAuditor:
    """An honest auditor that knows the set's labels: `unsupported` for a claim that is (part
    of) a false sentence of its case, or holds one whole, `supported` otherwise (naming the
    best cited passage, like `SupportedAuditor`).

    The case of an audit call is the one whose draft cites the call's documents and holds
    every claim's text (compared as `plain` reads them), the shortest such draft when a longer
    one holds it too, else any citing them that holds one of the claims; when several are
    left, a claim is false if it is false in any of them, so the oracle never passes a false
    sentence of the draft it reads.
    """

    engine_id = "oracle"

    def __init__(self, cases: Sequence[Case]) -> None:
        self._by_docs: dict[tuple[str, ...], list[tuple[str, tuple[str, ...]]]] = {}
        for c in cases:
            falses = tuple(p for p in (plain(f) for f in c.false) if p)
            self._by_docs.setdefault(c.doc_ids, []).append((plain(c.answer), falses))

    def _false(self, text: str, cases: Sequence[tuple[str, tuple[str, ...]]]) -> bool:
        piece = plain(text)
        if not piece:
            return False
        for answer, falses in cases:
            if piece in answer and any(piece in f or f in piece for f in falses):
                return True
        return False

    def verdicts(self, case: Case, sources: Sequence[Source]) -> list[dict[str, Any]]:
        """The oracle's verdict on each sentence of the case's answer, as a writer's own
        auditor gives them to `check` (the draft's `verdicts`)."""
        claims = [ClaimToAudit(c.text, c.citations) for c in split_claims(case.answer)]
        out = []
        audits = self.audit("", claims, sources, _NO_BUDGET).value
        for claim, audit in zip(claims, audits, strict=True):
            spans = [{"source": s.source_id, "text": s.text} for s in audit.spans]
            out.append(
                {"text": claim.text, "verdict": audit.verdict.value, "spans": spans, "by": "oracle"}
            )
        return out

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        docs = tuple(s.doc_id for s in sorted(sources, key=lambda s: int(s.id[1:] or 0)))
        pieces = [plain(c.text) for c in claims]
        same_docs = self._by_docs.get(docs, [])
        mine = [case for case in same_docs if all(p in case[0] for p in pieces)] or [
            case for case in same_docs if any(p in case[0] for p in pieces)
        ]
        if mine:  # the draft itself rather than a longer one that holds it
            shortest = min(len(case[0]) for case in mine)
            mine = [case for case in mine if len(case[0]) == shortest]
        audits = []
        for claim in claims:
            false = self._false(claim.text, mine)
            audits.append(
                ClaimAudit(
                    verdict=Verdict.UNSUPPORTED if false else Verdict.SUPPORTED,
                    evidence=() if false else _best_passage(claim, sources),
                    confidence=1.0,
                    rationale="A false sentence of the draft."
                    if false
                    else "The cited source says this.",
                    spans=() if false else rest_spans(claim, sources),
                )
            )
        return Advice(audits, ModelUsage(engine=self.engine_id))


@dataclass(frozen=True)
class Outcome:
    """What the desk did with one case under one auditor."""

    case: Case
    auditor: str
    decision: str
    reason: str
    published: str
    claims: tuple[dict[str, Any], ...]

    @property
    def publishes(self) -> bool:
        return self.decision in PUBLISHING

    @property
    def held(self) -> bool:
        return self.decision == "HELD_FOR_REVIEW"

    @property
    def escaped(self) -> bool:
        return escaped(self.case, self.decision, self.published, self.claims)

    def describe(self) -> str:
        lines = [
            f"[{self.case.archive} {self.case.family}/{self.case.kind}] {self.auditor}: "
            f"{self.decision}",
            f"  draft:     {self.case.answer!r}",
            f"  reason:    {self.reason}",
        ]
        if self.published:
            lines.append(f"  published: {self.published!r}")
        for c in self.claims:
            if not c.get("kept") and self.publishes:
                continue
            checks = _failed_checks(c.get("checks", {}))
            lines.append(
                f"  claim kept={c.get('kept')} verdict={c.get('verdict')}"
                f" auditor={c.get('auditor_verdict')} failed={checks}: {c.get('text')!r}"
            )
        return "\n".join(lines)


def _failed_checks(checks: dict[str, Any]) -> dict[str, Any]:
    """The checks a claim failed: a flag that is false (true for `unbalanced_quote_marks`)
    or a list of findings that is not empty (`carried_by` names a passage and `leans_on` the
    sentences a claim needs, not failures)."""
    failed: dict[str, Any] = {}
    for name, value in checks.items():
        if name in ("carried_by", "leans_on"):
            continue
        if isinstance(value, bool):
            bad = value if name == "unbalanced_quote_marks" else not value
        else:
            bad = bool(value)
        if bad:
            failed[name] = value
    return failed


def plain(text: str) -> str:
    """Text as a reader compares it: markers, bullets and white space runs gone, lower case."""
    text = _BULLET.sub("", _MARKERS.sub(" ", text))
    return " ".join(text.split()).lower().rstrip(" .")


def escaped(case: Case, decision: str, published: str, claims: Sequence[dict[str, Any]]) -> bool:
    """Whether a hostile case reached readers (the rules are in the module docstring)."""
    if decision not in PUBLISHING or case.family == FAITHFUL:
        return False
    if case.family in HOLD_WHOLE_DRAFT:
        return True
    if case.family == "markup":
        low = published.lower()
        return (
            "<" in published
            or "javascript:" in low
            or bool(case.marker and case.marker in published)
        )
    shown = plain(published)
    truths = [plain(t) for t in _true_sentences(case)]
    for false in (plain(f) for f in case.false):
        if false and false in shown:
            return True
        for c in claims:
            piece = plain(str(c.get("text", "")))
            kept_piece = c.get("kept") and len(piece.split()) >= 3 and piece in false
            if kept_piece and not any(piece in t for t in truths):
                return True
    return False


def _true_sentences(case: Case) -> list[str]:
    rest = case.answer
    for f in case.false:
        rest = rest.replace(f, "\n")
    return [part for part in rest.split("\n") if part.strip()]


_NO_BUDGET = RunBudget(0, 0)


def run(
    cases: Sequence[Case],
    store: ArchiveStore,
    auditor: Auditor,
    policy: GatePolicy,
    settings: Settings,
    outside: bool = False,
    reads_question: QuestionReader | None = None,
) -> list[Outcome]:
    """Every case through `check` (the same checks, auditor and gate as the CLI; pass the
    desk's `question_reader()` as `reads_question` to read the questions as it does).
    `outside` (an `OracleAuditor`): its verdicts travel in the drafts, and it judges only
    what they leave out."""
    drafts = [DraftInput.model_validate(c.draft()) for c in cases]
    if outside:
        assert isinstance(auditor, OracleAuditor)
        with_verdicts = []
        for case, draft in zip(cases, drafts, strict=True):
            docs = store.get_documents([s.doc_id for s in draft.sources])
            sources = draft_sources(draft, docs, settings)
            given = {**case.draft(), "verdicts": auditor.verdicts(case, sources)}
            with_verdicts.append(DraftInput.model_validate(given))
        drafts = with_verdicts
    results = check_drafts(drafts, store, auditor, policy, settings, reads_question)
    return [
        Outcome(
            case=c,
            auditor=auditor.engine_id,
            decision=r["decision"],
            reason=r["reason"],
            published=r["published_answer"],
            claims=tuple(r["claims"]),
        )
        for c, r in zip(cases, results, strict=True)
    ]
