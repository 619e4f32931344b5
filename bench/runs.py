"""What storing a run as it goes costs, and how fast a killed run resumes.

Overhead: one warm desk asks every question of the sample evaluation set two ways,
interleaved question by question so machine noise hits both alike:

* **stored** — `Desk.ask`: the run opened in the store, every stage's output and events
  committed before the next stage, the receipt published by the publish stage;
* **in memory** (the baseline: how a run went before runs were records) — the same stage
  functions driven in memory, then the same publish (seal, sign, chain, write the file).

Resume: a child process asks a question and is killed with SIGKILL as its answer stage
starts; the run is then resumed (a) by a fresh `evidence-desk runs resume` process (what an
operator types: it loads the model and index first) and (b) by the warm desk in this
process. Medians over `--kills` kills.

Run: `python -m bench.runs --home DIR` (DIR holds the ingested sample; without it, one is
built in a temporary directory first). The data dir gets the benchmark's runs and receipts.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import bundled_questions
from evidence_desk.runs.loop import drive
from evidence_desk.settings import Settings

from ._util import p95, sample_home

AIM = 1.15  # the stored run's p50 may be at most this many times the in-memory run's

KILL_AT_ANSWER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from evidence_desk.desk import Desk
    from evidence_desk.settings import Settings

    def die(kind, stage, state):
        if (kind, stage) == ("stage_started", "answer"):
            print(state.run_id, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    Desk(Settings(home=Path(sys.argv[1]))).ask(sys.argv[2], on_event=die)
    """
)


def in_memory(desk: Desk, question: str) -> None:
    """A run as before runs were stored: stages in memory, then the same publish."""
    deps = desk.pipeline.deps()
    state = drive(desk.pipeline.opening(question), deps, until=("publish",))
    desk.publisher.stage(state, deps)


def overhead(desk: Desk, rounds: int) -> None:
    questions = [q.question for q in bundled_questions("sotu")]
    desk.ask("What did the first Congress hear about the public credit?")  # warm-up
    stored: list[float] = []
    memory: list[float] = []
    for _ in range(rounds):
        for i, q in enumerate(questions):
            order = ("stored", "memory") if i % 2 == 0 else ("memory", "stored")
            for name in order:  # alternate who goes first
                t = time.perf_counter()
                if name == "stored":
                    desk.ask(q)
                else:
                    in_memory(desk, q)
                (stored if name == "stored" else memory).append((time.perf_counter() - t) * 1000)
    s50, m50 = statistics.median(stored), statistics.median(memory)
    print(f"warm ask, {len(stored)} asks each, interleaved:")
    print("| run | p50 ms | p95 ms |")
    print("|---|---|---|")
    print(f"| in memory, then published (baseline) | {m50:.1f} | {p95(memory):.1f} |")
    print(f"| stored as it goes | {s50:.1f} | {p95(stored):.1f} |")
    verdict = "within" if s50 / m50 <= AIM else "over"
    print(f"ratio of medians: {s50 / m50:.3f} ({verdict} the {AIM:.2f}x aim)")


def resume(desk: Desk, home: Path, kills: int) -> None:
    cli: list[float] = []
    warm: list[float] = []
    question = "What did Kennedy say about the moon?"
    for i in range(kills):
        child = subprocess.run(
            [sys.executable, "-c", KILL_AT_ANSWER, str(home), question],
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != -signal.SIGKILL:
            raise SystemExit(f"the child was not killed: {child.stderr[-400:]}")
        run_id = child.stdout.split()[0]
        if i % 2 == 0:
            t = time.perf_counter()
            cmd = [sys.executable, "-m", "evidence_desk", "--data-dir", str(home), "runs"]
            subprocess.run([*cmd, "resume", run_id], capture_output=True, check=True)
            cli.append((time.perf_counter() - t) * 1000)
        else:
            t = time.perf_counter()
            desk.resume(run_id)
            warm.append((time.perf_counter() - t) * 1000)
    print(f"resume after SIGKILL at the answer stage ({kills} kills):")
    print(
        f"  fresh `runs resume` process: p50 {statistics.median(cli):.0f} ms (loads model, index)"
    )
    print(f"  warm desk, in process: p50 {statistics.median(warm):.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="a data dir holding the ingested sample")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kills", type=int, default=6)
    parser.add_argument("--quick", action="store_true", help="one round, two kills")
    args = parser.parse_args()
    rounds, kills = (1, 2) if args.quick else (args.rounds, args.kills)
    with sample_home(args.home) as given, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(given, home)  # runs and receipts go to a copy, not the given dir
        desk = Desk(Settings(home=home))
        overhead(desk, rounds)
        resume(desk, home, kills)


if __name__ == "__main__":
    main()
