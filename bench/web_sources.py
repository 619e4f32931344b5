"""Web sources on loopback: what the guard costs, what a page costs, what a web run costs.

    python -m bench.web_sources [--quick]

1. **Refusals.** Each SSRF form of the issue's appendix (and the other spellings the tests
   hold), refused by `Fetcher.fetch`: median and worst time per refusal, against the
   baseline of one allowed fetch of a small page from a loopback server.
2. **A page.** Fetching a news-like page (fetch alone) and reading it in the limited child
   process (`read_page`: spare ready vs. cold), medians.
3. **A run.** The same question asked over the small sample archive with HashingEmbedder:
   archive alone (the baseline: it abstains at once, as the archive holds nothing of 2026),
   Quick with one web search over the fixture web, Deep with three; medians and ratios.
   The fixture proposes four pages (one refused, one missing), so both read two.

Nothing leaves the machine: the web is `testing/fixtureweb.py` on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "unit" / "sources"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "integration"))

from bench._util import load_average, median, print_table
from evidence_desk.sources.fetch import Fetcher, FetchPolicy
from evidence_desk.sources.netguard import FetchRefused
from evidence_desk.sources.reading import read_page
from evidence_desk.testing.archives import SMALL_ARCHIVE, sotu_records, write_jsonl
from evidence_desk.testing.embedder import HashingEmbedder
from evidence_desk.testing.fixtureweb import article, fixture_web


def _ms(fn: object, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append((time.perf_counter() - t0) * 1000)
    return out


def refusals(rounds: int) -> None:
    from test_sources_netguard import APPENDIX, MORE

    paragraphs = ["The council met on Tuesday and passed the budget."] * 20
    with fixture_web({"/a": article("A page", paragraphs)}) as web:
        forms = [f.replace("{port}", str(web.port)) for f in (*APPENDIX, *MORE)]
        guard = Fetcher(FetchPolicy(ports=(80, 443, 8080, web.port)))
        times: list[float] = []
        for url in forms:
            for _ in range(rounds):
                t0 = time.perf_counter()
                try:
                    guard.fetch(url)
                except FetchRefused:
                    pass
                else:  # pragma: no cover - the tests prove this never happens
                    raise SystemExit(f"{url} was fetched")
                times.append((time.perf_counter() - t0) * 1000)
        allowed = Fetcher(FetchPolicy(ports=(web.port,), allow_loopback=True))
        baseline = _ms(lambda: allowed.fetch(web.url("/a")), rounds * 5)
        assert web.connections == len(baseline)  # no refused form reached the listener
    print_table(
        ["what", "n", "median ms", "worst ms", "ratio to baseline"],
        [
            [
                "refusal (every form)",
                len(times),
                f"{median(times):.3f}",
                f"{max(times):.2f}",
                f"{median(times) / median(baseline):.3f}",
            ],
            [
                "baseline: allowed loopback fetch",
                len(baseline),
                f"{median(baseline):.3f}",
                f"{max(baseline):.2f}",
                "1.000",
            ],
        ],
        title=f"SSRF refusals ({len(forms)} forms), load {load_average()}",
    )


def page_costs(rounds: int) -> None:
    paragraphs = [
        f"Paragraph {i}: the council discussed the library budget at length." for i in range(60)
    ]
    with fixture_web({"/a": article("Council news", paragraphs, date="2026-03-04")}) as web:
        fetcher = Fetcher(FetchPolicy(ports=(web.port,), allow_loopback=True))
        page = fetcher.fetch(web.url("/a"))
        fetch_ms = _ms(lambda: fetcher.fetch(web.url("/a")), rounds * 5)

        def read() -> None:
            read_page(page.body, page.content_type_header, doc_id="web-x", url=page.final_url)

        read()  # starts the spare
        spare: list[float] = []
        for _ in range(rounds):
            time.sleep(1.5)  # let the spare warm up, as between a run's pages
            spare += _ms(read, 1)
        back_to_back = _ms(read, rounds)
    print_table(
        ["what", "n", "median ms"],
        [
            ["fetch (loopback, 5 KB page)", len(fetch_ms), f"{median(fetch_ms):.2f}"],
            ["read, spare child ready", len(spare), f"{median(spare):.1f}"],
            [
                "read, back to back (spare still warming)",
                len(back_to_back),
                f"{median(back_to_back):.1f}",
            ],
        ],
        title="One page",
    )


def runs(rounds: int) -> None:
    from web_helpers_runs import WEB_QUESTION, millbrook_web, web_settings

    from evidence_desk.desk import Desk

    with tempfile.TemporaryDirectory() as tmp, fixture_web() as web:
        millbrook_web(web)
        archive = write_jsonl(Path(tmp) / "small.jsonl", sotu_records(SMALL_ARCHIVE))
        home, cache = Path(tmp) / "home", Path(tmp) / "cache"
        Desk(web_settings(web, home, cache), embedder=HashingEmbedder()).ingest([archive])
        rows = []
        base: float | None = None
        for label, provider, mode in (
            ("archive alone (baseline)", "archive", "quick"),
            ("Quick + 1 web search", None, "quick"),
            ("Deep + 3 web searches", None, "deep"),
        ):
            values = {"search_provider": provider} if provider else {}
            desk = Desk(web_settings(web, home, cache, **values), embedder=HashingEmbedder())
            desk.ask(WEB_QUESTION, mode=mode)  # warm
            times = _ms(lambda d=desk, m=mode: d.ask(WEB_QUESTION, mode=m), rounds)
            base = base or median(times)
            rows.append([label, len(times), f"{median(times):.0f}", f"{median(times) / base:.2f}"])
    print_table(["run", "n", "median ms", "ratio"], rows, title="A stored run, end to end")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rounds = 3 if args.quick else 10
    refusals(rounds)
    page_costs(3 if args.quick else 6)
    runs(rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
