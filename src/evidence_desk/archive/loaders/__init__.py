"""Turning files into archive documents: one loader per format, chosen by file extension.

`iter_documents(paths)` walks the folders and files it is given and yields, lazily and in a
stable order, a `Loaded` document or a `Skipped` reason for every candidate. Doc ids:

* a file inside a folder given on the command line: its path relative to that folder, in
  POSIX form (`2017/08/2017-08-28-some-slug.md`);
* a file given directly: its file name;
* a JSONL record: its `id`.

Hidden files and folders (names starting with `.`) inside a folder are ignored silently: they
are editor, VCS and OS droppings, not documents. A hidden file named directly is loaded.
Ids are unique across one call: a repeated id is skipped with the place it was first seen.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from ...types import Document
from ..results import Loaded, LoadError, LoadResult, Skipped
from .html import load_html
from .jsonl import iter_jsonl
from .markdown import load_markdown
from .pdf import load_pdf
from .text import load_text

MAX_FILE_BYTES = 200 * 1024 * 1024
"""Files larger than this are skipped: a file this big is almost never one document."""

SingleLoader = Callable[[Path, str], Document]
LOADERS: dict[str, SingleLoader] = {
    ".txt": load_text,
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".html": load_html,
    ".htm": load_html,
    ".pdf": load_pdf,
}
SUPPORTED = (*sorted(LOADERS), ".jsonl")

__all__ = ["LOADERS", "SUPPORTED", "FileSample", "iter_documents", "load_file", "sample_files"]


def iter_documents(paths: Sequence[Path]) -> Iterator[LoadResult]:
    """Every document under `paths` (files or folders), or the reason it was skipped."""
    first_seen: dict[str, str] = {}
    for root in paths:
        for result in _load_root(Path(root)):
            if isinstance(result, Loaded):
                doc_id = result.document.doc_id
                where = result.source_path or doc_id
                if doc_id in first_seen:
                    first = first_seen[doc_id]
                    yield Skipped(where, f"duplicate document id {doc_id!r} (first from {first})")
                    continue
                first_seen[doc_id] = where
            yield result


class FileSample(NamedTuple):
    """Every k-th supported file under some paths, and how much it stands for."""

    files: list[tuple[Path, str]]  # (path, doc id), as `load_file` takes them
    sampled_bytes: int
    total_bytes: int
    total_files: int


def sample_files(paths: Sequence[Path], at_most: int, at_most_bytes: int) -> FileSample:
    """An even sample of the supported files `iter_documents(paths)` would read, for
    estimates: every k-th, k chosen so the sample holds at most `at_most` files and about
    `at_most_bytes`."""
    files: list[tuple[Path, str, int]] = []
    for root in map(Path, paths):
        pairs = _walk(root) if root.is_dir() else [(root, root.name)] if root.is_file() else []
        for path, rel in pairs:
            if path.suffix.lower() in SUPPORTED:
                try:
                    files.append((path, rel, path.stat().st_size))
                except OSError:
                    continue  # the ingest itself will say why
    total = sum(size for _, _, size in files)
    step = max(1, -(-len(files) // at_most), -(-total // max(at_most_bytes, 1)))
    picked = files[::step]
    sampled = sum(size for *_, size in picked)
    return FileSample([(p, rel) for p, rel, _ in picked], sampled, total, len(files))


def _load_root(root: Path) -> Iterator[LoadResult]:
    if root.is_dir():
        for path, rel in _walk(root):
            yield from load_file(path, rel)
    elif root.exists():
        yield from load_file(root, root.name)
    else:
        yield Skipped(str(root), "no such file or folder")


def _walk(root: Path) -> Iterator[tuple[Path, str]]:
    """(path, doc id) of each non-hidden file below `root`, sorted; folder links not followed."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(folder)
        for name in sorted(files):
            if not name.startswith("."):
                path = base / name
                yield path, path.relative_to(root).as_posix()


def _reason(exc: Exception) -> str:
    if isinstance(exc, LoadError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"could not be read ({exc.strerror or exc})"
    detail = str(exc)[:200]
    return f"could not be read ({type(exc).__name__}{': ' + detail if detail else ''})"


def load_file(path: Path, doc_id: str) -> Iterator[LoadResult]:
    """The document(s) of one file; every failure, of any kind, becomes a `Skipped`."""
    suffix = path.suffix.lower()
    if suffix != ".jsonl" and suffix not in LOADERS:
        kind = f"'{suffix}'" if suffix else "without an extension"
        supported = ", ".join(SUPPORTED)
        yield Skipped(str(path), f"unsupported file type {kind} (supported: {supported})")
        return
    try:
        if suffix == ".jsonl":
            yield from iter_jsonl(path)
            return
        if path.stat().st_size > MAX_FILE_BYTES:
            raise LoadError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        document = LOADERS[suffix](path, doc_id)
    except Exception as exc:  # a loader failure of any kind is a reasoned skip
        yield Skipped(str(path), _reason(exc))
        return
    yield Loaded(document, source_path=str(path))
