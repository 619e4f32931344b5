"""The run's ledger of model calls against a local provider server: a reply recorded before a
crash is never paid for again, and what a run spent survives its restart.

The crash matrix kills a child process with SIGKILL at each role's call, under both
executors: once when the reply has come back but is not yet recorded (`call_received`), once
when it is recorded but its stage is not stored (`call_recorded`). The run is then resumed
here. The scripted model counts requests per idempotency key (the `X-Evidence-Desk-Call`
header the desk sends): every key once, except a reply lost with its process, asked for
again. The resumed receipt's content equals an uninterrupted run's, and the database holds
every stage and every recorded try exactly once.
"""

from __future__ import annotations

import multiprocessing
import shutil
import signal
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ledger_child import QUESTION, ask_until, provider_desk
from provider_helpers import DOCS
from pydantic_ai.models import override_allow_model_requests
from scripts import Model

from evidence_desk.runs.state import ARCHIVE_STAGES
from evidence_desk.testing.fakeproviders import FakeProvider
from evidence_desk.testing.receipts import comparable
from evidence_desk.types import Decision, Receipt

ROLES = ("planner", "answerer", "auditor")
KEY_HEADER = "x-evidence-desk-call"
_CHILDREN = multiprocessing.get_context("forkserver")


@pytest.fixture(scope="module")
def hashed_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ledger-archive")
    docs = root / "docs"
    docs.mkdir()
    for name, (title, date, text) in DOCS.items():
        front = f"---\ntitle: {title}\ndate: {date}\nurl: https://example.org/{name[:-3]}\n---\n\n"
        (docs / name).write_text(front + text + "\n", encoding="utf-8")
    home = root / "home"
    assert provider_desk(home, "http://127.0.0.1:9").ingest([docs]).added == len(DOCS)
    return home


@pytest.fixture
def home(hashed_home: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(hashed_home, copy)
    return copy


@pytest.fixture
def allow_requests() -> Iterator[None]:
    with override_allow_model_requests(True):
        yield


def keys_sent(fake: FakeProvider) -> Counter[str]:
    return Counter(r.headers[KEY_HEADER] for r in fake.requests)


@pytest.fixture(scope="module")
def uninterrupted(hashed_home: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    home = tmp_path_factory.mktemp("ledger-uninterrupted") / "home"
    shutil.copytree(hashed_home, home)
    with override_allow_model_requests(True), FakeProvider("chat", Model("chat")) as fake:
        receipt = provider_desk(home, fake.base_url).ask(QUESTION).receipt
        sent = keys_sent(fake)
    assert receipt["decision"] == "AUTO_CLEARED" and receipt["claims"], receipt["reason"]
    assert sorted(k.split("-")[0] for k in sent) == sorted(ROLES)
    assert set(sent.values()) == {1}
    return receipt


def kill_at(home: Path, base_url: str, executor: str, kind: str, role: str) -> None:
    child = _CHILDREN.Process(target=ask_until, args=(home, base_url, executor, kind, role))
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL, f"the child ended with {child.exitcode}"


@pytest.mark.slow
@pytest.mark.parametrize("executor", ["stages", "langgraph"])
@pytest.mark.parametrize("kind", ["call_received", "call_recorded"])
@pytest.mark.parametrize("role", ROLES)
def test_a_run_killed_at_a_model_call_pays_for_a_recorded_reply_once(
    home: Path,
    uninterrupted: dict[str, Any],
    allow_requests: None,
    executor: str,
    kind: str,
    role: str,
) -> None:
    with FakeProvider("chat", Model("chat")) as fake:
        kill_at(home, fake.base_url, executor, kind, role)
        desk = provider_desk(home, fake.base_url, executor)
        (run,) = desk.runs("interrupted")
        receipt = desk.resume(run.run_id).receipt
        sent = keys_sent(fake)
    assert comparable(receipt) == comparable(uninterrupted)
    # One request per key; a reply lost with its process (never recorded) was asked again.
    again = {k: n for k, n in sent.items() if n > 1}
    if kind == "call_received":
        assert [k.split("-")[0] for k in again] == [role] and set(again.values()) == {2}
    else:
        assert again == {}
    assert sorted(k.split("-")[0] for k in sent) == sorted(ROLES)
    record = desk.run_record(run.run_id)
    assert [s["name"] for s in record["stages"]] == list(ARCHIVE_STAGES)
    tries = record["ledger"]["tries"]
    assert sorted(t["key"] for t in tries) == sorted(sent)  # each recorded once
    assert all(t["outcome"] == "reply" for t in tries)
    assert {t["price_source"] for t in tries} == {"packaged table 2025-10-01"}  # gpt-4.1-mini
    with sqlite3.connect(desk.settings.db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


class Crash(Exception):
    """Stands in for the process dying."""


def test_a_resumed_run_is_charged_what_its_ledger_holds(home: Path, allow_requests: None) -> None:
    """The answerer's reply is recorded, then the process "dies": resumed, the run sends
    no second answer request, and its receipt counts the answer once."""
    model = Model("chat")
    with FakeProvider("chat", model) as fake:
        first = provider_desk(home, fake.base_url)

        def crash(key: str) -> None:
            if key.startswith("answerer"):
                raise Crash

        first.executor.on_call_recorded = crash
        with pytest.raises(Crash):
            first.ask(QUESTION)
        (run,) = first.runs("running")
        assert first.run_record(run.run_id)["ledger"]["requests"] == 2  # planner, answerer
        second = provider_desk(home, fake.base_url)
        second.executor.owner = first.executor.owner  # the same worker, restarted
        receipt = Receipt.model_validate(second.resume(run.run_id).receipt)
    assert receipt.decision == Decision.AUTO_CLEARED
    assert (model.calls("plan"), model.calls("answer"), model.calls("audit")) == (1, 1, 1)
    assert receipt.usage.model_calls == 3
    ledger = second.run_record(run.run_id)["ledger"]
    assert ledger["requests"] == 3 and ledger["tokens"] == (
        receipt.usage.input_tokens + receipt.usage.output_tokens
    )
