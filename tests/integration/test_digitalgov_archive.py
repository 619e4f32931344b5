"""The digital.gov news archive end to end: rendered text, the evaluation set's bar, upgrade.

The second real archive (../shared/data/digitalgov-news, Hugo markdown with front matter)
is ingested whole (the first run embeds about 9,500 passages: minutes on two cores; later
runs reuse the shared embedding cache). The desk must meet the digital.gov set's bar: every
published quote verbatim, no published answer carrying markup, no out-of-coverage question
published, the answer found for at least 70% of answerable questions; and a second ingest
of the same folder must change nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_desk.desk import Desk
from evidence_desk.settings import Settings

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]

FOLDER = Path(__file__).resolve().parents[3] / "shared/data/digitalgov-news/raw/content/news"


def shared_data_or_skip() -> Path:
    if not FOLDER.is_dir():
        pytest.skip(f"shared data not present at {FOLDER} (real-data test)")
    return FOLDER


@pytest.fixture(scope="module")
def dg_desk(tmp_path_factory: pytest.TempPathFactory) -> Desk:
    folder = shared_data_or_skip()
    desk = Desk(Settings(home=tmp_path_factory.mktemp("digitalgov-home")))
    summary = desk.ingest([folder])
    assert summary.added == 1813, summary
    return desk


def test_evaluation_set_meets_the_bar(dg_desk: Desk) -> None:
    report = dg_desk.evaluate(dg_desk.sample_questions("digitalgov"))
    s = report["summary"]
    assert s["published_quotes"] > 0
    assert s["published_quotes_verbatim_rate"] == 1.0
    assert s["published_answers_with_markup"] == 0, [
        (i["id"], i["published_markup"]) for i in report["items"] if i["published_markup"]
    ]
    assert s["out_of_coverage_published"] == 0
    assert s["answer_accuracy"] >= 0.7, [
        (i["id"], i["decision"]) for i in report["items"] if i["answer_found"] is False
    ]


def test_stored_text_is_rendered(dg_desk: Desk) -> None:
    doc = dg_desk.store.get_document(
        "2014/10/2014-10-08-the-api-briefing-cdcs-api-delivers-free-up-to-date-health-"
        "information-for-your-blog-or-website.md"
    )
    assert doc is not None and doc.links
    for raw in ("](", "{{", "<a ", "&#8217;", "**"):
        assert raw not in doc.text
    assert "Developers can use the Socrata Open Data API to pull JSON data" in doc.text
    assert all(doc.text[link.start : link.end] == link.text for link in doc.links)


def test_a_second_ingest_changes_nothing(dg_desk: Desk) -> None:
    summary = dg_desk.ingest([FOLDER])
    assert (summary.unchanged, summary.added, summary.reextracted, summary.rechunked) == (
        1813,
        0,
        0,
        0,
    )
