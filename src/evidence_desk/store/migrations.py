"""The archive database schema, as an ordered list of named migrations.

Each migration is a function that runs once per database, inside its own transaction, and is
recorded by name in `_migrations`. New schema changes are new functions appended to the end;
an applied migration is never edited. A database that records a migration this code does not
know was written by a newer version, and is refused rather than misread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ..errors import DeskError
from ..hashing import utc_now

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


class SchemaError(DeskError, RuntimeError):
    """The database cannot be used by this version of the code."""


def migration(fn: Migration) -> Migration:
    """Register `fn` as the next migration, named after the function."""
    MIGRATIONS.append((fn.__name__, fn))
    return fn


@migration
def m001_archive(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE documents (
            doc_id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            date TEXT,
            url TEXT,
            origin TEXT NOT NULL,
            content_sha256 TEXT NOT NULL,
            ingested_at TEXT NOT NULL,
            text TEXT NOT NULL,
            pages TEXT NOT NULL DEFAULT '[]',
            meta TEXT NOT NULL DEFAULT '{}',
            source_path TEXT
        )"""
    )
    db.execute("CREATE INDEX documents_date ON documents(date)")
    db.execute(
        """CREATE TABLE passages (
            passage_id TEXT PRIMARY KEY,
            doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text_sha256 TEXT NOT NULL,
            vector BLOB NOT NULL,
            UNIQUE (doc_id, ordinal)
        )"""
    )
    db.execute("CREATE INDEX passages_text_sha256 ON passages(text_sha256)")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta (key, value) VALUES ('generation', '0')")


@migration
def m002_receipts(db: sqlite3.Connection) -> None:
    # `seq` fixes the chain order; run ids are unique.
    db.execute(
        """CREATE TABLE receipts (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            decision TEXT NOT NULL,
            canonical_sha256 TEXT NOT NULL,
            previous_sha256 TEXT,
            json TEXT NOT NULL
        )"""
    )


@migration
def m003_document_versions(db: sqlite3.Connection) -> None:
    # A NULL loader_version or chunking is a document stored before they were recorded: the
    # next ingest re-extracts and re-chunks it. `document_versions` keeps each text a
    # document had before a re-ingest replaced it, so receipts that quote it still verify.
    db.execute("ALTER TABLE documents ADD COLUMN links TEXT NOT NULL DEFAULT '[]'")
    db.execute("ALTER TABLE documents ADD COLUMN loader_version TEXT")
    db.execute("ALTER TABLE documents ADD COLUMN chunking TEXT")
    db.execute(
        """CREATE TABLE document_versions (
            doc_id TEXT NOT NULL,
            content_sha256 TEXT NOT NULL,
            text TEXT NOT NULL,
            loader_version TEXT,
            replaced_at TEXT NOT NULL,
            PRIMARY KEY (doc_id, content_sha256)
        )"""
    )


@migration
def m004_runs(db: sqlite3.Connection) -> None:
    # A run is stored as it goes (`runs.py`): its row, one row per finished stage (unique per
    # run and stage), and an append-only event log.
    db.execute(
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            question TEXT NOT NULL,
            mode TEXT NOT NULL,
            status TEXT NOT NULL,
            next_stage TEXT,
            decision TEXT,
            failure TEXT,
            lease_owner TEXT,
            lease_expires TEXT,
            opening TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX runs_status ON runs(status, created_at)")
    db.execute(
        """CREATE TABLE run_stages (
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            stage TEXT NOT NULL,
            output TEXT NOT NULL,
            record TEXT NOT NULL,
            PRIMARY KEY (run_id, seq),
            UNIQUE (run_id, stage)
        )"""
    )
    db.execute(
        """CREATE TABLE run_events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            kind TEXT NOT NULL,
            stage TEXT,
            data TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    db.execute("CREATE INDEX run_events_run ON run_events(run_id, seq)")


@migration
def m005_run_calls(db: sqlite3.Connection) -> None:
    # The run's ledger of model calls (`runs.py`): one row per try as it returns, with what
    # it used and cost; a reply's output too, keyed so a re-run stage reuses it and pays once.
    db.execute(
        """CREATE TABLE run_calls (
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            at TEXT NOT NULL,
            call_key TEXT NOT NULL,
            role TEXT NOT NULL,
            engine TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('reply', 'failed')),
            requests INTEGER NOT NULL,
            input_tokens INTEGER NOT NULL,
            output_tokens INTEGER NOT NULL,
            spend_usd REAL,
            output TEXT,
            PRIMARY KEY (run_id, seq)
        )"""
    )
    db.execute(
        "CREATE UNIQUE INDEX run_calls_reply ON run_calls(run_id, call_key) WHERE outcome = 'reply'"
    )


@migration
def m006_run_call_price_source(db: sqlite3.Connection) -> None:
    # Where each try's price came from (`agents/prices.py`), so a reply read back from the
    # ledger keeps the source its spend was priced from; NULL for tries recorded before.
    db.execute("ALTER TABLE run_calls ADD COLUMN price_source TEXT")


@migration
def m007_workspace(db: sqlite3.Connection) -> None:
    # The web workspace (`accounts.py`): people (a reader may be anonymous: no name, no
    # password), sessions by the SHA-256 of their opaque id (the id itself is never stored)
    # and their kind (a browser's cookie or a widget frame's token: neither opens the other),
    # sign-in attempts for rate limiting, conversations, which reader asked which run, editors'
    # reviews of held runs, and every flip of the widget's kill switch.
    db.execute(
        """CREATE TABLE users (
            user_id TEXT PRIMARY KEY,
            name TEXT UNIQUE,
            role TEXT NOT NULL CHECK (role IN ('reader', 'editor')),
            password_hash TEXT,
            created_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """CREATE TABLE sessions (
            session_sha256 TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
            csrf_token TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            revoked_at TEXT,
            kind TEXT NOT NULL DEFAULT 'cookie' CHECK (kind IN ('cookie', 'widget'))
        )"""
    )
    db.execute("CREATE INDEX sessions_user ON sessions(user_id)")
    db.execute(
        """CREATE TABLE sign_in_attempts (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            key TEXT NOT NULL,
            at TEXT NOT NULL,
            ok INTEGER NOT NULL
        )"""
    )
    db.execute("CREATE INDEX sign_in_attempts_key ON sign_in_attempts(key, at)")
    db.execute(
        """CREATE TABLE conversations (
            conv_id TEXT PRIMARY KEY,
            owner_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
            created_at TEXT NOT NULL,
            title TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX conversations_owner ON conversations(owner_id, created_at)")
    db.execute(
        """CREATE TABLE run_owners (
            run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
            owner_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
            conv_id TEXT REFERENCES conversations(conv_id) ON DELETE CASCADE,
            channel TEXT NOT NULL CHECK (channel IN ('workspace', 'widget')),
            asked_at TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX run_owners_conv ON run_owners(conv_id, asked_at)")
    db.execute(
        """CREATE TABLE reviews (
            review_id TEXT PRIMARY KEY,
            held_run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            editor_id TEXT NOT NULL REFERENCES users(user_id),
            action TEXT NOT NULL CHECK (action IN ('approved', 'rejected', 'edited')),
            reason TEXT NOT NULL,
            at TEXT NOT NULL,
            receipt_run_id TEXT,
            outcome TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    db.execute("CREATE INDEX reviews_held ON reviews(held_run_id, at)")
    db.execute(
        """CREATE TABLE widget_switch (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            paused INTEGER NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(user_id),
            at TEXT NOT NULL,
            reason TEXT NOT NULL
        )"""
    )


@migration
def m008_web_sources(db: sqlite3.Connection) -> None:
    # Web sources (`snapshots.py`): every page the desk read, as the bytes it read (after
    # the content encoding was undone) with what the safe fetch saw, and the document read
    # from them, so a cited page re-opens exactly as it was. A snapshot is named by its
    # final URL and body hash and never changes. `run_effects` is a run's record of its
    # searches and fetches, one row per idempotency key: a resumed run reads a recorded
    # effect back instead of doing it again (runs in memory, for evaluation, record theirs
    # too: no foreign key to `runs`).
    db.execute(
        """CREATE TABLE snapshots (
            snapshot_id TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            final_url TEXT NOT NULL,
            origin TEXT NOT NULL CHECK (origin IN ('web', 'upload')),
            content_type TEXT NOT NULL,
            charset TEXT,
            body_sha256 TEXT NOT NULL,
            body BLOB NOT NULL,
            retrieved_at TEXT NOT NULL,
            fetch TEXT NOT NULL DEFAULT '{}',
            document TEXT
        )"""
    )
    db.execute(
        """CREATE TABLE run_effects (
            run_id TEXT NOT NULL,
            effect_key TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('search', 'fetch')),
            outcome TEXT NOT NULL CHECK (outcome IN ('done', 'refused', 'failed')),
            detail TEXT NOT NULL,
            snapshot_id TEXT REFERENCES snapshots(snapshot_id),
            at TEXT NOT NULL,
            PRIMARY KEY (run_id, effect_key)
        )"""
    )


@migration
def m009_notes(db: sqlite3.Connection) -> None:
    # A reader's notes on their runs (`notes.py`): each kept under its owner and its run (an
    # answer or a lesson), read back by that owner alone; nothing but the pages reads them.
    # And the lesson of an answer found by index.
    db.execute(
        """CREATE TABLE notes (
            note_id TEXT PRIMARY KEY,
            owner_id TEXT NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            created_at TEXT NOT NULL,
            text TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX notes_owner_run ON notes(owner_id, run_id, created_at)")
    # An answer's page asks for its lesson on every view (`runs.explanations`): by index.
    db.execute("CREATE INDEX runs_explains ON runs(json_extract(opening, '$.explains'))")


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every pending migration in order; returns the names applied now.

    `db` must be in autocommit mode (`isolation_level=None`): each migration gets its own
    `BEGIN IMMEDIATE ... COMMIT`, so a failed one leaves no trace.
    """
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    known = {name for name, _ in MIGRATIONS}
    unknown = sorted(applied - known)
    if unknown:
        raise SchemaError(
            f"This archive was written by a newer Evidence Desk (migrations {', '.join(unknown)}); "
            "upgrade evidence-desk to open it."
        )
    done: list[str] = []
    for name, fn in MIGRATIONS:
        if name in applied:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            # re-check under the write lock: another process may have just applied it
            if db.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                db.execute("COMMIT")
                continue
            fn(db)
            db.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, utc_now())
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        done.append(name)
    return done
