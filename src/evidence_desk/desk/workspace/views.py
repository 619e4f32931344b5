"""What a reader or editor is shown of a run, built from its stored receipts as plain values.

Nothing here renders HTML: the views hold text, and the templates escape every piece of it
(source text and answers are data). A sentence is split into text and `[S#]` citation
segments so a page can link each citation to its source; a source's passages are split at
the recorded offsets of each verbatim quote and of each stretch a published paraphrase rests
on (`checks.rests_on`), so a page highlights exactly what the receipt says was quoted and
what a sentence in other words stands on. Each published sentence carries its tier
(`checks.tier`: verbatim, extractive, paraphrase; None in receipts written before tiers).

What a reader sees follows the receipts alone: the gate's published answer; for a held run,
an editor's approval (the held draft, published with the editor's name and time in a new
signed receipt), or the edited draft's answer when the edit passed the same gate.

A held draft is for the standards desk alone (`docs/web.md`, "What a reader sees of a held
run"): a reader downloads only the receipts that hold no unpublished draft
(`reader_receipts`), and sees a held run's sources only once something of it is published.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from .passages import Piece, first_rests, pieces

CITATION = re.compile(r"\[(S\d+)\]")

Segment = tuple[Literal["text", "cite"], str]


def segments(sentence: str) -> list[Segment]:
    """`sentence` as text pieces and `[S#]` citations, in order."""
    out: list[Segment] = []
    at = 0
    for m in CITATION.finditer(sentence):
        if m.start() > at:
            out.append(("text", sentence[at : m.start()]))
        out.append(("cite", m.group(1)))
        at = m.end()
    if at < len(sentence):
        out.append(("text", sentence[at:]))
    return out


@dataclass(frozen=True)
class SourceCard:
    id: str
    doc_id: str
    title: str
    date: str | None
    url: str | None
    publisher: str
    origin: str
    retrieved_at: str
    content_sha256: str
    final_url: str | None = None
    author: str | None = None
    snapshot_sha256: str | None = None


@dataclass(frozen=True)
class PassageView:
    """A passage split at its quotes and resting stretches: pieces covering it exactly."""

    id: str
    number: int
    start: int
    end: int
    score: float
    pieces: tuple[Piece, ...]

    @property
    def has_quote(self) -> bool:
        return any(p.quoted for p in self.pieces)

    @property
    def has_rest(self) -> bool:
        return any(p.rests for p in self.pieces)


@dataclass(frozen=True)
class SourceView:
    card: SourceCard
    passages: tuple[PassageView, ...]
    quotes: tuple[dict[str, Any], ...]
    queries: tuple[str, ...]
    rests: tuple[dict[str, Any], ...] = ()  # `rests_on` stretches of this source, with `number`


@dataclass(frozen=True)
class SentenceTier:
    """How a published sentence is carried (`checks.tier`, None before tiers), its number
    as shown (`shown_claims`), the source a paraphrase rests on (whose page marks
    `#rests-N`), and who named the words it rests on when not its auditor (`spans_by`:
    `answerer`, the answer's writer through its citations)."""

    tier: str | None = None
    number: int = 0
    source_id: str | None = None
    spans_by: str = ""


@dataclass(frozen=True)
class Published:
    """What readers see of a run: who published it, when, and its sentences."""

    by: Literal["gate", "editor", "edit"]
    sentences: tuple[tuple[Segment, ...], ...]
    text: str
    editor: str | None = None
    at: str | None = None
    receipt_run_id: str | None = None
    tiers: tuple[SentenceTier, ...] = ()  # one per sentence

    @property
    def lines(self) -> tuple[tuple[tuple[Segment, ...], SentenceTier], ...]:
        """Each sentence with its tier (an empty one where none is recorded)."""
        tiers = self.tiers + (SentenceTier(),) * (len(self.sentences) - len(self.tiers))
        return tuple(zip(self.sentences, tiers, strict=False))


@dataclass(frozen=True)
class AnswerView:
    run_id: str
    question: str
    decision: str
    reason: str
    published: Published | None
    sources: tuple[SourceCard, ...]
    rejected: str | None = None
    receipts: tuple[str, ...] = ()
    coverage_note: str | None = None
    stages: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    diversity: str | None = None  # the web sources' publishers and domains, with the caveat
    not_read: tuple[tuple[str, str], ...] = ()  # (URL, reason) of each page a run did not read

    @property
    def outside(self) -> bool:
        return self.decision == "OUTSIDE_COVERAGE"

    @property
    def cited(self) -> frozenset[str]:
        """The source ids the published sentences cite (none while nothing is published)."""
        if self.published is None:
            return frozenset()
        return frozenset(v for s in self.published.sentences for kind, v in s if kind == "cite")

    @property
    def held(self) -> bool:
        return self.decision == "HELD_FOR_REVIEW" and self.published is None


def publisher_of(url: str | None, names: Any) -> str:
    """Who published a source: its URL's host, else the first of its names."""
    if url:
        host = urlsplit(url).hostname or ""
        if host:
            return host.removeprefix("www.")
    if isinstance(names, list | tuple) and names:
        return str(names[0])
    return ""


def card(source: dict[str, Any]) -> SourceCard:
    return SourceCard(
        id=source["id"],
        doc_id=source["doc_id"],
        title=source.get("title") or source["doc_id"],
        date=source.get("date"),
        url=source.get("url"),
        publisher=source.get("site") or publisher_of(source.get("url"), source.get("names")),
        origin=source.get("origin", "archive"),
        retrieved_at=source.get("retrieved_at", ""),
        content_sha256=source.get("content_sha256", ""),
        final_url=source.get("final_url") if source.get("final_url") != source.get("url") else None,
        author=source.get("author"),
        snapshot_sha256=source.get("snapshot_sha256"),
    )


def shown_claims(receipt: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The claims a receipt's pages show, numbered from 1 as they are shown: the kept ones
    of an answer the gate published (or an edit that passed it); every one of a draft an
    editor approved (published word for word) or the desk still holds (only editors see
    it, and they review all of it; the gate keeps nothing of a held draft)."""
    review = receipt.get("review") or {}
    every = review.get("action") == "approved" or not receipt.get("published_answer")
    claims = receipt.get("claims", [])
    return list(enumerate((c for c in claims if every or c.get("kept")), start=1))


def _rests_on(claim: dict[str, Any]) -> list[dict[str, Any]]:
    """The located stretches a paraphrased claim rests on (none for another tier)."""
    checks = claim.get("checks") or {}
    if checks.get("tier") != "paraphrase":
        return []
    return [
        q
        for q in checks.get("rests_on", ())
        if q.get("verbatim") and q.get("start") is not None and q.get("end") is not None
    ]


def _tier_of(n: int, claim: dict[str, Any]) -> SentenceTier:
    tier = (claim.get("checks") or {}).get("tier")
    rests = _rests_on(claim)
    cited = rests[0].get("source_id") if rests else next(iter(claim.get("citations", ())), None)
    if tier != "paraphrase":
        return SentenceTier(tier, n)
    return SentenceTier(tier, n, cited, str(claim.get("spans_by") or ""))


def published_of(receipt: dict[str, Any]) -> Published | None:
    """What one receipt publishes: the gate's answer, or an editor's approval."""
    review = receipt.get("review") or {}
    approved = review.get("action") == "approved"
    if not approved and not receipt.get("published_answer"):
        return None
    claims = shown_claims(receipt)
    by: Literal["gate", "editor", "edit"] = (
        "editor" if approved else "edit" if review.get("action") == "edited" else "gate"
    )
    return Published(
        by,
        tuple(tuple(segments(c["text"])) for _, c in claims),
        str(review.get("published_answer", "")) if approved else receipt["published_answer"],
        editor=review.get("editor"),
        at=review.get("reviewed_at"),
        receipt_run_id=receipt["run_id"],
        tiers=tuple(_tier_of(n, c) for n, c in claims),
    )


def reader_receipts(receipt: dict[str, Any], later: list[dict[str, Any]]) -> tuple[str, ...]:
    """The ids of the receipts a reader may download, oldest first: every receipt that holds
    no unpublished draft. A held receipt's draft is unpublished unless an editor approved
    it, which publishes every sentence of it word for word; an edit publishes its own draft,
    so the held one stays with the desk."""
    approved = any((r.get("review") or {}).get("action") == "approved" for r in later)
    return tuple(
        r["run_id"]
        for r in (receipt, *later)
        if r.get("decision") != "HELD_FOR_REVIEW" or published_of(r) is not None or approved
    )


def answer_view(
    receipt: dict[str, Any],
    later: list[dict[str, Any]],
    *,
    rejected: str | None = None,
    coverage_note: str | None = None,
) -> AnswerView:
    """A run's answer from its receipt and the review receipts that followed it (oldest
    first): the newest one that publishes wins."""
    published = published_of(receipt)
    shown = receipt
    for r in later:
        p = published_of(r)
        if p is not None:
            published, shown = p, r
    return AnswerView(
        run_id=receipt["run_id"],
        question=receipt["question"],
        decision=receipt["decision"],
        reason=receipt["reason"],
        published=published,
        sources=tuple(card(s) for s in shown.get("sources", [])),
        rejected=rejected if published is None else None,
        receipts=(receipt["run_id"], *(r["run_id"] for r in later)),
        coverage_note=coverage_note,
        stages=tuple(receipt.get("stages", [])),
        diversity=(receipt.get("web") or {}).get("diversity") or None,
        not_read=tuple(
            (str(f.get("url", "")), str(f.get("reason") or ""))
            for f in (receipt.get("web") or {}).get("fetches", [])
            if f.get("outcome") != "read"
        ),
    )


def source_view(receipt: dict[str, Any], source_id: str) -> SourceView | None:
    """One source of a receipt with its numbered passages, its quotes highlighted, and the
    stretches the receipt's shown paraphrased sentences rest on (`shown_claims`)."""
    source = next((s for s in receipt.get("sources", []) if s["id"] == source_id), None)
    if source is None:
        return None
    quotes = tuple(
        q
        for q in receipt.get("quotes", [])
        if q.get("source_id") == source_id and q.get("verbatim") and q.get("start") is not None
    )
    rests = tuple(
        {**q, "number": n}
        for n, c in shown_claims(receipt)
        for q in _rests_on(c)
        if q.get("source_id") == source_id
    )
    spans = [(int(q["start"]), int(q["end"])) for q in quotes]
    rested = [(int(q["start"]), int(q["end"]), int(q["number"])) for q in rests]
    found = source.get("passages", [])
    cut = first_rests([pieces(p["text"], p["start"], spans, rested) for p in found])
    passages = tuple(
        PassageView(
            id=p["id"],
            number=n,
            start=p["start"],
            end=p["end"],
            score=float(p.get("score", 0.0)),
            pieces=cut[n - 1],
        )
        for n, p in enumerate(found, start=1)
    )
    return SourceView(card(source), passages, quotes, tuple(source.get("queries", ())), rests)


def _problems(claim: dict[str, Any]) -> list[str]:
    """Every check a claim failed, and the auditor's doubt, each as a phrase an editor reads."""
    checks = claim.get("checks", {})
    problems: list[str] = []
    if not checks.get("has_citation", True):
        problems.append("cites no source")
    if checks.get("unknown_citations"):
        problems.append(
            "cites sources that do not exist: " + ", ".join(checks["unknown_citations"])
        )
    elif not checks.get("citations_exist", True):
        problems.append("cites a source that does not exist (a malformed source marker)")
    for q in claim.get("quotes", []):
        if not q.get("verbatim"):
            problems.append(f"the quote “{q.get('text', '')}” is not verbatim in its source")
    if checks.get("unmatched_numbers"):
        problems.append(
            "numbers or dates not in the cited passages: " + ", ".join(checks["unmatched_numbers"])
        )
    if checks.get("model_directed_sources"):
        problems.append(
            "cited source text gives orders to a model: "
            + ", ".join(checks["model_directed_sources"])
        )
    problems.extend(str(g) for g in checks.get("grounding", ()))
    if checks.get("hidden_characters"):
        problems.append(
            "invisible, direction-changing or look-alike characters: "
            + "; ".join(checks["hidden_characters"])
        )
    if checks.get("markup"):
        problems.append("markup outside the quotes: " + "; ".join(checks["markup"]))
    if checks.get("unbalanced_quote_marks"):
        problems.append("a quotation mark without its partner")
    # the auditor's own verdict (the effective one is capped by the failed checks above)
    auditor = claim.get("auditor_verdict") or ("" if problems else claim.get("verdict", ""))
    if auditor and auditor != "supported":
        by = claim.get("audited_by")
        problems.append(
            f"the verdict given by {by} (not the run's auditor) found it {auditor}"
            if by
            else f"the auditor found it {auditor}"
        )
    return problems


def tier_word(claim: dict[str, Any], version: int | None) -> str | None:
    """How a claim is carried, in an editor's words: its tier, or `not carried` when the
    grounding contract gave reasons or the receipt records tiers (version 3 on); None when
    an older receipt does not say."""
    checks = claim.get("checks") or {}
    if checks.get("tier"):
        return str(checks["tier"])
    if checks.get("grounding") or (version is None or version >= 3):
        return "not carried"
    return None


def held_reasons(receipt: dict[str, Any]) -> list[dict[str, Any]]:
    """Why a held run was held, sentence by sentence: which sentence, quote and check, how
    it is carried (its tier; a paraphrase's anchors and the words it rests on) and who gave
    the verdict when the run's auditor did not. Claims given without their receipt (an
    edit's outcome) are checked now, so they record tiers."""
    version = int(receipt.get("receipt_version", 1)) if "run_id" in receipt else None
    return [
        {
            "number": n,
            "text": claim.get("text", ""),
            "segments": segments(claim.get("text", "")),
            "verdict": claim.get("verdict", ""),
            "auditor_verdict": claim.get("auditor_verdict", claim.get("verdict", "")),
            "audited_by": str(claim.get("audited_by") or ""),
            "evidence": list(claim.get("evidence", [])),
            "problems": _problems(claim),
            "kept": bool(claim.get("kept")),
            "tier": tier_word(claim, version),
            "anchors": list((claim.get("checks") or {}).get("anchors", ())),
            "rests_on": _rests_on(claim),
            "spans_by": str(claim.get("spans_by") or ""),
            "not_word_for_word": list((claim.get("checks") or {}).get("extractive", ())),
        }
        for n, claim in enumerate(receipt.get("claims", []), start=1)
    ]
