"""A reader's notes on their own answers and lessons: private, and never sent to a model.

A note is kept under the reader who wrote it and one run they own (`store/notes.py`). Only
the run's owner may note on it, and only they read or delete their notes: for anyone else,
an editor included, the run and the note read as missing (`NotFound`, a 404), exactly like
ones that do not exist. Notes are for the pages alone: no run, stage, agent or prompt reads
them, so nothing a reader writes here is ever sent to a model provider.
"""

from __future__ import annotations

from ...store.accounts import Accounts, User
from ...store.notes import Note
from .errors import NotFound, TooLarge, WorkspaceError, shown

MAX_NOTE_CHARS = 4000
MAX_NOTES_PER_RUN = 200


def note_text(text: str) -> str:
    """The note as it is kept: stripped, without NUL characters, at most `MAX_NOTE_CHARS`."""
    text = text.replace("\x00", "").strip()
    if not text:
        raise WorkspaceError("The note is empty: write something to keep.")
    if len(text) > MAX_NOTE_CHARS:
        raise TooLarge(
            f"A note has at most {MAX_NOTE_CHARS:,} characters; this one has {len(text):,}."
        )
    return text


class Notes:
    """The notes of the workspace's readers, each reachable only by its writer."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    def _require_own(self, user: User, run_id: str) -> None:
        owned = self.accounts.run_owner(run_id)
        if owned is None or owned.owner_id != user.user_id:
            raise NotFound(f"There is no run {shown(run_id)}.")

    def add(self, user: User, run_id: str, text: str) -> Note:
        """Keep a note of `user` on their run `run_id`."""
        self._require_own(user, run_id)
        kept = self.accounts.add_note(
            user.user_id, run_id, note_text(text), limit=MAX_NOTES_PER_RUN
        )
        if kept is None:
            raise WorkspaceError(
                f"A run keeps at most {MAX_NOTES_PER_RUN} notes: delete one to add another."
            )
        return kept

    def of(self, user: User, run_id: str) -> list[Note]:
        """The notes of `user` on their run `run_id`, oldest first."""
        self._require_own(user, run_id)
        return self.accounts.notes(user.user_id, run_id)

    def mine(self, user: User, run_id: str) -> tuple[Note, ...] | None:
        """Their notes when `run_id` is theirs; None when it is not (nothing is kept there)."""
        owned = self.accounts.run_owner(run_id)
        if owned is None or owned.owner_id != user.user_id:
            return None
        return tuple(self.accounts.notes(user.user_id, run_id))

    def delete(self, user: User, note_id: str) -> Note:
        """Delete a note of `user`; another reader's note is NotFound like a missing one."""
        deleted = self.accounts.delete_note(user.user_id, note_id)
        if deleted is None:
            raise NotFound(f"There is no note {shown(note_id)}.")
        return deleted
