"""Do the two executors agree on the real evaluation sets? Stages loop against LangGraph.

Every question of the sample's `sotu` set and of the `digitalgov` set is asked twice on a
copy of its data dir, once by a desk on the stored-stage loop (`executor = "stages"`, the
default) and once by a desk on the LangGraph executor, sharing one embedding model. The
bench prints, per set, how many receipts have the same content (`testing.receipts.
comparable`: run ids, times, latencies and signatures aside), the ids of those that
differ, and whether the receipt chain both wrote verifies. The tests check the same on the
small archive with a hashing embedder (`tests/integration/test_run_graph.py`); this is the
real model on the real archives.

Run: `python -m bench.executors --sample-home DIR [--digitalgov-home DIR2]` (without
`--sample-home` a temporary data dir is built; without `--digitalgov-home` that set is
skipped, saying so). The given data dirs are copied, never written.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.settings import Settings
from evidence_desk.testing.receipts import comparable

from ._util import load_average, sample_home


def agree(given: Path, name: str) -> tuple[int, list[str], bool]:
    """(questions asked, ids whose receipts differ, the chain verifies) for one set."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(given, home)
        stages = Desk(Settings(home=home, executor="stages"))
        graph = Desk(Settings(home=home, executor="langgraph"), embedder=stages.embedder)
        questions = bundled_questions(name)
        differ = [
            q.id
            for q in questions
            if comparable(stages.ask(q.question).receipt)
            != comparable(graph.ask(q.question).receipt)
        ]
        return len(questions), differ, graph.verify_chain().ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-home", "--home", dest="sample_home", type=Path)
    parser.add_argument("--digitalgov-home", type=Path)
    args = parser.parse_args()
    print(load_average())
    print("| set | questions | same receipt content | differ | chain verifies |")
    print("|---|---|---|---|---|")
    with sample_home(args.sample_home) as sotu:
        sets = [("sotu", sotu)]
        if args.digitalgov_home is not None:
            sets.append(("digitalgov", args.digitalgov_home))
        for name, home in sets:
            n, differ, ok = agree(home, name)
            print(f"| {name} | {n} | {n - len(differ)} | {', '.join(differ) or '–'} | {ok} |")
    if args.digitalgov_home is None:
        print("\ndigitalgov: skipped (no --digitalgov-home given)")


if __name__ == "__main__":
    main()
