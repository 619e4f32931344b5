"""A reader's notes on their runs: kept per reader, read back only by that reader.

A note belongs to the person who wrote it and to one run (an answer or a lesson); every read
and delete names its owner in the query, so another reader's note reads exactly as a missing
one. Notes are kept for the pages alone: no run, stage or agent reads this table, so nothing
a reader writes here is ever sent to a model provider.

The functions take a connection inside a write transaction or a read snapshot
(`Accounts`, `accounts.py`); SQL stays inside `store/`.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import uuid
from dataclasses import dataclass
from typing import Any

from ..clock import iso_ms


@dataclass(frozen=True)
class Note:
    """One note: whose it is, on which run, when it was written, and its text."""

    note_id: str
    owner_id: str
    run_id: str
    created_at: str
    text: str


_NOTE = "note_id, owner_id, run_id, created_at, text"


def _note(row: sqlite3.Row | tuple[Any, ...]) -> Note:
    return Note(row[0], row[1], row[2], row[3], row[4])


def add_note(
    db: sqlite3.Connection, now: dt.datetime, owner_id: str, run_id: str, text: str
) -> Note:
    note = Note(f"n_{uuid.uuid4().hex}", owner_id, run_id, iso_ms(now), text)
    db.execute(
        f"INSERT INTO notes ({_NOTE}) VALUES (?, ?, ?, ?, ?)",
        (note.note_id, note.owner_id, note.run_id, note.created_at, note.text),
    )
    return note


def notes_of(db: sqlite3.Connection, owner_id: str, run_id: str) -> list[Note]:
    """The owner's notes on the run, oldest first."""
    rows = db.execute(
        f"SELECT {_NOTE} FROM notes WHERE owner_id = ? AND run_id = ? ORDER BY created_at, note_id",
        (owner_id, run_id),
    )
    return [_note(r) for r in rows]


def count_notes(db: sqlite3.Connection, owner_id: str, run_id: str) -> int:
    row = db.execute(
        "SELECT COUNT(*) FROM notes WHERE owner_id = ? AND run_id = ?", (owner_id, run_id)
    ).fetchone()
    return int(row[0])


def delete_note(db: sqlite3.Connection, owner_id: str, note_id: str) -> Note | None:
    """Delete the owner's note `note_id`; the note as it was, or None when they have none."""
    row = db.execute(
        f"SELECT {_NOTE} FROM notes WHERE note_id = ? AND owner_id = ?", (note_id, owner_id)
    ).fetchone()
    if row is None:
        return None
    db.execute("DELETE FROM notes WHERE note_id = ? AND owner_id = ?", (note_id, owner_id))
    return _note(row)
