"""The workspace's records: people, sessions, conversations, who asked which run, reviews,
readers' notes (`notes.py`) and the widget's kill switch.

A session is stored by the SHA-256 of its opaque id, never the id itself: a copy of the
database lets nobody sign in as anyone. A session is live until it expires or is revoked.
Every record a reader owns is reached through its owner (`run_owner`, `conversation`), so the
web layer can answer another reader's record exactly as it answers a missing one. The kill
switch is an append-only log of flips; its state is the last flip (none: live).

The functions take a connection inside a write transaction (`ArchiveStore._write`) or a
read snapshot; SQL stays inside `store/`.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from ..clock import Clock, iso_ms, iso_seconds, system_clock
from . import notes
from .notes import Note
from .rows import Channel
from .runs import OWNER_COLUMNS, Transaction

Role = Literal["reader", "editor"]
SessionKind = Literal["cookie", "widget"]
ReviewAction = Literal["approved", "rejected", "edited"]


class AccountExists(ValueError):
    """A person with this name is already on the desk."""


@dataclass(frozen=True)
class User:
    user_id: str
    name: str | None
    role: Role
    created_at: str

    @property
    def is_editor(self) -> bool:
        return self.role == "editor"

    @property
    def label(self) -> str:
        """How the workspace names this person: their name, or "reader" for an anonymous one."""
        return self.name or "reader"


@dataclass(frozen=True)
class Session:
    session_sha256: str
    user: User
    csrf_token: str
    created_at: str
    expires_at: str
    kind: SessionKind = "cookie"


@dataclass(frozen=True)
class Conversation:
    """A reader's thread of runs; `recent_questions`: its latest questions, oldest first
    (what a follow-up asked in it is planned against)."""

    conv_id: str
    owner_id: str
    created_at: str
    title: str
    recent_questions: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConversationSummary:
    """A conversation as its owner's list shows it: how many questions it holds and where
    its latest run is (its mode, status, decision, the editor's closing review action, and
    when it was asked); the latest-run fields are None for a conversation with no run."""

    conv_id: str
    owner_id: str
    created_at: str
    title: str
    questions: int
    mode: str | None
    status: str | None
    decision: str | None
    review: ReviewAction | None
    asked_at: str | None


@dataclass(frozen=True)
class OwnedRun:
    run_id: str
    owner_id: str
    conv_id: str | None
    channel: Channel
    asked_at: str


@dataclass(frozen=True)
class Review:
    review_id: str
    held_run_id: str
    editor_id: str
    editor_name: str
    action: ReviewAction
    reason: str
    at: str
    receipt_run_id: str | None
    outcome: dict[str, Any]


@dataclass(frozen=True)
class SwitchFlip:
    seq: int
    paused: bool
    user_name: str
    at: str
    reason: str


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


_USER = "u.user_id, u.name, u.role, u.created_at"


def _user(row: sqlite3.Row | tuple[Any, ...]) -> User:
    return User(row[0], row[1], row[2], row[3])


def add_user(
    db: sqlite3.Connection,
    now: dt.datetime,
    name: str | None,
    role: Role,
    password_hash: str | None,
) -> User:
    user = User(new_id("u"), name, role, iso_seconds(now))
    try:
        db.execute(
            "INSERT INTO users (user_id, name, role, password_hash, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (user.user_id, name, role, password_hash, user.created_at),
        )
    except sqlite3.IntegrityError:
        raise AccountExists(f"There is already a person named {name!r} on this desk.") from None
    return user


def set_password(db: sqlite3.Connection, name: str, role: Role, password_hash: str) -> User:
    db.execute(
        "UPDATE users SET password_hash = ?, role = ? WHERE name = ?", (password_hash, role, name)
    )
    row = db.execute(f"SELECT {_USER} FROM users u WHERE u.name = ?", (name,)).fetchone()
    return _user(row)


def user_by_name(db: sqlite3.Connection, name: str) -> tuple[User, str | None] | None:
    row = db.execute(
        f"SELECT {_USER}, u.password_hash FROM users u WHERE u.name = ?", (name,)
    ).fetchone()
    return None if row is None else (_user(row), row[4])


def list_users(db: sqlite3.Connection) -> list[User]:
    rows = db.execute(f"SELECT {_USER} FROM users u WHERE u.name IS NOT NULL ORDER BY u.name")
    return [_user(r) for r in rows]


def open_session(
    db: sqlite3.Connection,
    now: dt.datetime,
    user_id: str,
    session_sha256: str,
    csrf_token: str,
    ttl_seconds: float,
    kind: SessionKind,
) -> None:
    db.execute(
        "INSERT INTO sessions (session_sha256, user_id, csrf_token, created_at, expires_at, "
        "kind) VALUES (?, ?, ?, ?, ?, ?)",
        (
            session_sha256,
            user_id,
            csrf_token,
            iso_seconds(now),
            iso_seconds(now + dt.timedelta(seconds=ttl_seconds)),
            kind,
        ),
    )


def live_session(
    db: sqlite3.Connection, now: dt.datetime, session_sha256: str, kind: SessionKind
) -> Session | None:
    row = db.execute(
        f"SELECT {_USER}, s.session_sha256, s.csrf_token, s.created_at, s.expires_at "
        "FROM sessions s JOIN users u ON u.user_id = s.user_id WHERE s.session_sha256 = ? "
        "AND s.kind = ? AND s.revoked_at IS NULL AND s.expires_at > ?",
        (session_sha256, kind, iso_seconds(now)),
    ).fetchone()
    if row is None:
        return None
    return Session(row[4], _user(row), row[5], row[6], row[7], kind)


def revoke_session(db: sqlite3.Connection, now: dt.datetime, session_sha256: str) -> None:
    db.execute(
        "UPDATE sessions SET revoked_at = ? WHERE session_sha256 = ? AND revoked_at IS NULL",
        (iso_seconds(now), session_sha256),
    )


def revoke_user_sessions(db: sqlite3.Connection, now: dt.datetime, user_id: str) -> int:
    cur = db.execute(
        "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
        (iso_seconds(now), user_id),
    )
    return cur.rowcount


def record_attempt(db: sqlite3.Connection, now: dt.datetime, key: str, ok: bool) -> None:
    db.execute(
        "INSERT INTO sign_in_attempts (key, at, ok) VALUES (?, ?, ?)",
        (key, iso_ms(now), int(ok)),
    )


def failures_since(db: sqlite3.Connection, key: str, since: dt.datetime) -> int:
    """Failed attempts under `key` since `since`, not counting those before its last success."""
    row = db.execute(
        "SELECT COUNT(*) FROM sign_in_attempts WHERE key = ? AND ok = 0 AND at > ? AND seq > "
        "COALESCE((SELECT MAX(seq) FROM sign_in_attempts WHERE key = ? AND ok = 1), 0)",
        (key, iso_ms(since), key),
    ).fetchone()
    return int(row[0])


def new_conversation(
    db: sqlite3.Connection, now: dt.datetime, owner_id: str, title: str
) -> Conversation:
    conv = Conversation(new_id("c"), owner_id, iso_ms(now), title)
    db.execute(
        "INSERT INTO conversations (conv_id, owner_id, created_at, title) VALUES (?, ?, ?, ?)",
        (conv.conv_id, owner_id, conv.created_at, title),
    )
    return conv


# A conversation's questions are its answers' runs: a lesson (an explanation run, kept in the
# conversation of the answer it explains) asks nothing new.
def _asked(runs: str) -> str:
    """The condition that the run aliased `runs` asks a question (it explains no answer)."""
    return f"json_extract({runs}.opening, '$.explains') IS NULL"


def conversation(
    db: sqlite3.Connection, conv_id: str, owner_id: str, recent: int = 4
) -> Conversation | None:
    """The conversation if `owner_id` owns it, with its last `recent` questions."""
    row = db.execute(
        "SELECT conv_id, owner_id, created_at, title FROM conversations "
        "WHERE conv_id = ? AND owner_id = ?",
        (conv_id, owner_id),
    ).fetchone()
    if row is None:
        return None
    asked = db.execute(
        "SELECT r.question FROM run_owners o JOIN runs r ON r.run_id = o.run_id "
        f"WHERE o.conv_id = ? AND {_asked('r')} ORDER BY o.asked_at DESC, o.run_id DESC LIMIT ?",
        (conv_id, max(recent, 0)),
    ).fetchall()
    return Conversation(row[0], row[1], row[2], row[3], tuple(q for (q,) in reversed(asked)))


# The latest run of each conversation, and the review that closed it (if it was held).
_LATEST = (
    "SELECT o.run_id FROM run_owners o JOIN runs x ON x.run_id = o.run_id "
    f"WHERE o.conv_id = c.conv_id AND {_asked('x')} ORDER BY o.asked_at DESC, o.run_id DESC "
    "LIMIT 1"
)
_QUESTIONS = (
    "SELECT COUNT(*) FROM run_owners n JOIN runs x ON x.run_id = n.run_id "
    f"WHERE n.conv_id = c.conv_id AND {_asked('x')}"
)
_CLOSING_REVIEW = (
    "SELECT v.action FROM reviews v WHERE v.held_run_id = r.run_id AND (v.action IN "
    "('approved', 'rejected') OR (v.action = 'edited' AND v.receipt_run_id IS NOT NULL)) "
    "ORDER BY v.at DESC LIMIT 1"
)


def conversations_of(
    db: sqlite3.Connection, owner_id: str, limit: int
) -> list[ConversationSummary]:
    """The owner's conversations, newest first, each with its latest run (one query)."""
    rows = db.execute(
        "SELECT c.conv_id, c.owner_id, c.created_at, c.title, "
        f"({_QUESTIONS}), "
        f"r.mode, r.status, r.decision, ({_CLOSING_REVIEW}), l.asked_at "
        f"FROM conversations c LEFT JOIN run_owners l ON l.run_id = ({_LATEST}) "
        "LEFT JOIN runs r ON r.run_id = l.run_id "
        "WHERE c.owner_id = ? ORDER BY c.created_at DESC LIMIT ?",
        (owner_id, limit),
    )
    return [ConversationSummary(*r) for r in rows]


def run_owner(db: sqlite3.Connection, run_id: str) -> OwnedRun | None:
    row = db.execute(
        f"SELECT {OWNER_COLUMNS} FROM run_owners WHERE run_id = ?", (run_id,)
    ).fetchone()
    return None if row is None else OwnedRun(*row)


def run_access(db: sqlite3.Connection, run_id: str) -> tuple[str | None, str, int] | None:
    """A run's owner (None: nobody's), status and number of reviews, in one query: what a
    cached view of a finished run is keyed by."""
    row = db.execute(
        "SELECT o.owner_id, r.status, (SELECT COUNT(*) FROM reviews v WHERE v.held_run_id = "
        "r.run_id) FROM runs r LEFT JOIN run_owners o ON o.run_id = r.run_id WHERE r.run_id = ?",
        (run_id,),
    ).fetchone()
    return None if row is None else (row[0], row[1], int(row[2]))


def conversation_runs(db: sqlite3.Connection, conv_id: str) -> list[OwnedRun]:
    rows = db.execute(
        f"SELECT {OWNER_COLUMNS} FROM run_owners WHERE conv_id = ? ORDER BY asked_at", (conv_id,)
    )
    return [OwnedRun(*r) for r in rows]


_REVIEW = (
    "r.review_id, r.held_run_id, r.editor_id, COALESCE(u.name, ''), r.action, r.reason, r.at, "
    "r.receipt_run_id, r.outcome"
)


def _review(row: sqlite3.Row | tuple[Any, ...]) -> Review:
    return Review(
        row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], json.loads(row[8])
    )


def add_review(db: sqlite3.Connection, now: dt.datetime, review: Review) -> Review:
    stored = Review(
        review.review_id,
        review.held_run_id,
        review.editor_id,
        review.editor_name,
        review.action,
        review.reason,
        iso_ms(now),
        review.receipt_run_id,
        review.outcome,
    )
    db.execute(
        "INSERT INTO reviews (review_id, held_run_id, editor_id, action, reason, at, "
        "receipt_run_id, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            stored.review_id,
            stored.held_run_id,
            stored.editor_id,
            stored.action,
            stored.reason,
            stored.at,
            stored.receipt_run_id,
            json.dumps(stored.outcome, ensure_ascii=False, sort_keys=True),
        ),
    )
    return stored


def reviews_of(db: sqlite3.Connection, held_run_id: str) -> list[Review]:
    rows = db.execute(
        f"SELECT {_REVIEW} FROM reviews r LEFT JOIN users u ON u.user_id = r.editor_id "
        "WHERE r.held_run_id = ? ORDER BY r.at",
        (held_run_id,),
    )
    return [_review(r) for r in rows]


def recent_reviews(db: sqlite3.Connection, limit: int) -> list[Review]:
    rows = db.execute(
        f"SELECT {_REVIEW} FROM reviews r LEFT JOIN users u ON u.user_id = r.editor_id "
        "ORDER BY r.at DESC LIMIT ?",
        (limit,),
    )
    return [_review(r) for r in rows]


def closed_reviews(db: sqlite3.Connection) -> set[str]:
    """Held runs an editor has decided: approved, rejected, or edited into a publication."""
    rows = db.execute(
        "SELECT DISTINCT held_run_id FROM reviews WHERE action IN ('approved', 'rejected') "
        "OR (action = 'edited' AND receipt_run_id IS NOT NULL)"
    )
    return {r[0] for r in rows}


def flip_widget(
    db: sqlite3.Connection, now: dt.datetime, paused: bool, user_id: str, reason: str
) -> None:
    db.execute(
        "INSERT INTO widget_switch (paused, user_id, at, reason) VALUES (?, ?, ?, ?)",
        (int(paused), user_id, iso_ms(now), reason),
    )


_FLIP = (
    "w.seq, w.paused, COALESCE(u.name, ''), w.at, w.reason FROM widget_switch w "
    "LEFT JOIN users u ON u.user_id = w.user_id"
)


def widget_flips(db: sqlite3.Connection, limit: int) -> list[SwitchFlip]:
    rows = db.execute(f"SELECT {_FLIP} ORDER BY w.seq DESC LIMIT ?", (limit,))
    return [SwitchFlip(r[0], bool(r[1]), r[2], r[3], r[4]) for r in rows]


class Accounts:
    """The workspace records of one archive database (`ArchiveStore.accounts`): each write one
    transaction through the store's writer, each read one snapshot; times read from `clock`."""

    def __init__(self, write: Transaction, read: Transaction, clock: Clock = system_clock) -> None:
        self._write = write
        self._read = read
        self.clock = clock

    def add_user(self, name: str | None, role: Role, password_hash: str | None) -> User:
        with self._write() as db:
            return add_user(db, self.clock(), name, role, password_hash)

    def set_password(self, name: str, role: Role, password_hash: str) -> User:
        """Give an existing person a new password and role; their sessions end."""
        with self._write() as db:
            user = set_password(db, name, role, password_hash)
            revoke_user_sessions(db, self.clock(), user.user_id)
            return user

    def user_by_name(self, name: str) -> tuple[User, str | None] | None:
        """The person and their password hash."""
        with self._read() as db:
            return user_by_name(db, name)

    def users(self) -> list[User]:
        with self._read() as db:
            return list_users(db)

    def open_session(
        self,
        user_id: str,
        session_sha256: str,
        csrf_token: str,
        ttl_seconds: float,
        kind: SessionKind = "cookie",
    ) -> None:
        with self._write() as db:
            now = self.clock()
            open_session(db, now, user_id, session_sha256, csrf_token, ttl_seconds, kind)

    def session(self, session_sha256: str, kind: SessionKind = "cookie") -> Session | None:
        """The live session of this kind with this hash: not revoked, not expired."""
        with self._read() as db:
            return live_session(db, self.clock(), session_sha256, kind)

    def revoke_session(self, session_sha256: str) -> None:
        with self._write() as db:
            revoke_session(db, self.clock(), session_sha256)

    def revoke_user_sessions(self, user_id: str) -> int:
        with self._write() as db:
            return revoke_user_sessions(db, self.clock(), user_id)

    def record_attempt(self, key: str, ok: bool) -> None:
        with self._write() as db:
            record_attempt(db, self.clock(), key, ok)

    def failures(self, key: str, window_seconds: float) -> int:
        since = self.clock() - dt.timedelta(seconds=window_seconds)
        with self._read() as db:
            return failures_since(db, key, since)

    def new_conversation(self, owner_id: str, title: str) -> Conversation:
        with self._write() as db:
            return new_conversation(db, self.clock(), owner_id, title)

    def conversation(self, conv_id: str, owner_id: str, recent: int = 4) -> Conversation | None:
        """The conversation if `owner_id` owns it (another owner's reads as missing), with
        its last `recent` questions, oldest first."""
        with self._read() as db:
            return conversation(db, conv_id, owner_id, recent)

    def conversations(self, owner_id: str, limit: int = 50) -> list[ConversationSummary]:
        """The owner's conversations, newest first, each with its latest run's state."""
        with self._read() as db:
            return conversations_of(db, owner_id, limit)

    def run_owner(self, run_id: str) -> OwnedRun | None:
        with self._read() as db:
            return run_owner(db, run_id)

    def run_access(self, run_id: str) -> tuple[str | None, str, int] | None:
        with self._read() as db:
            return run_access(db, run_id)

    def conversation_runs(self, conv_id: str) -> list[OwnedRun]:
        with self._read() as db:
            return conversation_runs(db, conv_id)

    def add_note(self, owner_id: str, run_id: str, text: str, *, limit: int) -> Note | None:
        """A new note of `owner_id` on `run_id`; None when they already keep `limit` there."""
        with self._write() as db:
            if notes.count_notes(db, owner_id, run_id) >= limit:
                return None
            return notes.add_note(db, self.clock(), owner_id, run_id, text)

    def notes(self, owner_id: str, run_id: str) -> list[Note]:
        """The owner's notes on the run, oldest first (no one else's)."""
        with self._read() as db:
            return notes.notes_of(db, owner_id, run_id)

    def delete_note(self, owner_id: str, note_id: str) -> Note | None:
        """Delete the owner's note; the note deleted, or None when they have no such note."""
        with self._write() as db:
            return notes.delete_note(db, owner_id, note_id)

    def add_review(self, review: Review) -> Review:
        with self._write() as db:
            return add_review(db, self.clock(), review)

    def reviews_of(self, held_run_id: str) -> list[Review]:
        with self._read() as db:
            return reviews_of(db, held_run_id)

    def recent_reviews(self, limit: int = 50) -> list[Review]:
        with self._read() as db:
            return recent_reviews(db, limit)

    def closed_reviews(self) -> set[str]:
        with self._read() as db:
            return closed_reviews(db)

    def flip_widget(self, paused: bool, user_id: str, reason: str) -> SwitchFlip:
        with self._write() as db:
            flip_widget(db, self.clock(), paused, user_id, reason)
            return widget_flips(db, 1)[0]

    def widget_flips(self, limit: int = 20) -> list[SwitchFlip]:
        with self._read() as db:
            return widget_flips(db, limit)

    def widget_paused(self) -> bool:
        flips = self.widget_flips(1)
        return bool(flips) and flips[0].paused
