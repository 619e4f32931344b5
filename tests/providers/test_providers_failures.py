"""A provider that fails: bounded retries with backoff, then a held run with the reason.

Never a silent fallback: when a role gives up, the run ends `HELD_FOR_REVIEW`, publishes
nothing, records the failed stage and its reason in the receipt, and `ask` exits non-zero.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from provider_helpers import PROTOCOLS, DeskFactory
from scripts import Model

from evidence_desk.cli import main
from evidence_desk.testing.fakeproviders import FakeProvider, Protocol, Reply
from evidence_desk.types import Decision, Receipt

QUESTION = "When was the Erie Canal opened?"


# The output tool's own failures: an Anthropic answerer in `auto` mode cites instead.
TOOL = "tool"


def ask(make_desk: DeskFactory, protocol: Protocol, model: Model, **kw: object) -> Receipt:
    with FakeProvider(protocol, model) as fake:
        desk = make_desk(protocol, fake.base_url, **kw)
        result = desk.ask(QUESTION)
        assert desk.verify_receipt(result.receipt).ok  # a failed run's receipt verifies too
        return Receipt.model_validate(result.receipt)


def stage(receipt: Receipt, name: str) -> dict[str, object]:
    return next(s.model_dump() for s in receipt.stages if s.name == name)


def assert_failed(receipt: Receipt, stage_name: str, words: str) -> None:
    assert receipt.decision == Decision.HELD_FOR_REVIEW
    assert receipt.published_answer == ""
    assert receipt.failure is not None and receipt.failure.stage == stage_name
    assert words in receipt.failure.reason
    assert receipt.reason.startswith(receipt.failure.reason)
    assert stage(receipt, stage_name)["error"] == receipt.failure.reason


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_429_with_retry_after_is_waited_out_and_retried(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    limited = Reply.error(429, "Rate limit reached", headers={"retry-after": "0"})
    model = Model(protocol, {"answer": [limited]})
    receipt = ask(make_desk, protocol, model)
    assert receipt.decision == Decision.AUTO_CLEARED
    assert model.calls("answer") == 2
    assert stage(receipt, "answer")["calls"] == 2


def test_a_429_asking_for_a_long_wait_fails_at_once(make_desk: DeskFactory) -> None:
    limited = Reply.error(429, "slow down", headers={"retry-after": "3600"})
    model = Model("chat", {"answer": [limited]})
    receipt = ask(make_desk, "chat", model)
    assert_failed(receipt, "answer", "asked to wait 3600 s")
    assert model.calls("answer") == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_server_errors_are_retried_a_bounded_number_of_times(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol, {"audit": [Reply.error(500, "boom")] * 5})
    receipt = ask(make_desk, protocol, model, model_attempts=3)
    assert_failed(receipt, "audit", "server error")
    assert "3 tries" in receipt.failure.reason  # type: ignore[union-attr]
    assert model.calls("audit") == 3
    assert stage(receipt, "audit")["calls"] == 3
    assert receipt.draft  # the answer was written; the audit never came
    assert not any(c.kept for c in receipt.claims)


def test_an_overloaded_anthropic_server_is_retried_then_answers(make_desk: DeskFactory) -> None:
    model = Model("anthropic", {"plan": [Reply.error(529, "Overloaded")]})
    receipt = ask(make_desk, "anthropic", model)
    assert receipt.decision == Decision.AUTO_CLEARED
    assert model.calls("plan") == 2


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_timeout_is_retried_then_fails(make_desk: DeskFactory, protocol: Protocol) -> None:
    model = Model(protocol, {"plan": [Reply.hang(5.0), Reply.hang(5.0)]})
    receipt = ask(make_desk, protocol, model, model_timeout=0.4, model_attempts=2)
    assert_failed(receipt, "plan", "did not answer within 0.4 s")
    assert receipt.sources == [] and receipt.claims == []


@pytest.mark.parametrize(
    ("status", "words"),
    [(401, "rejected the API key"), (404, "does not know the model"), (400, "refused")],
)
def test_errors_that_waiting_cannot_fix_are_not_retried(
    make_desk: DeskFactory, status: int, words: str
) -> None:
    model = Model("chat", {"plan": [Reply.error(status, "no")]})
    receipt = ask(make_desk, "chat", model)
    assert_failed(receipt, "plan", words)
    assert model.calls("plan") == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_malformed_json_is_sent_back_once_then_the_stage_fails(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    broken = Reply.raw_arguments('{"claims": [{"text": "The canal')
    model = Model(protocol, {"answer": [broken, broken]})
    receipt = ask(make_desk, protocol, model, model_output_mode=TOOL)
    assert_failed(receipt, "answer", "did not match the required format")
    assert model.calls("answer") == 2  # one try plus one corrective retry
    assert stage(receipt, "answer")["calls"] == 2


def test_schema_invalid_output_is_corrected_when_the_model_fixes_it(
    make_desk: DeskFactory,
) -> None:
    bad_window = {
        "kind": "temporal",
        "subquestions": [{"text": "When was the Erie Canal opened?"}],
        "time_windows": [{"start": "1825-13-40", "end": "1825", "label": "1825"}],
        "queries": ["Erie Canal opened"],
    }
    model = Model("chat", {"plan": [Reply.output(bad_window)]})
    receipt = ask(make_desk, "chat", model)
    assert receipt.decision == Decision.AUTO_CLEARED
    assert model.calls("plan") == 2
    retry_messages = json.dumps(model.seen[1][1]["messages"])
    assert "YYYY-MM-DD" in retry_messages  # the validation error went back to the model


def test_the_run_budget_stops_a_model_that_keeps_retrying(make_desk: DeskFactory) -> None:
    model = Model("chat", {"answer": [Reply.error(500, "x")] * 10})
    receipt = ask(make_desk, "chat", model, max_model_calls=3, model_attempts=5)
    assert_failed(receipt, "answer", "budget of 3 model calls")
    assert receipt.usage.model_calls == 3


def test_ask_exits_non_zero_and_says_why_when_a_stage_fails(
    make_desk: DeskFactory, archive_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = Model("chat", {"answer": [Reply.error(500, "boom")] * 3})
    with FakeProvider("chat", model) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
        env = {"EVIDENCE_DESK_MODEL": "openai:gpt-4.1-mini", "EVIDENCE_DESK_MODEL_BACKOFF": "0"}
        result = CliRunner().invoke(
            main, ["--data-dir", str(archive_home), "ask", "--json", QUESTION], env=env
        )
    assert result.exit_code == 1
    receipt = json.loads(result.stdout)
    assert receipt["decision"] == "HELD_FOR_REVIEW" and receipt["failure"]["stage"] == "answer"
    assert "The answerer failed: the provider had a server error" in result.stderr
    assert "sk-test-key" not in result.output


def test_check_with_a_failing_model_auditor_holds_and_says_why(
    make_desk: DeskFactory, tmp_path: Path
) -> None:
    draft = {
        "question": "When did the canal open?",
        "answer": 'It says "The Erie Canal was opened on October 26, 1825" [S1].',
        "sources": [{"id": "S1", "doc_id": "canal.md"}],
    }
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    model = Model("chat", {"audit": [Reply.error(503, "down")] * 3})
    with FakeProvider("chat", model) as fake:
        desk = make_desk("chat", fake.base_url, planner="offline", answerer="offline")
        [held] = desk.check_file(path)
    assert held["decision"] == "HELD_FOR_REVIEW" and held["published_answer"] == ""
    assert (
        "The auditor failed: the provider had a server error (HTTP 503), 3 tries."
        in (held["failure"])
    )
    with FakeProvider("chat", Model("chat")) as fake:
        desk = make_desk("chat", fake.base_url, planner="offline", answerer="offline")
        [cleared] = desk.check_file(path)
    assert cleared["decision"] == "AUTO_CLEARED" and cleared["failure"] is None
    assert cleared["auditor"] == "openai:gpt-4.1-mini"
