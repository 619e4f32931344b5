"""BM25 over the archive's passages: a tantivy index in a directory the caller chooses.

tantivy was measured fastest here (0.3 ms p50 at 200k passages, 2 s build; see
notes/stack-probe.md). Each passage is one tantivy document:

* `pid`   u64, the row index into the caller's passage table (indexed, fast, stored);
* `text`  the passage, English stemming (`en_stem`, the same analysis as `textutil.stem`);
* `title` its document's title, `en_stem`, searched with a lower weight (`TITLE_BOOST`);
* `day`   i64 days since 1970-01-01 (see `days.py`), absent when the document is undated.

Queries are a reader's words, not a query language: characters that carry query syntax
(`field:`, `+ - ^ ~ * ( ) [ ] { }`, backslashes) become spaces, upper-case AND/OR/NOT become
ordinary words, and the rest goes through `parse_query_lenient`, so double-quoted phrases
still match as phrases and no input raises. Terms are OR-ed (BM25 ranks partial matches).
Stop words outside phrases are dropped and a long query keeps only its 12 rarest terms:
each term walks a posting list, and at 200k passages a pasted 46-word paragraph took 44 ms
with everything kept, 2.2 ms without (bench/retrieval.py).

The title weight was measured on digital.gov (bench/retrieval.py, MRR@10 of the article a
query came from): title queries 0.55 / 0.83 / 0.90 / 0.98 and summary queries 0.995 /
0.995 / 0.993 / 0.986 at boosts 0 / 0.25 / 0.5 / 1.0. 0.5 keeps most of the gain for
queries that name a document without tilting ordinary ones; a zero boost skips the field.
Time windows are a MUST clause of day ranges (several windows OR-ed) with zero score
weight, so filtering never changes a BM25 score; undated passages have no `day` and drop out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
import numpy.typing as npt
import tantivy

from ..textutil import stem
from .days import MISSING_DAY, DayRange

TITLE_BOOST = 0.5
# Lucene's English stop set plus pronouns, auxiliaries and question words: terms that
# occur in most passages, so dropping them from a query changes rankings very little.
STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have
    he her his how i if in into is it its me my no not of on or our she so such than that
    the their them then there these they this those to was we were what when where which
    who whom why will with would you your""".split()
)
WRITER_HEAP = 256_000_000
MAX_QUERY_TERMS = 12
_SYNTAX = re.compile(r"[^\w\s\"]|_")
_OPERATORS = re.compile(r"\b(AND|OR|NOT|IN|TO)\b")


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_unsigned_field("pid", stored=True, indexed=True, fast=True)
    sb.add_text_field("text", tokenizer_name="en_stem")
    sb.add_text_field("title", tokenizer_name="en_stem")
    sb.add_integer_field("day", indexed=True, fast=True)
    return sb.build()


def _drop_stopwords(words: str) -> str:
    return " " + " ".join(w for w in words.split() if w.lower() not in STOPWORDS) + " "


def sanitize_query(text: str) -> str:
    """A reader's text with query syntax removed; balanced double quotes are kept.

    Stop words outside quotes are dropped (unless nothing else is left): they barely move
    a BM25 score but each one walks a posting list as long as the archive.
    """
    cleaned = _SYNTAX.sub(" ", text)
    cleaned = _OPERATORS.sub(lambda m: m.group(0).lower(), cleaned)
    if cleaned.count('"') % 2:
        head, _, tail = cleaned.rpartition('"')
        cleaned = head + " " + tail
    parts = cleaned.split('"')  # even indexes lie outside quotes, odd ones are phrases
    kept = [part if i % 2 else _drop_stopwords(part) for i, part in enumerate(parts)]
    if not any(p.strip() for p in kept):
        return cleaned
    return '"'.join(kept)


class LexicalIndex:
    """An opened BM25 index. Searching is thread-safe; the index is read-only once built."""

    def __init__(self, index: tantivy.Index, title_boost: float = TITLE_BOOST) -> None:
        self._index = index
        self._schema = index.schema
        self._searcher = index.searcher()
        self.title_boost = title_boost

    @classmethod
    def build(
        cls,
        path: Path,
        texts: Sequence[str],
        titles: Sequence[str],
        days: npt.NDArray[np.int32],
        title_boost: float = TITLE_BOOST,
    ) -> LexicalIndex:
        """Indexes row i as pid i, in one pass, into the (new or empty) directory `path`."""
        if not len(texts) == len(titles) == len(days):
            raise ValueError("texts, titles and days must have one entry per passage.")
        path.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(_schema(), path=str(path), reuse=False)
        writer = index.writer(heap_size=WRITER_HEAP)
        for row, (text, title, day) in enumerate(zip(texts, titles, days.tolist(), strict=True)):
            doc = tantivy.Document()
            doc.add_unsigned("pid", row)
            doc.add_text("text", text)
            if title:
                doc.add_text("title", title)
            if day != MISSING_DAY:
                doc.add_integer("day", int(day))
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        return cls(index, title_boost)

    @classmethod
    def open(cls, path: Path, title_boost: float = TITLE_BOOST) -> LexicalIndex:
        """Opens a built index; raises ValueError when `path` holds none."""
        if not tantivy.Index.exists(str(path)):
            raise ValueError(f"No search index in {path}.")
        return cls(tantivy.Index.open(str(path)), title_boost)

    @property
    def num_docs(self) -> int:
        return int(self._searcher.num_docs)

    def doc_freq(self, term: str) -> int:
        """Passages whose text holds this stemmed term (as `textutil.stem` produces it)."""
        if not term:
            return 0
        return int(self._searcher.doc_freq("text", term))

    def phrase_freq(self, stems: Sequence[str], slop: int = 0) -> int:
        """Passages whose text holds these stemmed terms in this order, with at most `slop`
        other words between them."""
        terms: list[str | tuple[int, str]] = [t for t in stems if t]
        if not terms:
            return 0
        if len(terms) == 1:
            return self.doc_freq(str(terms[0]))
        query = tantivy.Query.phrase_query(self._schema, "text", terms, slop=slop)
        found = self._searcher.search(query, limit=1, count=True)
        return int(getattr(found, "count", 0) or 0)  # the stub omits `count`

    def search(
        self, query: str, k: int, ranges: Sequence[DayRange] = ()
    ) -> list[tuple[int, float]]:
        """(row, BM25 score) best first, at most k; within `ranges` when any are given."""
        if k <= 0:
            return []
        with_title = self.title_boost > 0  # a zero-weight field would still cost a lookup
        parsed, _errors = self._index.parse_query_lenient(
            self.prune_terms(sanitize_query(query)),
            default_field_names=["text", "title"] if with_title else ["text"],
            field_boosts={"title": self.title_boost} if with_title else None,
        )
        if ranges:
            parsed = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, parsed), (tantivy.Occur.Must, self._window_filter(ranges))]
            )
        hits = self._searcher.search(parsed, limit=k, count=False).hits
        if not hits:
            return []
        rows = self._searcher.fast_field_values("pid", [addr for _, addr in hits])
        pairs = zip(hits, rows, strict=True)
        return [(int(cast(int, row)), float(score)) for (score, _), row in pairs]

    def prune_terms(self, sanitized: str, limit: int = MAX_QUERY_TERMS) -> str:
        """Keeps the `limit` rarest free terms of a sanitized query (phrases stay whole).

        A long query (a pasted paragraph) costs one posting-list walk per term; its most
        common terms add the least to BM25, so beyond `limit` they are dropped.
        """
        parts = sanitized.split('"')
        free = [w for part in parts[::2] for w in part.split()]
        stems = {w: stem(w) for w in free}
        unique_stems = list(dict.fromkeys(stems.values()))
        if len(unique_stems) <= limit:
            return sanitized
        order = sorted(range(len(unique_stems)), key=lambda i: (self.doc_freq(unique_stems[i]), i))
        keep = {unique_stems[i] for i in order[:limit]}
        parts[::2] = [
            " " + " ".join(w for w in part.split() if stems[w] in keep) + " " for part in parts[::2]
        ]
        return '"'.join(parts)

    def _window_filter(self, ranges: Sequence[DayRange]) -> tantivy.Query:
        clauses = [
            (
                tantivy.Occur.Should,
                tantivy.Query.range_query(self._schema, "day", tantivy.FieldType.Integer, lo, hi),
            )
            for lo, hi in ranges
        ]
        # Zero weight: the filter decides membership only, never the score.
        return tantivy.Query.const_score_query(tantivy.Query.boolean_query(clauses), 0.0)
