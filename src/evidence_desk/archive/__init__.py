"""The archive: turning files into documents and documents into stored, embedded passages.

* `loaders/` — one loader per format (text, markdown, HTML, PDF, JSONL); `iter_documents`.
* `sample.py` — the bundled State of the Union sample (`ingest --sample sotu`).
* `chunking.py` — sentence-aligned passages that are exact windows of the stored text.
* `entities.py` — names (presidents, authors) mapped to the time windows they cover.
* `ingest.py` — load, chunk, embed (reusing known vectors), store.

Nothing here is imported eagerly: trafilatura and pypdf load only when a page or PDF does.
"""
