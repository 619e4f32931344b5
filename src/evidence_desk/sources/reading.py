"""Reading a fetched page: its bytes become a web `Document`, parsed in a process that can die.

A fetched page is hostile data: a PDF whose cross-reference table points at itself, 100,000
nested `<div>`s, a "page" that is a binary file. So this process never parses it. It picks
the reader from the `Content-Type` (HTML, plain text, PDF; anything else is refused before
any process starts), then runs `readchild.py` with `sys.executable` and a minimal
environment, hands it the bytes on stdin and waits at most `ReadLimits.seconds` of wall
time, killing it after that. The child caps its own memory and processor time before it
reads a byte. Whatever happens in the child, `read_page` returns a `Document` or raises
`ReadRefused` with one sentence: it never hangs past its limit and never sinks the caller.

The reply is JSON only, validated as a `Document` (`model_validate_json`) and checked
against the request (doc id, URL, origin, the text's SHA-256); nothing is unpickled.

What a document holds is the child's business (its docstring): `origin="web"`, `url` the
final URL, title/date/author/site name from the page (trafilatura) or the PDF's info, the
site name falling back to the URL's host, at most `max_pdf_pages` PDF pages with their
labels (`meta["pages_read"]`/`meta["pages_total"]` when a PDF is longer).

Cost: one process per page, never reused, so no page's state or limits reach another.
Starting one and importing its readers is the cost; measured on this box (2 vCPUs shared
with other jobs, load 3-4): ~0.35 s for pydantic, ~0.3 s more for trafilatura, and ~0.5 s
of trafilatura loading itself on its first page. So the default command keeps one *spare*:
a child started, imported and warmed up (one fixed page read) while the previous page is
read, that then waits for its page. A page that finds the spare ready takes 25-60 ms in
all (a trivial page, text or HTML); a cold child ~1-1.5 s; pages read back to back wait
for the spare's warm-up (~1 s of processor time each). The child skips interpreter
finalisation (`os._exit` once its reply is flushed), which alone cost ~0.25 s. Figures:
`python -m bench.extraction`.
"""

from __future__ import annotations

import atexit
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..errors import DeskError
from ..hashing import sha256_text
from ..types import Document
from .readchild import memory_sentence

CHILD_COMMAND: tuple[str, ...] = (sys.executable, "-P", "-m", "evidence_desk.sources.readchild")
"""How the child is started; `read_page(child_command=...)` replaces it (tests)."""

KINDS: dict[str, str] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "text/markdown": "markdown",
    "application/pdf": "pdf",
}
"""Media type -> the reader that reads it. Every other type is refused."""

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding `evidence_desk`
_STDERR_TAIL = 4096


class ReadRefused(DeskError):
    """A fetched page could not become a document; the message is one sentence saying why."""


class ReadLimits(BaseModel):
    """What reading one page may cost before it is stopped."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seconds: float = Field(
        20.0, gt=0, description="Wall-clock seconds for the whole read, process start included."
    )
    memory_bytes: int = Field(
        2**30, ge=2**20, description="Address space of the reading process (RLIMIT_AS)."
    )
    max_pdf_pages: int = Field(30, ge=1, description="A longer PDF is read up to this page.")
    max_text_chars: int = Field(
        1_000_000, ge=1, description="A page whose text is longer than this is refused."
    )


class _Reply(BaseModel):
    """The child's answer: exactly one of the two fields is set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    document: Document | None = None
    refused: str | None = None


def parse_content_type(content_type: str) -> tuple[str, str | None]:
    """`text/html; charset="UTF-8"` -> (`text/html`, `UTF-8`); the media type lower-cased."""
    media, *params = content_type.split(";")
    charset = None
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'").strip() or None
    return media.strip().lower(), charset


def read_page(
    body: bytes,
    content_type: str,
    *,
    doc_id: str,
    url: str,
    limits: ReadLimits = ReadLimits(),  # noqa: B008 (frozen: one shared default is safe)
    child_command: Sequence[str] = CHILD_COMMAND,
) -> Document:
    """The web document of a fetched page, or `ReadRefused` with one sentence.

    `url` is the final URL of the fetch (after redirects): it becomes `Document.url`.
    """
    media, charset = parse_content_type(content_type)
    kind = KINDS.get(media)
    if kind is None:
        shown = media or "unstated"
        raise ReadRefused(
            f"The page is of type {shown}, which cannot be read; only HTML, plain text and "
            "PDF pages are."
        )
    header = json.dumps(
        {
            "kind": kind,
            "doc_id": doc_id,
            "url": url,
            "charset": charset,
            "max_pdf_pages": limits.max_pdf_pages,
            "max_text_chars": limits.max_text_chars,
        }
    ).encode("utf-8")  # ASCII only (json escapes the rest): never holds a newline
    what = "PDF" if kind == "pdf" else "page"
    stdout = _run_child(list(child_command), header + b"\n" + body, limits, what)
    return _checked(stdout, doc_id=doc_id, url=url, what=what)


def _environment() -> dict[str, str]:
    """The child's environment: enough to start Python and import this package, no more."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": os.environ.get("HOME", tempfile.gettempdir()),
        "PYTHONPATH": str(_PACKAGE_ROOT),
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LC_ALL": "C.UTF-8",
    }


class _Child:
    """One started child process, used for exactly one page, with its stderr in a file."""

    def __init__(self, key: tuple[str, ...]) -> None:
        self.key = key
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by discard)
        self.proc = subprocess.Popen(
            key,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=_environment(),
            cwd=_PACKAGE_ROOT,
        )

    def stderr_tail(self) -> bytes:
        self.stderr.seek(max(0, self.stderr.seek(0, os.SEEK_END) - _STDERR_TAIL))
        return self.stderr.read()

    def discard(self) -> None:
        """Kill (if still running), reap, and close: nothing of the child is left."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()
        self.stderr.close()


# The spare: a child of the default command, started (and warming up: imports, a first
# extraction) while the previous page is read, so that a page mostly does not wait for a
# process start. Still one page per process: a spare is used once, then it exits.
_spare: _Child | None = None
_spare_lock = threading.Lock()


def _take_child(key: tuple[str, ...], pooled: bool) -> _Child:
    """A child for one page: the spare when it matches `key`, and a new spare behind it."""
    global _spare
    if not pooled:
        return _Child(key)
    with _spare_lock:
        child, _spare = _spare, None
        if child is not None and (child.key != key or child.proc.poll() is not None):
            child.discard()
            child = None
        _spare = _Child(key)
    return child if child is not None else _Child(key)


@atexit.register
def _discard_spare() -> None:
    global _spare
    with _spare_lock:
        if _spare is not None:
            _spare.discard()
            _spare = None


def _run_child(command: list[str], stdin: bytes, limits: ReadLimits, what: str) -> bytes:
    """The child's stdout; `ReadRefused` when it was stopped or died."""
    cpu = math.ceil(limits.seconds)
    key = (*command, "--memory-bytes", str(limits.memory_bytes), "--cpu-seconds", str(cpu))
    child = _take_child(key, pooled=tuple(command) == CHILD_COMMAND)
    try:
        try:
            stdout, _ = child.proc.communicate(stdin, timeout=limits.seconds)
        except subprocess.TimeoutExpired:
            raise ReadRefused(
                f"Reading the {what} took longer than {_seconds(limits.seconds)}; it was stopped."
            ) from None
        if child.proc.returncode == 0:
            return stdout
        tail = child.stderr_tail()
    finally:
        child.discard()
    raise ReadRefused(_death_sentence(child.proc.returncode, tail, limits, what))


def _seconds(value: float) -> str:
    return f"{value:g} second{'' if value == 1 else 's'}"


def _death_sentence(returncode: int, stderr_tail: bytes, limits: ReadLimits, what: str) -> str:
    if returncode == -signal.SIGXCPU:
        cpu = _seconds(math.ceil(limits.seconds))
        return f"Reading the {what} used more than {cpu} of processor time; it was stopped."
    if b"MemoryError" in stderr_tail:
        return memory_sentence(limits.memory_bytes, what)
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return f"Reading the {what} was stopped by the system ({name}); it was not read."
    return f"Reading the {what} failed: the reader exited with status {returncode}."


def _checked(stdout: bytes, *, doc_id: str, url: str, what: str) -> Document:
    """The child's reply as a document, or its refusal; a malformed reply is a refusal too."""
    try:
        reply = _Reply.model_validate_json(stdout)
    except ValueError:  # pydantic's ValidationError is a ValueError
        reply = _Reply()
    if reply.refused is not None and reply.document is None:
        raise ReadRefused(" ".join(reply.refused.split()))
    doc = reply.document
    if (
        doc is None
        or reply.refused is not None
        or doc.doc_id != doc_id
        or doc.url != url
        or doc.origin != "web"
        or sha256_text(doc.text) != doc.content_sha256
    ):
        raise ReadRefused(f"Reading the {what} failed: the reader's reply was not a document.")
    return doc
