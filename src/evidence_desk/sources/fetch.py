"""Fetching one page from the web, safely: the only way the desk reads a URL.

`Fetcher.fetch(url)` returns the page's bytes (a `Page`) or raises `FetchRefused` with one
sentence. The URL is checked by `netguard.parse_target` first; its name is then resolved
once (`Resolver`) and every address it got must pass `netguard.check_addresses`; the
connection goes to a checked address (`Connector`), never through a second lookup, with
the Host header and TLS server name of the original host. A redirect is followed by hand,
at most `max_redirects` times, each hop parsed, resolved and checked again. Nothing here
reads proxy settings from the environment (`http.client` never does).

The download is bounded: at most `max_bytes` on the wire and at most `max_bytes` after
decoding, at most one content encoding (gzip or deflate), a connect timeout, a timeout per
read and a deadline for the whole fetch (redirects included). Only HTML, plain text and PDF
are accepted, by the server's Content-Type. The body is never interpreted here: reading it
is `reading.py`'s job, in a separate process.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import http.client
import ipaddress
import socket
import ssl
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol
from urllib.parse import urljoin

from ..clock import Clock, iso_us, system_clock
from .netguard import (
    ALLOWED_PORTS,
    DEFAULT_PORTS,
    FetchRefused,
    IPAddress,
    Target,
    check_addresses,
    parse_target,
)

PageKind = Literal["html", "text", "pdf"]
CONTENT_TYPES: dict[str, PageKind] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/plain": "text",
    "application/pdf": "pdf",
}
REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "EvidenceDesk/0.1 (reads pages to quote them; one request per page)"
_CHUNK = 64 * 1024


class Resolver(Protocol):
    """Turns a host name into the addresses to check and connect to."""

    def resolve(self, host: str, port: int, timeout: float) -> list[IPAddress]: ...


class Connector(Protocol):
    """Opens a TCP connection to an address the guard has already checked."""

    def connect(self, address: IPAddress, port: int, timeout: float) -> socket.socket: ...


_LOOKUPS = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="resolve")


class SystemResolver:
    """The C library's resolver, bounded by a timeout (getaddrinfo itself has none)."""

    def resolve(self, host: str, port: int, timeout: float) -> list[IPAddress]:
        future = _LOOKUPS.submit(
            socket.getaddrinfo, host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
        try:
            infos = future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            raise LookupError(
                f"the name {host} did not resolve within {timeout:g} seconds"
            ) from None
        except socket.gaierror:
            raise LookupError(f"the name {host} does not resolve") from None
        found = (ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos)
        return list(dict.fromkeys(found))


class DirectConnector:
    """A plain TCP connection to the address itself: no lookup happens here."""

    def connect(self, address: IPAddress, port: int, timeout: float) -> socket.socket:
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect((str(address), port))
        except BaseException:
            sock.close()
            raise
        return sock


@dataclass(frozen=True)
class FetchPolicy:
    """How far a fetch may go. `allow_loopback` is for tests and local fixtures only."""

    max_bytes: int = 3_000_000
    max_redirects: int = 3
    connect_seconds: float = 5.0
    read_seconds: float = 10.0
    total_seconds: float = 20.0
    ports: tuple[int, ...] = ALLOWED_PORTS
    allow_loopback: bool = False
    user_agent: str = USER_AGENT


@dataclass(frozen=True)
class Hop:
    """One request of a fetch: the URL asked, the address connected to, the answer."""

    url: str
    address: str
    status: int
    location: str | None = None


@dataclass(frozen=True)
class Page:
    """What a fetch brought back, before anything reads it."""

    url: str  # as asked
    final_url: str  # after redirects
    kind: PageKind
    content_type: str  # the media type, lower case, without parameters
    charset: str | None
    body: bytes  # after the content encoding is undone
    sha256: str  # of `body`
    retrieved_at: str
    hops: tuple[Hop, ...]
    content_encoding: str | None = None
    wire_bytes: int = 0

    @property
    def content_type_header(self) -> str:
        """The media type with its charset, as the reader takes it."""
        return self.content_type + (f"; charset={self.charset}" if self.charset else "")


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to one checked address, speaking as the original host."""

    def __init__(
        self,
        target: Target,
        address: IPAddress,
        connector: Connector,
        policy: FetchPolicy,
        tls: ssl.SSLContext | None,
    ) -> None:
        super().__init__(target.host, target.port, timeout=policy.connect_seconds)
        self.default_port = DEFAULT_PORTS[target.scheme]  # the Host header omits it
        self._target = target
        self._address = address
        self._connector = connector
        self._policy = policy
        self._tls = tls

    def connect(self) -> None:
        sock = self._connector.connect(self._address, self.port, self._policy.connect_seconds)
        sock.settimeout(self._policy.read_seconds)
        if self._target.scheme == "https":
            context = self._tls or ssl.create_default_context()
            sock = context.wrap_socket(sock, server_hostname=self._target.host)
        self.sock = sock


@dataclass
class _Inflater:
    """Undoes one content encoding, refusing output past `limit` bytes as it goes (a
    small gzip bomb is caught before it expands)."""

    encoding: str
    limit: int
    total: int = 0
    _d: zlib._Decompress | None = field(default=None, repr=False)

    def _new(self, head: bytes) -> zlib._Decompress:
        if self.encoding in ("gzip", "x-gzip"):
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        # deflate is meant to be zlib-wrapped; some servers send it raw.
        wrapped = len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        while data:
            if self._d is None:
                self._d = self._new(data)
            chunk = self._d.decompress(data, self.limit - self.total + 1)
            out += chunk
            self.total += len(chunk)
            if self.total > self.limit:
                raise OverflowError
            data = self._d.unconsumed_tail
            if not data and self._d.eof and self._d.unused_data:
                data, self._d = self._d.unused_data, None  # the next gzip member
        return bytes(out)

    def finish(self) -> None:
        if self._d is not None and not self._d.eof:
            raise zlib.error("the compressed body ends early")


class Fetcher:
    """Fetches pages under one `FetchPolicy`, through the guard (see the module docstring)."""

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        resolver: Resolver | None = None,
        connector: Connector | None = None,
        tls: ssl.SSLContext | None = None,
        clock: Clock = system_clock,
    ) -> None:
        """`tls`: the context HTTPS connections verify with (default: the system's)."""
        self.policy = policy or FetchPolicy()
        self.resolver = resolver or SystemResolver()
        self.connector = connector or DirectConnector()
        self.tls = tls
        self.clock = clock

    def check(self, url: str) -> Target:
        """The target `url` names if the guard lets it through (no name is resolved)."""
        p = self.policy
        return parse_target(url, ports=p.ports, allow_loopback=p.allow_loopback)

    def fetch(self, url: str) -> Page:
        """The page at `url`, or `FetchRefused` with the one-sentence reason."""
        deadline = time.monotonic() + self.policy.total_seconds
        hops: list[Hop] = []
        current = url
        while True:
            target = self.check(current)
            addresses = self._addresses(target, deadline)
            answer = self._exchange(url, target, addresses, deadline)
            hops.append(Hop(target.url, answer.address, answer.status, answer.location))
            if answer.location is None:
                return self._page(url, target, answer, hops)
            if len(hops) > self.policy.max_redirects:
                n = self.policy.max_redirects
                raise FetchRefused(url, f"it redirects more than {n} times.")
            current = urljoin(target.url, answer.location)

    def _addresses(self, target: Target, deadline: float) -> list[IPAddress]:
        if target.address is not None:
            return [target.address]
        try:
            found = self.resolver.resolve(target.host, target.port, _left(deadline))
        except LookupError as exc:
            raise FetchRefused(target.url, f"{exc}.") from None
        check_addresses(target.url, found, allow_loopback=self.policy.allow_loopback)
        return found

    def _exchange(
        self, url: str, target: Target, addresses: Sequence[IPAddress], deadline: float
    ) -> _Answer:
        last: OSError | None = None
        for address in addresses:
            conn = _PinnedConnection(target, address, self.connector, self.policy, self.tls)
            try:
                conn.connect()
            except ssl.SSLError:
                conn.close()
                raise FetchRefused(
                    url, f"the TLS certificate of {target.host} could not be verified."
                ) from None
            except OSError as exc:
                conn.close()
                last = exc
                continue
            try:
                return self._answer(url, conn, target, address, deadline)
            finally:
                conn.close()
        raise FetchRefused(url, _connect_reason(target, last))

    def _answer(
        self,
        url: str,
        conn: _PinnedConnection,
        target: Target,
        address: IPAddress,
        deadline: float,
    ) -> _Answer:
        headers = {
            "User-Agent": self.policy.user_agent,
            "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8",
            "Accept-Encoding": "gzip, deflate",
            "Connection": "close",
        }
        try:
            conn.request("GET", target.request_path, headers=headers)
            response = conn.getresponse()
            if response.status in REDIRECTS:
                location = response.getheader("Location")
                if not location:
                    raise FetchRefused(url, f"{target.url} redirects without saying where to.")
                return _Answer(str(address), response.status, location.strip(), response)
            if response.status != 200:
                reason = f"{target.url} answered {response.status} {response.reason}".rstrip()
                raise FetchRefused(url, f"{reason}.")
            body, wire, encoding = self._body(url, conn, response, deadline)
        except TimeoutError:
            raise FetchRefused(
                url, f"{target.host} did not answer within {self.policy.read_seconds:g} seconds."
            ) from None
        except http.client.HTTPException:
            raise FetchRefused(url, f"{target.host} did not answer with valid HTTP.") from None
        except OSError as exc:
            raise FetchRefused(url, f"the connection to {target.host} failed ({exc}).") from None
        return _Answer(str(address), 200, None, response, body, wire, encoding)

    def _body(
        self,
        url: str,
        conn: _PinnedConnection,
        response: http.client.HTTPResponse,
        deadline: float,
    ) -> tuple[bytes, int, str | None]:
        limit = self.policy.max_bytes
        _content_type(url, response)  # refuse before reading a byte of the body
        length = response.getheader("Content-Length")
        if length and length.strip().isdigit() and int(length) > limit:
            raise FetchRefused(url, f"the page is larger than {_mb(limit)}.")
        encoding = _encoding(url, response.getheader("Content-Encoding"))
        inflater = _Inflater(encoding, limit) if encoding else None
        out = bytearray()
        wire = 0
        while True:
            left = _left(deadline)
            if left <= 0:
                total = self.policy.total_seconds
                raise FetchRefused(url, f"the download took longer than {total:g} seconds.")
            if conn.sock is not None:
                conn.sock.settimeout(min(self.policy.read_seconds, left))
            chunk = response.read1(_CHUNK)
            if not chunk:
                break
            wire += len(chunk)
            if wire > limit:
                raise FetchRefused(url, f"the page is larger than {_mb(limit)}.")
            try:
                out += inflater.feed(chunk) if inflater else chunk
            except OverflowError:
                raise FetchRefused(
                    url, f"the page decompresses to more than {_mb(limit)}."
                ) from None
            except zlib.error:
                raise FetchRefused(url, f"its {encoding} body is corrupt.") from None
        if inflater is not None:
            try:
                inflater.finish()
            except zlib.error:
                raise FetchRefused(url, f"its {encoding} body is cut short.") from None
        return bytes(out), wire, encoding

    def _page(self, url: str, target: Target, answer: _Answer, hops: list[Hop]) -> Page:
        media, kind, charset = _content_type(url, answer.response)
        return Page(
            url=url,
            final_url=target.url,
            kind=kind,
            content_type=media,
            charset=charset,
            body=answer.body,
            sha256=hashlib.sha256(answer.body).hexdigest(),
            retrieved_at=iso_us(self.clock()),
            hops=tuple(hops),
            content_encoding=answer.encoding,
            wire_bytes=answer.wire,
        )


@dataclass
class _Answer:
    address: str
    status: int
    location: str | None
    response: http.client.HTTPResponse
    body: bytes = b""
    wire: int = 0
    encoding: str | None = None


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


def _mb(n: int) -> str:
    return f"{n / 1_000_000:g} MB"


def _content_type(url: str, response: http.client.HTTPResponse) -> tuple[str, PageKind, str | None]:
    raw = response.getheader("Content-Type")
    if not raw:
        raise FetchRefused(url, "the server did not say what type of content it sent.")
    media = raw.split(";")[0].strip().lower()
    kind = CONTENT_TYPES.get(media)
    if kind is None:
        raise FetchRefused(
            url, f"it is {media or 'an unnamed type'}; only HTML, plain text and PDF are read."
        )
    charset = response.headers.get_content_charset()
    return media, kind, charset


def _encoding(url: str, header: str | None) -> str | None:
    codings = [c.strip().lower() for c in (header or "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if len(codings) > 1:
        raise FetchRefused(url, f"it is compressed more than once ({', '.join(codings)}).")
    if codings and codings[0] not in ("gzip", "x-gzip", "deflate"):
        raise FetchRefused(
            url, f"it is compressed with {codings[0]}, which the desk does not read."
        )
    return codings[0] if codings else None


def _connect_reason(target: Target, error: OSError | None) -> str:
    if isinstance(error, TimeoutError):
        return f"{target.host} did not accept a connection in time."
    if isinstance(error, ConnectionRefusedError):
        return f"{target.host} refused the connection."
    return f"could not connect to {target.host} ({error})."
