"""The desk against a real model server nobody here wrote: llama.cpp's, with a tiny model.

`scripts/llamacpp-server` (run by `make llamacpp`, and by CI before `make test`) builds
llama-cpp-python's server from source and fetches SmolLM2-135M-Instruct. The server runs
on 127.0.0.1 as an operator would start it (`evidence_desk.testing.llamacpp.serve`), and
all three roles use `llamacpp:smollm2@<its URL>`: forced tool calls, named in `tool_choice`
(this chat format crashes on `"required"`), which the server constrains to the tool's
schema.

The model's answers are poor; that is the point. Whatever it writes, the server accepts
every request the desk sends (its log shows only 200s), the output goes through the same
validation as any provider's, and the gate publishes only sentences the checks ground, or
holds the run with a true reason. Each published answer is checked a second time through
`check`, the door a hostile draft comes through, on an offline desk over the same archive.

Without the server installed the tests skip and say how to install it; CI sets
`EVIDENCE_DESK_REQUIRE_LLAMACPP=1`, which turns the skip into a failure.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from provider_helpers import DeskFactory

from evidence_desk.desk import Desk
from evidence_desk.settings import Settings
from evidence_desk.testing.llamacpp import ALIAS, SETUP, installed, serve
from evidence_desk.types import Decision, Receipt

pytestmark = pytest.mark.slow

ENGINE = f"llamacpp:{ALIAS}"
# Reasons a run may end for with this model: its output broke the schema, it ran into its
# output cap, it wrote nothing to check; anything naming an HTTP status or the server
# failing would be the desk sending what the server cannot take.
SERVER_FAULT = re.compile(r"HTTP \d{3}|refused the request|server error|could not be reached")
PUBLISHED = (Decision.AUTO_CLEARED, Decision.PUBLISHED_AFTER_PRUNING)


@dataclass
class Server:
    base_url: str
    log: Path
    seen: int = 0  # access-log lines already read

    def statuses(self) -> list[str]:
        """The status of every chat completion request since the last call."""
        text = self.log.read_text("utf-8", errors="replace")
        found = re.findall(r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})', text)
        new, self.seen = found[self.seen :], len(found)
        return new


@pytest.fixture(scope="module")
def llamacpp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = installed()
    if server is None:
        why = (
            f"the llama.cpp server is not installed: run `make llamacpp` ({SETUP}; needs "
            "cmake and a C++ compiler, about 5 minutes)"
        )
        if os.environ.get("EVIDENCE_DESK_REQUIRE_LLAMACPP") == "1":
            pytest.fail(why)
        pytest.skip(why)
    log = tmp_path_factory.mktemp("llamacpp") / "server.log"
    with serve(server, log=log) as base_url:
        yield Server(base_url, log)


def on_llamacpp(make_desk: DeskFactory, server: Server, **roles: str) -> Desk:
    return make_desk(
        "chat",
        "",
        model=f"{ENGINE}@{server.base_url}",
        model_timeout=120.0,
        model_max_output_tokens=256,  # the tiny model rambles to its cap; keep tries short
        **roles,
    )


def grounded_by_check(desk: Desk, question: str, receipt: Receipt, folder: Path) -> None:
    """A published answer, read as a draft through `check` on an offline desk, is not held:
    every sentence of it is grounded by the same checks a hostile draft meets."""
    draft = {
        "question": question,
        "answer": receipt.published_answer,
        "sources": [{"id": s.id, "doc_id": s.doc_id} for s in receipt.sources],
    }
    path = folder / "published.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    (checked,) = desk.check_file(path)
    assert checked["decision"] != Decision.HELD_FOR_REVIEW.value, checked


def asks(
    desk: Desk, server: Server, offline: Desk, questions: list[str], folder: Path
) -> list[Receipt]:
    receipts = [Receipt.model_validate(desk.ask(q).receipt) for q in questions]
    statuses = server.statuses()
    assert statuses and set(statuses) == {"200"}, statuses  # every request accepted
    served = sum(s.calls for r in receipts for s in r.stages if s.engine == ENGINE)
    assert served == len(statuses)  # and counted
    for question, receipt in zip(questions, receipts, strict=True):
        assert not SERVER_FAULT.search(receipt.reason), receipt.reason
        assert desk.verify_receipt(receipt.model_dump(mode="json")).ok
        if receipt.decision in PUBLISHED:
            grounded_by_check(offline, question, receipt, folder)
        else:
            assert not receipt.published_answer
    return receipts


@pytest.fixture
def offline(archive_home: Path) -> Desk:
    return Desk(Settings(home=archive_home, cache_dir=None, model="offline"))


def test_every_role_on_the_real_server(
    llamacpp: Server, make_desk: DeskFactory, offline: Desk, tmp_path: Path
) -> None:
    desk = on_llamacpp(make_desk, llamacpp)
    (receipt,) = asks(desk, llamacpp, offline, ["When was the Erie Canal opened?"], tmp_path)
    assert receipt.engine.planner == ENGINE


def test_the_answerer_on_the_real_server(
    llamacpp: Server, make_desk: DeskFactory, offline: Desk, tmp_path: Path
) -> None:
    """With code's planner, the question reaches the answerer (and the auditor, if the
    model wrote claims)."""
    desk = on_llamacpp(make_desk, llamacpp, planner="offline")
    questions = ["Where was the first transcontinental railroad completed?"]
    receipts = asks(desk, llamacpp, offline, questions, tmp_path)
    assert all(r.engine.answerer == ENGINE for r in receipts)


def test_the_auditor_on_the_real_server_cannot_clear_a_fabricated_quote(
    llamacpp: Server, make_desk: DeskFactory, tmp_path: Path
) -> None:
    """`check` sends drafts written elsewhere to the auditor alone: a faithful draft and a
    hostile one. Whatever the tiny auditor says, the fabricated quote is held."""
    desk = on_llamacpp(make_desk, llamacpp)
    drafts = [
        {
            "question": "When was the Erie Canal opened?",
            "answer": 'The source says "The Erie Canal was opened on October 26, 1825" [S1].',
            "sources": [{"id": "S1", "doc_id": "canal.md"}],
        },
        {
            "question": "When was the Erie Canal opened?",
            "answer": 'The source says "The Erie Canal was opened on July 4, 1817" [S1].',
            "sources": [{"id": "S1", "doc_id": "canal.md"}],
        },
    ]
    path = tmp_path / "drafts.json"
    path.write_text(json.dumps(drafts), encoding="utf-8")
    faithful, fabricated = desk.check_file(path)
    statuses = llamacpp.statuses()
    assert statuses and set(statuses) == {"200"}, statuses
    assert fabricated["decision"] == Decision.HELD_FOR_REVIEW.value, fabricated
    assert faithful["decision"] in {d.value for d in Decision}
