"""Runs a question set through the desk and scores it (`contracts/questions.md`).

Per question: the decision, the published answer, whether any `answer_any` string is in the
published answer (case-insensitive), whether each gold evidence string lies inside a
selected passage of its gold document, the cited documents, latency, model calls, archive
searches and tokens.
The summary: the mode the questions ran in (`quick` or `deep`), answer accuracy on
answerable questions, evidence recall, abstention precision and recall, published quotes
that are verbatim, published answers that carry source markup (readers must see text as
rendered), how answers read (the median words of a published answer, and the share of
its sentences that are a bare quote behind a title: `Title (1941): "..." [S1].`),
decision counts, latency p50/p95, model calls, searches and tokens.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..trust.claims import split_claims, strip_markers
from ..trust.text import find_verbatim
from ..types import Decision, Receipt
from .questions import Question

PUBLISHING = {Decision.AUTO_CLEARED, Decision.PUBLISHED_AFTER_PRUNING}

# Source markup a reader should never see in an answer: markdown links and images, reference
# links, emphasis markers, template shortcodes, HTML tags and character entities, code ticks.
SOURCE_MARKUP = re.compile(
    r"\]\(|\]\[|\{\{|\{%|\*\*|__|(?<![\w*])\*(?=\w)|<[A-Za-z/!?]"
    r"|&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});|`"
)


def source_markup(text: str) -> list[str]:
    """The pieces of source markup in `text`, in order."""
    return [m.group(0) for m in SOURCE_MARKUP.finditer(text)]


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence; 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100.0 * len(ordered))))
    return ordered[rank - 1]


def evidence_hits(q: Question, r: Receipt, doc_text: Callable[[str], str | None]) -> list[bool]:
    """For each gold evidence string: is it inside a selected passage of a gold document?"""
    hits: list[bool] = []
    for ev in q.gold_evidence:
        found = False
        for doc_id in q.gold_doc_ids:
            text = doc_text(doc_id)
            span = find_verbatim(ev, text) if text is not None else None
            if span is None:
                continue
            for src in r.sources:
                if src.doc_id == doc_id and any(
                    p.start <= span[0] and span[1] <= p.end for p in src.passages
                ):
                    found = True
        hits.append(found)
    return hits


_BARE_QUOTE = re.compile(r'^(?P<lead>[^"“”]*)["“](?P<quote>[^"“”]+)["”]\W*$')


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text).lower().split())


def title_prefixed(sentence: str, titles: Sequence[str]) -> bool:
    """Whether a published sentence is one quote behind a cited source's title (and a date
    in parentheses): the form an answer takes when it does not yet read as prose."""
    m = _BARE_QUOTE.match(strip_markers(sentence).strip())
    if m is None:
        return False
    lead = _plain(re.sub(r"\([^()]*\)", " ", m.group("lead")))
    return bool(lead) and any(lead == _plain(t) for t in titles)


def answer_shape(r: Receipt) -> tuple[int, int, int]:
    """(words, sentences, sentences that are a bare quote behind a title) of the published
    answer; markers are not words."""
    titles = {s.id: s.title for s in r.sources}
    sentences = split_claims(r.published_answer)
    bare = sum(
        title_prefixed(c.text, [titles[i] for i in c.citations if i in titles]) for c in sentences
    )
    return len(strip_markers(r.published_answer).split()), len(sentences), bare


def score_question(
    q: Question, r: Receipt, latency_ms: float, doc_text: Callable[[str], str | None]
) -> dict[str, Any]:
    published = r.decision in PUBLISHING
    answer = r.published_answer.lower()
    found = any(a.lower() in answer for a in q.answer_any) if q.answerable else None
    ev_hits = evidence_hits(q, r, doc_text) if q.answerable else []
    kept = [c for c in r.claims if c.kept]
    by_id = {s.id: s.doc_id for s in r.sources}
    quotes = [qt for c in kept for qt in c.quotes]
    n_words, n_sentences, bare = answer_shape(r) if published else (0, 0, 0)
    return {
        "id": q.id,
        "kind": q.kind,
        "question": q.question,
        "decision": r.decision.value,
        "reason": r.reason,
        "published_answer": r.published_answer,
        "answer_found": found,
        "evidence_covered": ev_hits,
        "cited_doc_ids": sorted({by_id[c] for cl in kept for c in cl.citations if c in by_id}),
        "source_doc_ids": [s.doc_id for s in r.sources],
        "published_quotes": len(quotes) if published else 0,
        "published_quotes_verbatim": sum(qt.verbatim for qt in quotes) if published else 0,
        "published_markup": source_markup(r.published_answer) if published else [],
        "published_words": n_words,
        "published_sentences": n_sentences,
        "title_prefixed_sentences": bare,
        "latency_ms": round(latency_ms, 2),
        "model_calls": r.usage.model_calls,
        "searches": len(r.searches),
        "input_tokens": r.usage.input_tokens,
        "output_tokens": r.usage.output_tokens,
        "run_id": r.run_id,
    }


def summarize(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    answerable = [i for i in items if i["kind"] != "out_of_coverage"]
    ooc = [i for i in items if i["kind"] == "out_of_coverage"]
    abstained = [i for i in items if i["decision"] == Decision.OUTSIDE_COVERAGE.value]
    evidence = [h for i in answerable for h in i["evidence_covered"]]
    quotes = sum(i["published_quotes"] for i in items)
    verbatim = sum(i["published_quotes_verbatim"] for i in items)
    published_values = {d.value for d in PUBLISHING}
    latencies = [float(i["latency_ms"]) for i in items]
    words = [float(i["published_words"]) for i in items if i.get("published_words")]

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "questions": len(items),
        "answerable": len(answerable),
        "out_of_coverage": len(ooc),
        "answer_accuracy": ratio(sum(bool(i["answer_found"]) for i in answerable), len(answerable)),
        "evidence_recall": ratio(sum(evidence), len(evidence)),
        "abstention_precision": ratio(
            sum(i["kind"] == "out_of_coverage" for i in abstained), len(abstained)
        ),
        "abstention_recall": ratio(
            sum(i["decision"] == Decision.OUTSIDE_COVERAGE.value for i in ooc), len(ooc)
        ),
        "out_of_coverage_published": sum(i["decision"] in published_values for i in ooc),
        "published_quotes": quotes,
        "published_quotes_verbatim_rate": ratio(verbatim, quotes),
        "published_answers_with_markup": sum(bool(i.get("published_markup")) for i in items),
        "words_per_answer_p50": round(percentile(words, 50), 1) if words else None,
        "title_prefixed_share": ratio(
            sum(int(i.get("title_prefixed_sentences", 0)) for i in items),
            sum(int(i.get("published_sentences", 0)) for i in items),
        ),
        "decisions": dict(sorted(Counter(i["decision"] for i in items).items())),
        "by_kind": {
            kind: ratio(sum(bool(i["answer_found"]) for i in group), len(group))
            for kind in ("factoid", "temporal", "comparison")
            if (group := [i for i in answerable if i["kind"] == kind])
        },
        "latency_ms_p50": round(percentile(latencies, 50), 2),
        "latency_ms_p95": round(percentile(latencies, 95), 2),
        "model_calls": sum(int(i["model_calls"]) for i in items),
        "searches": sum(int(i.get("searches", 0)) for i in items),
        "input_tokens": sum(int(i["input_tokens"]) for i in items),
        "output_tokens": sum(int(i["output_tokens"]) for i in items),
    }


def evaluate(
    questions: Sequence[Question],
    ask: Callable[[str, str], Receipt],
    doc_text: Callable[[str], str | None],
    *,
    mode: str = "quick",
) -> dict[str, Any]:
    """Each question asked as `ask(question, mode)` and scored; the summary names the mode."""
    items = []
    for q in questions:
        t0 = time.perf_counter()
        receipt = ask(q.question, mode)
        items.append(score_question(q, receipt, (time.perf_counter() - t0) * 1000.0, doc_text))
    return {"summary": {"mode": mode, **summarize(items)}, "items": items}
