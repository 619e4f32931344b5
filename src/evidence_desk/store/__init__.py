"""Persistence: the SQLite archive store and the shared embedding cache.

* `sqlite.py` — `ArchiveStore`: documents, passages with float32 vectors, receipts, and a
  generation number that index builders use to know when to rebuild.
* `migrations.py` — the schema as ordered, named migrations.
* `rows.py` — the shapes the store returns (`DocumentMeta`, `IndexRows`, `StoredReceipt`).
* `embedding_cache.py` — vectors by (model, precision, text hash), shared across data dirs.
"""
