"""The run's budget against a local provider server: reserved before each call, the call's
output cap clamped to what is left, and limits that a restart does not reset.

A call that does not fit is never sent: the server sees no request for it, the run ends
`HELD_FOR_REVIEW` with `failure.kind = "budget"` and its reason, and nothing is published.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from provider_helpers import DeskFactory
from scripts import Model, Prompt, faithful_plan

from evidence_desk.runs.state import RunState
from evidence_desk.testing.fakeproviders import FakeProvider
from evidence_desk.types import Decision, Receipt

QUESTION = "When was the Erie Canal opened?"


class Crash(Exception):
    """Stands in for the process dying between two stages."""


def held_on_budget(receipt: Receipt, stage: str) -> None:
    assert receipt.decision == Decision.HELD_FOR_REVIEW and receipt.published_answer == ""
    assert receipt.failure is not None
    assert (receipt.failure.stage, receipt.failure.kind) == (stage, "budget")
    assert receipt.reason.startswith(receipt.failure.reason)


def test_a_call_the_budget_cannot_fit_is_never_sent(make_desk: DeskFactory) -> None:
    model = Model("chat")
    with FakeProvider("chat", model) as fake:
        desk = make_desk("chat", fake.base_url, max_model_tokens=300)
        receipt = Receipt.model_validate(desk.ask(QUESTION).receipt)
    held_on_budget(receipt, "plan")
    assert "left of its 300" in receipt.failure.reason  # type: ignore[union-attr]
    assert fake.requests == [] and receipt.usage.model_calls == 0


def _max_tokens(body: dict[str, Any]) -> int:
    return int(body.get("max_completion_tokens") or body.get("max_tokens") or 0)


def test_each_calls_output_cap_is_clamped_to_what_the_run_has_left(
    make_desk: DeskFactory,
) -> None:
    model = Model("chat")
    with FakeProvider("chat", model) as fake:
        roomy = make_desk("chat", fake.base_url)
        assert roomy.ask(QUESTION).receipt["decision"] == "AUTO_CLEARED"
    assert {_max_tokens(body) for _, body in model.seen} == {2048}
    tight = Model("chat")
    with FakeProvider("chat", tight) as fake:
        desk = make_desk("chat", fake.base_url, max_model_tokens=4000)
        receipt = Receipt.model_validate(desk.ask(QUESTION).receipt)
    caps = [_max_tokens(body) for _, body in tight.seen]
    assert caps and all(256 <= cap < 2048 for cap in caps[1:]), caps
    assert caps == sorted(caps, reverse=True)  # each call leaves less for the next
    used = receipt.usage.input_tokens + receipt.usage.output_tokens
    assert used <= 4000


def test_active_seconds_used_before_a_restart_still_count(
    make_desk: DeskFactory, archive_home: Path, tmp_path: Path
) -> None:
    import shutil

    home = tmp_path / "home"
    shutil.copytree(archive_home, home)

    def slow_plan(p: Prompt) -> dict[str, Any]:
        time.sleep(0.6)
        return faithful_plan(p)

    model = Model("chat", {"plan": slow_plan})

    def crash_after_plan(kind: str, stage: str, state: RunState) -> None:
        if (kind, stage) == ("stage_stored", "plan"):
            raise Crash

    with FakeProvider("chat", model) as fake:
        first = make_desk("chat", fake.base_url, home=home, max_active_seconds=0.5)
        with pytest.raises(Crash):
            first.ask(QUESTION, on_event=crash_after_plan)
        (run,) = first.runs("running")  # its worker (this process) holds the lease
        # A new desk (a restarted process) with a fresh budget object resumes the run.
        second = make_desk("chat", fake.base_url, home=home, max_active_seconds=0.5)
        second.executor.owner = first.executor.owner  # the same worker, restarted
        receipt = Receipt.model_validate(second.resume(run.run_id).receipt)
    held_on_budget(receipt, "answer")
    assert "0.5 active seconds" in receipt.failure.reason  # type: ignore[union-attr]
    assert model.calls("plan") == 1 and model.calls("answer") == 0
