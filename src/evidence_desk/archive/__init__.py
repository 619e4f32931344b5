"""The archive: turning files into documents and documents into stored, embedded passages.

* `loaders/` — one loader per format (text, markdown, HTML, PDF, JSONL); `iter_documents`;
  `versions.py` — each loader's output version, recorded with every document.
* `render.py` — markdown rendered to the plain text readers see (with `htmltext.py` and
  `plaintext.py`, the writer HTML pages go through too); `template_tags.py` sets template
  tags aside before parsing, `shortcodes.py` reads a Hugo shortcode, `shortcode_views.py`
  says what its page shows of it.
* `sample.py` — the bundled State of the Union sample (`ingest --sample sotu`).
* `chunking.py` — sentence-aligned passages that are exact windows of the stored text.
* `entities.py` — names (presidents, authors) mapped to the time windows they cover.
* `ingest.py` — load, chunk, embed (reusing known vectors), store; re-extract documents an
  older loader version read, re-chunk those cut with other passage sizes.

Nothing heavy is imported eagerly: trafilatura and pypdf load only when a page or PDF does.
"""
