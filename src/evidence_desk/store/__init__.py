"""Persistence: everything the desk keeps, in one SQLite file, and the shared embedding cache.

* `protocol.py` — `Store`: what the floors above ask of a store, and the contract each
  method keeps; the one seam a second back end implements.
* `sqlite.py` — `ArchiveStore`, the embedded `Store`: documents, passages with float32
  vectors, receipts, and a generation number that index builders use to know when to rebuild.
* `versions.py` — earlier texts of documents, so receipts written against them still verify.
* `runs.py` — runs as records: the run row, its finished stages, its event log, its owner.
* `snapshots.py` — page snapshots and each run's record of its web effects.
* `accounts.py` — people, sessions, conversations, who asked which run, reviews, the switch.
* `notes.py` — a reader's notes on their runs, read back by that reader alone.
* `migrations.py` — the schema as ordered, named migrations.
* `rows.py` — the shapes the store returns (`DocumentMeta`, `IndexRows`, `StoredReceipt`).
* `embedding_cache.py` — vectors by (model, precision, text hash), shared across data dirs.

The bottom floor: it may import only `types`, `errors`, `clock` and `hashing`, never a
floor above it (`tests/unit/test_layering.py`).
"""
