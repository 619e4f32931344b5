"""A new user's first minutes: `make demo` on a fresh machine, timed from the outside.

Runs `make demo` (or, with `--serve`, `evidence-desk serve --sample sotu` on a free port) in
a temporary HOME, so the data directory and the embedding cache are new: the ONNX model is
built and every passage of the sample embedded, as on a machine that never ran the desk.
`--cache` reuses this machine's embedding cache (its model files and vectors) instead.
Polls the workspace and prints: the time to the first page served, the time to the sample
being ready (`/api/preparing`), and how good the time left it showed was: at each point,
the finish it predicted against the real one. Then stops the desk with SIGINT to its
process group, as Ctrl-C does, and checks it exits 0 with `Stopped.`.

`make demo` runs with its install step taken as done (`make -o .venv/.installed`): the
bench measures the desk, not pip. Run: `python -m bench.first_hour [--serve] [--cache]`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._util import load_average, print_table

ROOT = Path(__file__).resolve().parents[1]
MACHINE_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evidence-desk"
DEADLINE_SECONDS = 3600.0
MIN_JUDGED_SECONDS = 30.0  # a preparation shorter than this says nothing about time left


@dataclass(frozen=True)
class Sample:
    """One answer of `/api/preparing`, `at` seconds after the command started."""

    at: float
    body: dict[str, Any]


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def command(serve: bool, port: int) -> list[str]:
    if serve:
        exe = Path(sys.executable).with_name("evidence-desk")
        return [str(exe), "serve", "--sample", "sotu", "--port", str(port)]
    return ["make", "-o", ".venv/.installed", "demo"]


def environment(home: Path, cache: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVIDENCE_DESK_")}
    env.pop("XDG_CACHE_HOME", None)
    env["HOME"] = str(home)  # data dir ~/.evidence-desk, cache ~/.cache/evidence-desk
    if cache:
        env["EVIDENCE_DESK_CACHE_DIR"] = str(MACHINE_CACHE)
    return env


def fetch(url: str) -> tuple[int, bytes] | None:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except OSError:
        return None


def watch(
    child: subprocess.Popen[bytes], base: str, every: float, started: float
) -> tuple[float | None, list[Sample]]:
    """The first page's time, then `/api/preparing` every `every` s until ready or failed."""
    first_page: float | None = None
    samples: list[Sample] = []
    while time.monotonic() - started < DEADLINE_SECONDS:
        if child.poll() is not None:
            raise SystemExit(f"the desk exited with {child.returncode} before it was ready")
        if first_page is None:
            got = fetch(base + "/")
            if got is None or got[0] != 200:
                time.sleep(0.1)
                continue
            first_page = time.monotonic() - started
        got = fetch(base + "/api/preparing")
        if got is not None:
            samples.append(Sample(time.monotonic() - started, json.loads(got[1])))
            if samples[-1].body["ready"] or samples[-1].body["stage"] == "failed":
                break
        time.sleep(every)
    return first_page, samples


def run(serve: bool, cache: bool, every: float) -> dict[str, Any]:
    port = free_port() if serve else 8000
    with (
        tempfile.TemporaryDirectory(prefix="first-hour-") as tmp,
        open(Path(tmp) / "stderr.log", "w+", encoding="utf-8") as log,
    ):
        started = time.monotonic()
        child = subprocess.Popen(
            command(serve, port),
            cwd=ROOT,
            env=environment(Path(tmp), cache),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,  # its own process group: SIGINT reaches it as Ctrl-C does
        )
        try:
            first_page, samples = watch(child, f"http://127.0.0.1:{port}", every, started)
        finally:
            os.killpg(child.pid, signal.SIGINT)
            try:
                code = child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                code = child.wait()
        log.seek(0)
        stderr = log.read()
    return {"first_page": first_page, "samples": samples, "exit": code, "stderr": stderr}


def accuracy(samples: list[Sample]) -> list[list[object]]:
    """At a few points of the preparation: what the page said was left, against the truth."""
    ready = samples[-1].at
    with_eta = [s for s in samples if s.body["eta_seconds"] is not None and not s.body["ready"]]
    if not with_eta:
        return []
    first = with_eta[0]
    span = ready - first.at
    rows: list[list[object]] = []
    for label, fraction in (
        ("first estimate", 0.0),
        ("10% of the way", 0.1),
        ("25%", 0.25),
        ("50%", 0.5),
        ("75%", 0.75),
    ):
        at = first.at + fraction * span
        s = min(with_eta, key=lambda x: abs(x.at - at))
        said, truth = float(s.body["eta_seconds"]), ready - s.at
        error = (said - truth) / truth * 100 if truth > 0 else 0.0
        rows.append([label, round(s.at, 1), s.body["stage"], round(said), round(truth), error])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="Run the serve command, not make.")
    parser.add_argument(
        "--cache", action="store_true", help="Reuse this machine's embedding cache and model."
    )
    parser.add_argument("--every", type=float, default=1.0, help="Seconds between polls.")
    args = parser.parse_args()
    what = "evidence-desk serve --sample sotu" if args.serve else "make demo"
    cache = f"this machine's cache ({MACHINE_CACHE})" if args.cache else "a new, empty cache"
    print(f"{what} in a fresh HOME, {cache}; {cpu_model()}, {load_average()} at the start")
    result = run(args.serve, args.cache, args.every)
    samples: list[Sample] = result["samples"]
    if not samples:
        raise SystemExit("the desk never answered /api/preparing")
    last = samples[-1]
    stages: dict[str, float] = {}
    for s in samples:
        stages.setdefault(s.body["stage"], s.at)
    print_table(
        ["measure", "seconds"],
        [
            ["first page served", result["first_page"]],
            *[[f"stage {name} first seen", at] for name, at in stages.items()],
            ["sample ready" if last.body["ready"] else f"ended: {last.body['stage']}", last.at],
        ],
        title="Time from the command",
    )
    embedding = [s for s in samples if s.body["stage"] == "embedding"]
    if embedding:
        total = embedding[-1].body["total"]
        seconds = embedding[-1].at - embedding[0].at
        print(f"\n{total:,} passages embedded; embedding stage about {seconds:.0f} s")
    if last.at - samples[0].at < MIN_JUDGED_SECONDS:
        print(f"\nReady within {MIN_JUDGED_SECONDS:.0f} s: too short to judge the time left.")
    else:
        print_table(
            ["when", "at s", "stage", "time left said s", "time left real s", "error %"],
            accuracy(samples),
            title="Time left as shown, against the real finish",
        )
    lines = result["stderr"].rstrip().splitlines()
    clean = "Traceback" not in result["stderr"] and "Aborted" not in result["stderr"]
    code = result["exit"]
    how = f"exit {code}"
    if code == -signal.SIGINT and not args.serve:
        how = "make re-raised SIGINT after its child exited (as make does)"
    print(
        f"\nStopped with SIGINT to its process group: {how}; last line "
        f"{lines[-1] if lines else ''!r}, {'no traceback' if clean else 'A TRACEBACK'}; "
        f"{load_average()} at the end"
    )


if __name__ == "__main__":
    main()
