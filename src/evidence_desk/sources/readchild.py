"""The child side of reading a fetched page: parse hostile bytes in a process that can die.

Run by `reading.py` as `python -m evidence_desk.sources.readchild --memory-bytes N
--cpu-seconds S`, one page per process. Before it reads a byte of the page it caps its own
address space (`RLIMIT_AS`), processor time (`RLIMIT_CPU`: S seconds from its page's header;
SIGXCPU then, SIGKILL a second later), file writes (`RLIMIT_FSIZE`) and core dumps, so a
page that makes a parser loop,
recurse or balloon ends this process, never the server. Only the standard library is
imported before the limits are set; the loaders (pydantic, trafilatura, pypdf) come after,
with one fixed page read to warm them up (`warm_up`), all before any page byte is read: the
process may then wait as `reading.py`'s spare. When its page's header arrives, the
processor-time limit starts again from there (`limit_cpu_from_now`).

Protocol (stdin -> stdout, JSON only, never pickle):

* stdin: one JSON header line, `{"kind": "html"|"text"|"markdown"|"pdf", "doc_id", "url", "charset",
  "max_pdf_pages", "max_text_chars"}`, then the body bytes until end of file;
* stdout: one JSON object, `{"document": <Document>}` or `{"refused": "<one sentence>"}`;
  exit status 0 either way. Anything else (a non-zero exit, a signal, no or bad JSON) is a
  failure the parent turns into its own sentence. End of input before a header (a spare
  discarded, its parent gone) is a quiet exit.

Invariants of a document written here: `origin == "web"`, `url` is the URL given (the final
URL of the fetch), `meta["sitename"]` is set (the page's, else the URL's host), the text
holds no U+0000 and at most `max_text_chars` characters. Decoding: a charset given (from the
`Content-Type` header) is applied; without one, text must be UTF-8 and HTML UTF-8 or its
`<meta charset>`. NUL characters in HTML or plain text are refused, not stripped: a page
holding them is binary data labelled as text. (PDF page texts drop them: `loaders/pdf.py`.)
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import resource
import sys
import traceback
import warnings
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from ..types import Document

HEADER_MAX_BYTES = 64 * 1024
WARM_UP_CPU_SECONDS = 30
"""Processor time the start (imports, the warm-up page) may take, beyond the page's own."""
STDERR_MAX_BYTES = 1024 * 1024
"""`RLIMIT_FSIZE`: the most this process may write to a file (its stderr is one)."""


class Refused(Exception):
    """The page cannot be read; the message is the one sentence the user sees."""


def set_limits(memory_bytes: int, cpu_seconds: int) -> None:
    """Cap this process: address space, processor time, file writes, no core dumps."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (STDERR_MAX_BYTES, STDERR_MAX_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def limit_cpu_from_now(cpu_seconds: int) -> None:
    """Allow `cpu_seconds` of processor time from now on (the warm-up's is not counted).

    Only ever lowers the hard limit `set_limits` gave (as long as the warm-up used less than
    `WARM_UP_CPU_SECONDS`, which that limit enforces), so no privilege is needed.
    """
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime) + cpu_seconds
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))


def memory_sentence(memory_bytes: int, what: str = "page") -> str:
    """What the user reads when reading a page ran out of its memory allowance."""
    size = f"{memory_bytes / 2**20:,.0f} MB"
    return f"Reading the {what} needed more than {size} of memory; it was stopped."


# --------------------------------------------------------------------------- reading


_LOADER_SENTENCES = {
    "no main text found in the page": "The page has no main text to read.",
    "not parseable as HTML": "The page is not parseable as HTML.",
    "no extractable text (scanned PDF?)": "The PDF has no text layer (it may be scanned), so "
    "there is nothing to read.",
    "encrypted PDF that needs a password": "The PDF is encrypted and needs a password.",
    "empty text": "The page has no text to read.",
}


def _sentence(what: str, reason: str) -> str:
    """A loader's reason (a lower-case fragment) as one sentence about the page."""
    known = _LOADER_SENTENCES.get(reason)
    if known is not None:
        return known
    if reason.startswith("not UTF-8"):  # `decode_text` and `decode_html` without a charset
        return f"The {what} is not valid UTF-8 and declares no charset, so it was not read."
    if reason.startswith(("declares ", "is not valid ")):  # a declared charset that fails
        return f"The {what} {reason}, so it was not read."
    return f"The {what} could not be read ({reason.rstrip('.')})."


def fallback_title(url: str) -> str:
    """A title from the URL: its last path segment (without extension), else its host."""
    parts = urlsplit(url)
    segment = unquote(parts.path.rstrip("/").rsplit("/", 1)[-1])
    stem = segment.rsplit(".", 1)[0] if "." in segment[1:] else segment
    return stem.strip() or parts.hostname or url


def _decode(data: bytes, charset: str | None, *, html: bool) -> str:
    """Bytes -> text by the module's decoding rule; `LoadError` or `Refused` when they are not."""
    from ..archive.loaders.common import decode_text
    from ..archive.loaders.html import decode_declared, decode_html

    if charset:
        text = decode_declared(data, charset)
    else:
        text = decode_html(data) if html else decode_text(data)
    if "\x00" in text:
        raise Refused("The page contains NUL characters, so it is not text; it was not read.")
    return text


def _check_length(text: str, limit: int, what: str) -> None:
    if len(text) > limit:
        raise Refused(
            f"The {what}'s text is {len(text):,} characters long; at most {limit:,} are read."
        )


def read(header: dict[str, Any], body: bytes) -> Document:
    """The web document of one page (see the module docstring for its invariants)."""
    from ..archive.loaders.html import html_document
    from ..archive.loaders.markdown import markdown_document
    from ..archive.loaders.pdf import pdf_document
    from ..archive.loaders.text import text_document
    from ..archive.results import LoadError

    kind, doc_id, url = str(header["kind"]), str(header["doc_id"]), str(header["url"])
    charset = header.get("charset") or None
    limit = int(header["max_text_chars"])
    title = fallback_title(url)
    what = "PDF" if kind == "pdf" else "page"
    try:
        if kind == "pdf":
            document = pdf_document(body, doc_id, title, max_pages=int(header["max_pdf_pages"]))
        elif kind == "html":
            document = html_document(_decode(body, charset, html=True), doc_id, title)
        elif kind == "text":
            text = _decode(body, charset, html=False)
            _check_length(text, limit, what)
            document = text_document(text, doc_id, title)
        elif kind == "markdown":
            text = _decode(body, charset, html=False)
            _check_length(text, limit, what)
            document = markdown_document(text, doc_id, title)
        else:
            raise Refused(f"The page is of a kind ({kind}) that cannot be read.")
    except LoadError as exc:
        raise Refused(_sentence(what, str(exc))) from None
    _check_length(document.text, limit, what)
    meta = dict(document.meta)
    meta.setdefault("sitename", urlsplit(url).hostname or url)
    return document.model_copy(update={"origin": "web", "url": url, "meta": meta})


_WARM_UP_PAGE = (
    "<html><head><title>Warm-up</title></head><body><article><p>"
    + "A paragraph that makes the extractor load everything it loads on its first page. " * 4
    + "</p></article></body></html>"
)


def warm_up() -> None:
    """Import every reader and read one fixed page, before any page byte arrives.

    trafilatura loads much of itself on its first extraction; done here, while the process
    waits as a spare (`reading.py`), that cost is not on a page's clock. A failure (a tiny
    memory limit) is ignored: reading the page then imports what it needs itself.
    """
    try:
        import pypdf  # noqa: F401

        from ..archive.loaders import pdf, text  # noqa: F401
        from ..archive.loaders.html import html_document

        html_document(_WARM_UP_PAGE, "warm-up", "Warm-up")
    except Exception:
        pass


def _failure(what: str, exc: Exception) -> str:
    """One sentence for an exception a loader did not expect (a parser's own error)."""
    detail = " ".join(str(exc).split())[:160].rstrip(".")
    return f"The {what} could not be read ({type(exc).__name__}{': ' + detail if detail else ''})."


# --------------------------------------------------------------------------- the process


def _reply(stdout: Any, payload: str) -> None:
    stdout.write(payload.encode("utf-8"))
    stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="readchild")
    parser.add_argument("--memory-bytes", type=int, required=True)
    parser.add_argument("--cpu-seconds", type=int, required=True)
    args = parser.parse_args(argv)
    set_limits(args.memory_bytes, args.cpu_seconds + WARM_UP_CPU_SECONDS)
    # Made before any page byte is read: after a MemoryError there may be no room to make it.
    out_of_memory = {
        what: json.dumps({"refused": memory_sentence(args.memory_bytes, what)})
        for what in ("page", "PDF")
    }
    too_deep = {
        what: json.dumps({"refused": f"The {what} is nested too deeply to read."})
        for what in ("page", "PDF")
    }
    logging.disable(logging.CRITICAL)  # parsers warn per broken object: unbounded output
    warnings.simplefilter("ignore")
    warm_up()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    line = stdin.readline(HEADER_MAX_BYTES)  # a spare waits here until its page comes
    if not line:
        return 0  # end of input before a page: the parent discarded this spare, or exited
    limit_cpu_from_now(args.cpu_seconds)
    what = "page"
    try:
        header = json.loads(line)
        what = "PDF" if header.get("kind") == "pdf" else "page"
        document = read(header, stdin.read())
        _reply(stdout, '{"document": ' + document.model_dump_json() + "}")
    except MemoryError:
        _reply(stdout, out_of_memory[what])
    except RecursionError:
        _reply(stdout, too_deep[what])
    except Refused as exc:
        _reply(stdout, json.dumps({"refused": str(exc)}))
    except Exception as exc:  # a parser's error on hostile bytes is a refusal, not a crash
        traceback.print_exc()
        _reply(stdout, json.dumps({"refused": _failure(what, exc)}))
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Interpreter finalisation with lxml, pypdf and pydantic loaded takes ~0.25 s, and the
    # parent waits for the exit; the reply is written and flushed, so nothing is lost.
    os._exit(status)
