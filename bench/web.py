"""The web app under load on loopback: published-answer reads, widget asks, the first event.

The server is started the way an operator starts it (`evidence-desk serve`, its own
process, uvicorn with httptools and uvloop, JSON request logs on), over a data dir holding
the sample archive. A reader session asks a few questions the sample answers; then
`bench.loadgen` (a separate process) sends, at increasing concurrency:

* `GET /healthz`: the cheapest route through the same stack, the named baseline;
* `GET /api/runs/{id}`: published-answer reads (the reader's session, cycling over their
  published runs): the issue's bar is at least 500 requests/s with p99 at most 50 ms and no
  errors;
* `GET /runs/{id}`: the same answers as the server-rendered page;
* `POST /widget/api/ask`: widget asks (each opens a run; the executor runs two at once, the
  rest queue), for a shorter time, last, so the runs they queue do not load the reads.

Then, with the server idle, the time from sending `POST /api/ask` to receiving the run's
first `stage_started` server-sent event, twenty times: the bar is 300 ms (offline engine,
warm). Printed: a table per route (concurrency, requests/s, p50, p99, max, errors, client
CPU), each route's best throughput as a ratio to the baseline's, and the event latency's
median and p99.

Run: `python -m bench.web [--home DIR] [--levels 1 4 16 64] [--duration 5] [--port 8765]`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ._util import load_average, median, sample_home
from .loadgen import LoadResult, Req, format_table, sweep

QUESTIONS = (
    "What did Franklin D. Roosevelt say about freedom of speech in 1941?",
    "What did Kennedy say about the moon?",
    "What did Lincoln say about emancipation in 1862?",
    "What did Washington recommend about a national university?",
)
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
WIDGET_TOKEN = re.compile(r'data-widget-token="([^"]+)"')


def start_server(home: Path, port: int) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "evidence_desk", "--data-dir", str(home), "serve"]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            status, _, _ = request(port, "GET", "/healthz")
            if status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not start within 120 s")


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


class Reader:
    """One reader session: its cookie and CSRF token."""

    def __init__(self, port: int) -> None:
        self.port = port
        status, headers, body = request(port, "GET", "/")
        assert status == 200, status
        self.cookie = headers["set-cookie"].split(";", 1)[0]
        found = CSRF.search(body.decode())
        assert found, "no CSRF token on the workspace page"
        self.csrf = found.group(1)

    def headers(self) -> dict[str, str]:
        return {
            "cookie": self.cookie,
            "x-csrf-token": self.csrf,
            "content-type": "application/json",
        }

    def ask(self, question: str) -> str:
        body = json.dumps({"question": question}).encode()
        status, _, out = request(self.port, "POST", "/api/ask", body, self.headers())
        assert status == 202, (status, out)
        run_id: str = json.loads(out)["run_id"]
        return run_id

    def wait(self, run_id: str) -> dict[str, object]:
        while True:
            _, _, out = request(self.port, "GET", f"/api/runs/{run_id}", None, self.headers())
            run: dict[str, object] = json.loads(out)
            if run["state"] not in ("queued", "running"):
                return run
            time.sleep(0.05)


def first_event_ms(reader: Reader, rounds: int) -> list[float]:
    """Milliseconds from sending the ask to reading the first `stage_started` event."""
    out = []
    for i in range(rounds):
        t0 = time.perf_counter()
        run_id = reader.ask(QUESTIONS[i % len(QUESTIONS)])
        conn = http.client.HTTPConnection("127.0.0.1", reader.port, timeout=60)
        conn.request("GET", f"/runs/{run_id}/events", headers={"cookie": reader.cookie})
        r = conn.getresponse()
        while True:
            line = r.fp.readline()
            if not line:
                raise RuntimeError(f"the event stream of {run_id} ended before a stage started")
            if line.startswith(b"event: stage_started"):
                out.append((time.perf_counter() - t0) * 1000)
                break
        conn.close()
        reader.wait(run_id)
    return out


def widget_requests(port: int) -> list[Req] | None:
    status, _, body = request(port, "GET", "/widget")
    found = WIDGET_TOKEN.search(body.decode()) if status == 200 else None
    if found is None:
        return None
    headers = (("x-widget-token", found.group(1)), ("content-type", "application/json"))
    ask = json.dumps({"question": QUESTIONS[0]}).encode()
    return [Req("POST", "/widget/api/ask", headers, ask)]


def best(results: Sequence[LoadResult]) -> LoadResult:
    return max(results, key=lambda r: r.throughput_rps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--events", type=int, default=20)
    args = parser.parse_args()
    with sample_home(args.home) as home:
        proc = start_server(home, args.port)
        try:
            return run(args, proc)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def run(args: argparse.Namespace, proc: subprocess.Popen[bytes]) -> int:
    port, levels = args.port, tuple(args.levels)
    base = f"http://127.0.0.1:{port}"
    print(f"load average before: {load_average()}, cpus {os.cpu_count()}")
    reader = Reader(port)
    published = []
    for q in QUESTIONS:
        run_id = reader.ask(q)
        if reader.wait(run_id)["state"] == "published":
            published.append(run_id)
    assert published, "the sample archive published none of the bench questions"
    cookie = (("cookie", reader.cookie),)
    routes: list[tuple[str, list[Req]]] = [
        ("GET /healthz (baseline)", [Req("GET", "/healthz")]),
        (
            "GET /api/runs/{id} (published-answer reads)",
            [Req("GET", f"/api/runs/{r}", cookie) for r in published],
        ),
        ("GET /runs/{id} (answer page)", [Req("GET", f"/runs/{r}", cookie) for r in published]),
    ]
    tables: dict[str, list[LoadResult]] = {}
    for name, reqs in routes:
        tables[name] = sweep(base, reqs, levels=levels, duration_s=args.duration)
        print(format_table(name, tables[name]))
    events = first_event_ms(reader, args.events)
    widget = widget_requests(port)
    if widget is None:
        print("\nwidget asks: skipped (the server has no /widget frame with a token)")
    else:
        name = "POST /widget/api/ask (widget asks)"
        tables[name] = sweep(base, widget, levels=levels[:3], duration_s=min(args.duration, 2.0))
        print(format_table(name, tables[name]))
    baseline = best(tables["GET /healthz (baseline)"]).throughput_rps
    print(
        "\n| route | best requests/s | at concurrency | p99 ms there | errors | ratio to baseline |"
    )
    print("|---|---|---|---|---|---|")
    for name, results in tables.items():
        top = best(results)
        errors = sum(r.error_count for r in results)
        ratio = top.throughput_rps / baseline if baseline else float("nan")
        cells = [f"{top.throughput_rps:.0f}", str(top.concurrency), f"{top.p99_ms:.1f}"]
        print(f"| {name} | {' | '.join(cells)} | {errors} | {ratio:.2f} |")
    ordered = sorted(events)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(
        f"\nfirst stage event after asking ({len(events)} asks, idle server): "
        f"median {median(events):.1f} ms, p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms (bar 300 ms)"
    )
    print(f"load average after: {load_average()}")
    reads = tables["GET /api/runs/{id} (published-answer reads)"]
    ok = any(r.throughput_rps >= 500 and r.p99_ms <= 50 for r in reads) and not any(
        r.error_count for r in reads
    )
    verdict = "met" if ok else "NOT met"
    print(f"published-answer reads bar (>= 500 requests/s, p99 <= 50 ms, 0 errors): {verdict}")
    return 0 if proc.poll() is None else 1


if __name__ == "__main__":
    sys.exit(main())
