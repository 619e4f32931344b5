"""Reading draft files: JSON, a JSON list or JSONL; a bad draft is reported in its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidence_desk.desk.drafts import (
    DraftFileError,
    DraftInput,
    InvalidDraft,
    reaching,
    read_drafts,
)
from evidence_desk.types import ScoredPassage, Source, TimeWindow


def draft(answer: str = "Roosevelt spoke of four freedoms [S1].") -> dict[str, Any]:
    return {
        "question": "What freedoms?",
        "answer": answer,
        "sources": [{"id": "S1", "doc_id": "1941-Roosevelt-1"}],
    }


def write(tmp_path: Path, text: str, name: str = "drafts.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_jsonl_lines_end_at_newline_only(tmp_path: Path, separator: str) -> None:
    answer = f"He said{separator}this [S1]."
    # ensure_ascii=False keeps the separator unescaped inside the JSON string.
    lines = [json.dumps(draft(answer), ensure_ascii=False), json.dumps(draft())]
    path = write(tmp_path, "\n".join(lines) + "\n")
    drafts = read_drafts(path)
    assert [d.answer for d in drafts if isinstance(d, DraftInput)] == [answer, draft()["answer"]]


def test_crlf_lines_and_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path, f"{json.dumps(draft())}\r\n\r\n{json.dumps(draft('B [S1].'))}\r\n")
    assert [d.answer for d in read_drafts(path) if isinstance(d, DraftInput)] == [
        draft()["answer"],
        "B [S1].",
    ]


def test_a_bad_line_is_reported_in_its_place(tmp_path: Path) -> None:
    bad_sources = {**draft(), "sources": [{"id": "S1", "doc_id": "a"}, {"id": "S1", "doc_id": "b"}]}
    lines = [
        json.dumps(draft("First [S1].")),
        "{oops",
        json.dumps({"sources": []}),
        json.dumps(bad_sources),
        json.dumps(draft("Last [S1].")),
    ]
    path = write(tmp_path, "\n".join(lines))
    first, not_json, no_answer, twice, last = read_drafts(path)
    assert isinstance(first, DraftInput) and first.answer == "First [S1]."
    assert isinstance(last, DraftInput) and last.answer == "Last [S1]."
    assert not_json == InvalidDraft(
        f"{path}:2: not JSON (Expecting property name enclosed in double quotes).", line=2
    )
    assert isinstance(no_answer, InvalidDraft) and no_answer.line == 3
    assert no_answer.message == f"{path}:3: answer: Field required."
    assert twice == InvalidDraft(f"{path}:4: sources: the same id is listed twice.", line=4)
    assert not_json.to_json() == {"line": 2, "error": not_json.message, "decision": None}


def test_a_json_list_reports_a_bad_item_by_its_index(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps([draft(), {"answer": ""}, draft()]), "drafts.json")
    good, bad, also_good = read_drafts(path)
    assert isinstance(good, DraftInput) and isinstance(also_good, DraftInput)
    assert isinstance(bad, InvalidDraft) and bad.index == 1 and bad.line is None
    assert bad.message == f"{path}[1]: answer: String should have at least 1 character."
    assert bad.to_json() == {"index": 1, "error": bad.message, "decision": None}


def test_one_json_object_spread_over_lines(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(draft(), indent=2), "draft.json")
    [only] = read_drafts(path)
    assert isinstance(only, DraftInput) and only.sources[0].doc_id == "1941-Roosevelt-1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is empty."),
        ("  \n\n", "is empty."),
        ("hello\nworld\n", "is neither JSON nor JSONL (Expecting value at line 1, column 1)."),
        ('{\n  "answer": "x",\n}\n', "is neither JSON nor JSONL"),
        ("42", "holds a single JSON value that is neither a draft nor a list."),
        (json.dumps({"answer": "x [S1]."}), ": sources: Field required."),
    ],
)
def test_a_file_that_holds_no_drafts_is_one_error(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(DraftFileError) as caught:
        read_drafts(path)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)


def test_an_unreadable_file_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(DraftFileError, match=r"^Cannot read"):
        read_drafts(path)


# ------------------------------------------------------------ a later source dates into a window

SEPTEMBER = TimeWindow(start="2016-09-01", end="2016-09-30", label="September 2016")


def article(date: str, text: str) -> Source:
    return Source(
        id="S1",
        doc_id="d",
        title="The data briefing",
        date=date,
        retrieved_at="2026-01-01T00:00:00Z",
        content_sha256="0" * 64,
        passages=(ScoredPassage(id="d#0", text=text, start=0, end=len(text), score=0.0),),
    )


def test_a_later_article_dates_what_it_says_into_a_short_window_within_reach() -> None:
    dates = reaching(60)
    summit = "Last month, the USAJOBS team hosted a summit for its agency partners."
    assert dates(article("2016-09-20", "The team met."), SEPTEMBER)  # its own date
    assert dates(article("2016-10-12", summit), SEPTEMBER)
    assert not dates(article("2016-10-12", "The USAJOBS team hosted a summit."), SEPTEMBER)
    assert not dates(article("2017-02-12", summit), SEPTEMBER)  # past the reach
    assert not reaching(0)(article("2016-10-12", summit), SEPTEMBER)
    year = TimeWindow(start="2016-01-01", end="2016-12-31", label="2016")
    assert not dates(article("2017-01-12", "Last month, the team met."), year)  # no tail
