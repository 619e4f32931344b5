"""Every benchmark in one command: `python -m bench` (or `make bench`).

Runs, in order, each in its own process so one's memory and threads do not colour the next:
embedding throughput, ingest (sample and digital.gov, cold), the first hour (`serve --sample`
in a fresh home: first page served, sample ready), retrieval latency (digital.gov
size and 200,000 passages), warm `ask` latency, the cost of storing runs and resuming one
after a kill, model calls and tokens of a Quick run with a scripted provider, the web app
under load on loopback (published-answer reads, widget asks, the first stage event), both
evaluation sets (beside the desk before and a BM25 baseline), their published answers explained
(lessons, relations, hostile relations, determinism), 20 follow-ups with and without
their conversation, both sets in Quick and in
Deep mode, both executors on both sets, the coverage calibration on two archives, a
static first-pass embedding against the model on both archives, the auditor on WiCE,
hostile drafts against the grounding contract, the contract judged with three auditors
(offline, honest, always-supported) over the hostile, faithful and natural-prose drafts, and
both sets against a real llama.cpp server. Benchmarks that need the shared data folder or the
llama.cpp server (`make llamacpp`) say so and skip. `--quick` runs the smoke variants where a
bench has one.

The sample archive (and the digital.gov archive, when the shared data is there) is ingested
once into a temporary data dir for the benches that need it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from .evaluation import DIGITALGOV_FOLDER


def _run(module: str, *args: str) -> int:
    print(f"\n## python -m bench.{module} {' '.join(args)}".rstrip(), flush=True)
    return subprocess.call([sys.executable, "-m", f"bench.{module}", *args])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    quick = ["--quick"] if args.quick else []
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "sample"
        failures += _run("embedding", *quick) != 0
        if not args.quick:
            failures += _run("ingest") != 0
            failures += _run("first_hour", "--serve") != 0
        failures += _run("retrieval", *quick) != 0
        subprocess.check_call(
            [
                sys.executable,
                "-m",
                "evidence_desk",
                "--data-dir",
                str(home),
                "ingest",
                "--sample",
                "sotu",
            ]
        )
        failures += _run("ask", "--home", str(home)) != 0
        failures += _run("runs", "--home", str(home), *quick) != 0
        failures += _run("model_calls", "--home", str(home)) != 0
        web = ["--levels", "1", "16"] if args.quick else []
        failures += _run("web", "--home", str(home), *web) != 0
        homes = ["--sample-home", str(home)]
        if DIGITALGOV_FOLDER.exists():
            dg = Path(tmp) / "digitalgov"
            ingest = ["-m", "evidence_desk", "--data-dir", str(dg), "ingest"]
            subprocess.check_call([sys.executable, *ingest, str(DIGITALGOV_FOLDER)])
            homes += ["--digitalgov-home", str(dg)]
        failures += _run("followups", *homes) != 0
        failures += _run("evaluation", *homes) != 0
        failures += _run("explain", *homes) != 0
        failures += _run("deep", *homes) != 0
        failures += _run("executors", *homes) != 0
        failures += _run("calibrate_coverage", *homes) != 0
        failures += _run("static_embedding", *homes) != 0
        failures += _run("wice") != 0
        failures += _run("extraction", *quick) != 0
        failures += _run("pdftext") != 0
        failures += _run("passages", *quick) != 0
        failures += _run("web_sources", *quick) != 0
        failures += _run("adversarial", *quick) != 0
        failures += _run("grounding", *quick) != 0
        limit = ["--limit", "5"] if args.quick else []
        failures += _run("llamacpp", *homes, *limit) != 0
    print(f"\n{failures} benchmark(s) failed" if failures else "\nall benchmarks ran")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
