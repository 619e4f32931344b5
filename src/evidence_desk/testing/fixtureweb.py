"""A small web on 127.0.0.1 for the tests of web sources: pages, redirects, PDFs, hostile
answers, and a count of every connection it accepted.

`FixtureWeb` is a real HTTP/1.1 server (`ThreadingHTTPServer`) in a thread of the test
process. Each path answers with a `Reply` (status, headers, body, an optional delay between
body chunks) or a function of the request that returns one. Every accepted connection and
every request is recorded (`connections`, `requests`), so a test can prove that a refused
URL never reached it.

`PublicNetwork` stands in for the internet in tests that need "public" names: a resolver
that answers names with global addresses the test chooses, and a connector that dials this
web on loopback whichever global address the guard connected to, so the guard judges real
public addresses while no packet leaves the machine.
"""

from __future__ import annotations

import gzip
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class Reply:
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunk_delay: float = 0.0  # seconds between 1 KiB chunks of the body (a slow server)
    send_length: bool = True


@dataclass(frozen=True)
class Request:
    path: str
    host: str | None
    headers: Mapping[str, str]


Route = Reply | Callable[[Request], Reply]


def html(body: str, *, status: int = 200, charset: str = "utf-8") -> Reply:
    return Reply(status, {"Content-Type": f"text/html; charset={charset}"}, body.encode(charset))


def redirect(location: str, status: int = 302) -> Reply:
    return Reply(status, {"Location": location, "Content-Type": "text/plain"}, b"moved")


def gzipped(data: bytes, *, times: int = 1, content_type: str = "text/html") -> Reply:
    """`data` gzip-compressed `times` times, with a Content-Encoding naming each pass."""
    for _ in range(times):
        data = gzip.compress(data, compresslevel=9)
    encoding = ", ".join(["gzip"] * times)
    return Reply(200, {"Content-Type": content_type, "Content-Encoding": encoding}, data)


def article(title: str, paragraphs: list[str], *, date: str = "", author: str = "") -> Reply:
    """A news-like page with its metadata in the markup."""
    meta = f'<meta name="author" content="{author}">' if author else ""
    if date:
        meta += f'<meta property="article:published_time" content="{date}">'
    paras = "".join(f"<p>{p}</p>" for p in paragraphs)
    return html(
        f"<!doctype html><html><head><title>{title}</title>{meta}</head><body>"
        f"<nav><a href='/'>Home</a></nav><article><h1>{title}</h1>{paras}</article>"
        "<footer>Fixture web</footer></body></html>"
    )


class FixtureWeb:
    """A web of fixed routes on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self, routes: Mapping[str, Route] | None = None, *, tls: ssl.SSLContext | None = None
    ) -> None:
        """`tls`: a server context to speak HTTPS with (`tls_pair`), else plain HTTP."""
        self.routes: dict[str, Route] = dict(routes or {})
        self.tls = tls
        self.requests: list[Request] = []
        self.connections = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fixture web is not running")
        return int(self._server.server_address[1])

    def url(self, path: str = "/") -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def start(self) -> FixtureWeb:
        web = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                request = Request(self.path, self.headers.get("Host"), dict(self.headers))
                with web._lock:
                    web.requests.append(request)
                route = web.routes.get(urlsplit(self.path).path)
                reply = Reply(404, {"Content-Type": "text/plain"}, b"not found")
                if route is not None:
                    reply = route(request) if callable(route) else route
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.send_length:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    if not reply.chunk_delay:
                        self.wfile.write(reply.body)
                        return
                    for i in range(0, len(reply.body), 1024):
                        self.wfile.write(reply.body[i : i + 1024])
                        self.wfile.flush()
                        time.sleep(reply.chunk_delay)
                except OSError:
                    pass  # the client gave up (as a bounded fetch should)
                self.close_connection = True

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def get_request(self) -> tuple[socket.socket, object]:
                conn = super().get_request()
                with web._lock:
                    web.connections += 1
                return conn

        self._server = Server(("127.0.0.1", 0), Handler)
        if self.tls is not None:
            self._server.socket = self.tls.wrap_socket(self._server.socket, server_side=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


@contextmanager
def fixture_web(
    routes: Mapping[str, Route] | None = None, *, tls: ssl.SSLContext | None = None
) -> Iterator[FixtureWeb]:
    web = FixtureWeb(routes, tls=tls).start()
    try:
        yield web
    finally:
        web.stop()


def tls_pair(host: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context, client context) for HTTPS as `host`: a throwaway certificate
    authority the client trusts, and a certificate for `host` it signed."""
    import datetime as dt
    import tempfile

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.UTC)

    def cert(
        subject: str,
        key: ec.EllipticCurvePrivateKey,
        issuer: str,
        signer: ec.EllipticCurvePrivateKey,
        ca: bool,
    ) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = cert("Fixture web CA", ca_key, "Fixture web CA", ca_key, True)
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = cert(host, key, "Fixture web CA", ca_key, False)
    pem = serialization.Encoding.PEM
    with tempfile.TemporaryDirectory() as tmp:
        chain, key_file = Path(tmp) / "chain.pem", Path(tmp) / "key.pem"
        chain.write_bytes(leaf.public_bytes(pem))
        key_file.write_bytes(
            key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        )
        server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server.load_cert_chain(chain, key_file)
    client = ssl.create_default_context(cadata=ca_cert.public_bytes(pem).decode("ascii"))
    return server, client


class PublicNetwork:
    """A resolver and a connector that make `web` look like public hosts (see the module
    docstring). `names` maps a host name to the addresses DNS "answers"; a name may answer
    differently on each lookup (a list of answers, one per lookup, the last repeating)."""

    def __init__(self, web: FixtureWeb, names: Mapping[str, list[list[str]]]) -> None:
        self.web = web
        self.names = {
            k: [[ipaddress.ip_address(a) for a in answer] for answer in v] for k, v in names.items()
        }
        self.lookups: list[str] = []
        self.dialled: list[tuple[str, int]] = []

    def resolve(self, host: str, port: int, timeout: float) -> list[IPAddress]:
        self.lookups.append(host)
        answers = self.names.get(host)
        if not answers:
            raise LookupError(f"the name {host} does not resolve")
        nth = sum(1 for h in self.lookups if h == host) - 1
        return list(answers[min(nth, len(answers) - 1)])

    def connect(self, address: IPAddress, port: int, timeout: float) -> socket.socket:
        self.dialled.append((str(address), port))
        return socket.create_connection(("127.0.0.1", self.web.port), timeout)
