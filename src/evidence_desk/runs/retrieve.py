"""Retrieval for a run: the archive's hits for each side of a plan, in its time windows.

Each side of a plan (`gaps.plan_sides`: one, or one per period of a comparison) searches
its own windows with its queries (`search_one`); a short window also searches the days
after it (`reach_windows`), keeping only the hits that date themselves back into it
(`dates_into`). A passage found by several queries is one hit with its best score and every
query that found it (`merge_hits`). Deep mode then searches the gaps the first pass left
(`gaps.gap_queries`) and merges their hits in without lending them its coverage evidence
(`merge_gap_hits`). The retrieve stage (`stages.retrieve_stage`) sets what this finds as
the run's hits and searches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from ..agents.offline.docdates import relative_windows
from ..types import Hit, Plan, Search, TimeWindow
from .deps import Deps
from .gaps import EXTRA_PASSAGES, gap_queries, plan_sides
from .selection import kept_hits

SHORT_WINDOW_DAYS = 31


def reach_windows(windows: Sequence[TimeWindow], reach_days: int) -> list[TimeWindow]:
    """For each plan window of at most 31 days, the `reach_days` after it (the "tail").

    A later article may date what happened in a short period relative to itself ("In early
    April, ..." on August 28), and the answerer may quote it (`relative_date_reach_days`),
    so retrieval must reach it. Only the search reaches further: the plan and the coverage
    stage keep the real windows, and a tail's hit counts only through a sentence that dates
    itself into the window (`dates_into`). An empty window (start after end) has no tail.
    """
    out: list[TimeWindow] = []
    for w in windows:
        try:
            start, end = date.fromisoformat(w.start[:10]), date.fromisoformat(w.end[:10])
            if reach_days > 0 and 0 <= (end - start).days < SHORT_WINDOW_DAYS:
                after = end + timedelta(days=1)
                last = end + timedelta(days=reach_days)
                out.append(TimeWindow(start=after.isoformat(), end=last.isoformat(), label=w.label))
        except (ValueError, OverflowError):
            pass  # not an ISO date, or past year 9999: no tail
    return out


def dates_into(hit: Hit, windows: Sequence[TimeWindow]) -> bool:
    """True when a sentence of the hit's passage, read against its document's date, dates
    what it says inside one of `windows`."""
    return text_dates_into(hit.passage.text, hit.doc_date, windows)


def text_dates_into(text: str, doc_date: str | None, windows: Sequence[TimeWindow]) -> bool:
    """True when a sentence of `text`, read against `doc_date`, dates what it says inside
    one of `windows`."""
    return any(
        w.start[:10] <= r.start[:10] and r.end[:10] <= w.end[:10]
        for r in relative_windows(text, doc_date)
        for w in windows
    )


def search_one(deps: Deps, query: str, windows: list[TimeWindow]) -> list[Hit]:
    """One query's hits in `windows` and their tails (`reach_windows`), marked with it."""
    config = deps.config
    hits = deps.archive.search(query, windows, config.hits_per_query)
    tails = reach_windows(windows, config.relative_date_reach_days)
    if tails:
        later = deps.archive.search(query, tails, config.hits_per_query)
        hits += [h for h in later if dates_into(h, windows)]
    return [h.model_copy(update={"queries": (query,)}) for h in hits]


def merge_hits(lists: Iterable[Sequence[Hit]]) -> list[Hit]:
    """Each passage once, with its best score and every query that found it, best first."""
    merged: dict[str, Hit] = {}
    for hits in lists:
        for hit in hits:
            seen = merged.get(hit.passage.id)
            if seen is None:
                merged[hit.passage.id] = hit
                continue
            best = hit if seen.score < hit.score else seen
            queries = tuple(dict.fromkeys((*seen.queries, *hit.queries)))
            merged[hit.passage.id] = best.model_copy(update={"queries": queries})
    return sorted(merged.values(), key=lambda h: (-h.score, h.passage.id))


def merge_gap_hits(first: Sequence[Hit], extra: Iterable[Sequence[Hit]]) -> list[Hit]:
    """A side's first-pass hits with its gap queries' hits merged in.

    A passage ranks by its best score and names every query that found it, but its engine
    evidence stays the first pass's: the coverage floor is calibrated on the cosine to the
    plan's own queries, so a gap query may bring a passage into the evidence, never lend it
    its own cosine. A passage only a gap query found has no cosine (`dense_score` None):
    its evidence score is its key-term share alone.
    """
    plain = {"lexical_score": None, "lexical_rank": None, "dense_score": None, "dense_rank": None}
    before = {h.passage.id: h for h in first}
    out: list[Hit] = []
    for hit in merge_hits([first, *extra]):
        base = before.get(hit.passage.id)
        engines = plain if base is None else {k: getattr(base, k) for k in plain}
        out.append(hit.model_copy(update=engines))
    return out


def search_all(deps: Deps, queries: Sequence[str], windows: list[TimeWindow]) -> list[Hit]:
    """Hits of several queries, each passage once with its best score, best first."""
    return merge_hits(search_one(deps, q, windows) for q in dict.fromkeys(queries))


def retrieve_sides(
    deps: Deps, plan: Plan, *, deep: bool = False
) -> tuple[list[list[Hit]], list[Search]]:
    """One hit list per side (`gaps.plan_sides`), and the searches issued, in order.

    Deep mode then adds to each side the queries aimed at the gaps its first pass left
    (`gaps.gap_queries`, judged on the hits Deep's selection would keep, its extra passage
    per source included), at most three per side.
    """
    log: list[Search] = []

    def search(side: int, query: str, windows: Sequence[TimeWindow], aim: str) -> list[Hit]:
        hits = search_one(deps, query, list(windows))
        labels = tuple(w.label for w in windows)
        log.append(Search(query=query, side=side, windows=labels, aim=aim, hits=len(hits)))
        return hits

    sides = plan_sides(plan)
    found = [
        merge_hits(search(i, q, side.windows, "plan") for q in side.queries)
        for i, side in enumerate(sides)
    ]
    if deep:
        stats = deps.archive.stats()
        shown = kept_hits(found, deps.config.bounds, EXTRA_PASSAGES)
        kept = {h.passage.id for hs in shown.values() for h in hs}
        for i, side in enumerate(sides):
            own = [h for h in found[i] if h.passage.id in kept]
            gaps = gap_queries(plan, side, own, stats)
            extra = [search(i, g.query, g.windows, g.aim) for g in gaps]
            found[i] = merge_gap_hits(found[i], extra)
    return found, log
