"""Keeps the digital.gov evaluation set and the coverage calibration set honest against the archive.

`evidence_desk/data/digitalgov_eval.jsonl` (30 items) and `bench/data/digitalgov_coverage.jsonl`
(60 items, for calibrating the coverage check) follow the evaluation-questions contract and are
written for the archive built by `evidence-desk ingest <shared data>/digitalgov-news/raw/
content/news`, whose doc ids are paths relative to that folder. The checks read the archive's
files from the shared data folder (skipped with a reason when it is absent):

* every gold evidence string is a substring of its document's text as the markdown loader
  stores it (`load_file`, so the check follows whatever the loader stores: raw markdown
  today, rendered plain text later) and lies on one line of the raw file, free of markup;
* temporal items state their window in the notes (`Window 2017-04-01..2017-04-30.`) and
  their gold documents are dated inside it; an item whose notes say `Relative date:` asks
  about an event its article dates relatively (`last month`, `yesterday`), so its gold
  document is dated after the window's start, within six months;
* out-of-coverage items name in their notes what makes them absent: `Absent: term1; term2.`
  (no term occurs, case-insensitively, in any document's stored text or title, nor in any
  raw file of the archive, as written or with its markup stripped) and/or
  `No article dated: YYYY-MM.` or `No article dated: YYYY.` (no file of the archive has a
  front-matter date in that month or year).
"""

from __future__ import annotations

import calendar
import html
import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from evidence_desk.archive.loaders import load_file
from evidence_desk.archive.results import Loaded
from evidence_desk.evaluation.questions import bundled_questions, parse_questions
from evidence_desk.types import Document

pytestmark = pytest.mark.shared_data

ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
ARCHIVE_PARTS = ("digitalgov-news", "raw", "content", "news")

EVAL_FILE = files("evidence_desk").joinpath("data/digitalgov_eval.jsonl")
CALIBRATION_FILE = (
    Path(__file__).resolve().parents[2] / "bench" / "data" / "digitalgov_coverage.jsonl"
)

KINDS = ("factoid", "temporal", "comparison", "out_of_coverage")
FIELDS = {"id", "kind", "question", "gold_doc_ids", "gold_evidence", "answer_any", "notes"}
# Intended mix of the evaluation set: 9 / 7 / 6 / 8.
EVAL_RANGES = {
    "factoid": (7, 11),
    "temporal": (6, 9),
    "comparison": (5, 7),
    "out_of_coverage": (7, 10),
}
CALIBRATION_COUNTS = {"answerable": 30, "out_of_coverage": 30}

WINDOW = re.compile(r"\bWindow (\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})\.")
RELATIVE = "Relative date:"
RELATIVE_REACH = timedelta(days=183)
ABSENT = re.compile(r"\bAbsent: (.+?)\.(?:\s|$)")
NO_ARTICLE = re.compile(r"\bNo article dated: (\d{4})(?:-(\d{2}))?\.")
FRONT_DATE = re.compile(r"^date:\s*['\"]?(\d{4}-\d{2}-\d{2})", re.MULTILINE)
# Characters that are markup (or become something else) in markdown, HTML or Hugo.
MARKUP = set('[]()*_<>&{}`"“”#|~\\')


def _read(text: str, name: str) -> list[dict[str, Any]]:
    parse_questions(text, name)  # the package's own validation must accept the file
    return [json.loads(line) for line in text.splitlines() if line.strip()]


EVAL = _read(EVAL_FILE.read_text(encoding="utf-8"), "digitalgov_eval.jsonl")
CALIBRATION = _read(CALIBRATION_FILE.read_text(encoding="utf-8"), "digitalgov_coverage.jsonl")
SETS = {"eval": EVAL, "calibration": CALIBRATION}
ALL = [item for items in SETS.values() for item in items]
ANSWERABLE = [item for item in ALL if item["kind"] != "out_of_coverage"]
TEMPORAL = [item for item in ALL if item["kind"] == "temporal"]
ABSTENTIONS = [item for item in ALL if item["kind"] == "out_of_coverage"]


def _ids(item: dict[str, Any]) -> str:
    return str(item["id"])


# --------------------------------------------------------------------------- the archive


def _normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text).casefold()


def _stripped(raw: str) -> str:
    """Raw markdown with link targets, tags, shortcodes and emphasis marks removed."""
    text = re.sub(r"\]\([^)]*\)", "]", raw)
    text = re.sub(r"\{\{[<%].*?[>%]\}\}", " ", text, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"[*_\[\]`]", "", html.unescape(text))
    return text


@dataclass(frozen=True)
class Archive:
    documents: dict[str, Document]  # doc id -> what the markdown loader stores
    raw: dict[str, str]  # doc id -> the file's text, for every markdown file
    file_dates: dict[str, str]  # doc id -> front-matter date, for every article file
    searchable: tuple[str, ...]  # normalised texts in which an absent term must not occur


@pytest.fixture(scope="module")
def archive(request: pytest.FixtureRequest) -> Archive:
    """All markdown files of the archive, loaded once for the module (seconds: the tests that
    take it are `slow`)."""
    conftest = request.config.pluginmanager.get_plugin(str(ROOT_CONFTEST))
    assert conftest is not None, f"{ROOT_CONFTEST} is not loaded"
    root: Path = conftest.shared_data_or_skip(*ARCHIVE_PARTS)
    documents: dict[str, Document] = {}
    raw: dict[str, str] = {}
    file_dates: dict[str, str] = {}
    for path in sorted(root.rglob("*.md")):
        doc_id = path.relative_to(root).as_posix()
        raw[doc_id] = path.read_text(encoding="utf-8")
        found = FRONT_DATE.search(raw[doc_id])
        if found:
            file_dates[doc_id] = found[1]
        for result in load_file(path, doc_id):
            if isinstance(result, Loaded):
                documents[doc_id] = result.document
    assert len(raw) > 2000 and len(documents) > 1500 and len(file_dates) > 2000
    searchable = [_normalised(f"{d.title}\n{d.text}") for d in documents.values()]
    for text in raw.values():
        searchable += [_normalised(text), _normalised(_stripped(text))]
    return Archive(documents, raw, file_dates, tuple(searchable))


def _date(archive: Archive, doc_id: str) -> date:
    stored = archive.documents[doc_id].date
    assert stored, doc_id
    return date.fromisoformat(stored[:10])


# --------------------------------------------------------------------------- schema


def test_the_evaluation_set_is_bundled_as_digitalgov() -> None:
    assert [q.id for q in bundled_questions("digitalgov")] == [item["id"] for item in EVAL]


def test_ids_are_sequential() -> None:
    assert [item["id"] for item in EVAL] == [f"dg-{n:03d}" for n in range(1, 31)]
    assert [item["id"] for item in CALIBRATION] == [f"dgc-{n:03d}" for n in range(1, 61)]


@pytest.mark.parametrize("item", ALL, ids=_ids)
def test_every_item_has_exactly_the_contract_fields(item: dict[str, Any]) -> None:
    assert set(item) == FIELDS
    assert item["kind"] in KINDS
    assert item["question"].strip() and item["notes"].strip()
    for key in ("gold_doc_ids", "gold_evidence", "answer_any"):
        assert isinstance(item[key], list), key
        assert all(isinstance(v, str) and v.strip() for v in item[key]), key


def test_the_evaluation_set_has_every_kind_in_its_intended_share() -> None:
    counts = Counter(item["kind"] for item in EVAL)
    for kind, (low, high) in EVAL_RANGES.items():
        assert low <= counts[kind] <= high, (kind, counts[kind])
    relative = [item["id"] for item in EVAL if RELATIVE in item["notes"]]
    assert 1 <= len(relative) <= 2, relative


def test_the_calibration_set_is_half_answerable_factoids_and_temporals() -> None:
    counts = Counter(item["kind"] for item in CALIBRATION)
    assert set(counts) == {"factoid", "temporal", "out_of_coverage"}, counts
    assert counts["factoid"] + counts["temporal"] == CALIBRATION_COUNTS["answerable"]
    assert counts["out_of_coverage"] == CALIBRATION_COUNTS["out_of_coverage"]
    assert counts["factoid"] >= 10 and counts["temporal"] >= 10, counts


def test_questions_are_unique_within_and_across_the_sets() -> None:
    questions = [item["question"].casefold().strip() for item in ALL]
    assert len(set(questions)) == len(questions)


def test_the_sets_share_no_gold_sentence() -> None:
    in_eval = {e for item in EVAL for e in item["gold_evidence"]}
    in_calibration = {e for item in CALIBRATION for e in item["gold_evidence"]}
    assert in_eval.isdisjoint(in_calibration), in_eval & in_calibration


@pytest.mark.parametrize("item", ANSWERABLE, ids=_ids)
def test_answerable_items_have_gold_fields(item: dict[str, Any]) -> None:
    assert item["gold_doc_ids"] and item["gold_evidence"]
    assert 1 <= len(item["answer_any"]) <= 4
    assert len(set(item["gold_doc_ids"])) == len(item["gold_doc_ids"])
    expected = 2 if item["kind"] == "comparison" else 1
    assert len(item["gold_doc_ids"]) == expected


@pytest.mark.parametrize("item", ABSTENTIONS, ids=_ids)
def test_out_of_coverage_items_have_empty_gold_fields(item: dict[str, Any]) -> None:
    assert item["gold_doc_ids"] == item["gold_evidence"] == item["answer_any"] == []


@pytest.mark.parametrize("item", ANSWERABLE, ids=_ids)
def test_evidence_is_one_clean_sentence(item: dict[str, Any]) -> None:
    for evidence in item["gold_evidence"]:
        assert "\n" not in evidence and evidence == evidence.strip(), evidence
        assert not MARKUP & set(evidence), (evidence, MARKUP & set(evidence))
        assert evidence[-1] in ".?!:", evidence


@pytest.mark.parametrize("item", ANSWERABLE, ids=_ids)
def test_answer_strings_come_from_the_gold_evidence(item: dict[str, Any]) -> None:
    evidence = [e.casefold() for e in item["gold_evidence"]]
    for answer in item["answer_any"]:
        assert any(answer.casefold() in e for e in evidence), answer


# --------------------------------------------------------------------------- against the archive


@pytest.mark.slow
@pytest.mark.parametrize("item", ANSWERABLE, ids=_ids)
def test_gold_evidence_is_stored_verbatim_and_on_one_raw_line(
    archive: Archive, item: dict[str, Any]
) -> None:
    per_doc = Counter[str]()
    for doc_id in item["gold_doc_ids"]:
        assert doc_id in archive.documents, f"{doc_id} is not loaded from the archive"
    for evidence in item["gold_evidence"]:
        holders = [d for d in item["gold_doc_ids"] if evidence in archive.documents[d].text]
        assert holders, evidence
        for doc_id in holders:
            lines = archive.raw[doc_id].splitlines()
            assert any(evidence in line for line in lines), (doc_id, evidence)
        per_doc.update(holders)
    for doc_id in item["gold_doc_ids"]:
        assert 1 <= per_doc[doc_id] <= 2, (doc_id, per_doc[doc_id])


@pytest.mark.slow
@pytest.mark.parametrize("item", [i for i in ALL if i["kind"] == "comparison"], ids=_ids)
def test_comparisons_span_two_years_and_both_sides_hold_an_answer(
    archive: Archive, item: dict[str, Any]
) -> None:
    first, second = item["gold_doc_ids"]
    assert _date(archive, first).year != _date(archive, second).year
    for doc_id in item["gold_doc_ids"]:
        text = archive.documents[doc_id].text.casefold()
        assert any(a.casefold() in text for a in item["answer_any"]), doc_id


@pytest.mark.slow
@pytest.mark.parametrize("item", TEMPORAL, ids=_ids)
def test_temporal_gold_documents_lie_in_the_stated_window(
    archive: Archive, item: dict[str, Any]
) -> None:
    match = WINDOW.search(item["notes"])
    assert match, "notes must state 'Window YYYY-MM-DD..YYYY-MM-DD.'"
    start, end = date.fromisoformat(match[1]), date.fromisoformat(match[2])
    assert start <= end
    month_year = f"{calendar.month_name[start.month]} {start.year}"
    assert month_year in item["question"], f"the question should name {month_year}"
    for doc_id in item["gold_doc_ids"]:
        dated = _date(archive, doc_id)
        if RELATIVE in item["notes"]:
            assert end < dated <= start + RELATIVE_REACH, (doc_id, dated)
        else:
            assert start <= dated <= end, (doc_id, dated)


# --------------------------------------------------------------------------- abstentions hold


def _absent_terms(item: dict[str, Any]) -> list[str]:
    match = ABSENT.search(item["notes"])
    return [t.strip() for t in match[1].split(";")] if match else []


@pytest.mark.parametrize("item", ABSTENTIONS, ids=_ids)
def test_abstentions_name_what_is_absent(item: dict[str, Any]) -> None:
    terms = _absent_terms(item)
    dated = NO_ARTICLE.search(item["notes"])
    assert terms or dated, "notes must say 'Absent: term; term.' or 'No article dated: YYYY-MM.'"
    question = item["question"].casefold()
    if terms:
        assert any(t.casefold() in question for t in terms), terms
    if dated:
        year, month = dated[1], dated[2]
        named = f"{calendar.month_name[int(month)]} {year}" if month else year
        assert named in item["question"], named


@pytest.mark.slow
@pytest.mark.parametrize("item", [i for i in ABSTENTIONS if _absent_terms(i)], ids=_ids)
def test_absent_terms_occur_nowhere_in_the_archive(archive: Archive, item: dict[str, Any]) -> None:
    for term in _absent_terms(item):
        needle = _normalised(term)
        hits = sum(needle in text for text in archive.searchable)
        assert hits == 0, f"{term!r} occurs in the archive"


@pytest.mark.slow
@pytest.mark.parametrize(
    "item", [i for i in ABSTENTIONS if NO_ARTICLE.search(i["notes"])], ids=_ids
)
def test_no_article_is_dated_in_the_month_asked_about(
    archive: Archive, item: dict[str, Any]
) -> None:
    match = NO_ARTICLE.search(item["notes"])
    assert match
    prefix = match[1] + (f"-{match[2]}" if match[2] else "")
    dated = [d for d, day in archive.file_dates.items() if day.startswith(prefix)]
    stored = [d for d, doc in archive.documents.items() if (doc.date or "").startswith(prefix)]
    assert dated == stored == [], prefix


@pytest.mark.slow
def test_every_article_file_has_a_front_matter_date(archive: Archive) -> None:
    undated = [d for d in archive.raw if d not in archive.file_dates and d != "_index.md"]
    assert undated == []
