"""Fixtures for retrieval tests: the real embedding model and a tiny dated archive."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_desk.retrieval.embedder import MiniLMEmbedder
from evidence_desk.retrieval.index import HybridIndex, IndexRows

# (doc_id, title, date, text): twelve passages, two of them undated.
TINY_ARCHIVE: list[tuple[str, str, str | None, str]] = [
    (
        "1934-Roosevelt-1",
        "Annual Message 1934",
        "1934-01-03",
        "The banking crisis has passed; deposits are safe and the banks have reopened.",
    ),
    (
        "1934-Roosevelt-1",
        "Annual Message 1934",
        "1934-01-03",
        "Relief for the unemployed goes hand in hand with public works that build roads and dams.",
    ),
    (
        "1942-Roosevelt-1",
        "State of the Union 1942",
        "1942-01-06",
        "Our armed forces fight on every ocean; production of tanks and aircraft doubled.",
    ),
    (
        "1942-Roosevelt-1",
        "State of the Union 1942",
        "1942-01-06",
        "Rationing of rubber and gasoline is a sacrifice every citizen shares in wartime.",
    ),
    (
        "1962-Kennedy-1",
        "State of the Union 1962",
        "1962-01-11",
        "We choose to explore space: astronauts will land on the moon within this decade.",
    ),
    (
        "1962-Kennedy-1",
        "State of the Union 1962",
        "1962-01-11",
        "The Peace Corps sends volunteers abroad to teach and to build wells and schools.",
    ),
    (
        "1965-Johnson-1",
        "State of the Union 1965",
        "1965-01-04",
        "Medicare will give health insurance to older Americans so illness is not poverty.",
    ),
    (
        "1965-Johnson-1",
        "State of the Union 1965",
        "1965-01-04",
        "The war on poverty opens job training and early schooling to millions of children.",
    ),
    (
        "2009-Obama-1",
        "Address to Congress 2009",
        "2009-02-24",
        "The recovery act invests in clean energy, solar panels and wind turbines for jobs.",
    ),
    (
        "2009-Obama-1",
        "Address to Congress 2009",
        "2009-02-24",
        "Credit has stopped flowing; the banks must lend again to families and small firms.",
    ),
    (
        "notes/banking.md",
        "Notes",
        None,
        "Notes on the banking system and the reopening of the banks after the holiday.",
    ),
    (
        "notes/space.md",
        "Notes",
        None,
        "A memo about space exploration and plans for a landing on the moon.",
    ),
]


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="session")
def tiny_rows(embedder: MiniLMEmbedder) -> IndexRows:
    texts = [t for _, _, _, t in TINY_ARCHIVE]
    doc_ids = [d for d, _, _, _ in TINY_ARCHIVE]
    ordinals: dict[str, int] = {}
    passage_ids = []
    for doc_id in doc_ids:
        ordinals[doc_id] = ordinals.get(doc_id, -1) + 1
        passage_ids.append(f"{doc_id}#{ordinals[doc_id]}")
    return IndexRows(
        passage_ids=passage_ids,
        doc_ids=doc_ids,
        texts=texts,
        titles=[title for _, title, _, _ in TINY_ARCHIVE],
        dates=[date for _, _, date, _ in TINY_ARCHIVE],
        vectors=embedder.embed(texts),
    )


@pytest.fixture
def tiny_index(tmp_path: Path, tiny_rows: IndexRows) -> HybridIndex:
    return HybridIndex.build(tmp_path / "index", tiny_rows, generation=1)
