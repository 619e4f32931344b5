"""The evaluation sets against a real model server: llama.cpp's, with SmolLM2-135M-Instruct.

The server is llama-cpp-python's, built from source by `scripts/llamacpp-server` (`make
llamacpp`), started on 127.0.0.1 the way an operator would (`testing.llamacpp.serve`), and
the roles use `llamacpp:smollm2@<its URL>`: forced tool calls named in `tool_choice`. Each
set is run three ways on the same data dir (`Desk.evaluate` stores nothing):

* `offline`: every role on the built-in engine, the named baseline;
* `llama.cpp`: every role on the server;
* `llama.cpp, code planner`: the planner offline (the tiny model fills any output cap it is
  given with its plan), so every question reaches the answerer and, when the model wrote
  claims, the auditor.

Printed per set and way: decisions, answers found, out-of-coverage questions published,
published quotes verbatim, published sentences that the `check` door (on an offline desk
over the same archive: the door hostile drafts come through) would hold, model calls and
tokens the server served, the server's HTTP statuses, and latency p50 / p95 with the ratio
to the baseline. The model's answers are poor; the figures that matter are that the server
accepted every request and that nothing ungrounded was published.

Run: `python -m bench.llamacpp --sample-home DIR [--digitalgov-home DIR2] [--limit N]
[--max-output-tokens 256]`.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic_ai.models import override_allow_model_requests

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.settings import Settings
from evidence_desk.testing.llamacpp import ALIAS, SETUP, installed, serve

from ._util import load_average, median, p95, print_table, sample_home

WAYS = ("offline", "llama.cpp", "llama.cpp, code planner")
PUBLISHED = ("AUTO_CLEARED", "PUBLISHED_AFTER_PRUNING")
SHORT = {
    "AUTO_CLEARED": "clear",
    "PUBLISHED_AFTER_PRUNING": "pruned",
    "HELD_FOR_REVIEW": "held",
    "OUTSIDE_COVERAGE": "outside",
}


def settings_for(home: Path, way: str, base_url: str, cap: int) -> Settings:
    if way == "offline":
        return Settings(home=home)
    return Settings(
        home=home,
        model=f"llamacpp:{ALIAS}@{base_url}",
        planner="offline" if way.endswith("code planner") else "",
        model_timeout=180.0,
        model_max_output_tokens=cap,
    )


def _rate(value: float | None) -> str:
    """A rate, or a dash where nothing was there to count (no quote published)."""
    return "–" if value is None else f"{value:.2f}"


def held_by_check(checker: Desk, item: dict[str, Any], folder: Path) -> int:
    """1 when `check` holds the published answer (an ungrounded sentence got out), else 0."""
    draft = {
        "question": item["question"],
        "answer": item["published_answer"],
        "sources": [
            {"id": f"S{i}", "doc_id": d} for i, d in enumerate(item["source_doc_ids"], start=1)
        ],
    }
    path = folder / "published.json"
    path.write_text(json.dumps(draft), encoding="utf-8")
    (checked,) = checker.check_file(path)
    return int(checked["decision"] == "HELD_FOR_REVIEW")


def statuses(log: Path, seen: int) -> tuple[list[str], int]:
    found = re.findall(
        r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})', log.read_text("utf-8", "replace")
    )
    return found[seen:], len(found)


def run_set(
    name: str, home: Path, base_url: str, log: Path, cap: int, limit: int | None
) -> list[list[object]]:
    questions = bundled_questions(name)[:limit] if limit else bundled_questions(name)
    checker = Desk(Settings(home=home))
    rows: list[list[object]] = []
    baseline_p50 = None
    seen = statuses(log, 0)[1]
    with tempfile.TemporaryDirectory() as tmp:
        for way in WAYS:
            desk = Desk(settings_for(home, way, base_url, cap), embedder=checker.embedder)
            report = desk.evaluate(questions)
            items, summary = report["items"], report["summary"]
            served, seen = statuses(log, seen)
            decisions = Counter(i["decision"] for i in items)
            escaped = sum(
                held_by_check(checker, i, Path(tmp)) for i in items if i["decision"] in PUBLISHED
            )
            latency = [i["latency_ms"] for i in items]
            p50 = median(latency)
            baseline_p50 = baseline_p50 or p50
            codes = Counter(served)
            rows.append(
                [
                    way,
                    " ".join(f"{SHORT[d]} {n}" for d, n in sorted(decisions.items())),
                    _rate(summary["answer_accuracy"]),
                    summary["out_of_coverage_published"],
                    _rate(summary["published_quotes_verbatim_rate"]),
                    escaped,
                    summary["model_calls"],
                    f"{summary['input_tokens']} / {summary['output_tokens']}",
                    " ".join(f"{c}×{n}" for c, n in sorted(codes.items())) or "–",
                    f"{p50 / 1000:.1f} / {p95(latency) / 1000:.1f} s",
                    f"{p50 / baseline_p50:.0f}×",
                ]
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-home", type=Path, help="data dir holding the ingested sample")
    parser.add_argument("--digitalgov-home", type=Path, help="data dir of the digital.gov set")
    parser.add_argument("--limit", type=int, help="only the first N questions of each set")
    parser.add_argument("--max-output-tokens", type=int, default=256, help="cap per request")
    args = parser.parse_args()
    server = installed()
    if server is None:
        print(f"skipped: the llama.cpp server is not installed; run `make llamacpp` ({SETUP})")
        return
    headers = [
        "way",
        "decisions",
        "answer found",
        "outside published",
        "quotes verbatim",
        "held by check",
        "calls",
        "tokens in / out",
        "server statuses",
        "latency p50 / p95",
        "p50 ratio",
    ]
    print(f"load average {load_average()}; output cap {args.max_output_tokens} tokens")
    with tempfile.TemporaryDirectory() as tmp, override_allow_model_requests(True):
        log = Path(tmp) / "server.log"
        with serve(server, log=log) as base_url, sample_home(args.sample_home) as home:
            sets = [("sotu", home)]
            if args.digitalgov_home:
                sets.append(("digitalgov", args.digitalgov_home))
            else:
                print("digitalgov set skipped: no --digitalgov-home")
            for name, set_home in sets:
                rows = run_set(name, set_home, base_url, log, args.max_output_tokens, args.limit)
                print_table(headers, rows, title=f"{name} set on {set_home}")


if __name__ == "__main__":
    main()
