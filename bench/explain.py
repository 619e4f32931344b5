"""Explaining published answers on both evaluation sets: `python -m bench.explain`.

For every question of a set whose answer publishes, the answer is explained offline
(`Desk.explain`: an explanation run of its own, stored and sealed) and counted: lessons made,
published and withheld (and why), blocks and relations proposed and kept by kind, and the
latency of an explanation (p50 and p95, offline, this machine). Then the same reviews with
every proposed relation swapped to a false one (its kind turned to another kind, its subject
and object swapped): every hostile relation must be dropped. Last, determinism: the SVG of
each published lesson's kept relations, drawn three times here and once in a second
process, must be byte-identical.

The baseline is the same lessons' own honest relations: the hostile count is read against
it in the same run (`hostile kept` must be 0 whatever the honest count).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.runs.state import RunState
from evidence_desk.runs.teach import teaching_review_stage
from evidence_desk.settings import Settings
from evidence_desk.teaching.layout import DiagramEdge
from evidence_desk.teaching.svg import render_svg
from evidence_desk.types import Lesson, Relation

from .evaluation import each_set

FALSE_KIND = {
    "proposed": "opposed",
    "opposed": "supported",
    "supported": "opposed",
    "caused": "preceded",
    "preceded": "caused",
    "created": "ended",
    "ended": "created",
    "called for": "opposed",
    "part of": "contrasts with",
    "contrasts with": "part of",
}


def _hostile(relation: dict[str, Any], how: str) -> dict[str, Any]:
    """The relation made false: another kind, or its ends swapped."""
    if how == "kind":
        return {**relation, "relation": FALSE_KIND[relation["relation"]], "verb": ""}
    return {**relation, "subject": relation["object"], "object": relation["subject"]}


def _svg(relations: list[dict[str, Any]]) -> str:
    """The diagram of a lesson's kept relations (their review records), as the app draws it."""
    edges = [
        DiagramEdge(
            id=r["relation"]["id"],
            subject=r["relation"]["subject"],
            relation=r["relation"]["relation"],
            object=r["relation"]["object"],
            href=f"#evidence-{r['relation']['id']}",
            sentence=r["sentence"],
        )
        for r in relations
    ]
    return render_svg(edges, title="Diagram", description="Relations of the lesson")


def _review_hostile(desk: Desk, lesson: dict[str, Any]) -> tuple[int, int]:
    """(hostile relations reviewed, hostile relations kept): every relation the teacher
    proposed, made false two ways, reviewed by the same teaching review stage."""
    proposed = [r["relation"] for r in lesson["teaching"]["relations"]]
    false = [_hostile(r, how) for r in proposed for how in ("kind", "ends")]
    if not false:
        return 0, 0
    relations = tuple(
        Relation.model_validate({**r, "id": f"R{i}"}) for i, r in enumerate(false, start=1)
    )
    answer = lesson["teaching"]["answer_run_id"]
    state = RunState.explaining("bench-hostile", lesson["created_at"], lesson["question"], answer)
    state = state.model_copy(update={"lesson": Lesson(blocks=(), relations=relations)})
    step = teaching_review_stage(state, desk.parts.pipeline.deps())
    teaching = step.updates["teaching"]
    return len(relations), sum(r.decision == "kept" for r in teaching.relations)


def run_set(home: Path, name: str) -> dict[str, Any]:
    desk = Desk(Settings(home=home))
    questions = bundled_questions(name)
    blocks_proposed: Counter[str] = Counter()
    blocks_kept: Counter[str] = Counter()
    withheld: Counter[str] = Counter()
    relations = [0, 0]
    hostile = [0, 0]
    latencies: list[float] = []
    diagrams: list[list[dict[str, Any]]] = []
    answered = lessons = published = 0
    for q in questions:
        receipt = desk.ask(q.question).receipt
        if receipt["decision"] not in ("AUTO_CLEARED", "PUBLISHED_AFTER_PRUNING"):
            continue
        answered += 1
        t0 = time.perf_counter()
        lesson = desk.explain(receipt["run_id"]).receipt
        latencies.append((time.perf_counter() - t0) * 1000)
        teaching = lesson["teaching"]
        lessons += 1
        for b in teaching["blocks"]:
            blocks_proposed[b["block"]["kind"]] += 1
            blocks_kept[b["block"]["kind"]] += b["decision"] == "kept"
        relations[0] += len(teaching["relations"])
        kept = [r for r in teaching["relations"] if r["decision"] == "kept"]
        relations[1] += len(kept)
        if teaching["decision"] == "PUBLISHED":
            published += 1
            if kept:
                diagrams.append(kept)
        else:
            withheld[teaching["reason"].split("(")[0].strip()] += 1
        reviewed, escaped = _review_hostile(desk, lesson)
        hostile[0] += reviewed
        hostile[1] += escaped
    return {
        "questions": len(questions),
        "answers published": answered,
        "lessons made": lessons,
        "lessons published": published,
        "lessons withheld": dict(withheld),
        "blocks proposed": dict(blocks_proposed),
        "blocks kept": dict(blocks_kept),
        "relations proposed / kept": relations,
        "hostile relations reviewed / kept": hostile,
        "explain p50 ms": round(statistics.median(latencies), 1) if latencies else None,
        "explain p95 ms": round(sorted(latencies)[int(0.95 * (len(latencies) - 1))], 1)
        if latencies
        else None,
        "diagrams": diagrams,
    }


_OTHER_PROCESS = """
import json, sys
from bench.explain import _svg
print(json.dumps([_svg(r) for r in json.load(sys.stdin)]))
"""


def _determinism(kept: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """Each lesson's diagram drawn 3 times here and once in another process (another hash
    seed): are the bytes identical?"""
    if not kept:
        return {"diagrams": 0}
    first = [_svg(r) for r in kept]
    here = all([_svg(r) for r in kept] == first for _ in range(2))
    other = subprocess.run(
        [sys.executable, "-c", _OTHER_PROCESS],
        input=json.dumps(kept),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    return {
        "diagrams": len(kept),
        "identical across 3 runs": here,
        "identical in a second process": json.loads(other.stdout) == first,
        "bytes": sum(len(s.encode("utf-8")) for s in first),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-home", "--home", dest="sample_home", type=Path)
    parser.add_argument("--digitalgov-home", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results, skipped = each_set(args.sample_home, args.digitalgov_home, run_set)
    kept = [d for r in results.values() for d in r.pop("diagrams")]
    report = {"sets": results, "skipped": skipped, "determinism": _determinism(kept)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, r in results.items():
        print(f"## {name}")
        for key, value in r.items():
            print(f"  {key:<36} {value}")
    for key, value in report["determinism"].items():
        print(f"determinism: {key:<28} {value}")
    for name, why in skipped.items():
        print(f"skipped {name}: {why}")


if __name__ == "__main__":
    main()
