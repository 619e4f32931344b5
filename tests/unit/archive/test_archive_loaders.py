"""Loaders on small fixture files: ids, titles, dates, urls, metadata, stored text, skips."""

from __future__ import annotations

import hashlib
import re
import socket
from pathlib import Path

import pytest
from archive_helpers import FIXTURES

from evidence_desk.archive import loaders
from evidence_desk.archive.loaders import iter_documents, load_file
from evidence_desk.archive.loaders.common import cap_title, normalise_date
from evidence_desk.archive.loaders.markdown import split_front_matter
from evidence_desk.archive.loaders.versions import LOADER_VERSIONS
from evidence_desk.archive.results import Loaded, LoadError, Skipped
from evidence_desk.types import Document

FOLDER = FIXTURES / "folder"
Folder = tuple[dict[str, Document], dict[str, str]]
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def _split(results: list[Loaded | Skipped]) -> tuple[dict[str, Document], dict[str, str]]:
    docs = {r.document.doc_id: r.document for r in results if isinstance(r, Loaded)}
    skips = {Path(r.path).name: r.reason for r in results if isinstance(r, Skipped)}
    return docs, skips


@pytest.fixture(scope="module")
def folder() -> Folder:
    return _split(list(iter_documents([FOLDER])))


def test_folder_doc_ids_are_relative_posix_paths(folder: Folder) -> None:
    docs, _ = folder
    assert sorted(docs) == [
        "2017/08/2017-08-28-open-data-week.md",
        "article.html",
        "notes/2021-04-01-quarterly-report.txt",
        "notes/bom-crlf.txt",
        "notes/no-front-matter.md",
    ]


def test_hidden_files_and_folders_are_ignored(folder: Folder) -> None:
    docs, skips = folder
    assert not any("hidden" in d or "draft" in d for d in docs)
    assert not any(name.startswith(".") or name == "draft.txt" for name in skips)


def test_every_document_is_hashed_and_stamped(folder: Folder) -> None:
    for doc in folder[0].values():
        assert doc.content_sha256 == hashlib.sha256(doc.text.encode("utf-8")).hexdigest()
        assert ISO_Z.match(doc.ingested_at)
        assert doc.origin == "archive"


def test_skips_carry_clear_reasons(folder: Folder) -> None:
    _, skips = folder
    assert set(skips) == {"latin1.txt", "empty.txt", "blank.txt", "table.csv"}
    assert skips["latin1.txt"].startswith("not UTF-8 text (invalid byte 0xe9 at offset 3)")
    assert skips["empty.txt"] == skips["blank.txt"] == "empty text"
    assert skips["table.csv"].startswith("unsupported file type '.csv' (supported: .htm, .html")


def test_text_loader(folder: Folder) -> None:
    doc = folder[0]["notes/2021-04-01-quarterly-report.txt"]
    assert doc.title == "Quarterly report on service delivery"
    assert doc.date == "2021-04-01"
    assert doc.url is None
    assert doc.text == (FOLDER / "notes/2021-04-01-quarterly-report.txt").read_text("utf-8")


def test_bom_is_stripped_and_newlines_normalised(folder: Folder) -> None:
    doc = folder[0]["notes/bom-crlf.txt"]
    assert doc.text == "Windows notes\n\nLine two.\nLine three.\n"
    assert doc.title == "Windows notes"
    assert doc.date is None


def test_markdown_front_matter(folder: Folder) -> None:
    doc = folder[0]["2017/08/2017-08-28-open-data-week.md"]
    assert doc.title == "Open Data Week & the Census"
    assert doc.date == "2017-08-28"
    assert doc.url == "https://example.gov/news/open-data-week"  # the permalink is relative
    assert doc.meta["author"] == "jane-doe; john-roe"
    assert doc.meta["topics"] == "open-data; census"
    assert doc.meta["permalink"] == "/2017/08/28/open-data-week/"
    assert "featured_image" not in doc.meta and "title" not in doc.meta
    # The stored text is the body rendered: a soft line break inside a paragraph is a space,
    # paragraphs are set apart by one blank line, and the front matter is not in it.
    assert doc.text == (
        "Open Data Week brought forty agencies together in Washington. The Census Bureau "
        "showed how its new API serves 3.2 million requests a day.\n\n"
        '"We publish first and polish later," said the bureau\'s chief data officer. Teams '
        "from three departments signed the shared data pledge on August 28, 2017."
    )
    assert doc.loader_version == "markdown-3" and doc.links == ()


def test_markdown_without_front_matter(folder: Folder) -> None:
    doc = folder[0]["notes/no-front-matter.md"]
    assert doc.title == "Field notes on accessibility"
    assert doc.text == (
        "Field notes on accessibility\n\n"
        "Screen readers announce headings in order. Every page needs exactly one level-one "
        "heading."
    )


def test_every_loader_records_its_version(folder: Folder) -> None:
    versions = {doc_id: doc.loader_version for doc_id, doc in folder[0].items()}
    assert versions == {
        "2017/08/2017-08-28-open-data-week.md": LOADER_VERSIONS["markdown"],
        "article.html": LOADER_VERSIONS["html"],
        "notes/2021-04-01-quarterly-report.txt": LOADER_VERSIONS["text"],
        "notes/bom-crlf.txt": LOADER_VERSIONS["text"],
        "notes/no-front-matter.md": LOADER_VERSIONS["markdown"],
    }
    [memo] = [r for r in iter_documents([FIXTURES / "records.jsonl"]) if isinstance(r, Loaded)][:1]
    assert memo.document.loader_version == LOADER_VERSIONS["jsonl"] == "jsonl-1"


def test_html_main_text_and_metadata(folder: Folder) -> None:
    doc = folder[0]["article.html"]
    assert doc.title == "City opens new library branch"
    assert doc.url == "https://gazette.example.com/2022/05/library-branch"
    assert doc.date == "2022-05-14"
    assert doc.meta["author"] == "Maria Lopez"
    assert "twelfth library branch" in doc.text and "8.5 million dollars" in doc.text
    for absent in ("INJECTED BY SCRIPT", "fetch(", "Copyright Example Gazette", "background"):
        assert absent not in doc.text


def test_html_never_touches_the_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the HTML loader opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    page = tmp_path / "url-only.html"
    page.write_text("https://evil.example.net/page-that-looks-like-a-url", "utf-8")
    results = list(load_file(page, "url-only.html")) + list(load_file(FOLDER / "article.html", "a"))
    assert isinstance(results[1], Loaded)
    assert isinstance(results[0], Skipped | Loaded)  # either way: no connection was attempted


def test_html_declared_charset_is_honoured(tmp_path: Path) -> None:
    page = tmp_path / "latin.html"
    body = "<p>Le café du coin sert un très bon crème depuis mille neuf cent vingt.</p>" * 5
    page.write_bytes(
        f'<html><head><meta charset="iso-8859-1"><title>Café</title></head>'
        f"<body><article>{body}</article></body></html>".encode("latin-1")
    )
    [result] = list(load_file(page, "latin.html"))
    assert isinstance(result, Loaded)
    assert "Le café du coin" in result.document.text


def test_html_undeclared_non_utf8_is_skipped(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_bytes("<html><body><p>caf\xe9</p></body></html>".encode("latin-1"))
    [result] = list(load_file(page, "bad.html"))
    assert isinstance(result, Skipped)
    assert result.reason == "not UTF-8 and no <meta charset> declared; convert the page to UTF-8"


def test_jsonl_records_and_bad_lines() -> None:
    results = list(iter_documents([FIXTURES / "records.jsonl"]))
    docs = {r.document.doc_id: r for r in results if isinstance(r, Loaded)}
    skips = [str(r) for r in results if isinstance(r, Skipped)]
    assert sorted(docs) == ["17", "memo-1", "memo-2"]
    memo = docs["memo-1"].document
    assert memo.title == "Budget memo"
    assert memo.date == "2020-03-03"
    assert memo.url == "https://records.example.org/memo-1"
    assert memo.meta == {"author": "A. Clerk; B. Chair", "topic": "budget", "pages": "2"}
    assert memo.text == (
        "The committee met on 3 March 2020 and approved the budget.\nThe vote was 7 to 2."
    )
    assert str(docs["memo-1"].source_path).endswith("records.jsonl:1")
    assert docs["memo-2"].document.date is None
    assert docs["memo-2"].document.meta["date_raw"] == "June 2020"
    assert docs["memo-2"].document.title == "Second memo: the library hours change in June."
    assert docs["17"].document.url is None
    assert docs["17"].document.meta["url_raw"] == "/relative/path"
    where = str(FIXTURES / "records.jsonl")
    assert skips == [
        f"{where}:3: not valid JSON (Expecting ',' delimiter at column 47)",
        f'{where}:4: "memo-4" needs a "text" string',
        f"{where}:6: duplicate document id 'memo-1' (first from {where}:1)",
        f"{where}:7: is not a JSON object",
        f'{where}:8: needs an "id" that is a non-empty string',
    ]


def test_ids_are_unique_across_one_call(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "same.txt").write_text("First copy.", "utf-8")
    (tmp_path / "b" / "same.txt").write_text("Second copy.", "utf-8")
    results = list(iter_documents([tmp_path / "a", tmp_path / "b"]))
    assert [type(r).__name__ for r in results] == ["Loaded", "Skipped"]
    assert isinstance(results[1], Skipped)
    assert "duplicate document id 'same.txt'" in results[1].reason


def test_single_file_id_is_its_name_and_missing_path_is_skipped(tmp_path: Path) -> None:
    results = list(iter_documents([FOLDER / "notes" / "no-front-matter.md", tmp_path / "nope"]))
    assert isinstance(results[0], Loaded) and results[0].document.doc_id == "no-front-matter.md"
    assert isinstance(results[1], Skipped) and results[1].reason == "no such file or folder"


def test_any_loader_failure_becomes_a_skip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(path: Path, doc_id: str) -> Document:
        raise RuntimeError("parser blew up")

    monkeypatch.setitem(loaders.LOADERS, ".txt", explode)
    (tmp_path / "x.txt").write_text("fine text", "utf-8")
    [result] = list(iter_documents([tmp_path / "x.txt"]))
    assert isinstance(result, Skipped)
    assert result.reason == "could not be read (RuntimeError: parser blew up)"


def test_front_matter_edge_cases() -> None:
    assert split_front_matter("\n\n---\ntitle: x\n---\nbody") == ({"title": "x"}, "body")
    assert split_front_matter("---\nno closing line\n") == (None, "---\nno closing line\n")
    assert split_front_matter("---\n---\nbody\n") == ({}, "body\n")
    with pytest.raises(LoadError, match=r"front matter is not valid YAML \(line 3\)"):
        split_front_matter("---\ntitle: ok\n  bad indent: x\n---\nbody")
    with pytest.raises(LoadError, match="not a YAML mapping"):
        split_front_matter("---\n- a\n- b\n---\nbody")


def test_front_matter_only_markdown_is_skipped(tmp_path: Path) -> None:
    page = tmp_path / "redirect.md"
    page.write_text("---\ntitle: Moved\nsource_url: https://x.example/\n---\n", "utf-8")
    [result] = list(load_file(page, "redirect.md"))
    assert isinstance(result, Skipped) and result.reason == "no text after the front matter"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2019-03-26 12:38:00 -0500", "2019-03-26"),
        ("2015-6-9 1:00:19 -0400", "2015-06-09"),
        ("2020-02-30", None),
        ("March 2020", None),
        (None, None),
    ],
)
def test_normalise_date(value: object, expected: str | None) -> None:
    assert normalise_date(value) == expected


def test_titles_are_capped_at_a_word_boundary() -> None:
    title = cap_title("word " * 100)
    assert len(title) <= 201 and title.endswith("word…")
