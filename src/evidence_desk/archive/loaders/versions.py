"""The version of each loader's output, recorded with every document it makes.

A stored document keeps the version of the loader that made its text
(`Document.loader_version`). When a loader's output for the same file changes (a new
rendering rule, another extractor), its version here goes up, and the next ingest
re-extracts every stored document whose version differs from the current one
(`archive/ingest.py`). A document stored before loaders had versions has an empty version,
so it is re-extracted too. Versions are read when a document is made, never cached.
"""

from __future__ import annotations

LOADER_VERSIONS: dict[str, str] = {
    "text": "text-1",
    # 1 stored the raw body; 2 rendered it to plain text (render.py), template tags dropped;
    # 3 writes each Hugo shortcode as what its template shows (shortcode_views.py)
    "markdown": "markdown-3",
    "html": "html-2",  # 1 stored trafilatura's text; 2 walks its tree (lines, cells, links)
    "pdf": "pdf-1",
    "jsonl": "jsonl-1",
    "sotu": "sotu-1",  # the bundled sample (sample.py)
}
