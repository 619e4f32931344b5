"""Deep mode's second look: the gap a first pass left, and the queries aimed at it.

Quick mode searches each side of a question once, with the plan's queries (`plan_sides`).
Deep mode then reads what that first pass would put in front of the answerer (the passages
selection keeps, `selection.kept_hits`) and looks, side by side, for a gap:

1. **An empty window.** A time window of the side that holds documents, none of which has
   a kept passage. Aimed at it: the window's sub-question, searched in that window alone.
2. **Missing terms.** Uncommon key terms of the plan (the archive uses them, in at most
   `MISSING_TERM_MAX_DF` of its passages) that no kept passage of the side contains (stems,
   with the coverage stage's shared-prefix rule). Aimed at them: the missing terms with the
   plan's other uncommon key terms, in the side's windows.
3. **The passage bound.** A kept document may hold its answer just past the per-source
   passage bound, where no query can reach it: the document is already found. Deep mode
   lets each kept document show `EXTRA_PASSAGES` more of its passages (its best hits the
   bound left out; `selection.kept_hits`), so at most that many per source beyond Quick's
   pool reach the answerer. This gap needs no search, every passage it adds was found by
   the plan's own queries, and coverage is judged without them (`stages.coverage_stage`).

A side issues at most `MAX_QUERIES_PER_SIDE` queries in all, its first pass's included; a
side with no gap, no query left, or windows that hold no document searches nothing more.
A gap query never leaves the side's windows and never names a term the archive does not
hold. Its hits are merged into the side's (`retrieve.merge_gap_hits`): a passage ranks by its
best score, but its coverage evidence stays what the plan's own queries gave it, so a gap
query can bring passages into the evidence and never lift a question over the coverage
floor by its own cosine.

Measured on both evaluation sets (`python -m bench.deep`): the gap queries alone gained no
answer or evidence over Quick mode, because every evidence miss of the first pass there is a
passage of a document it already keeps, held out by the per-source passage bound. One extra
passage per source brings in 3 of those 6 gold sentences (evidence recall 0.89 to 0.95 over
both sets) and loses no answer; lending a document all the room the pool leaves unused
found no more and lost an answer (more passages, less focus), so the extra stays one. No
answer is gained either: where the gold sentence now reaches it, the offline answerer
quotes another one.

No query for counter-evidence. Tried (the side's main query with contrast words, "however
but not criticism opposed failed", in the room the gaps leave): 59 more searches over both
sets, no claim found contradicted and no decision changed, and on the sample it displaced a
gold passage, losing an answer (17 to 16 of 22) and evidence (0.96 to 0.89). Lexical search
drops negations as stop words, the offline auditor reads only the sources an answer cites,
and the sets carry no counter-evidence to find; the budget goes to gaps only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..retrieval.coverage import ArchiveStats
from ..textutil import stem, stem_terms, term_in, unique
from ..types import Hit, Plan, SubQuestion, TimeWindow

MAX_QUERIES_PER_SIDE = 3
# Passages a kept document shows past the per-source bound in Deep mode (the passage-bound
# gap): the smallest step, since each passage costs prompt size and the answer's focus.
EXTRA_PASSAGES = 1
# A key term in more passages than this is common enough that its absence says little.
MISSING_TERM_MAX_DF = 0.01


@dataclass(frozen=True)
class SideSearch:
    """How one side of a question is searched: its sub-questions, queries and windows."""

    subquestions: tuple[SubQuestion, ...]
    queries: tuple[str, ...]
    windows: tuple[TimeWindow, ...]


@dataclass(frozen=True)
class GapQuery:
    """A query aimed at a gap of the first pass: where it searches, and which gap."""

    query: str
    windows: tuple[TimeWindow, ...]
    aim: str


def plan_sides(plan: Plan) -> list[SideSearch]:
    """The sides a plan is searched as (the first pass; all of Quick mode).

    A comparison searches each side inside its own window, with the plan's main query and
    the side's own sub-question; any other plan searches every query in the plan's windows.
    """
    subs = plan.subquestions
    main = plan.queries[0] if plan.queries else subs[0].text
    if plan.kind == "comparison" and len(subs) > 1:
        return [
            SideSearch(
                (sq,),
                tuple(dict.fromkeys((main, sq.text))),
                (sq.window,) if sq.window else plan.time_windows,
            )
            for sq in subs
        ]
    return [SideSearch(subs, tuple(dict.fromkeys(plan.queries or (main,))), plan.time_windows)]


def _dated_in(hit: Hit, window: TimeWindow) -> bool:
    day = (hit.doc_date or "")[:10]
    return bool(day) and window.start[:10] <= day <= window.end[:10]


def empty_windows(side: SideSearch, kept: Sequence[Hit], stats: ArchiveStats) -> list[TimeWindow]:
    """The side's windows that hold documents but no document of a kept passage."""
    return [
        w
        for w in dict.fromkeys(side.windows)
        if stats.docs_in_window(w) > 0 and not any(_dated_in(h, w) for h in kept)
    ]


def _uncommon(word: str, stats: ArchiveStats) -> bool:
    """True when the archive uses the key term, in at most `MISSING_TERM_MAX_DF` of its
    passages."""
    return (
        0 < stats.doc_freq(stem(word.lower())) <= MISSING_TERM_MAX_DF * max(stats.num_passages, 1)
    )


def missing_terms(plan: Plan, kept: Sequence[Hit], stats: ArchiveStats) -> list[str]:
    """The plan's uncommon key terms that no kept passage contains, as the plan wrote them."""
    held: set[str] = set()
    for hit in kept:
        held.update(stem_terms(hit.passage.text))
    return [
        w
        for w in unique(plan.key_terms)
        if _uncommon(w, stats) and not term_in(stem(w.lower()), held)
    ]


def _subquestion_for(side: SideSearch, window: TimeWindow) -> str:
    for sq in side.subquestions:
        if sq.window == window:
            return sq.text
    return side.subquestions[0].text if side.subquestions else side.queries[0]


def gap_queries(
    plan: Plan, side: SideSearch, kept: Sequence[Hit], stats: ArchiveStats
) -> list[GapQuery]:
    """The queries Deep mode adds to a side, given the hits selection keeps from it after
    the first pass: empty windows first, then missing terms, within the side's budget."""
    room = MAX_QUERIES_PER_SIDE - len(side.queries)
    if room <= 0 or (side.windows and not any(stats.docs_in_window(w) for w in side.windows)):
        return []  # no query left, or nothing to find: the side's windows hold no document
    out: list[GapQuery] = []
    for w in empty_windows(side, kept, stats):
        aim = f"window {w.label}: no kept passage comes from a document dated in it"
        out.append(GapQuery(_subquestion_for(side, w), (w,), aim))
    terms = missing_terms(plan, kept, stats)
    if terms:
        # With the plan's other uncommon terms the query stays on the question's subject;
        # alone, a missing word drifts to any passage using it, and inside the whole
        # sub-question it is outweighed by the words the first pass already matched.
        context = [w for w in unique(plan.key_terms) if w not in terms and _uncommon(w, stats)]
        aim = "terms " + ", ".join(repr(t) for t in terms) + ": in no kept passage"
        out.append(GapQuery(" ".join([*terms, *context]), side.windows, aim))
    fresh = [g for g in out if g.query not in side.queries]
    return fresh[:room]
