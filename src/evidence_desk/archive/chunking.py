"""Splitting a document's stored text into passages: sentence-aligned windows of words.

Invariants (property-tested):

* `passage.text == doc.text[passage.start:passage.end]`, with no white space at either end;
* passages are in text order, do not overlap, and every non-white-space character of the
  text lies in exactly one passage;
* no passage crosses a PDF page boundary (`Document.pages`);
* no passage has more than `max_words` words (words = runs of non-white-space).

A passage is built from units: sentences (`textutil.sentence_spans`), except that a sentence
longer than `max_words` is cut at white space into pieces of at most `max_words` words. Units
are cut at their *starts*, and a unit runs to the start of the next one, so characters that
a sentence splitter leaves between sentences (a closing quote or bracket) still belong to a
passage. A passage closes once it holds `target_words` words, or earlier when the next unit
would take it past `max_words`.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ..textutil import sentence_spans
from ..types import Document, Passage

_WORD = re.compile(r"\S+")


def _regions(doc: Document) -> list[tuple[int, int]]:
    if doc.pages:
        return [(page.start, page.end) for page in doc.pages]
    return [(0, len(doc.text))]


def _units(text: str, start: int, end: int, max_words: int) -> list[tuple[int, int]]:
    """(start offset, word count) of each unit in text[start:end]; the first starts at the
    first non-space character, and a unit runs to the next unit's start (or `end`)."""
    first = _WORD.search(text, start, end)
    if first is None:
        return []
    cuts = [first.start()]
    cuts += [a for a, _ in sentence_spans(text, start, end) if a > first.start()]
    cuts.append(end)
    units: list[tuple[int, int]] = []
    for a, b in pairwise(cuts):
        count = len(text[a:b].split())
        if count <= max_words:
            units.append((a, count))
            continue
        words = [m.start() for m in _WORD.finditer(text, a, b)]
        for i in range(0, len(words), max_words):  # pieces of at most max_words words
            units.append((words[i], len(words[i : i + max_words])))
    return units


def _trimmed_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _windows(
    text: str, start: int, end: int, target_words: int, max_words: int
) -> list[tuple[int, int]]:
    """(start, end) of each passage inside one region."""
    units = _units(text, start, end, max_words)
    nexts = [a for a, _ in units[1:]] + [end] if units else []
    windows: list[tuple[int, int]] = []
    open_at: int | None = None
    count = 0
    for (a, words), b in zip(units, nexts, strict=True):
        if open_at is not None and count + words > max_words:
            windows.append((open_at, _trimmed_end(text, open_at, a)))
            open_at, count = None, 0
        if open_at is None:
            open_at = a
        count += words
        if count >= target_words:
            windows.append((open_at, _trimmed_end(text, open_at, b)))
            open_at, count = None, 0
    if open_at is not None:
        windows.append((open_at, _trimmed_end(text, open_at, end)))
    return windows


def chunking_key(target_words: int, max_words: int) -> str:
    """How a document's passages were cut, as stored with it: `"120/220"`."""
    return f"{target_words}/{max_words}"


def chunk(doc: Document, target_words: int, max_words: int) -> list[Passage]:
    """The passages of `doc`, ids `f"{doc.doc_id}#{ordinal}"` numbered from 0 in text order."""
    if not 1 <= target_words <= max_words:
        raise ValueError("Passage sizes need 1 <= target_words <= max_words.")
    text = doc.text
    passages: list[Passage] = []
    for region_start, region_end in _regions(doc):
        for a, b in _windows(text, region_start, region_end, target_words, max_words):
            pid = f"{doc.doc_id}#{len(passages)}"
            passages.append(Passage(id=pid, doc_id=doc.doc_id, text=text[a:b], start=a, end=b))
    return passages
