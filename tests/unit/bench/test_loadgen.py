"""The load generator against a server whose every request is counted: a stdlib
`ThreadingHTTPServer` on 127.0.0.1 (HTTP/1.1, keep-alive) with an endpoint per case.

What the generator reports must match what the server saw: as many requests, the 500s
counted as errors under their status, chunked and `Connection: close` responses read
without desynchronising the connection, and latencies ordered. The response reader is also
fed bytes directly, for framings the server does not send (trailers, chunk extensions, 204,
a body that ends with the stream).
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from bench.loadgen import (
    LoadResult,
    Req,
    encode_request,
    format_table,
    read_response,
    run_load,
    sweep,
)

CHUNKS = [b"first chunk,", b"x" * 5000, b" and the last"]


class _Counting(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless a response says otherwise
    seen: Counter[str]
    bodies: Counter[bytes]
    lock: threading.Lock

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _count(self) -> None:
        with self.lock:
            self.seen[f"{self.command} {self.path}"] += 1

    def _send(self, status: int, body: bytes, close: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._count()
        if self.path == "/ok":
            self._send(200, b"fine")
        elif self.path == "/fail":
            self._send(500, b"broken")
        elif self.path == "/moved":
            self._send(302, b"")
        elif self.path == "/close":
            self._send(200, b"bye", close=True)
        elif self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in CHUNKS:
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        else:
            self._send(404, b"")

    def do_POST(self) -> None:
        self._count()
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with self.lock:
            self.bodies[body] += 1
        self._send(201, body)


class Server:
    def __init__(self, httpd: ThreadingHTTPServer, handler: type[_Counting]) -> None:
        self.httpd = httpd
        self.handler = handler
        self.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"

    @property
    def seen(self) -> Counter[str]:
        return self.handler.seen

    def reset(self) -> None:
        self.handler.seen.clear()
        self.handler.bodies.clear()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    handler = type(
        "Handler", (_Counting,), {"seen": Counter(), "bodies": Counter(), "lock": threading.Lock()}
    )
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Server(httpd, handler)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def fresh(server: Server) -> Server:
    server.reset()
    return server


def test_every_request_the_server_saw_is_counted(fresh: Server) -> None:
    reqs = [Req("GET", "/ok"), Req("GET", "/moved")]
    result = run_load(fresh.base_url, reqs, concurrency=4, duration_s=0.5, warmup_s=0.0)
    assert result.requests > 20
    assert result.requests == sum(fresh.seen.values())
    assert result.errors == {}  # 2xx and 3xx are successes
    assert result.concurrency == 4
    # Round robin from a different start per connection: both paths about equally often.
    assert abs(fresh.seen["GET /ok"] - fresh.seen["GET /moved"]) <= 4


def test_a_500_is_an_error_counted_by_status(fresh: Server) -> None:
    reqs = [Req("GET", "/ok"), Req("GET", "/fail")]
    result = run_load(fresh.base_url, reqs, concurrency=2, duration_s=0.5, warmup_s=0.0)
    assert result.errors == {"500": fresh.seen["GET /fail"]}
    assert result.error_count == fresh.seen["GET /fail"] > 0
    assert result.requests == fresh.seen["GET /ok"] + fresh.seen["GET /fail"]


def test_chunked_and_closing_responses_keep_the_count(fresh: Server) -> None:
    reqs = [Req("GET", "/chunked"), Req("GET", "/close"), Req("GET", "/ok")]
    result = run_load(fresh.base_url, reqs, concurrency=3, duration_s=0.5, warmup_s=0.0)
    assert result.errors == {}
    assert result.requests == sum(fresh.seen.values())
    assert fresh.seen["GET /chunked"] > 0 and fresh.seen["GET /close"] > 0


def test_a_body_is_sent_with_its_length(fresh: Server) -> None:
    body = b'{"question": "what"}'
    req = Req("POST", "/ask", (("Content-Type", "application/json"),), body)
    result = run_load(fresh.base_url, [req], concurrency=2, duration_s=0.3, warmup_s=0.0)
    assert result.errors == {}
    assert fresh.handler.bodies == Counter({body: result.requests})


def test_warmup_requests_are_not_recorded(fresh: Server) -> None:
    result = run_load(fresh.base_url, [Req("GET", "/ok")], 1, duration_s=0.3, warmup_s=0.3)
    assert 0 < result.requests < sum(fresh.seen.values())


def test_latencies_are_ordered_and_throughput_consistent(fresh: Server) -> None:
    result = run_load(fresh.base_url, [Req("GET", "/ok")], 8, duration_s=0.5, warmup_s=0.1)
    assert 0 < result.p50_ms <= result.p99_ms <= result.max_ms
    assert result.throughput_rps == pytest.approx(result.requests / result.duration_s)


def test_a_refused_connection_is_an_error(fresh: Server) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
        result = run_load(url, [Req("GET", "/ok")], 1, duration_s=0.2, warmup_s=0.0)
    assert result.requests == result.error_count > 0
    assert set(result.errors) == {"ConnectionRefusedError"}


def test_sweep_runs_each_level_and_the_table_shows_them(fresh: Server) -> None:
    results = sweep(fresh.base_url, [Req("GET", "/ok")], levels=(1, 3), duration_s=0.2)
    assert [r.concurrency for r in results] == [1, 3]
    table = format_table("GET /ok", results)
    lines = table.splitlines()
    assert lines[0] == "### GET /ok"
    assert lines[1].startswith("| concurrency | requests | rps | p50 ms | p99 ms |")
    assert [line.split("|")[1].strip() for line in lines[3:]] == ["1", "3"]
    assert all(line.split("|")[7].strip() == "0" for line in lines[3:])


def test_the_table_names_errors_by_kind() -> None:
    result = LoadResult(4, 1.0, 10, {"500": 3, "TimeoutError": 1}, 10.0, 1.0, 2.0, 3.0)
    assert "| 500×3 TimeoutError×1 |" in format_table("x", [result])


def test_only_plain_http_and_at_least_one_request() -> None:
    with pytest.raises(ValueError, match="at least one request"):
        run_load("http://127.0.0.1:1", [], 1, 0.1)
    with pytest.raises(ValueError, match="plain http only"):  # raised in the load process
        run_load("https://127.0.0.1:1", [Req("GET", "/")], 1, 0.1)


# --------------------------------------------------------------------------- the reader


def _read(raw: bytes, method: str = "GET") -> tuple[int, bytes, bool, bytes]:
    """The response read from `raw`, and what is left on the stream after it."""

    async def go() -> tuple[int, bytes, bool, bytes]:
        reader = asyncio.StreamReader()
        reader.feed_data(raw)
        reader.feed_eof()
        response = await read_response(reader, method)
        return response.status, response.body, response.keep_alive, await reader.read()

    return asyncio.run(go())


def test_chunked_with_extensions_and_trailers() -> None:
    raw = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;name=value\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT"
    )
    assert _read(raw) == (200, b"hello world", True, b"NEXT")


def test_content_length_leaves_the_next_response() -> None:
    raw = b"HTTP/1.1 404 Not Found\r\ncontent-length: 3\r\n\r\nabcHTTP/1.1"
    assert _read(raw) == (404, b"abc", True, b"HTTP/1.1")


def test_interim_no_body_and_until_close() -> None:
    assert _read(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n") == (
        204,
        b"",
        True,
        b"",
    )
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"
    assert _read(head, method="HEAD") == (200, b"", True, b"")
    assert _read(b"HTTP/1.0 200 OK\r\n\r\nall of it") == (200, b"all of it", False, b"")
    closing = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
    assert _read(closing) == (200, b"ok", False, b"")


def test_a_broken_chunk_is_an_error() -> None:
    with pytest.raises(ValueError):
        _read(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n")


def test_request_bytes() -> None:
    req = Req("POST", "/ask", (("Accept", "text/html"),), b"hi")
    assert encode_request(req, "127.0.0.1:8000", "/api") == (
        b"POST /api/ask HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nAccept: text/html\r\n"
        b"Content-Length: 2\r\n\r\nhi"
    )
    assert encode_request(Req("GET", "/"), "h", "") == b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"
