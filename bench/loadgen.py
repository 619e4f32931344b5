"""A loopback HTTP/1.1 load generator that runs in its own process, for the web benches.

A server measured by a client in its own interpreter shares the GIL, the event loop and the
cores with it; the figures then say as much about the client as about the server. So
`run_load` starts a fresh interpreter (multiprocessing, `spawn`) that opens `concurrency`
keep-alive connections and sends on each, one after another, the given requests round
robin (connection i starts at request i), for `warmup_s` unrecorded and then `duration_s`
recorded seconds. The client is raw asyncio streams: requests are prebuilt bytes, and a
response is read by its `Content-Length`, its chunks (`Transfer-Encoding: chunked`) or until
the server closes; a general-purpose client (httpx) costs several times the CPU per
request and would saturate before the server does. `client_cpu_pct` tells when it does
anyway (near 100: the client, not the server, set the pace).

A request is recorded when it was sent inside the recorded window; every recorded request
has one outcome: a status (2xx and 3xx are successes, any other status is an error counted
under its code) or a connection error (counted under its exception's name, after which the
connection is opened anew). Latencies are of responses, from the first byte written to the
last byte of the body read.

Run: `python -m bench.loadgen http://127.0.0.1:8000 --path / --path /health [--method GET]
[--header 'Accept: text/html'] [--body TEXT] [--levels 1 4 16 64] [--duration 5]
[--warmup 1] [--json]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from urllib.parse import urlsplit

# The largest response head (status line and headers) read; a longer one is an error.
HEAD_LIMIT = 1 << 20
NO_BODY_STATUSES = frozenset({204, 304})


@dataclass(frozen=True)
class Req:
    """One request of the cycle: `path` is appended to the base URL's path."""

    method: str
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""


@dataclass(frozen=True)
class LoadResult:
    """What one run at one concurrency measured (the recorded window only)."""

    concurrency: int
    duration_s: float  # from the window's start to the last recorded request's end
    requests: int  # recorded requests: responses of any status plus connection errors
    errors: dict[str, int] = field(default_factory=dict)  # "500": n, "TimeoutError": n
    throughput_rps: float = 0.0  # recorded requests per second
    p50_ms: float = math.nan  # of responses (any status); NaN when there was none
    p99_ms: float = math.nan
    max_ms: float = math.nan
    client_cpu_pct: float = 0.0  # the load process's CPU over the window's wall time

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


@dataclass(frozen=True)
class Response:
    """A response read off the wire: whether the connection may carry another request."""

    status: int
    body: bytes
    keep_alive: bool


# --------------------------------------------------------------------------- the wire


def encode_request(req: Req, host: str, prefix: str) -> bytes:
    """The request's bytes: request line, `Host`, the given headers, `Content-Length` when
    there is a body (or the method carries one), a blank line, the body."""
    lines = [f"{req.method} {prefix}{req.path} HTTP/1.1", f"Host: {host}"]
    named = {name.lower() for name, _ in req.headers}
    lines += [f"{name}: {value}" for name, value in req.headers]
    if "content-length" not in named and (req.body or req.method in ("POST", "PUT", "PATCH")):
        lines.append(f"Content-Length: {len(req.body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + req.body


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, str, dict[str, str]]:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *header_lines = head[:-4].decode("latin-1").split("\r\n")
    version, status, *_ = status_line.split(" ", 2)
    headers: dict[str, str] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        # Repeated headers are joined as RFC 9110 allows (only the framing ones are read).
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    return int(status), version, headers


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)  # chunk extensions are ignored
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailer fields, then the end
                pass
            return b"".join(parts)
        chunk = await reader.readexactly(size + 2)
        if chunk[-2:] != b"\r\n":
            raise ValueError("a chunk did not end with CRLF")
        parts.append(chunk[:-2])


async def read_response(reader: asyncio.StreamReader, method: str) -> Response:
    """Read one response to a `method` request; interim (1xx) responses are skipped."""
    status, version, headers = await _read_head(reader)
    while 100 <= status < 200 and status != 101:
        status, version, headers = await _read_head(reader)
    connection = headers.get("connection", "").lower()
    keep_alive = "close" not in connection and (version == "HTTP/1.1" or "keep-alive" in connection)
    if method == "HEAD" or status in NO_BODY_STATUSES or 100 <= status < 200:
        return Response(status, b"", keep_alive)
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return Response(status, await _read_chunked(reader), keep_alive)
    if "content-length" in headers:
        return Response(
            status, await reader.readexactly(int(headers["content-length"])), keep_alive
        )
    return Response(status, await reader.read(), False)  # the body ends where the stream does


# --------------------------------------------------------------------------- the load


@dataclass
class _Tally:
    latencies_ms: list[float] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    last_end: float = 0.0


async def _connection(
    index: int,
    target: tuple[str, int],
    wire: Sequence[tuple[str, bytes]],
    window: tuple[float, float],
    timeout_s: float,
    tally: _Tally,
) -> None:
    """One connection's loop: send the cycle's requests one at a time until the window ends."""
    start, end = window
    streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    n = index
    try:
        while (sent_at := time.perf_counter()) < end:
            method, data = wire[n % len(wire)]
            n += 1
            recorded = sent_at >= start
            try:
                async with asyncio.timeout(timeout_s):
                    if streams is None:
                        streams = await asyncio.open_connection(*target, limit=HEAD_LIMIT)
                        sent_at = time.perf_counter()
                    reader, writer = streams
                    writer.write(data)
                    await writer.drain()
                    response = await read_response(reader, method)
            except (OSError, EOFError, ValueError, TimeoutError, asyncio.LimitOverrunError) as e:
                if streams is not None:
                    streams[1].close()
                streams = None
                if recorded:
                    tally.outcomes[type(e).__name__] += 1
                    tally.last_end = time.perf_counter()
                await asyncio.sleep(0.01)  # a refused connect must not spin the loop
                continue
            done = time.perf_counter()
            if recorded:
                tally.latencies_ms.append((done - sent_at) * 1000.0)
                tally.outcomes[str(response.status)] += 1
                tally.last_end = done
            if not response.keep_alive:
                streams[1].close()
                streams = None
    finally:
        if streams is not None:
            streams[1].close()


def _percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending sequence (NaN when empty)."""
    if not ordered:
        return math.nan
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


async def _measure(
    base_url: str,
    requests: Sequence[Req],
    concurrency: int,
    duration_s: float,
    warmup_s: float,
    timeout_s: float,
) -> LoadResult:
    url = urlsplit(base_url)
    if url.scheme != "http" or url.hostname is None:
        raise ValueError(f"the load generator speaks plain http only, not {base_url!r}")
    target = (url.hostname, url.port or 80)
    prefix = url.path.rstrip("/")
    wire = [(r.method, encode_request(r, url.netloc, prefix)) for r in requests]
    tally = _Tally()
    start = time.perf_counter() + warmup_s
    window = (start, start + duration_s)
    workers = [
        asyncio.create_task(_connection(i, target, wire, window, timeout_s, tally))
        for i in range(concurrency)
    ]
    if warmup_s > 0:
        await asyncio.sleep(warmup_s)
    cpu0 = time.process_time()
    await asyncio.gather(*workers)
    cpu = time.process_time() - cpu0
    elapsed = max(tally.last_end - start, 1e-9)
    ordered = sorted(tally.latencies_ms)
    total = sum(tally.outcomes.values())
    errors = {
        k: v for k, v in sorted(tally.outcomes.items()) if not k.isdigit() or k[0] not in "23"
    }
    return LoadResult(
        concurrency=concurrency,
        duration_s=elapsed,
        requests=total,
        errors=errors,
        throughput_rps=total / elapsed if total else 0.0,
        p50_ms=_percentile(ordered, 0.50),
        p99_ms=_percentile(ordered, 0.99),
        max_ms=ordered[-1] if ordered else math.nan,
        client_cpu_pct=100.0 * cpu / max(time.perf_counter() - start, 1e-9),
    )


def _measure_here(
    base_url: str,
    requests: Sequence[Req],
    concurrency: int,
    duration_s: float,
    warmup_s: float,
    timeout_s: float,
) -> LoadResult:
    return asyncio.run(_measure(base_url, requests, concurrency, duration_s, warmup_s, timeout_s))


def run_load(
    base_url: str,
    requests: Sequence[Req],
    concurrency: int,
    duration_s: float,
    warmup_s: float = 1.0,
    *,
    timeout_s: float = 10.0,
) -> LoadResult:
    """Load `base_url` from a fresh process: `concurrency` keep-alive connections, each
    sending `requests` round robin, `warmup_s` unrecorded then `duration_s` recorded
    seconds. A request taking over `timeout_s` counts as a `TimeoutError`."""
    if not requests:
        raise ValueError("run_load needs at least one request")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
        job = pool.submit(
            _measure_here, base_url, tuple(requests), concurrency, duration_s, warmup_s, timeout_s
        )
        return job.result()


def sweep(
    base_url: str,
    requests: Sequence[Req],
    levels: Sequence[int] = (1, 4, 16, 64),
    duration_s: float = 5.0,
    warmup_s: float = 1.0,
) -> list[LoadResult]:
    """`run_load` at each concurrency level in turn, each in a fresh process."""
    return [run_load(base_url, requests, c, duration_s, warmup_s) for c in levels]


# --------------------------------------------------------------------------- printing


def _errors_cell(errors: dict[str, int]) -> str:
    return " ".join(f"{kind}×{n}" for kind, n in errors.items()) or "0"


def format_table(name: str, results: Sequence[LoadResult]) -> str:
    """A Markdown table (as `bench._util.print_table` prints) with one row per level."""
    lines = [
        f"### {name}",
        "| concurrency | requests | rps | p50 ms | p99 ms | max ms | errors | client CPU |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.concurrency} | {r.requests} | {r.throughput_rps:,.0f} | {r.p50_ms:.2f} "
        f"| {r.p99_ms:.2f} | {r.max_ms:.2f} | {_errors_cell(r.errors)} "
        f"| {r.client_cpu_pct:.0f}% |"
        for r in results
    ]
    return "\n".join(lines)


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"a header is 'Name: value', not {text!r}")
    return name.strip(), value.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url", help="e.g. http://127.0.0.1:8000")
    parser.add_argument("--path", action="append", help="a path to request (repeatable)")
    parser.add_argument("--method", default="GET")
    parser.add_argument("--header", action="append", type=_header, default=[])
    parser.add_argument("--body", default="", help="the request body, as UTF-8 text")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--duration", type=float, default=5.0, help="recorded seconds per level")
    parser.add_argument("--warmup", type=float, default=1.0, help="unrecorded seconds per level")
    parser.add_argument("--json", action="store_true", help="one JSON object per level instead")
    args = parser.parse_args()
    body = args.body.encode("utf-8")
    reqs = [Req(args.method, p, tuple(args.header), body) for p in args.path or ["/"]]
    results = sweep(args.base_url, reqs, args.levels, args.duration, args.warmup)
    if args.json:
        for r in results:
            print(json.dumps(asdict(r)))
    else:
        print(
            format_table(
                f"{args.method} {' '.join(args.path or ['/'])} on {args.base_url}", results
            )
        )
    return 1 if any(r.error_count for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
