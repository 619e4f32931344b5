"""The safe fetcher against a real HTTP server on loopback: redirects followed by hand and
re-checked, one DNS lookup per hop, bounded downloads, content types, hostile encodings."""

from __future__ import annotations

import gzip
import hashlib
import zlib
from collections.abc import Iterator

import pytest

from evidence_desk.sources.fetch import Fetcher, FetchPolicy
from evidence_desk.sources.netguard import FetchRefused
from evidence_desk.testing.fixtureweb import (
    FixtureWeb,
    PublicNetwork,
    Reply,
    article,
    fixture_web,
    gzipped,
    html,
    redirect,
    tls_pair,
)

PUBLIC = "93.184.216.34"
OTHER_PUBLIC = "93.184.216.35"


@pytest.fixture
def web() -> Iterator[FixtureWeb]:
    with fixture_web() as w:
        yield w


def loopback(web: FixtureWeb, **policy: object) -> Fetcher:
    return Fetcher(FetchPolicy(ports=(web.port,), allow_loopback=True, **policy))  # type: ignore[arg-type]


def public(
    web: FixtureWeb, names: dict[str, list[list[str]]], **policy: object
) -> tuple[Fetcher, PublicNetwork]:
    network = PublicNetwork(web, names)
    fetcher = Fetcher(
        FetchPolicy(ports=(80, 443), **policy),  # type: ignore[arg-type]
        resolver=network,
        connector=network,
    )
    return fetcher, network


def refusal(fetcher: Fetcher, url: str) -> str:
    with pytest.raises(FetchRefused) as refused:
        fetcher.fetch(url)
    return refused.value.reason


def test_a_page_comes_back_with_its_hash_type_and_hops(web: FixtureWeb) -> None:
    web.routes["/a"] = article("Budget passes", ["The council passed the budget."])
    page = loopback(web).fetch(web.url("/a"))
    assert page.kind == "html" and page.content_type == "text/html" and page.charset == "utf-8"
    assert b"The council passed the budget." in page.body
    assert page.sha256 == hashlib.sha256(page.body).hexdigest()
    assert page.final_url == page.url == web.url("/a")
    assert [h.status for h in page.hops] == [200] and page.hops[0].address == "127.0.0.1"
    assert page.retrieved_at.endswith("Z")
    sent = web.requests[0].headers
    assert sent["Host"] == f"127.0.0.1:{web.port}" and "EvidenceDesk" in sent["User-Agent"]
    assert "Cookie" not in sent and "Authorization" not in sent


def test_the_host_header_is_the_original_name_while_the_connection_goes_to_its_address(
    web: FixtureWeb,
) -> None:
    web.routes["/"] = html("<p>news</p>")
    fetcher, network = public(web, {"news.example": [[PUBLIC]]})
    page = fetcher.fetch("http://news.example/")
    assert page.body == b"<p>news</p>" and page.hops[0].address == PUBLIC
    assert web.requests[0].host == "news.example"
    assert network.dialled == [(PUBLIC, 80)] and network.lookups == ["news.example"]


def test_a_dns_answer_that_changes_after_the_check_is_never_asked_for(web: FixtureWeb) -> None:
    """Resolved once per hop: the second answer (private) is never looked up, and the
    connection goes to the address that was checked."""
    web.routes["/"] = html("<p>ok</p>")
    fetcher, network = public(web, {"rebind.example": [[PUBLIC], ["127.0.0.1"]]})
    page = fetcher.fetch("http://rebind.example/")
    assert network.lookups == ["rebind.example"] and network.dialled == [(PUBLIC, 80)]
    assert page.hops[0].address == PUBLIC
    # The next fetch asks again, gets the private answer, and is refused before dialling.
    assert refusal(fetcher, "http://rebind.example/") == "127.0.0.1 is this machine (loopback)."
    assert network.dialled == [(PUBLIC, 80)]


def test_a_public_page_redirecting_to_cloud_metadata_is_refused_at_that_hop(
    web: FixtureWeb,
) -> None:
    web.routes["/"] = redirect("http://169.254.169.254/latest/meta-data/")
    fetcher, network = public(web, {"news.example": [[PUBLIC]]})
    reason = refusal(fetcher, "http://news.example/")
    assert reason == "169.254.169.254 is link-local, where cloud metadata services answer."
    assert network.dialled == [(PUBLIC, 80)] and len(web.requests) == 1


def test_redirects_to_private_names_and_schemes_are_refused(web: FixtureWeb) -> None:
    web.routes["/name"] = redirect("http://inside.example/")
    web.routes["/file"] = redirect("file:///etc/passwd")
    web.routes["/mapped"] = redirect("http://[::ffff:10.0.0.1]/")
    fetcher, network = public(
        web, {"news.example": [[PUBLIC]], "inside.example": [["192.168.0.10"]]}
    )
    assert (
        refusal(fetcher, "http://news.example/name")
        == "192.168.0.10 is a private or reserved address."
    )
    assert "not file:" in refusal(fetcher, "http://news.example/file")
    assert "carries 10.0.0.1" in refusal(fetcher, "http://news.example/mapped")
    assert all(address == PUBLIC for address, _ in network.dialled)


def test_redirects_are_followed_by_hand_at_most_three_times(web: FixtureWeb) -> None:
    web.routes["/1"] = redirect("/2", 301)
    web.routes["/2"] = redirect("http://other.example/3", 307)
    web.routes["/3"] = redirect("/4", 308)
    web.routes["/4"] = html("<p>the end</p>")
    web.routes["/loop"] = redirect("/loop")
    fetcher, network = public(web, {"news.example": [[PUBLIC]], "other.example": [[OTHER_PUBLIC]]})
    page = fetcher.fetch("http://news.example/1")
    assert page.final_url == "http://other.example/4" and page.url == "http://news.example/1"
    assert [(h.url, h.status) for h in page.hops] == [
        ("http://news.example/1", 301),
        ("http://news.example/2", 307),
        ("http://other.example/3", 308),
        ("http://other.example/4", 200),
    ]
    assert network.lookups == ["news.example", "news.example", "other.example", "other.example"]
    assert refusal(fetcher, "http://news.example/loop") == "it redirects more than 3 times."
    web.routes["/bare"] = Reply(302, {"Content-Type": "text/plain"}, b"")
    assert "redirects without saying where to" in refusal(fetcher, "http://news.example/bare")


def test_only_html_text_and_pdf_are_read(web: FixtureWeb) -> None:
    web.routes["/txt"] = Reply(200, {"Content-Type": "text/plain; charset=latin-1"}, b"caf\xe9")
    web.routes["/pdf"] = Reply(200, {"Content-Type": "application/pdf"}, b"%PDF-1.4 ...")
    web.routes["/xhtml"] = Reply(200, {"Content-Type": "application/xhtml+xml"}, b"<html/>")
    web.routes["/img"] = Reply(200, {"Content-Type": "image/png"}, b"\x89PNG")
    web.routes["/none"] = Reply(200, {}, b"?")
    web.routes["/gone"] = Reply(404, {"Content-Type": "text/html"}, b"gone")
    f = loopback(web)
    assert (f.fetch(web.url("/txt")).kind, f.fetch(web.url("/txt")).charset) == ("text", "latin-1")
    assert f.fetch(web.url("/pdf")).kind == "pdf"
    assert f.fetch(web.url("/xhtml")).kind == "html"
    assert refusal(f, web.url("/img")) == "it is image/png; only HTML, plain text and PDF are read."
    assert refusal(f, web.url("/none")) == "the server did not say what type of content it sent."
    assert refusal(f, web.url("/gone")).endswith("answered 404 Not Found.")


def test_downloads_are_bounded_on_the_wire_and_after_decoding(web: FixtureWeb) -> None:
    big = b"<p>" + b"x" * 5000 + b"</p>"
    web.routes["/big"] = html(big.decode())
    web.routes["/liar"] = Reply(200, {"Content-Type": "text/html"}, big, send_length=False)
    bomb = gzipped(b"\0" * 50_000_000)  # about 50 KB on the wire
    web.routes["/bomb"] = bomb
    f = loopback(web, max_bytes=4000)
    assert refusal(f, web.url("/big")) == "the page is larger than 0.004 MB."
    assert refusal(f, web.url("/liar")) == "the page is larger than 0.004 MB."
    assert len(bomb.body) < 100_000
    assert refusal(loopback(web), web.url("/bomb")) == "the page decompresses to more than 3 MB."


def test_content_encodings(web: FixtureWeb) -> None:
    body = b"<p>" + b"compressed words " * 100 + b"</p>"
    web.routes["/gz"] = gzipped(body)
    web.routes["/chain"] = gzipped(body, times=3)
    web.routes["/two-members"] = Reply(
        200,
        {"Content-Type": "text/html", "Content-Encoding": "gzip"},
        gzip.compress(body[:50]) + gzip.compress(body[50:]),
    )
    web.routes["/deflate"] = Reply(
        200, {"Content-Type": "text/html", "Content-Encoding": "deflate"}, zlib.compress(body)
    )
    raw = zlib.compressobj(wbits=-15)
    web.routes["/raw-deflate"] = Reply(
        200,
        {"Content-Type": "text/html", "Content-Encoding": "deflate"},
        raw.compress(body) + raw.flush(),
    )
    web.routes["/br"] = Reply(200, {"Content-Type": "text/html", "Content-Encoding": "br"}, b"x")
    web.routes["/corrupt"] = Reply(
        200, {"Content-Type": "text/html", "Content-Encoding": "gzip"}, b"\x1f\x8bnot gzip"
    )
    web.routes["/short"] = Reply(
        200, {"Content-Type": "text/html", "Content-Encoding": "gzip"}, gzip.compress(body)[:40]
    )
    f = loopback(web)
    page = f.fetch(web.url("/gz"))
    assert page.body == body and page.content_encoding == "gzip" and page.wire_bytes < len(body)
    for path in ("/two-members", "/deflate", "/raw-deflate"):
        assert f.fetch(web.url(path)).body == body, path
    assert refusal(f, web.url("/chain")) == "it is compressed more than once (gzip, gzip, gzip)."
    assert refusal(f, web.url("/br")) == "it is compressed with br, which the desk does not read."
    assert refusal(f, web.url("/corrupt")) == "its gzip body is corrupt."
    assert refusal(f, web.url("/short")) == "its gzip body is cut short."


def test_a_slow_server_is_cut_off_by_the_deadline(web: FixtureWeb) -> None:
    web.routes["/slow"] = Reply(200, {"Content-Type": "text/html"}, b"x" * 20_000, chunk_delay=0.1)
    reason = refusal(loopback(web, total_seconds=0.5, read_seconds=5.0), web.url("/slow"))
    assert reason == "the download took longer than 0.5 seconds."


def test_connection_failures_are_one_sentence(web: FixtureWeb) -> None:
    port = web.port
    web.stop()
    f = Fetcher(FetchPolicy(ports=(port,), allow_loopback=True))
    assert refusal(f, f"http://127.0.0.1:{port}/") == "127.0.0.1 refused the connection."
    fetcher, _ = public(FixtureWeb(), {})
    assert (
        refusal(fetcher, "http://unknown.example/") == "the name unknown.example does not resolve."
    )


def test_environment_proxies_are_ignored(web: FixtureWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://10.9.9.9:3128")
    web.routes["/"] = html("<p>direct</p>")
    assert loopback(web).fetch(web.url("/")).body == b"<p>direct</p>"
    assert web.requests[0].path == "/"  # a proxied request would carry the absolute URL


def test_https_speaks_the_original_name_to_the_checked_address() -> None:
    """The TLS name is the URL's host, not the address: the certificate for news.example
    verifies, and the same server is refused under another name."""
    server, client = tls_pair("news.example")
    with fixture_web({"/": html("<p>secure</p>")}, tls=server) as web:
        network = PublicNetwork(web, {"news.example": [[PUBLIC]], "other.example": [[PUBLIC]]})
        fetcher = Fetcher(FetchPolicy(), resolver=network, connector=network, tls=client)
        page = fetcher.fetch("https://news.example/")
        assert page.body == b"<p>secure</p>" and page.final_url == "https://news.example/"
        assert web.requests[0].host == "news.example"
        reason = refusal(fetcher, "https://other.example/")
        assert reason == "the TLS certificate of other.example could not be verified."
        untrusted = Fetcher(FetchPolicy(), resolver=network, connector=network)
        assert "could not be verified" in refusal(untrusted, "https://news.example/")
