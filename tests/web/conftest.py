"""The web app in process: a desk on a small hashed archive, and people who use it.

The archive is six State of the Union addresses and one planted page whose text gives
orders to a model (`HELD_QUESTION` is held for review because of it), embedded with
`HashingEmbedder` (no torch). Each test gets its own copy of the data directory and its own
app. `server` runs the app's lifespan (its desk warmed, its run executor live); every
`WebUser` is a separate browser (its own cookie jar) on the same app.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from web_helpers import PASSWORD, PLANTED, WebUser

from evidence_desk.desk import Desk
from evidence_desk.server import create_app
from evidence_desk.settings import Settings
from evidence_desk.testing.archives import SMALL_ARCHIVE, sotu_records, write_jsonl
from evidence_desk.testing.embedder import HashingEmbedder


def web_settings(home: Path, **values: Any) -> Settings:
    return Settings(home=home, cache_dir=None, embed_workers=1, **values)


@pytest.fixture(scope="session")
def web_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("web-archive")
    records = [*sotu_records(SMALL_ARCHIVE), PLANTED]
    source = write_jsonl(folder / "archive.jsonl", records)
    home = folder / "home"
    desk = Desk(web_settings(home), embedder=HashingEmbedder())
    assert desk.ingest([source]).added == len(records)
    desk.store.close()
    return home


@pytest.fixture
def web_desk(web_archive: Path, tmp_path: Path) -> Desk:
    home = tmp_path / "home"
    shutil.copytree(web_archive, home)
    return Desk(web_settings(home), embedder=HashingEmbedder())


@pytest.fixture
def app(web_desk: Desk) -> FastAPI:
    return create_app(web_desk)


@pytest.fixture
def server(app: FastAPI) -> Iterator[TestClient]:
    """The app with its lifespan running (desk warmed, run executor live)."""
    with TestClient(app) as client:
        yield client


@pytest.fixture
def reader(server: TestClient, app: FastAPI) -> Callable[[], WebUser]:
    """A new reader: a fresh browser that has opened the workspace once."""
    return lambda: WebUser(app)


@pytest.fixture
def editor(server: TestClient, app: FastAPI, web_desk: Desk) -> Callable[..., WebUser]:
    """A signed-in editor (added to the desk first)."""

    def make(name: str = "editor") -> WebUser:
        web_desk.workspace.people.add(name, PASSWORD, editor=True)
        user = WebUser(app)
        assert user.sign_in(name).status_code == 303
        return user

    return make
