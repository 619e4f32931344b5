"""The evaluation set through the whole desk, for each fusion method and retrieval mode.

Baseline: reciprocal-rank fusion. The same questions run with score fusion (the default),
so the choice between them rests on the project's own questions: answer accuracy,
evidence recall (gold sentences inside a selected passage), abstention, published quotes
that are verbatim, and end-to-end latency.

Run: `python -m bench.evaluation --home DIR` where DIR holds the ingested sample
(`evidence-desk --data-dir DIR ingest --sample sotu`); without --home a temporary data dir
is built first (minutes, or seconds with a warm embedding cache).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.settings import Settings

from ._util import sample_home

KEYS = (
    "answer_accuracy",
    "evidence_recall",
    "abstention_precision",
    "abstention_recall",
    "out_of_coverage_published",
    "published_quotes_verbatim_rate",
    "latency_ms_p50",
    "latency_ms_p95",
)


def run(home: Path, fusion: str) -> dict[str, Any]:
    desk = Desk(Settings(home=home, fusion=fusion))  # type: ignore[arg-type]
    questions = bundled_questions("sotu")
    desk.evaluate(questions[:3])  # warm the model and the index
    report = desk.evaluate(questions)
    return dict(report["summary"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with sample_home(args.home) as home:
        results = {fusion: run(home, fusion) for fusion in ("rrf", "score")}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'metric':<32} {'rrf (baseline)':>15} {'score fusion':>13}")
    for key in KEYS:
        a, b = results["rrf"][key], results["score"][key]
        print(f"{key:<32} {a!s:>15} {b!s:>13}")
    print("decisions rrf:  ", results["rrf"]["decisions"])
    print("decisions score:", results["score"]["decisions"])


if __name__ == "__main__":
    main()
