"""The generator itself: deterministic, faithful quotes really verbatim, hostile ones marked.

A generator that wrote a faithful quote that is not in the source would blame the gate for
its own mistake, and one that wrote a "hostile" sentence the source says would count a
correct publication as an escape. These tests read the documents without an archive (the
same text the JSONL loader stores) and judge quotes with an independent oracle: white space
collapsed, plain substring search.
"""

from __future__ import annotations

import re

import pytest

from evidence_desk.settings import Settings

from .cases import FAITHFUL, Case
from .corpus import SOTU, DocView, flatten, memory_documents, view
from .faithful_prose import PROSE
from .hostile import FAMILIES, drafts_per_archive, generate

IDS = ("1796-Washington-1", "1941-Roosevelt-1", "1963-Kennedy-1", "2012-Obama-1")
_QUOTE = re.compile(r'"([^"]+)"|“([^”]+)”|‘([^’]+)’')


@pytest.fixture(scope="module")
def pools() -> dict[str, list[DocView]]:
    s = Settings.model_construct()
    return {
        SOTU: [view(SOTU, d, s.passage_words, s.passage_max_words) for d in memory_documents(IDS)]
    }


@pytest.fixture(scope="module")
def cases(pools: dict[str, list[DocView]]) -> list[Case]:
    return generate(pools, scale=0.5)


def test_the_same_text_gives_the_same_drafts(
    pools: dict[str, list[DocView]], cases: list[Case]
) -> None:
    again = generate(pools, scale=0.5)
    assert [c.answer for c in again] == [c.answer for c in cases]
    made = {f for f in (*FAMILIES, FAITHFUL, PROSE) if drafts_per_archive(f, SOTU)}
    assert {c.family for c in cases} == made


def test_faithful_quotes_are_verbatim_on_word_boundaries(
    pools: dict[str, list[DocView]], cases: list[Case]
) -> None:
    docs = {v.doc_id: v for v in pools[SOTU]}
    for case in (c for c in cases if c.family == FAITHFUL):
        sources = [docs[d] for d in case.doc_ids]
        for match in _QUOTE.finditer(case.answer):
            quote = next(g for g in match.groups() if g)
            bare = re.escape(flatten(quote).rstrip(".,"))
            on_boundaries = re.compile(rf"(?<![a-z0-9]){bare}(?![a-z0-9])")
            assert any(on_boundaries.search(s.flat) for s in sources), (case.kind, quote)


def test_every_hostile_draft_says_what_is_false(cases: list[Case]) -> None:
    for case in (c for c in cases if c.family not in (FAITHFUL, PROSE)):
        assert case.false or case.marker, case
        assert all(f in case.answer for f in case.false), case
        assert case.marker in case.answer, case
