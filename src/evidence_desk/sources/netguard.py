"""Which URLs and which addresses the desk may fetch: the SSRF guard, pure and in one place.

A URL from the web, a search result or a model is hostile input. Before any connection is
attempted, `parse_target` turns it into a `Target` or refuses it with one sentence, and
`check_addresses` refuses any address that is not on the public internet. The fetcher
(`fetch.py`) resolves a target's name once, checks every address it got here, and connects
only to a checked address; every redirect comes back through both functions.

Invariants:
- Only http and https, no userinfo, no control characters, spaces, backslashes or
  percent signs in the host (a percent-encoded host would be decoded differently by
  different parsers), at most 2,048 characters, and a port from the allowlist.
- A host is written one way: non-ASCII names are NFKC-normalised and IDNA-encoded (a
  full-width `１２７.０.０.１` becomes `127.0.0.1`), one trailing dot is dropped, and any host
  whose last label is a number is read as an IPv4 address in every legacy spelling the C
  library accepts (`127.1`, `2130706433`, `0177.0.0.1`, `0x7f000001`), so there is no
  spelling of an address that slips past as a "name".
- An address is allowed only when, after unwrapping every IPv6 form that carries an IPv4
  address (IPv4-mapped, IPv4-compatible, 6to4, Teredo, NAT64), it and the address it
  carries are global unicast: loopback, private, shared (100.64/10), benchmarking
  (198.18/15), link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254 included),
  multicast, reserved and unspecified addresses are refused. `allow_loopback` (a setting
  for tests and local fixtures, off by default) lets loopback alone through.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

from ..errors import DeskError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_CHARS = 2048
DEFAULT_PORTS = {"http": 80, "https": 443}
ALLOWED_PORTS: tuple[int, ...] = (80, 443, 8080, 8443)

# Names that mean this machine or its private network whatever DNS says (RFC 6761, 8375,
# and the names cloud providers resolve to their metadata service).
_LOCAL_NAMES = ("localhost", "localhost.localdomain", "metadata.google.internal")
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa", ".localdomain")

# Not global, whatever `ipaddress.is_global` says for them in this Python.
_BLOCKED_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "100.64.0.0/10",
        "192.0.0.0/24",
        "198.18.0.0/15",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "64:ff9b:1::/48",  # local-use NAT64
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
        "100::/64",
        "2001:db8::/32",
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_CONTROL = re.compile(r"[\x00-\x20\x7f-\x9f\\]")
_URL_SAFE = "/%:@!$&'()*+,;=-._~"
_NUMBER = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)$", re.IGNORECASE)


class FetchRefused(DeskError):
    """A URL or an address the desk will not fetch; the message is one sentence."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"Refused to fetch {shown_url(url)}: {reason}")
        self.url = url
        self.reason = reason


def shown_url(url: str) -> str:
    """The URL as an error may print it: control characters escaped, at most 200 chars."""
    escaped = url.encode("unicode_escape", "backslashreplace").decode("ascii")
    return escaped if len(escaped) <= 200 else escaped[:199] + "…"


@dataclass(frozen=True)
class Target:
    """A URL the guard accepted: how to reach it and how to ask for it."""

    url: str  # the URL as it will be requested, host normalised
    scheme: str
    host: str  # ASCII host: a name, an IPv4 address, or an IPv6 address without brackets
    port: int
    request_path: str  # path and query, never empty
    address: IPAddress | None  # set when the host is an address literal


def netloc_of(scheme: str, host: str, port: int) -> str:
    """`host[:port]` as a URL writes it (IPv6 in brackets, the default port left out)."""
    shown = f"[{host}]" if ":" in host else host
    return shown if port == DEFAULT_PORTS[scheme] else f"{shown}:{port}"


def _legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """`host` as inet_aton reads it (1 to 4 parts, each decimal, octal or hex), or None
    when its last label is not a number (then it is a name). Raises ValueError when it is
    numeric but no valid address (WHATWG: such a host is invalid, not a name)."""
    labels = host.split(".")
    if not _NUMBER.match(labels[-1]):
        return None
    if len(labels) > 4 or not all(_NUMBER.match(label) for label in labels):
        raise ValueError("not a valid IPv4 address")
    numbers = []
    for label in labels:
        if label[:2].lower() == "0x":
            numbers.append(int(label[2:] or "0", 16))
        elif len(label) > 1 and label.startswith("0"):
            if not set(label) <= set("01234567"):
                raise ValueError("not a valid octal number")
            numbers.append(int(label, 8))
        else:
            numbers.append(int(label))
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        raise ValueError("a part is out of range")
    value = last
    for i, n in enumerate(head):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def _ascii_host(raw: str, url: str) -> str:
    host = unicodedata.normalize("NFKC", raw).lower()
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise FetchRefused(
                url, "the host name is not a valid internationalised name."
            ) from None
    if host.endswith("."):
        host = host[:-1]
    if not host or ".." in host or host.startswith("."):
        raise FetchRefused(url, "the host name is empty or malformed.")
    if not re.fullmatch(r"[a-z0-9._-]+", host):
        raise FetchRefused(url, "the host name has characters no host name may have.")
    return host


def _port(parts_port: str, scheme: str, url: str) -> int:
    if parts_port == "":
        return DEFAULT_PORTS[scheme]
    if parts_port.isdigit() and len(parts_port) <= 5:
        return int(parts_port)
    raise FetchRefused(url, "the port is not a number.")


def parse_target(
    url: str, *, ports: Sequence[int] = ALLOWED_PORTS, allow_loopback: bool = False
) -> Target:
    """The target `url` names, or `FetchRefused` saying why it may not be fetched.

    Checks the URL alone (no name is resolved here): see the module's invariants.
    """
    if len(url) > MAX_URL_CHARS:
        raise FetchRefused(url, f"the URL is longer than {MAX_URL_CHARS} characters.")
    if _CONTROL.search(url):
        raise FetchRefused(url, "the URL contains a control character, space or backslash.")
    try:
        parts = urlsplit(url)
    except ValueError:
        raise FetchRefused(url, "the URL cannot be parsed (a malformed host or port).") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        shown = f"{scheme}:" if scheme else "a URL without a scheme"
        raise FetchRefused(url, f"only http and https pages are fetched, not {shown}.")
    netloc = parts.netloc
    if "@" in netloc:
        raise FetchRefused(url, "the URL carries a user name or password.")
    if "%" in netloc:
        raise FetchRefused(url, "the host is percent-encoded.")
    bracketed = re.fullmatch(r"\[([^\]]*)\](?::(.*))?", netloc)
    address: IPAddress | None
    if bracketed:
        try:
            address = ipaddress.IPv6Address(bracketed[1])
        except ValueError:
            raise FetchRefused(url, "the bracketed host is not an IPv6 address.") from None
        host, port_text = str(address), bracketed[2] or ""
    else:
        raw_host, _, port_text = netloc.partition(":")
        if ":" in port_text:
            raise FetchRefused(url, "the host has more than one port.")
        host = _ascii_host(raw_host, url)
        try:
            address = _legacy_ipv4(host)
        except ValueError as exc:
            raise FetchRefused(url, f"the host looks like an IPv4 address but is {exc}.") from None
        if address is not None:
            host = str(address)
    port = _port(port_text, scheme, url)
    if address is None:
        check_name(host, url)
    else:
        check_addresses(url, [address], allow_loopback=allow_loopback)
    if port not in ports:  # after the address: where a URL points matters more than how
        allowed = ", ".join(str(p) for p in ports)
        raise FetchRefused(url, f"port {port} is not one the desk fetches from ({allowed}).")
    path = quote(parts.path or "/", safe=_URL_SAFE)
    query = quote(parts.query, safe=_URL_SAFE + "?")
    request_path = path + (f"?{query}" if query else "")
    normalised = urlunsplit((scheme, netloc_of(scheme, host, port), path, query, ""))
    return Target(normalised, scheme, host, port, request_path, address)


def check_name(host: str, url: str) -> None:
    """Refuse names that mean this machine or a private network, whatever DNS answers."""
    if host in _LOCAL_NAMES or host.endswith(_LOCAL_SUFFIXES) or "." not in host:
        raise FetchRefused(url, f"{host} names this machine or a private network.")


def carried(address: IPAddress) -> list[IPAddress]:
    """`address` and every IPv4 address an IPv6 form of it carries."""
    out: list[IPAddress] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        packed = int(address)
        if address.ipv4_mapped is not None:
            out.append(address.ipv4_mapped)
        if address.sixtofour is not None:
            out.append(address.sixtofour)
        if address.teredo is not None:
            out.extend(address.teredo)
        # :: and ::1 are themselves, not IPv4-compatible forms of 0.0.0.0 and 0.0.0.1.
        if address in _NAT64 or (address in _IPV4_COMPATIBLE and packed > 1):
            out.append(ipaddress.IPv4Address(packed & 0xFFFFFFFF))
    return out


def _kind(a: IPAddress) -> str | None:
    """What kind of non-public address `a` is, or None when it is global unicast."""
    if a.is_loopback:
        return "this machine (loopback)"
    if a.is_link_local:
        return "link-local, where cloud metadata services answer"
    if a.is_unspecified:
        return "the unspecified address"
    if a.is_multicast:
        return "a multicast address"
    if a.is_private or any(a in n for n in _BLOCKED_NETWORKS):
        return "a private or reserved address"
    if not a.is_global or a.is_reserved:
        return "not a public internet address"
    return None


def address_problem(address: IPAddress, *, allow_loopback: bool = False) -> str | None:
    """Why `address` may not be fetched from, or None when it is global unicast. The
    addresses it carries are judged first, so the reason names the one that matters."""
    for a in [*carried(address)[1:], address]:
        if allow_loopback and a.is_loopback:
            continue
        kind = _kind(a)
        if kind is None:
            continue
        if a == address:
            return f"{address} is {kind}."
        return f"{address} carries {a}, which is {kind}."
    return None


def check_addresses(
    url: str, addresses: Iterable[IPAddress], *, allow_loopback: bool = False
) -> None:
    """Refuse unless every one of `addresses` is allowed (a name with one public and one
    private address is refused: the connection could go to either)."""
    listed = list(addresses)
    if not listed:
        raise FetchRefused(url, "the host name has no address.")
    for address in listed:
        problem = address_problem(address, allow_loopback=allow_loopback)
        if problem:
            raise FetchRefused(url, problem)
