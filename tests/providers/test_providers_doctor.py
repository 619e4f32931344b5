"""`evidence-desk doctor` against local servers: what each role uses and what is missing."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from evidence_desk.agents.doctor import diagnose
from evidence_desk.cli import main
from evidence_desk.settings import Settings
from evidence_desk.testing.fakeproviders import FakeProvider, Reply

SECRET = "sk-test-doctor-secret-1234"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_offline_roles_are_ready_with_nothing_to_check() -> None:
    report = diagnose(Settings())
    assert report.ready
    assert [(r.engine, r.key, r.reachable) for r in report.roles] == [
        ("offline", "not needed", "built in")
    ] * 4


def test_a_reachable_openai_endpoint_with_the_model_is_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeProvider("chat", [], models=["gpt-4.1-mini", "gpt-4.1"]) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        report = diagnose(Settings(model="openai:gpt-4.1-mini"))
        probes = [r for r in fake.requests if r.method == "GET"]
    assert report.ready, report.all_problems()
    role = report.roles[1]
    assert role.key == "OPENAI_API_KEY is set"
    assert role.endpoint == fake.base_url
    assert role.reachable == "it answers and lists 2 model(s)"
    assert role.price.startswith("$0.4 in / $1.6 out")
    assert len(probes) == 1  # one check per distinct endpoint, shared by the three roles
    assert probes[0].headers["authorization"] == f"Bearer {SECRET}"  # the key reaches the SDK
    assert all(r.method == "GET" for r in fake.requests)  # no prompt, no tokens


def test_a_model_the_endpoint_does_not_list_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeProvider("anthropic", [], models=["claude-haiku-4-5"]) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
        report = diagnose(Settings(answerer="anthropic:claude-nonexistent-9"))
    assert not report.ready
    assert report.all_problems() == [
        "The answerer's endpoint does not list the model 'claude-nonexistent-9'; check the "
        "name (for Ollama: `ollama pull` it first)."
    ]


def test_an_openai_compatible_server_that_lists_another_name_is_a_warning(
    tmp_path: Path,
) -> None:
    """llama.cpp's server lists its model by file path unless given `--model_alias`, and
    answers for it under any name: the role is ready, and the doctor says why it may not be."""
    with FakeProvider("chat", [], models=["/models/SmolLM2-135M-Instruct.gguf"]) as fake:
        engine = f"openai-compatible:smollm2@{fake.base_url}"
        report = diagnose(Settings(model=engine))
        result = CliRunner().invoke(
            main, ["--data-dir", str(tmp_path), "doctor"], env={"EVIDENCE_DESK_MODEL": engine}
        )
    assert report.ready and report.all_problems() == []
    (first, *_) = report.all_warnings()
    assert len(report.all_warnings()) == 4  # one per role
    assert "does not list the model 'smollm2'" in first
    assert "'/models/SmolLM2-135M-Instruct.gguf'" in first and "--model_alias smollm2" in first
    assert report.to_json()["warnings"] == report.all_warnings()
    assert result.exit_code == 0, result.output
    assert "Worth knowing:" in result.output and "Every role is ready." in result.output


def test_missing_keys_and_unreachable_servers_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    port = closed_port()
    report = diagnose(
        Settings(
            planner="anthropic:claude-haiku-4-5",
            answerer=f"openai-compatible:qwen@http://127.0.0.1:{port}/v1",
            auditor="gemini:pro",
        ),
        timeout=2.0,
    )
    assert report.all_problems() == [
        "The planner uses anthropic:claude-haiku-4-5, which needs ANTHROPIC_API_KEY; it is not "
        "set.",
        f"The answerer's endpoint (http://127.0.0.1:{port}/v1): it cannot be reached.",
        "Unknown auditor engine 'gemini:pro'; use 'offline' or one of 'openai:<model>', "
        "'openai-responses:<model>', 'anthropic:<model>', 'ollama:<model>', 'vllm:<model>', "
        "'llamacpp:<model>', 'openai-compatible:<model>'.",
    ]
    assert report.roles[0].reachable == "not checked without a key"
    assert report.roles[1].key == "none (the server may not need one)"


@pytest.mark.parametrize("protocol", ["chat", "anthropic"])
def test_a_rejected_key_is_reported_without_showing_it(
    monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    with FakeProvider(protocol, [], models_error=401) as fake:  # type: ignore[arg-type]
        prefix = "ANTHROPIC" if protocol == "anthropic" else "OPENAI"
        monkeypatch.setenv(f"{prefix}_BASE_URL", fake.base_url)
        monkeypatch.setenv(f"{prefix}_API_KEY", SECRET)
        engine = "anthropic:claude-haiku-4-5" if protocol == "anthropic" else "openai:gpt-4.1"
        report = diagnose(Settings(model=engine))
    assert not report.ready
    assert report.roles[0].reachable == "it rejected the key (HTTP 401)"
    assert SECRET not in json.dumps(report.to_json())


def test_a_server_without_a_model_list_still_counts_as_answering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeProvider("chat", [], models_error=404) as fake:
        report = diagnose(Settings(model=f"openai-compatible:local@{fake.base_url}"))
    assert report.ready
    assert report.roles[0].reachable == "it answers (it publishes no model list)"


def test_the_doctor_command_prints_each_role_and_exits_1_when_not_ready(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"EVIDENCE_DESK_ANSWERER": "openai:gpt-4.1-mini", "OPENAI_API_KEY": ""}
    result = runner.invoke(main, ["--data-dir", str(tmp_path), "doctor"], env=env)
    assert result.exit_code == 1
    assert "answerer: openai:gpt-4.1-mini — not ready" in result.output
    assert "OPENAI_API_KEY is missing" in result.output
    assert "Missing or wrong:" in result.output
    ok = runner.invoke(main, ["--data-dir", str(tmp_path), "doctor", "--json"])
    assert ok.exit_code == 0
    data = json.loads(ok.output)
    assert data["ready"] is True and [r["role"] for r in data["roles"]] == [
        "planner",
        "answerer",
        "auditor",
        "teacher",
    ]


def test_the_doctor_never_prints_a_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with FakeProvider("chat", [], models=["gpt-4.1-mini"]) as fake:
        env = {
            "OPENAI_BASE_URL": fake.base_url,
            "OPENAI_API_KEY": SECRET,
            "EVIDENCE_DESK_MODEL": "openai:gpt-4.1-mini",
        }
        for args in (["doctor"], ["doctor", "--json"]):
            result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), *args], env=env)
            assert result.exit_code == 0, result.output
            assert SECRET not in result.output and "OPENAI_API_KEY is set" in result.output


def test_ask_with_a_missing_key_fails_in_one_sentence_before_any_work(
    archive_home: Path,
) -> None:
    env = {"EVIDENCE_DESK_MODEL": "anthropic:claude-haiku-4-5", "ANTHROPIC_API_KEY": ""}
    result = CliRunner().invoke(
        main, ["--data-dir", str(archive_home), "ask", "When was the canal opened?"], env=env
    )
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: The planner uses anthropic:claude-haiku-4-5, which needs ANTHROPIC_API_KEY; "
        "it is not set."
    )
    assert result.stdout == ""


def test_probe_states_the_cost_first_names_the_working_mode_and_fails(tmp_path: Path) -> None:
    """`doctor --probe` on a server that crashes on `tool_choice: "required"` (llama.cpp's
    function-calling format) run as a generic server in tool mode."""

    def crashes_on_required(body: dict[str, object], index: int) -> Reply:
        if body.get("tool_choice") == "required":
            return Reply.error(500, "tool_choice 'required' is not supported")
        return Reply.text(json.dumps({"ready": True}))

    with FakeProvider("chat", crashes_on_required, models=["local"]) as fake:
        env = {
            "EVIDENCE_DESK_HOME": str(tmp_path),
            "EVIDENCE_DESK_MODEL": f"openai-compatible:local@{fake.base_url}",
            "EVIDENCE_DESK_MODEL_OUTPUT_MODE": "tool",
            "EVIDENCE_DESK_MODEL_BACKOFF": "0.01",
        }
        result = CliRunner().invoke(main, ["doctor", "--probe"], env=env)
        posts = [r for r in fake.requests if r.method == "POST"]
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    stated = next(i for i, line in enumerate(lines) if line.startswith("The probe sends"))
    probed = next(i for i, line in enumerate(lines) if line.startswith("probe "))
    assert stated < probed  # the cost is said before the probe's result
    assert "at most 3 request(s) to 1 engine(s)" in lines[stated] and "nothing" in lines[stated]
    assert len(posts) == 2  # tool (500, not retried by the probe), then native
    assert "tool: failed" in result.output and "native: ok" in result.output
    assert "fix: Set EVIDENCE_DESK_MODEL_OUTPUT_MODE=native to run in native mode." in (
        result.output
    )


def test_probe_json_reports_each_engine(tmp_path: Path) -> None:
    with FakeProvider("chat", lambda body, i: Reply.output({"ready": True}), models=["m"]) as f:
        env = {"EVIDENCE_DESK_HOME": str(tmp_path), "EVIDENCE_DESK_MODEL": f"vllm:m@{f.base_url}"}
        result = CliRunner().invoke(main, ["doctor", "--probe", "--json"], env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ready"] is True
    (engine,) = data["probes"]
    assert engine["engine"] == "vllm:m" and engine["mode"] == "tool"
    assert [t["ok"] for t in engine["trials"]] == [True]
    assert "The probe sends" in result.stderr  # the statement, kept off the JSON
