"""The SSRF guard: every spelling of a non-public address is refused, with one sentence,
before any name is resolved or any connection attempted; public URLs pass normalised.

The matrix is judged twice: by `parse_target` alone (pure, no I/O), and by a real fetch
whose only barrier is the guard (the port allowlist opened to a loopback listener's port),
with the listener proving it saw no connection.
"""

from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidence_desk.sources.fetch import DirectConnector, Fetcher, FetchPolicy
from evidence_desk.sources.netguard import (
    FetchRefused,
    address_problem,
    carried,
    parse_target,
)
from evidence_desk.testing.fixtureweb import FixtureWeb, PublicNetwork, fixture_web, html

# The appendix, with the loopback listener's port where the form reaches this
# machine (so a guard that let it through would be seen connecting).
APPENDIX = [
    "http://127.1:{port}/",
    "http://0:{port}/",
    "http://2130706433:{port}/",
    "http://0177.0.0.1:{port}/",
    "http://0x7f000001:{port}/",
    "http://0xA9.0xFE.0xA9.0xFE/",
    "http://[::1]:{port}/",
    "http://[::]:{port}/",
    "http://[::ffff:127.0.0.1]:{port}/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::127.0.0.1]:{port}/",
    "http://[2002:7f00:1::]:{port}/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://0.0.0.0:{port}/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://100.64.0.1/",
    "http://198.18.0.1/",
    "http://224.0.0.1/",
    "http://LOCALHOST.:{port}/",
    "http://example.com@127.0.0.1:{port}/",
    "file:///etc/passwd",
    "gopher://127.0.0.1:6379/_x",
    "http://[example.com]/",
    "http://127.0.0.1:{port}/\x00",
    "http://127.0.0.1:{port}/a\r\nX-Injected: 1",
    "http://１２７.０.０.１:{port}/",
]

# Other spellings of the same places.
MORE = [
    "http://127.0.0.1:{port}/",
    "http://127.255.255.254:{port}/",
    "http://0x7f.0.0.1:{port}/",
    "http://0x7f.1:{port}/",
    "http://017700000001:{port}/",
    "http://127.000.000.001:{port}/",
    "http://%31%32%37.0.0.1:{port}/",
    "http://[0:0:0:0:0:ffff:7f00:1]:{port}/",
    "http://[::ffff:7f00:1]:{port}/",
    "http://[fe80::1%25eth0]:{port}/",
    "http://[fe80::1]/",
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
    "http://[64:ff9b:1::a9fe:a9fe]/",
    "http://[ff02::1]/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://192.0.0.8/",
    "http://255.255.255.255/",
    "http://240.0.0.1/",
    "http://localhost:{port}/",
    "http://app.localhost:{port}/",
    "http://printer.local/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://intranet/",
    "http://user:pass@example.com/",
    "http://example.com\\@127.0.0.1/",
    "http://exa mple.com/",
    "HTTP://127.0.0.1:{port}/",
    "ftp://example.com/",
    "javascript:alert(1)",
    "data:text/html,<b>x</b>",
    "//example.com/",
    "http://256.0.0.1/",
    "http://1.2.3.4.5/",
    "http://example.com:22/",
    "http://example.com:0/",
    "http://example.com:99999/",
    "http://ｌｏｃａｌｈｏｓｔ:{port}/",
    "http://[::1]:{port}:80/",
]


def _forms(port: int) -> list[str]:
    return [f.replace("{port}", str(port)) for f in (*APPENDIX, *MORE)]


@pytest.mark.parametrize("form", [*APPENDIX, *MORE])
def test_every_form_is_refused_by_the_guard_alone(form: str) -> None:
    url = form.replace("{port}", "8080")
    with pytest.raises(FetchRefused) as refused:
        parse_target(url)
    message = str(refused.value)
    assert message.startswith("Refused to fetch ") and message.endswith(".")
    assert "\n" not in message and "\x00" not in message and "\r" not in message
    assert len(message) < 400


class NoConnector:
    """A connector that fails the test if the guard ever lets a connection through."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def connect(self, address: object, port: int, timeout: float) -> socket.socket:
        self.calls.append(f"{address}:{port}")
        raise AssertionError(f"the guard let a connection to {address}:{port} through")


def test_the_appendix_never_reaches_a_loopback_listener() -> None:
    """Each form refused by a real fetch (with the real connector, the port allowed), and
    the listener on 127.0.0.1 (and ::1 when the machine has it) accepted nothing."""
    with fixture_web({"/": html("<p>secret</p>")}) as web:
        six = _listen_v6(web.port)
        try:
            fetcher = Fetcher(FetchPolicy(ports=(80, 443, 8080, web.port)))
            for url in _forms(web.port):
                with pytest.raises(FetchRefused):
                    fetcher.fetch(url)
            assert web.connections == 0
            assert web.requests == []
            if six is not None:
                six.settimeout(0.01)
                with pytest.raises(TimeoutError):
                    six.accept()
        finally:
            if six is not None:
                six.close()


def _listen_v6(port: int) -> socket.socket | None:
    """A listener on [::1]:port, or None when the machine has no IPv6 loopback."""
    try:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        sock.bind(("::1", port))
        sock.listen()
    except OSError:
        return None
    return sock


def test_names_that_resolve_to_private_addresses_are_refused_before_connecting() -> None:
    with fixture_web() as web:
        network = PublicNetwork(
            web,
            {
                "loopback.example": [["127.0.0.1"]],
                "mixed.example": [["93.184.216.34", "10.0.0.7"]],
                "mapped.example": [["::ffff:169.254.169.254"]],
                "nothing.example": [[]],
            },
        )
        connector = NoConnector()
        fetcher = Fetcher(FetchPolicy(ports=(80, web.port)), resolver=network, connector=connector)
        reasons = {}
        for host in ("loopback.example", "mixed.example", "mapped.example", "nothing.example"):
            with pytest.raises(FetchRefused) as refused:
                fetcher.fetch(f"http://{host}:{web.port}/")
            reasons[host] = refused.value.reason
        assert connector.calls == [] and web.connections == 0
        assert reasons["loopback.example"] == "127.0.0.1 is this machine (loopback)."
        assert reasons["mixed.example"] == "10.0.0.7 is a private or reserved address."
        assert "carries 169.254.169.254" in reasons["mapped.example"]
        assert reasons["nothing.example"] == "the host name has no address."


def test_the_reason_names_the_address_an_ipv6_form_carries() -> None:
    cases = {
        "http://[::ffff:169.254.169.254]/": "carries 169.254.169.254, which is link-local",
        "http://[2002:7f00:1::]/": "carries 127.0.0.1, which is this machine",
        "http://[64:ff9b::a9fe:a9fe]/": "carries 169.254.169.254",
        "http://[::127.0.0.1]/": "carries 127.0.0.1",
        "http://2130706433/": "127.0.0.1 is this machine (loopback).",
        "http://0xA9.0xFE.0xA9.0xFE/": "169.254.169.254 is link-local",
        "file:///etc/passwd": "only http and https pages are fetched, not file:.",
        "http://example.com@127.0.0.1/": "the URL carries a user name or password.",
        "http://example.com:22/": "port 22 is not one the desk fetches from",
        "http://１２７.０.０.１/": "127.0.0.1 is this machine",
    }
    for url, expected in cases.items():
        with pytest.raises(FetchRefused) as refused:
            parse_target(url)
        assert expected in refused.value.reason, url


def test_public_urls_pass_written_one_way() -> None:
    t = parse_target("https://Example.COM./News/a?b=1&c=%20#frag")
    assert (t.url, t.host, t.port, t.request_path) == (
        "https://example.com/News/a?b=1&c=%20",
        "example.com",
        443,
        "/News/a?b=1&c=%20",
    )
    assert parse_target("http://bücher.de/é").url == "http://xn--bcher-kva.de/%C3%A9"
    assert parse_target("http://93.184.216.34:8080").url == "http://93.184.216.34:8080/"
    six = parse_target("http://[2606:4700:4700::1111]/")
    assert six.host == "2606:4700:4700::1111" and six.url == "http://[2606:4700:4700::1111]/"
    assert parse_target("http://example.com:8443/", ports=(8443,)).port == 8443


def test_loopback_is_allowed_only_when_asked_and_only_loopback() -> None:
    assert parse_target("http://127.0.0.1:8080/", allow_loopback=True).host == "127.0.0.1"
    assert parse_target("http://[::1]:8080/", allow_loopback=True).host == "::1"
    for url in ("http://10.0.0.1/", "http://169.254.169.254/", "http://localhost:8080/"):
        with pytest.raises(FetchRefused):
            parse_target(url, allow_loopback=True)


def test_carried_addresses() -> None:
    ip = ipaddress.ip_address
    assert carried(ip("::ffff:10.0.0.1")) == [ip("::ffff:10.0.0.1"), ip("10.0.0.1")]
    assert ip("127.0.0.1") in carried(ip("2002:7f00:1::"))
    teredo = carried(ip("2001:0:4136:e378:8000:63bf:3fff:fdd2"))
    assert ip("65.54.227.120") in teredo and ip("192.0.2.45") in teredo
    assert carried(ip("93.184.216.34")) == [ip("93.184.216.34")]


PUBLIC_V4 = st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address)


@given(PUBLIC_V4)
def test_an_ipv4_address_and_its_ipv6_wrappings_are_judged_alike(v4: ipaddress.IPv4Address) -> None:
    """Wrapping an address in IPv4-mapped, 6to4 or NAT64 form never makes it allowed."""
    if address_problem(v4) is None:
        return
    n = int(v4)
    for wrapped in (
        ipaddress.IPv6Address((0xFFFF << 32) | n),
        ipaddress.IPv6Address((0x2002 << 112) | (n << 80)),
        ipaddress.IPv6Address((0x64FF9B << 96) | n),
    ):
        assert address_problem(wrapped) is not None, wrapped


@given(st.from_regex(r"[0-9]{1,10}(\.[0-9]{1,4}){0,3}", fullmatch=True))
def test_every_numeric_host_is_read_as_the_c_library_reads_it(host: str) -> None:
    """A numeric host is an address, never a name: the guard's reading agrees with
    inet_aton's, and a numeric host inet_aton rejects is refused, not resolved."""
    try:
        expected = ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        expected = None
    try:
        target = parse_target(f"http://{host}/")
    except FetchRefused as refused:
        if expected is not None:
            assert str(expected) in refused.reason or "not a public" in refused.reason
        return
    assert expected is not None and target.address == expected


def test_the_listener_helper_sees_connections() -> None:
    """The proof above means something: an allowed loopback fetch is counted."""
    with fixture_web({"/": html("<p>hello</p>")}) as web:
        fetcher = Fetcher(FetchPolicy(ports=(web.port,), allow_loopback=True))
        page = fetcher.fetch(web.url("/"))
        assert page.body == b"<p>hello</p>" and web.connections == 1
        assert isinstance(web, FixtureWeb) and isinstance(DirectConnector(), DirectConnector)
