"""A run's owner travels as data (`RunOwner`) and is written in the transaction that opens
the run: both rows are stored, or neither is."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from evidence_desk.store.rows import RunOwner
from evidence_desk.store.runs import RunNotFound
from evidence_desk.store.sqlite import ArchiveStore


def opening(run_id: str) -> dict[str, str]:
    return {
        "run_id": run_id,
        "created_at": "2026-12-01T00:00:00Z",
        "question": "Q?",
        "mode": "quick",
    }


@pytest.fixture
def store(tmp_path: Path) -> ArchiveStore:
    return ArchiveStore(tmp_path / "archive.sqlite3")


def test_a_run_opened_for_its_reader_is_theirs_from_its_first_moment(store: ArchiveStore) -> None:
    accounts = store.accounts_on(store.runs.clock)
    ann = accounts.add_user("ann", "reader", None)
    conv = accounts.new_conversation(ann.user_id, "Taxes")
    store.runs.open(
        opening("run-1"), "worker-a", 60, owned_by=RunOwner(ann.user_id, conv.conv_id, "widget")
    )
    owned = accounts.run_owner("run-1")
    assert owned is not None
    assert (owned.owner_id, owned.conv_id, owned.channel) == (ann.user_id, conv.conv_id, "widget")
    assert store.runs.get("run-1").status == "queued"


def test_a_run_of_the_command_line_is_nobodys(store: ArchiveStore) -> None:
    store.runs.open(opening("run-1"), "worker-a", 60)
    assert store.accounts_on(store.runs.clock).run_owner("run-1") is None
    assert store.runs.get("run-1").question == "Q?"


def test_an_owner_that_cannot_be_written_leaves_no_run_behind(store: ArchiveStore) -> None:
    with pytest.raises(sqlite3.IntegrityError):  # no such user: the owner row's key fails
        store.runs.open(
            opening("run-1"), "worker-a", 60, owned_by=RunOwner("ghost", None, "workspace")
        )
    with pytest.raises(RunNotFound):
        store.runs.get("run-1")
    assert store.runs.events("run-1", 0) == []
