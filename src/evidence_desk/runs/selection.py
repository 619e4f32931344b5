"""The select stage: from ranked passages to the run's numbered sources.

Hits are grouped by document; documents are ranked by their best passage; each keeps its
best few passages (no duplicates, no overlapping spans). The evidence pool is bounded:
`max_sources x passages_per_source` passages in all, shared among the sources found. For a
comparison every side gets its own sources first, so an answer can never be one-sided
because one period dominated the scores. Sources are numbered `S1`, `S2`, ... in the order
a reader should see them, and each names the queries that found its selected passages.

Deep mode lets each source show `extra` passages past that bound (`gaps.EXTRA_PASSAGES`),
never past three times the default: its best hits the bound left out.

A question about many voices ("What did presidents say about ...?",
`retrieval.subject.many_voices`) takes the best document of each speaker first, then the
rest in their rank: five addresses of the president who spoke of it most would answer what
one president said.

A passage that its window cut inside a list (an announcing sentence, "four essential human
freedoms", and the first items, "The first is ...") runs on to the list's last item
(`enumerations.runs_on`), so an answer can name every item or none: never three of four.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..enumerations import runs_on
from ..types import Document, Hit, Passage, ScoredPassage, Source


@dataclass(frozen=True)
class SelectionBounds:
    max_sources: int
    passages_per_source: int


# Metadata keys that name who a document's words belong to (speaker, author, publisher):
# the names a sentence may use in an attribution frame (the grounding contract).
NAME_KEYS = ("president", "president_last", "speaker", "author", "byline", "publisher")


def source_names(doc: Document) -> tuple[str, ...]:
    """The people and bodies a document's words belong to, from its metadata.

    Several names in one field are separated by `; ` (see `flatten_meta`); an author slug
    (`amy-ashida`) reads as the name it spells.
    """
    names: list[str] = []
    for key in NAME_KEYS:
        for name in doc.meta.get(key, "").split(";"):
            name = name.strip().replace("-", " ")
            if name and name not in names:
                names.append(name)
    return tuple(names)


def source_roles(doc: Document, key: str) -> tuple[str, ...]:
    """The values of a `; `-separated metadata field (`office`, `addressees`)."""
    return tuple(dict.fromkeys(v.strip() for v in doc.meta.get(key, "").split(";") if v.strip()))


def group_hits(hits: Sequence[Hit]) -> dict[str, list[Hit]]:
    """Hits per document, each list best first, passages unique."""
    by_doc: dict[str, list[Hit]] = {}
    seen: set[str] = set()
    for hit in sorted(hits, key=lambda h: (-h.score, h.passage.id)):
        if hit.passage.id in seen:
            continue
        seen.add(hit.passage.id)
        by_doc.setdefault(hit.passage.doc_id, []).append(hit)
    return by_doc


def _non_overlapping(hits: Sequence[Hit], limit: int) -> list[Hit]:
    kept: list[Hit] = []
    for hit in hits:
        p = hit.passage
        if any(p.start < k.passage.end and k.passage.start < p.end for k in kept):
            continue
        kept.append(hit)
        if len(kept) == limit:
            break
    return kept


def source_of(
    source_id: str,
    doc: Document,
    passages: Sequence[tuple[Passage, float]],
    retrieved_at: str,
) -> Source:
    """A numbered source: the document's metadata and the given (passage, score) pairs."""
    return Source(
        id=source_id,
        doc_id=doc.doc_id,
        title=doc.title,
        date=doc.date,
        names=source_names(doc),
        offices=source_roles(doc, "office"),
        addressees=source_roles(doc, "addressees"),
        url=doc.url,
        origin=doc.origin,
        retrieved_at=retrieved_at,
        content_sha256=doc.content_sha256,
        passages=tuple(
            ScoredPassage(id=p.id, text=p.text, start=p.start, end=p.end, score=score)
            for p, score in passages
        ),
    )


def whole_lists(passage: Passage, doc: Document) -> Passage:
    """The passage, run on to the end of a list it cuts; else the passage itself."""
    end = runs_on(doc.text, passage.start, passage.end)
    if end == passage.end:
        return passage
    return passage.model_copy(update={"end": end, "text": doc.text[passage.start : end]})


def passages_per_source(bounds: SelectionBounds, n_sources: int) -> int:
    """Passages each source keeps: the evidence pool (max_sources x passages_per_source) is
    shared among the sources found, so a question that one document answers (a window
    holding a single address) reads more of it; never more than three times the default."""
    if n_sources <= 0:
        return bounds.passages_per_source
    pool = bounds.max_sources * bounds.passages_per_source
    return max(bounds.passages_per_source, min(3 * bounds.passages_per_source, pool // n_sources))


def voices_of(documents: Mapping[str, Document]) -> dict[str, str]:
    """Each document's speaker (its first name, `source_names`), for a many-voices question;
    a document that names no one is a voice of its own."""
    return {d: next(iter(source_names(doc)), d) for d, doc in documents.items()}


def spread(ranked: Sequence[str], voices: Mapping[str, str]) -> list[str]:
    """Ranked document ids with the best document of each voice first, in their rank."""
    seen: set[str] = set()
    first: list[str] = []
    for doc_id in ranked:
        voice = voices.get(doc_id, doc_id)
        if voice not in seen:
            seen.add(voice)
            first.append(doc_id)
    return first + [d for d in ranked if d not in first]


def choose_documents(
    sides: Sequence[Sequence[Hit]], max_sources: int, voices: Mapping[str, str] | None = None
) -> list[str]:
    """Document ids, round-robin across sides (best document of each side first); with
    `voices` (doc id to speaker), each side's best document of each speaker first."""
    ranked_sides = [list(group_hits(side)) for side in sides]
    if voices is not None:
        ranked_sides = [spread(ranked, voices) for ranked in ranked_sides]
    chosen: list[str] = []
    depth = 0
    while len(chosen) < max_sources and any(depth < len(r) for r in ranked_sides):
        for ranked in ranked_sides:
            if depth < len(ranked) and ranked[depth] not in chosen:
                chosen.append(ranked[depth])
                if len(chosen) == max_sources:
                    break
        depth += 1
    return chosen


def kept_hits(
    sides: Sequence[Sequence[Hit]],
    bounds: SelectionBounds,
    extra: int = 0,
    voices: Mapping[str, str] | None = None,
) -> dict[str, list[Hit]]:
    """The hits selection keeps, per chosen document in source order, each list best first;
    `extra` passages per document past the per-source bound (Deep mode); `voices` for a
    many-voices question (`choose_documents`).

    Deep mode reads it to see what a first pass would put in front of the answerer."""
    all_hits = group_hits([h for side in sides for h in side])
    chosen = choose_documents(sides, bounds.max_sources, voices)
    limit = passages_per_source(bounds, len(chosen))
    if extra > 0:  # Deep only: Quick's bound is the code above, untouched
        limit = max(limit, min(limit + extra, 3 * bounds.passages_per_source))
    return {doc_id: _non_overlapping(all_hits[doc_id], limit) for doc_id in chosen}


def select_sources(
    sides: Sequence[Sequence[Hit]],
    documents: Mapping[str, Document],
    bounds: SelectionBounds,
    retrieved_at: str,
    extra: int = 0,
    many: bool = False,
) -> list[Source]:
    """Numbered sources for the run. `sides` holds one hit list per sub-question. Each
    source records the queries that found its selected passages (its best passage's first);
    `extra` is Deep mode's (`kept_hits`); `many` says the question asks many voices."""
    sources: list[Source] = []
    voices = voices_of(documents) if many else None
    for doc_id, best_first in kept_hits(sides, bounds, extra, voices).items():
        picked = sorted(best_first, key=lambda h: h.passage.start)  # reading order
        doc = documents[doc_id]
        scored = [(whole_lists(h.passage, doc), round(h.score, 6)) for h in picked]
        source = source_of(f"S{len(sources) + 1}", doc, scored, retrieved_at)
        queries = tuple(dict.fromkeys(q for h in best_first for q in h.queries))
        sources.append(source.model_copy(update={"queries": queries}) if queries else source)
    return sources
