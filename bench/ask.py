"""Warm `ask` latency on the sample archive, stage by stage, and the memory it takes.

A desk is opened once (model and index loaded, one warm-up question answered), then every
question of the evaluation set is asked through `Desk.ask`, receipts signed and written as
for a user. The first round is the figure that counts (each question new to the desk's
in-memory caches); later rounds show a repeated question, which hits the query-embedding and
sentence-embedding caches. Baseline: the product bar, p50 <= 300 ms.

Run: `python -m bench.ask --home DIR` (DIR holds the ingested sample; without it, one is
built in a temporary directory first). `--json FILE` writes each question's first-round
latency and whether it reached the answer stage, and `--against FILE` (another tree's, run
interleaved) prints the ratio of medians over the questions both answered: a change that
answers more questions moves the p50 of all asks by its mix alone (an abstention takes a
tenth of an answer's time).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.settings import Settings

from ._util import p95, peak_rss_mb, sample_home

BAR_MS = 300.0


def measure(home: Path, rounds: int, out: Path | None, against: Path | None) -> None:
    desk = Desk(Settings(home=home))
    questions = [q.question for q in bundled_questions("sotu")]
    t0 = time.perf_counter()
    desk.ask("What did the first Congress hear about the public credit?")
    first_ms = (time.perf_counter() - t0) * 1000
    print(f"first ask (loads model and index): {first_ms:.0f} ms")
    stages: dict[str, list[float]] = defaultdict(list)
    first: dict[str, dict[str, object]] = {}
    for round_no in range(rounds):
        totals: list[float] = []
        for q in questions:
            t = time.perf_counter()
            receipt = desk.ask(q).receipt
            totals.append((time.perf_counter() - t) * 1000)
            if round_no == 0:
                for st in receipt["stages"]:
                    stages[st["name"]].append(st["latency_ms"])
                answered = any(st["name"] == "answer" for st in receipt["stages"])
                first[q] = {"ms": totals[-1], "answered": answered}
        p50 = statistics.median(totals)
        label = "new questions" if round_no == 0 else f"repeat {round_no}"
        print(
            f"warm ask, {label}, {len(totals)} asks: p50 {p50:.1f} ms, "
            f"p95 {p95(totals):.1f} ms ({p50 / BAR_MS:.2f}x the 300 ms bar)"
        )
    print("stages of the first round:")
    print("| stage | runs | p50 ms | p95 ms |")
    print("|---|---|---|---|")
    for name, values in stages.items():
        print(f"| {name} | {len(values)} | {statistics.median(values):.2f} | {p95(values):.2f} |")
    print(f"peak RSS: {peak_rss_mb():.0f} MB")
    if out is not None:
        out.write_text(json.dumps(first, indent=1), encoding="utf-8")
    if against is not None:
        _compare(first, json.loads(against.read_text(encoding="utf-8")), against)


def _compare(
    now: dict[str, dict[str, object]], then: dict[str, dict[str, object]], name: Path
) -> None:
    both = [q for q in now if q in then and now[q]["answered"] and then[q]["answered"]]
    if not both:
        print(f"no question reached the answer stage in both this run and {name}")
        return
    a = statistics.median(float(now[q]["ms"]) for q in both)  # type: ignore[arg-type]
    b = statistics.median(float(then[q]["ms"]) for q in both)  # type: ignore[arg-type]
    print(
        f"questions answered in both runs: {len(both)}; p50 {a:.1f} ms against {b:.1f} ms "
        f"in {name} (ratio of medians {a / b:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write first-round latencies here")
    parser.add_argument("--against", type=Path, help="another run's --json file")
    args = parser.parse_args()
    with sample_home(args.home) as home:
        measure(home, args.rounds, args.json, args.against)


if __name__ == "__main__":
    main()
