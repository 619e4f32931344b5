"""The teacher on a provider's wire protocol: a model proposes the lesson, the review judges
it in code, and a saved or resumed explanation never asks the model twice.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from ledger_child import QUESTION, ingested_home, provider_desk
from pydantic_ai.models import override_allow_model_requests
from scripts import Model, Prompt, faithful_lesson

from evidence_desk.testing.fakeproviders import FakeProvider

KEY_HEADER = "x-evidence-desk-call"
_CHILDREN = multiprocessing.get_context("forkserver")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return ingested_home(tmp_path)


def _teacher_keys(fake: FakeProvider) -> Counter[str]:
    return Counter(
        r.headers[KEY_HEADER] for r in fake.requests if r.headers[KEY_HEADER].startswith("teach")
    )


def test_a_model_teaches_and_code_reviews(home: Path) -> None:
    model = Model("chat")
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        desk = provider_desk(home, fake.base_url)
        answer = desk.ask(QUESTION).receipt
        assert answer["decision"] == "AUTO_CLEARED"
        lesson = desk.explain(answer["run_id"]).receipt
        assert model.calls("teach") == 1
        again = desk.explain(answer["run_id"]).receipt  # the saved lesson: no model call
        assert model.calls("teach") == 1 and again == lesson
    teaching = lesson["teaching"]
    assert teaching["teacher"] == "openai:gpt-4.1-mini"
    assert teaching["decision"] == "PUBLISHED"
    assert [b["decision"] for b in teaching["blocks"]] == ["kept", "kept"]
    stages = {s["name"]: s for s in lesson["teaching_stages"]}
    assert stages["teach"]["calls"] == 1 and stages["teach"]["input_tokens"] > 0
    assert desk.verify_receipt(lesson).ok
    # The teacher saw the answer's sources and nothing the desk keeps beside them.
    (body,) = [b for role, b in model.seen if role == "teach"]
    sent = str(body)
    assert "<answer>" in sent and "zeppelin" not in sent


def _lying(p: Prompt) -> dict[str, Any]:
    """A teacher that invents its key idea and a relation, and names a present term."""
    sid = next(iter(p.sources))
    lesson = faithful_lesson(p)
    lesson["blocks"][0]["text"] = f'The source says "the canal was never built" [{sid}].'
    lesson["blocks"][1]["absent"] = ["canal"]
    lesson["relations"] = [
        {"subject": "Congress", "relation": "opposed", "object": "the Erie Canal",
         "sources": [sid], "verb": ""}
    ]  # fmt: skip
    return lesson


def test_a_lying_teacher_is_withheld_part_by_part(home: Path) -> None:
    model = Model("chat", override={"teach": _lying})
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        desk = provider_desk(home, fake.base_url)
        answer = desk.ask(QUESTION).receipt
        lesson = desk.explain(answer["run_id"]).receipt
    teaching = lesson["teaching"]
    assert [b["decision"] for b in teaching["blocks"]] == ["dropped", "dropped"]
    assert [r["decision"] for r in teaching["relations"]] == ["dropped"]
    assert teaching["decision"] == "WITHHELD"
    assert "key idea did not pass review" in teaching["reason"]
    assert desk.verify_receipt(lesson).ok


def _explain_until_recorded(home: Path, base_url: str, run_id: str) -> None:
    desk = provider_desk(home, base_url)

    def die(key: str) -> None:
        if key.startswith("teacher"):
            os.kill(os.getpid(), signal.SIGKILL)

    desk.executor.on_call_recorded = die
    with override_allow_model_requests(True):
        desk.explain(run_id)


@pytest.mark.slow
def test_a_kill_after_the_teacher_replied_never_asks_it_again(home: Path) -> None:
    model = Model("chat")
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        answer = provider_desk(home, fake.base_url).ask(QUESTION).receipt
        child = _CHILDREN.Process(
            target=_explain_until_recorded, args=(home, fake.base_url, answer["run_id"])
        )
        child.start()
        child.join(120)
        assert child.exitcode == -signal.SIGKILL
        assert model.calls("teach") == 1
        lesson = provider_desk(home, fake.base_url).explain(answer["run_id"]).receipt
        assert model.calls("teach") == 1  # the recorded reply was read back
        keys = _teacher_keys(fake)
    assert set(keys.values()) == {1}
    assert lesson["teaching"]["decision"] == "PUBLISHED"
