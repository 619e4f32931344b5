"""Quick against Deep mode on both evaluation sets: does the second look pay for itself?

Deep mode (`src/evidence_desk/runs/gaps.py`) searches again where the first pass left a
gap: a window with no kept passage, or uncommon key terms no kept passage holds. For each
set (the sample's `sotu` set and the `digitalgov` set, each on its own archive) the bench
runs every question in Quick mode and in Deep mode on the same desk and prints, side by
side with the ratio Deep/Quick: answers found, evidence recall, out-of-coverage questions
published, latency p50, model calls, archive searches and the passages shown to the
answerer (mean and most per question: Deep shows one passage more per source); then the
questions whose answer or evidence changed, and how many questions Deep searched again for.

Latency is taken on a shared machine, so it is timed apart from the evaluation: in each of
`--rounds N` rounds both modes get a new desk (warmed by one question outside the sets, so
no question is cached) and every question is asked in both modes back to back, the mode
that goes first alternating; each mode's latencies are pooled over the rounds. The other
figures are deterministic (the offline engine) and come from one evaluation per mode.

Run: `python -m bench.deep --sample-home DIR --digitalgov-home DIR2` where DIR holds the
ingested sample (`evidence-desk --data-dir DIR ingest --sample sotu`) and DIR2 the
digital.gov archive (see `bench/evaluation.py`). Without `--sample-home` a temporary data
dir is built first; without `--digitalgov-home` the digital.gov set is skipped, and the
bench says so. Nothing is written to the archives (evaluation stores no run).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.evaluation.runner import percentile
from evidence_desk.settings import Settings

from ._util import load_average, print_table, sample_home

MODES = ("quick", "deep")


# Asked once by each new desk before it is timed: loads the model and the index, and
# caches no query of the sets (a desk caches its query embeddings).
WARM_UP = "What did the report say about the budget?"


def fresh_desk(home: Path, mode: str) -> Desk:
    desk = Desk(Settings(home=home))
    desk.run(WARM_UP, mode=mode)
    return desk


def run_set(home: Path, name: str, rounds: int) -> dict[str, Any]:
    """Both modes' reports on one set, each with its per-question latencies and passages.

    The reports come from one evaluation per mode. Latency is timed apart: each round gives
    each mode a new desk (so every question is new to it, and neither mode finds the
    other's query embeddings cached) and asks question by question in both modes, the mode
    that goes first alternating, so load on a shared machine falls on both alike.
    """
    questions = bundled_questions(name)
    reports = {m: fresh_desk(home, m).evaluate(questions, mode=m) for m in MODES}
    latencies: dict[str, list[float]] = {m: [] for m in MODES}
    passages: dict[str, list[int]] = {m: [] for m in MODES}
    for r in range(max(rounds, 1)):
        desks = {m: fresh_desk(home, m) for m in MODES}
        for i, q in enumerate(questions):
            for mode in MODES if (i + r) % 2 == 0 else MODES[::-1]:
                t0 = time.perf_counter()
                receipt = desks[mode].run(q.question, mode=mode)
                latencies[mode].append((time.perf_counter() - t0) * 1000.0)
                if r == 0:
                    passages[mode].append(sum(len(s.passages) for s in receipt.sources))
    for mode in MODES:
        reports[mode]["latencies"] = latencies[mode]
        reports[mode]["passages"] = passages[mode]
    return reports


def combined(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """One report of several sets' items, latencies and passages (the figures of all sets)."""
    return {k: [x for r in reports for x in r[k]] for k in ("items", "latencies", "passages")}


def figures(report: dict[str, Any]) -> dict[str, Any]:
    """The compared figures, from a report's items and its pooled latencies."""
    items, shown = report["items"], report["passages"]
    answerable = [i for i in items if i["kind"] != "out_of_coverage"]
    evidence = [hit for i in answerable for hit in i["evidence_covered"]]
    ooc = [i for i in items if i["kind"] == "out_of_coverage"]
    return {
        "answers found": sum(bool(i["answer_found"]) for i in answerable),
        "answerable": len(answerable),
        "evidence recall": round(sum(evidence) / len(evidence), 4) if evidence else None,
        "out-of-coverage published": sum(
            i["decision"] in ("AUTO_CLEARED", "PUBLISHED_AFTER_PRUNING") for i in ooc
        ),
        "out of coverage": len(ooc),
        "latency p50 ms": round(percentile(report["latencies"], 50), 1),
        "model calls": sum(int(i["model_calls"]) for i in items),
        "searches": sum(int(i["searches"]) for i in items),
        "passages mean": round(sum(shown) / len(shown), 1) if shown else None,
        "passages most": max(shown, default=0),
    }


def ratio(deep: float | None, quick: float | None) -> str:
    if deep is None or quick is None:
        return "–"
    if quick == 0:
        return "=" if deep == 0 else "–"
    return f"{deep / quick:.2f}"


def table(name: str, reports: dict[str, dict[str, Any]]) -> None:
    q, d = figures(reports["quick"]), figures(reports["deep"])
    rows: list[list[object]] = [
        [
            "answers found",
            f"{q['answers found']} of {q['answerable']}",
            f"{d['answers found']} of {d['answerable']}",
            ratio(d["answers found"], q["answers found"]),
        ],
    ]
    for key in ("evidence recall",):
        rows.append([key, q[key], d[key], ratio(d[key], q[key])])
    rows.append(
        [
            "out-of-coverage published",
            f"{q['out-of-coverage published']} of {q['out of coverage']}",
            f"{d['out-of-coverage published']} of {d['out of coverage']}",
            ratio(d["out-of-coverage published"], q["out-of-coverage published"]),
        ]
    )
    for key in ("latency p50 ms", "model calls", "searches", "passages mean", "passages most"):
        rows.append([key, q[key], d[key], ratio(d[key], q[key])])
    print_table(["metric", "Quick", "Deep", "Deep/Quick"], rows, title=name)


def changes(reports: dict[str, dict[str, Any]]) -> list[str]:
    """How many questions Deep searched again for and published in other words, then one
    line per question whose decision, answer found or evidence moved."""
    lines: list[str] = []
    again = reworded = 0
    for q, d in zip(reports["quick"]["items"], reports["deep"]["items"], strict=True):
        again += d["searches"] > q["searches"]
        reworded += q["published_answer"] != d["published_answer"]
        moved = [
            f"{key} {q[key]} -> {d[key]}"
            for key in ("decision", "answer_found", "evidence_covered")
            if q[key] != d[key]
        ]
        if moved:
            lines.append(f"  {q['id']}: " + "; ".join(moved))
    total = len(reports["quick"]["items"])
    return [
        f"Deep searched again for {again} of {total} questions; {reworded} published answers "
        f"read differently; {len(lines) or 'no'} question(s) changed decision, answer found "
        "or evidence" + (":" if lines else "."),
        *lines,
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-home", "--home", dest="sample_home", type=Path)
    parser.add_argument("--digitalgov-home", type=Path)
    parser.add_argument("--rounds", type=int, default=1, help="runs of each mode (latency)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict[str, dict[str, Any]]] = {}
    with sample_home(args.sample_home) as sotu_home:
        results["sotu"] = run_set(sotu_home, "sotu", args.rounds)
        if args.digitalgov_home is not None:
            results["digitalgov"] = run_set(args.digitalgov_home, "digitalgov", args.rounds)
    if args.json:
        out = {n: {m: figures(r[m]) for m in MODES} for n, r in results.items()}
        print(json.dumps(out, indent=2))
        return
    print(load_average())
    for name, reports in results.items():
        table(name, reports)
        for line in changes(reports):
            print(line)
    if len(results) > 1:
        both = {m: combined([r[m] for r in results.values()]) for m in MODES}
        table(" + ".join(results), both)
    if args.digitalgov_home is None:
        print("\ndigitalgov: skipped (no --digitalgov-home given)")


if __name__ == "__main__":
    main()
