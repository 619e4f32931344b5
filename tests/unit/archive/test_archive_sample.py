"""The bundled State of the Union sample and the names -> time windows derived from it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evidence_desk.archive.entities import entities_from_documents
from evidence_desk.archive.results import Loaded
from evidence_desk.archive.sample import SampleError, load_sample, sotu_presidents
from evidence_desk.types import Document, TimeWindow


@pytest.fixture(scope="module")
def sotu() -> dict[str, Document]:
    results = list(load_sample("sotu"))
    assert all(isinstance(r, Loaded) for r in results)
    return {r.document.doc_id: r.document for r in results if isinstance(r, Loaded)}


def test_all_249_addresses_load(sotu: dict[str, Document]) -> None:
    assert len(sotu) == 249
    dates = sorted(d.date or "" for d in sotu.values())
    assert dates[0] == "1790-01-08" and dates[-1] == "2026-02-24"
    ucsb = "https://www.presidency.ucsb.edu/"
    assert all(d.url and d.url.startswith(ucsb) for d in sotu.values())


def test_one_address_in_full(sotu: dict[str, Document]) -> None:
    doc = sotu["1934-Roosevelt-1"]
    assert doc.title == "Franklin D. Roosevelt — Annual Message to Congress, 1934"
    assert doc.date == "1934-01-03"
    assert doc.url == "https://www.presidency.ucsb.edu/documents/annual-message-congress-4"
    assert doc.meta == {
        "president": "Franklin D. Roosevelt",
        "president_last": "Roosevelt",
        "president_id": "roosevelt-32",
        "party": "Democratic",
        "sotu_type": "spoken",
        "is_sotu": "true",
        "office": "President",
        "addressees": "Congress",
    }
    assert doc.text.startswith("Mr. President, Mr. Speaker")


@pytest.mark.parametrize(
    ("doc_id", "title"),
    [
        ("1790-Washington-1", "George Washington — Annual Message to Congress, 1790"),
        ("1963-Kennedy-1", "John F. Kennedy — State of the Union Address, 1963"),
        ("1961-Eisenhower-1", "Dwight D. Eisenhower — State of the Union Message, 1961"),
        (
            "1945-Roosevelt-2",
            "Franklin D. Roosevelt — Supplementary State of the Union Message, 1945",
        ),
    ],
)
def test_titles(sotu: dict[str, Document], doc_id: str, title: str) -> None:
    assert sotu[doc_id].title == title


def test_sample_does_not_import_the_sotu_package_or_pandas() -> None:
    code = (
        "import sys; from evidence_desk.archive.sample import load_sample; "
        "n = sum(1 for _ in load_sample('sotu')); "
        "print(n, 'sotu' in sys.modules, 'pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["249", "False", "False"]


def test_unknown_sample_names_the_available_ones() -> None:
    with pytest.raises(SampleError, match=r"Unknown sample 'nope'; available samples: sotu\."):
        load_sample("nope")


def test_presidents_with_split_terms() -> None:
    spans = sotu_presidents()
    assert spans[0].president_id == "washington" and spans[0].first_date == "1790-01-08"
    trump = [s for s in spans if s.last_name == "Trump"]
    assert [(s.president_id, s.first_date, s.last_date) for s in trump] == [
        ("trump", "2018-01-30", "2020-02-04"),
        ("trump-2", "2026-02-24", "2026-02-24"),
    ]
    assert len({s.president_id for s in spans}) == len(spans)


def test_entities_map_full_and_last_names_to_windows(sotu: dict[str, Document]) -> None:
    entities = entities_from_documents(sotu.values())
    lincoln = TimeWindow(start="1861-12-03", end="1864-12-06", label="Abraham Lincoln")
    assert entities["lincoln"] == (lincoln,)
    assert entities["abraham lincoln"] == entities["lincoln"]
    roosevelts = [w.label for w in entities["roosevelt"]]
    assert roosevelts == ["Theodore Roosevelt", "Franklin D. Roosevelt"]
    assert len(entities["grover cleveland"]) == 2  # two non-consecutive terms


def test_entities_from_authors_and_undated_documents_ignored() -> None:
    def doc(doc_id: str, date: str | None, author: str) -> Document:
        return Document(
            doc_id=doc_id,
            title=doc_id,
            date=date,
            content_sha256="0" * 64,
            ingested_at="2024-01-01T00:00:00Z",
            text="x",
            meta={"author": author},
        )

    entities = entities_from_documents(
        [
            doc("a", "2019-03-01", "Jane Doe; Smith, John"),
            doc("b", "2021-06-30T10:00:00Z", "Jane Doe"),
            doc("c", None, "Nobody Dated"),
            doc("d", "2020-01-01", "18f-team; aids-gov; bbrantley; amy-ashida"),
        ]
    )
    jane = TimeWindow(start="2019-03-01", end="2021-06-30", label="Jane Doe")
    assert entities["jane doe"] == (jane,)
    assert entities["smith, john"][0].end == "2019-03-01"
    assert "nobody dated" not in entities
    # Slugs read as names; teams, sites and one-word user names are no person.
    assert entities["amy ashida"][0].start == "2020-01-01"
    assert not {"18f team", "aids gov", "bbrantley", "18f-team"} & set(entities)
