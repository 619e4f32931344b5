"""Token economy: model calls and tokens of a Quick run with a scripted model, per stage.

Every role runs on `openai:gpt-4.1-mini` through the official SDK and Pydantic AI, pointed at
a local server (`evidence_desk.testing.fakeproviders`) that speaks Chat Completions. The
server's replies are scripted: for each question of the evaluation set it returns what the
offline engine answered for the same role and question in a first pass, so the runs take
the same paths (same plan, same sources, same claims, same decisions) and the figures
measure the prompts the desk really sends. Tokens are what the server reports:
ceil(request body bytes / 4) in, ceil(reply arguments / 4) out, the whole JSON request
counted (instructions, schema, sources). At a pessimistic 3 bytes per token the input
figures are a third higher; the table says what that gives too.

Baseline: the reference design allows 12 calls and 90,000 tokens per run; the bar is at most
6 calls and 30,000 tokens. Run: `python -m bench.model_calls --home DIR` (DIR holds the
ingested sample; without it one is built in a temporary directory first).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evidence_desk.agents.registry import offline_engine
from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.settings import Settings
from evidence_desk.testing.fakeproviders import FakeProvider, Reply

from ._util import sample_home

REFERENCE = (12, 90_000)
BAR = (6, 30_000)
_TOOL_ROLE = {"submit_plan": "plan", "submit_answer": "answer", "submit_audit": "audit"}
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.S)


def record_offline(desk: Desk, questions: list[str]) -> tuple[dict[Any, Any], list[str]]:
    """The offline engine's output per (question, role), and each question's decision."""
    engine = offline_engine(desk.embedder)
    replies: dict[tuple[str, str], dict[str, Any]] = {}
    respond = engine.respond
    current: list[str] = [""]

    def recording(request: Any) -> BaseModel:
        out = respond(request)
        role = {"PlanRequest": "plan", "AnswerRequest": "answer", "AuditRequest": "audit"}
        replies[(current[0], role[type(request).__name__])] = out.model_dump(mode="json")
        return out

    engine.respond = recording  # type: ignore[method-assign]
    decisions = []
    try:
        for q in questions:
            current[0] = q
            decisions.append(desk.ask(q).receipt["decision"])
    finally:
        engine.respond = respond  # type: ignore[method-assign]
    return replies, decisions


def scripted(replies: dict[tuple[str, str], dict[str, Any]]) -> Any:
    def reply(body: dict[str, Any], index: int) -> Reply:
        role = _TOOL_ROLE[body["tools"][0]["function"]["name"]]
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        match = _QUESTION.search(user)
        question = match.group(1) if match else ""
        return Reply.output(replies[(question, role)])

    return reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path)
    args = parser.parse_args()
    with sample_home(args.home) as home:
        measure(home)


def measure(home: Path) -> None:
    questions = [q.question for q in bundled_questions("sotu")]
    offline = Desk(Settings(home=home))
    replies, offline_decisions = record_offline(offline, questions)
    with FakeProvider("chat", scripted(replies), models=["gpt-4.1-mini"]) as fake:
        os.environ["OPENAI_BASE_URL"] = fake.base_url
        os.environ.setdefault("OPENAI_API_KEY", "bench-key-not-secret")
        desk = Desk(Settings(home=home, model="openai:gpt-4.1-mini"), embedder=offline.embedder)
        runs = [desk.ask(q).receipt for q in questions]
    same = sum(r["decision"] == d for r, d in zip(runs, offline_decisions, strict=True))
    report(runs, same)


def report(runs: list[dict[str, Any]], same: int) -> None:
    per_stage: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    calls, tokens, pessimistic, spend = [], [], [], []
    for r in runs:
        for s in r["stages"]:
            if s["calls"]:
                for key in ("calls", "input_tokens", "output_tokens", "latency_ms"):
                    per_stage[s["name"]][key].append(s[key])
        u = r["usage"]
        calls.append(u["model_calls"])
        tokens.append(u["input_tokens"] + u["output_tokens"])
        pessimistic.append(round(u["input_tokens"] * 4 / 3) + u["output_tokens"])
        spend.append(u["estimated_spend_usd"])
    n = len(runs)
    print(f"{n} questions of the evaluation set, every role on a scripted openai:gpt-4.1-mini")
    print(f"decisions equal to the offline engine's: {same} of {n}")
    print(
        "| stage | runs | median calls | median input tokens | median output tokens |"
        " median latency ms |"
    )
    print("|---|---|---|---|---|---|")
    for name in ("plan", "answer", "audit"):
        v = per_stage[name]
        if not v:
            continue
        print(
            f"| {name} | {len(v['calls'])} | {statistics.median(v['calls']):g} | "
            f"{statistics.median(v['input_tokens']):.0f} | "
            f"{statistics.median(v['output_tokens']):.0f} | "
            f"{statistics.median(v['latency_ms']):.1f} |"
        )
    for label, values, bar, ref in (
        ("model calls per run", calls, BAR[0], REFERENCE[0]),
        ("tokens per run (4 bytes/token)", tokens, BAR[1], REFERENCE[1]),
        ("tokens per run (3 bytes/token)", pessimistic, BAR[1], REFERENCE[1]),
    ):
        worst = max(values)
        print(
            f"{label}: median {statistics.median(values):g}, max {worst:g} "
            f"({worst / bar:.2f}x the bar of {bar:,}; {worst / ref:.2f}x the reference {ref:,})"
        )
    print(
        f"estimated spend per run at gpt-4.1-mini list prices: median "
        f"${statistics.median(spend):.5f}, max ${max(spend):.5f}"
    )
    over = [
        i for i, (c, t) in enumerate(zip(calls, tokens, strict=True)) if c > BAR[0] or t > BAR[1]
    ]
    print("every run within the bar" if not over else f"runs over the bar: {over}")


if __name__ == "__main__":
    main()
