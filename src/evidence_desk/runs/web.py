"""The run's stages beyond the archive: discover (web search) and read (fetch, read, select).

**discover** asks the search provider: Quick mode one search, Deep mode up to three, the
third aimed at a gap the archive's evidence left (key terms no archive passage holds) or,
when there is none, at counter-evidence. The queries are the plan's own, so they keep the
reader's setting and terms; the code, not a model, adds the third one's words.

**read** fetches the proposed pages (at most `WebLimits.pages_quick` or `pages_deep`,
one after another) through the safe fetch, reads each in the limited child process, and
stores what it read as a snapshot; the question's attached files are read from their
snapshots. Each page then gets its passages selected (`sources/passages.py`) and all pages
share one evidence pool (`sources/pool.py`). The pages become the run's web sources,
numbered after the archive's by the select stage, and judged by the same coverage, checks,
auditor and gate.

A refused or failed search or fetch is recorded with its one-sentence reason and never
stops the run. Every search and fetch is an external effect recorded under an idempotency
key made from what it asks (`effects.WebParts`, which does and records them): a run
resumed after a kill in the middle of either stage reads each recorded effect back (the
search's results, the fetch's snapshot) instead of doing it again, so no page is fetched
twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..agents.base import ModelUsage
from ..sources.passages import PageSelection, default_scorers, select_passages
from ..sources.pool import Pool, pool_evidence, source_meta
from ..sources.search import WebResult
from ..store.snapshots import Effect, Snapshot
from ..textutil import stem, stem_terms
from ..types import (
    DisplayQuote,
    Document,
    Hit,
    Passage,
    Plan,
    ScoredPassage,
    Search,
    Source,
    WebDrop,
    WebEvidence,
    WebFetch,
)
from .deps import Deps, Step
from .effects import WebParts
from .state import RunState, WebCandidate

COUNTER_WORDS = "criticism OR disputed"


# --------------------------------------------------------------------------- discover


def web_queries(
    question: str, plan: Plan, mode: str, archive_hits: Iterable[Hit]
) -> list[tuple[str, str]]:
    """(query, aim) of the run's web searches (see the module docstring). Deep mode's
    second search is the plan's second query, else the reader's question as written; its
    third adds to the first the key terms neither the archive's passages nor that query
    hold (a gap), or, when there are none, asks for counter-evidence."""
    asked = " ".join(question.split())
    base = [q.strip() for q in plan.queries if q.strip()] or [asked]
    if mode != "deep":
        return [(base[0], "web:plan")]
    out = [(q, "web:plan") for q in base[:2]]
    if len(out) < 2:
        out.append((asked, "web:question"))
    held = set().union(*(stem_terms(h.passage.text) for h in archive_hits))
    held |= set(stem_terms(base[0]))
    missing = [t for t in plan.key_terms if stem(t.lower()) not in held]
    if missing:
        out.append((f"{base[0]} {' '.join(missing)}", "web:gap"))
    else:
        out.append((f"{base[0]} {COUNTER_WORDS}", "web:counter"))
    unique: dict[str, tuple[str, str]] = {}
    for query, aim in out:
        unique.setdefault(query.casefold(), (query, aim))
    return list(unique.values())


def _round_robin(lists: Sequence[Sequence[WebCandidate]]) -> list[WebCandidate]:
    """Each search's first result, then each one's second, ...; each URL once."""
    out: dict[str, WebCandidate] = {}
    for rank in range(max((len(x) for x in lists), default=0)):
        for results in lists:
            if rank < len(results) and results[rank].url not in out:
                out[results[rank].url] = results[rank]
    return list(out.values())


def discover_stage(state: RunState, deps: Deps) -> Step:
    web = deps.web
    if web is None or web.provider is None:
        return Step({"searches": state.searches, "web_results": ()}, "read")
    archive_hits = [h for side in state.hits or () for h in side]
    plan = state.plan or Plan(subquestions=(), queries=())
    searches = list(state.searches or ())
    found: list[list[WebCandidate]] = []
    usage: ModelUsage | None = None
    for query, aim in web_queries(state.question, plan, state.mode, archive_hits):
        effect = web.search(state.run_id, query, deps.budget)
        cost = effect.detail.get("usage")
        if isinstance(cost, dict):
            # No price table covers the search tool's fee: the spend is unknown (None).
            one = ModelUsage(
                engine=str(cost.get("engine", web.provider_name)),
                calls=1,
                input_tokens=int(cost.get("input_tokens", 0)),
                output_tokens=int(cost.get("output_tokens", 0)),
                spend_usd=None,
            )
            usage = one if usage is None else usage + one
        results = [WebResult(**r) for r in effect.detail.get("results", [])]
        searches.append(
            Search(
                query=query,
                aim=aim,
                hits=len(results),
                engine=web.provider_name,
                error=effect.detail.get("reason"),
            )
        )
        found.append(
            [
                WebCandidate(
                    url=r.url, title=r.title, snippet=r.snippet, query=query, engine=r.engine
                )
                for r in results
            ]
        )
    updates = {"searches": tuple(searches), "web_results": tuple(_round_robin(found))}
    return Step(updates, "read", usage)


# --------------------------------------------------------------------------- read


@dataclass(frozen=True)
class _Read:
    """A page or attachment read for this run, and the query that proposed it."""

    document: Document
    snapshot: Snapshot
    query: str


def _fetch_record(candidate: WebCandidate, effect: Effect) -> WebFetch:
    outcome = "read" if effect.outcome == "done" else effect.outcome
    return WebFetch(
        url=candidate.url,
        query=candidate.query,
        outcome=outcome,
        reason=effect.detail.get("reason"),
        final_url=effect.detail.get("final_url"),
        snapshot_id=effect.snapshot_id,
        redirects=int(effect.detail.get("redirects") or 0),
    )


def _attached(web: WebParts, state: RunState) -> tuple[list[_Read], list[WebFetch]]:
    reads: list[_Read] = []
    fetches: list[WebFetch] = []
    for snapshot_id in state.attachments:
        snap = web.snapshots.get(snapshot_id)
        if snap is None or snap.document is None:
            reason = "The attached file could not be read." if snap else "The attachment is gone."
            fetches.append(WebFetch(url=snapshot_id, outcome="failed", reason=reason))
            continue
        reads.append(_Read(snap.document, snap, ""))
        fetches.append(
            WebFetch(
                url=snap.url, outcome="read", final_url=snap.final_url, snapshot_id=snapshot_id
            )
        )
    return reads, fetches


def _source(read: _Read, number: int, pooled: Sequence[ScoredPassage]) -> Source:
    doc, snap = read.document, read.snapshot
    meta = source_meta(doc)
    fetched = snap.origin == "web"  # an attached file has a name, no URL
    return Source(
        id=f"W{number}",
        doc_id=doc.doc_id,
        title=doc.title,
        date=doc.date,
        url=snap.url if fetched else None,
        final_url=snap.final_url if fetched else None,
        site=meta.site or meta.domain,
        author=doc.meta.get("author"),
        names=tuple(n for n in (doc.meta.get("author"), meta.site) if n),
        origin="web" if fetched else "upload",
        retrieved_at=snap.retrieved_at,
        content_sha256=doc.content_sha256,
        snapshot_sha256=snap.body_sha256,
        passages=tuple(pooled),
        queries=(read.query,) if read.query else (),
    )


def _evidence(
    web: WebParts, fetches: Sequence[WebFetch], pool: Pool, selections: Sequence[PageSelection]
) -> WebEvidence:
    shown = {p.id for s in pool.sources for p in s.passages}
    quotes = tuple(
        DisplayQuote(
            passage_id=p.id, text=p.quotation.text, start=p.quotation.start, end=p.quotation.end
        )
        for sel in selections
        for p in sel.passages
        if p.id in shown and p.quotation.text
    )
    return WebEvidence(
        provider=web.provider_name,
        fetches=tuple(fetches),
        drops=tuple(
            WebDrop(doc_id=d.doc_id, passage_id=d.passage_id, reason=d.reason, detail=d.detail)
            for d in pool.drops
        ),
        quotes=quotes,
        budget_tokens=pool.budget_tokens,
        used_tokens=pool.used_tokens,
        publishers=pool.diversity.publishers,
        domains=pool.diversity.domains,
        diversity=pool.diversity.summary if pool.sources else "",
    )


def read_stage(state: RunState, deps: Deps) -> Step:
    web = deps.web
    if web is None:
        return Step({"web": None, "web_sources": (), "web_hits": ()}, "select")
    reads, fetches = _attached(web, state)
    limits = web.limits
    most = limits.pages_deep if state.mode == "deep" else limits.pages_quick
    # One page at a time: each fetch is recorded before the next one starts, so a run killed
    # between two fetches has no fetch in flight, and its resume fetches no page twice
    # (fetching several at once was faster and lost that: the in-flight ones went again).
    for candidate in (state.web_results or ())[:most]:
        effect, snap = web.read_url(state.run_id, candidate.url)
        fetches.append(_fetch_record(candidate, effect))
        if effect.outcome == "done" and snap is not None and snap.document is not None:
            reads.append(_Read(snap.document, snap, candidate.query))
    unique: dict[str, _Read] = {}
    for read in reads:  # a page proposed twice (or attached and found) is one source
        unique.setdefault(read.document.doc_id, read)
    reads = list(unique.values())
    plan_queries = tuple(state.plan.queries) if state.plan else ()
    terms = [state.question, *plan_queries]
    scorer, window_scorer = default_scorers(web.embedder)
    selections = [
        select_passages(
            r.document.text,
            terms,
            doc_id=r.document.doc_id,
            scorer=scorer,
            window_scorer=window_scorer,
        )
        for r in reads
    ]
    pool = pool_evidence(selections, [source_meta(r.document) for r in reads], limits.budget_tokens)
    by_doc = {s.meta.doc_id: s for s in pool.sources}
    texts = [p.text for s in pool.sources for p in s.passages]
    cosines = iter(web.similarity(state.question, texts) if web.similarity and texts else [])
    sources: list[Source] = []
    hits: list[Hit] = []
    for read in reads:
        pooled = by_doc.get(read.document.doc_id)
        if pooled is None:
            continue
        passages = []
        for p in pooled.passages:
            cosine = next(cosines, None)
            passages.append(
                ScoredPassage(id=p.id, text=p.text, start=p.start, end=p.end, score=p.score)
            )
            hits.append(
                Hit(
                    passage=Passage(
                        id=p.id, doc_id=p.doc_id, text=p.text, start=p.start, end=p.end
                    ),
                    score=p.score,
                    dense_score=cosine,
                    doc_date=read.document.date,
                    queries=(read.query,) if read.query else (),
                )
            )
        sources.append(_source(read, len(sources) + 1, passages))
        deps.texts[read.document.doc_id, read.document.content_sha256] = read.document.text
    evidence = _evidence(web, fetches, pool, selections)
    return Step({"web": evidence, "web_sources": tuple(sources), "web_hits": tuple(hits)}, "select")
