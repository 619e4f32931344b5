"""The typed outputs every model returns, and how each becomes the desk's own types.

These schemas are what a provider is asked to fill (as the arguments of one output tool)
and what the offline engine fills too. Validation errors (a malformed date, a quote the
claim does not contain) go back to the model as a retry prompt; anything that still fails
ends the stage.

The conversions are where a model's output is made safe to use, and they only ever make
things stricter:

* A plan's key terms are computed by code from the question, never taken from a model, and
  periods the question states are read by code too (`anchor_plan`), so a planner cannot
  loosen the coverage check.
* A draft is rendered from claims with the citations the model gave; a citation to a source
  that does not exist is kept as written, so the checks in `trust/` see it and hold. The
  words a claim says it rests on (`rests_on`) travel with the draft as its sentence's
  spans (`Draft.rests`), each with the first source the sentence cites whose passages hold
  it verbatim; a span none holds is dropped (`cited_spans`, the auditor's rule too).
* An audit gives every claim exactly one verdict: a claim the model skipped is
  `unsupported`; several verdicts for one claim keep the strictest. Evidence may name a
  passage (`doc#3`) or a source (`S1`, the form answers cite in); a source stands for its
  passages that share the most content terms with the claim (`source_evidence`). Ids that
  are neither are dropped, and a `supported` or `partial` verdict left without evidence
  from a source the claim cites becomes `unsupported`.

Every field is required in the JSON schema a model sees, with no defaults (`_Out`), so
OpenAI's strict mode is on for the output tools: Pydantic AI turns it on only for a
schema that is strict-compatible. A field that may be empty takes "", [] or null. The
Python models keep their defaults, so a server that does not enforce the schema and leaves
out an optional field still validates; every default is the empty value (no rationale,
no listed quotes, no window), which cannot make anything more lenient.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.config import JsonDict

from ..textutil import content_terms
from ..trust.claims import split_claims, strip_markers
from ..types import (
    CitedSpan,
    ClaimAudit,
    Draft,
    Plan,
    SentenceRest,
    Source,
    SubQuestion,
    TimeWindow,
    Verdict,
)
from .base import ClaimToAudit
from .offline.claimtext import QUOTE

MAX_QUERIES = 3
MAX_SUBQUESTIONS = 6
MAX_CLAIMS = 12

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MARKERS = re.compile(r"\s*\[(S\d+(?:\s*[,;]\s*S\d+)*)\]")
_END = re.compile(r"[.!?]+$")  # the final end marks, outside any quote
_STRICTNESS = {
    Verdict.SUPPORTED: 0,
    Verdict.PARTIAL: 1,
    Verdict.UNSUPPORTED: 2,
    Verdict.CONTRADICTED: 3,
}


def _every_field_required(schema: JsonDict) -> None:
    """Mark every property required and drop its default, as OpenAI's strict mode needs."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for prop in properties.values():
        if isinstance(prop, dict):
            prop.pop("default", None)
    schema["required"] = list(properties)


class _Out(BaseModel):
    # `extra="forbid"` writes `additionalProperties: false`; with every field required and
    # no default, OpenAI's schema transformer finds the schema strict-compatible, and Pydantic
    # AI sends `strict: true` for a tool whose own `strict` is unset (`ToolOutput` here).
    model_config = ConfigDict(extra="forbid", json_schema_extra=_every_field_required)


# --------------------------------------------------------------------------- plan


class WindowOut(_Out):
    """An inclusive period of dates."""

    # Docstrings of these models are sent to the model as schema descriptions. A window
    # that ends before it starts is accepted: it matches no document (the offline planner
    # writes one when a question's period and person do not overlap), so coverage stops.

    start: str = Field(description="First day, YYYY-MM-DD.")
    end: str = Field(description="Last day, YYYY-MM-DD (inclusive).")
    label: str = Field(description="How the question named this period, e.g. 'the 1930s'.")

    @model_validator(mode="after")
    def _valid_dates(self) -> WindowOut:
        for value in (self.start, self.end):
            if not _ISO_DATE.fullmatch(value):
                raise ValueError(f"'{value}' is not a date in the form YYYY-MM-DD.")
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"'{value}' is not a calendar date.") from None
        return self


class SubQuestionOut(_Out):
    text: str = Field(description="One self-contained sub-question.")
    window: WindowOut | None = Field(None, description="The period it is about, or null.")
    entity: str | None = Field(None, description="The person or name it is about, or null.")


class PlanOut(_Out):
    """A plan: what to search for, and in which periods."""

    kind: Literal["factoid", "temporal", "comparison"] = Field(
        description="factoid: one fact; temporal: about a period; comparison: two or more "
        "periods or people compared."
    )
    subquestions: list[SubQuestionOut] = Field(description="1 to 6 sub-questions.")
    time_windows: list[WindowOut] = Field(
        description="The periods the question is about; empty when it names none."
    )
    queries: list[str] = Field(description="1 to 3 short search queries for the archive.")

    @field_validator("subquestions")
    @classmethod
    def _some_subquestions(cls, value: list[SubQuestionOut]) -> list[SubQuestionOut]:
        if not value:
            raise ValueError("Give at least one sub-question.")
        return value[:MAX_SUBQUESTIONS]

    @field_validator("queries")
    @classmethod
    def _some_queries(cls, value: list[str]) -> list[str]:
        kept = [q.strip() for q in value if q.strip()]
        if not kept:
            raise ValueError("Give at least one non-empty search query.")
        return kept[:MAX_QUERIES]


def _window(w: WindowOut) -> TimeWindow:
    return TimeWindow(start=w.start, end=w.end, label=w.label)


def to_plan(out: PlanOut, key_terms: Sequence[str]) -> Plan:
    """The desk's plan; `key_terms` come from code, not from the model."""
    return Plan(
        subquestions=tuple(
            SubQuestion(
                text=sq.text.strip(),
                window=None if sq.window is None else _window(sq.window),
                entity=sq.entity,
            )
            for sq in out.subquestions
        ),
        time_windows=tuple(_window(w) for w in out.time_windows),
        queries=tuple(out.queries),
        key_terms=tuple(key_terms),
        kind=out.kind,
    )


def anchor_plan(model: Plan, code: Plan) -> Plan:
    """The plan a run uses: the model's, held to what code reads in the question.

    `code` is the rule-based plan of the same question. Its key terms always replace the
    model's. When code finds periods in the question (dates, decades, ranges, or people the
    archive knows, each with its period), its kind, sub-questions and windows are kept and
    the model contributes only its queries: a model cannot drop or widen a period the
    question states, so the coverage check that an empty period triggers stays in force.
    What code resolved in a follow-up (`resolved_question`, `resolved_from`,
    `resolved_subject`) is recorded either way; its key terms are the resolved question's.
    """
    if code.time_windows:
        return code.model_copy(update={"queries": model.queries or code.queries})
    resolved = code.model_dump(include={"resolved_question", "resolved_from", "resolved_subject"})
    return model.model_copy(update={"key_terms": code.key_terms, **resolved})


def plan_output(plan: Plan) -> PlanOut:
    """A plan as a model would return it (the offline engine's reply)."""

    def window(w: TimeWindow) -> WindowOut:
        return WindowOut(start=w.start, end=w.end, label=w.label)

    return PlanOut(
        kind=plan.kind,
        subquestions=[
            SubQuestionOut(
                text=sq.text,
                window=None if sq.window is None else window(sq.window),
                entity=sq.entity,
            )
            for sq in plan.subquestions
        ],
        time_windows=[window(w) for w in plan.time_windows],
        queries=list(plan.queries),
    )


# --------------------------------------------------------------------------- answer


class ClaimOut(_Out):
    text: str = Field(
        description="One sentence. Words copied from a source go in straight double quotes, "
        "exactly as the source has them. No [S#] markers here: use `citations`."
    )
    citations: list[str] = Field(description="The sources this sentence rests on: 'S1', 'S2'.")
    quotes: list[str] = Field(
        default_factory=list,
        description="Every quote in `text`, without its quote marks, exactly as in `text`; "
        "empty when it has none.",
    )
    rests_on: list[str] = Field(
        default_factory=list,
        description="The words of the cited passages this sentence rests on, each copied "
        "character for character (a sentence or a phrase).",
    )

    @model_validator(mode="after")
    def _quotes_in_text(self) -> ClaimOut:
        in_text = {m.group(1) or m.group(2) for m in QUOTE.finditer(self.text)}
        missing = [q for q in self.quotes if q not in in_text]
        if missing:
            raise ValueError(
                f"The quote '{missing[0][:80]}' is listed but `text` does not contain it "
                "between double quotes."
            )
        return self


class AnswerOut(_Out):
    """An answer as claims, each citing its sources."""

    claims: list[ClaimOut] = Field(
        description="The answer, one sentence per claim, at most 12. Empty when the sources "
        "do not answer the question."
    )

    @field_validator("claims")
    @classmethod
    def _bounded(cls, value: list[ClaimOut]) -> list[ClaimOut]:
        if len(value) > MAX_CLAIMS:
            raise ValueError(f"Give at most {MAX_CLAIMS} claims.")
        return value


def claim_sentence(claim: ClaimOut) -> str:
    """One claim as a draft sentence: its text with its citation markers before the end mark.

    Markers the model wrote into the text itself are moved into the marker list (ids in
    order, once each); anything else in brackets stays and is read by `trust/` as written.
    """
    cited = [c.strip() for c in claim.citations if c.strip()]
    for m in _MARKERS.finditer(claim.text):
        cited.extend(part.strip() for part in re.split(r"[,;]", m.group(1)))
    body = " ".join(_MARKERS.sub("", claim.text).split())
    ids = list(dict.fromkeys(" ".join(re.sub(r"[\[\]]", " ", i).split()) for i in cited))
    if not ids:
        return body
    if all(re.fullmatch(r"S\d+", i) for i in ids):
        markers = " [" + ", ".join(ids) + "]"
    else:  # a malformed id stays visible as its own marker, which `trust/` rejects
        markers = " " + "".join(f"[{i}]" for i in ids)
    end = _END.search(body)
    if end is not None:
        return body[: end.start()] + markers + body[end.start() :]
    return body + markers


def answer_output(draft: Draft) -> AnswerOut:
    """A prose draft as a model would return it (the offline engine's reply).

    Quotes stay in the text, where the checks read them; the optional `quotes` list is left
    empty rather than re-derived.
    """
    claims = split_claims(draft.text)
    return AnswerOut(claims=[ClaimOut(text=c.text, citations=list(c.citations)) for c in claims])


def to_draft(out: AnswerOut, sources: Sequence[Source] = ()) -> Draft:
    """The draft the checks read: one paragraph per claim, in order, with the words each
    sentence rests on (`draft_of`); `sources` are the ones the answerer was given."""
    return draft_of(out.claims, sources)


def draft_of(claims: Sequence[ClaimOut], sources: Sequence[Source] = ()) -> Draft:
    """One paragraph per claim, in order, and each sentence's spans (`Draft.rests`).

    A blank line always ends a sentence, so a claim that starts in lower case never merges
    with the one before it; a claim written as two sentences still splits into two, and
    the second, without a citation, fails its checks. A claim's `rests_on` goes with each
    sentence it renders to, mapped onto the sources that sentence cites (`cited_spans`).
    """
    by_id = {s.id: s for s in sources}
    paragraphs: list[str] = []
    rests: list[SentenceRest] = []
    for claim in claims:
        paragraph = claim_sentence(claim)
        if not paragraph:
            continue
        paragraphs.append(paragraph)
        for sentence in split_claims(paragraph) if claim.rests_on else ():
            spans = cited_spans(claim.rests_on, sentence.citations, by_id)
            if spans:
                rests.append(SentenceRest(text=sentence.text, spans=spans))
    return Draft(text="\n\n".join(paragraphs), rests=tuple(rests))


# --------------------------------------------------------------------------- audit


class VerdictOut(_Out):
    claim: int = Field(description="The claim's number as listed (1 for the first).")
    verdict: Literal["supported", "partial", "unsupported", "contradicted"]
    evidence: list[str] = Field(
        description="Ids of what supports or contradicts the claim: passage ids as listed "
        "(<passage id=...>) or source ids ('S1'); empty when nothing does."
    )
    rationale: str = Field("", description="One short sentence: why (may be empty).")
    rests_on: list[str] = Field(
        default_factory=list,
        description="For a supported claim: the words of the cited passages it rests on, "
        "each copied character for character (a sentence or a phrase).",
    )


class AuditOut(_Out):
    """One verdict per claim."""

    verdicts: list[VerdictOut]


def to_audits(
    out: AuditOut, claims: Sequence[ClaimToAudit], sources: Sequence[Source]
) -> list[ClaimAudit]:
    """Exactly one verdict per claim, never more lenient than the model's (see module doc)."""
    passage_source = {p.id: s.id for s in sources for p in s.passages}
    by_id = {s.id: s for s in sources}
    chosen: dict[int, VerdictOut] = {}
    for v in out.verdicts:
        if not 1 <= v.claim <= len(claims):
            continue
        held = chosen.get(v.claim)
        if held is None or _STRICTNESS[Verdict(v.verdict)] > _STRICTNESS[Verdict(held.verdict)]:
            chosen[v.claim] = v
    audits = []
    for number, claim in enumerate(claims, start=1):
        found = chosen.get(number)
        if found is None:
            audits.append(
                ClaimAudit(verdict=Verdict.UNSUPPORTED, rationale="The auditor gave no verdict.")
            )
            continue
        v = found
        evidence = _evidence(v.evidence, claim, passage_source, by_id)
        verdict = Verdict(v.verdict)
        rationale = v.rationale.strip()
        backed = any(passage_source[e] in claim.citations for e in evidence)
        if verdict in (Verdict.SUPPORTED, Verdict.PARTIAL) and not backed:
            verdict = Verdict.UNSUPPORTED
            rationale = (
                f"The auditor said {v.verdict} without naming a passage or source the claim cites."
            )
        supported = verdict == Verdict.SUPPORTED
        spans = cited_spans(v.rests_on, claim.citations, by_id) if supported else ()
        audits.append(
            ClaimAudit(verdict=verdict, evidence=evidence, rationale=rationale, spans=spans)
        )
    return audits


def cited_spans(
    texts: Sequence[str], citations: Sequence[str], by_id: Mapping[str, Source]
) -> tuple[CitedSpan, ...]:
    """Each named span (at most 16) with the first of `citations` whose passages hold it
    verbatim (the paraphrase tier checks it again); a span none holds is left out."""
    out: list[CitedSpan] = []
    for text in (t.strip() for t in texts[:16]):
        sid = next(
            (c for c in citations if c in by_id and any(text in p.text for p in by_id[c].passages)),
            None,
        )
        if text and sid is not None:
            out.append(CitedSpan(source_id=sid, text=text))
    return tuple(out)


def _evidence(
    ids: Sequence[str],
    claim: ClaimToAudit,
    passage_source: dict[str, str],
    by_id: dict[str, Source],
) -> tuple[str, ...]:
    """A verdict's evidence as passage ids of the run, in order, once each.

    A passage id is kept; a source id (`S1`, or `[S1]` as a marker) becomes that source's
    passages for this claim (`source_evidence`), whether or not the claim cites it: the
    cited-source rule in `to_audits` judges the result. Anything else is dropped.
    """
    kept: list[str] = []
    for raw in ids:
        name = raw.strip()
        if name in passage_source:
            kept.append(name)
        elif (src := by_id.get(name.strip("[]").strip())) is not None:
            kept.extend(source_evidence(src, claim.text))
    return tuple(dict.fromkeys(kept))


def source_evidence(source: Source, claim_text: str) -> tuple[str, ...]:
    """The passages of `source` that an `S#` evidence id stands for, for one claim.

    The grounding contract asks one passage to carry a whole sentence, so the candidates
    are the passages sharing the most content terms (stemmed, stop words left out) with the
    claim's text, all of them when several tie; when none shares a term, every passage.
    Which passages are chosen changes only the evidence a receipt lists, never a verdict:
    the cited-source rule looks at the source, and the gate at the deterministic checks.
    """
    terms = set(content_terms(strip_markers(claim_text)))
    shared = [(p.id, len(terms.intersection(content_terms(p.text)))) for p in source.passages]
    best = max((n for _, n in shared), default=0)
    return tuple(pid for pid, n in shared if n == best)


def audit_output(audits: Sequence[ClaimAudit]) -> AuditOut:
    """Audits as a model would return them (the offline engine's reply)."""
    return AuditOut(
        verdicts=[
            VerdictOut(
                claim=i,
                verdict=a.verdict.value,
                evidence=list(a.evidence),
                rationale=a.rationale,
                rests_on=[span.text for span in a.spans],
            )
            for i, a in enumerate(audits, start=1)
        ]
    )
