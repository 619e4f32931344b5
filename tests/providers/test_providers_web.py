"""A Deep run that reaches the web, end to end and offline, through the local provider
servers: OpenAI's web search tool (a Responses API server on loopback) proposes pages of a
loopback fixture web, the desk fetches them through its safe fetch, and the three roles talk
to a Chat Completions server. The pages reach the model only inside `<sources>`, as data;
the run's receipt names every page it read or refused."""

from __future__ import annotations

import shutil
from pathlib import Path

from provider_helpers import DeskFactory
from scripts import Model, user_text

from evidence_desk.testing.fakeproviders import FakeProvider
from evidence_desk.testing.fixturesearch import FakeWebSearchAPI, FixturePage, SearchIndex
from evidence_desk.testing.fixtureweb import article, fixture_web, redirect

QUESTION = "What did the Millbrook council decide about the library budget in 2026?"
KEY = "sk-test-key-0000"  # what make_desk puts in OPENAI_API_KEY


class EveryPage(SearchIndex):
    """An index whose search proposes every page, whatever the query (the run's queries
    are the planner's; this test is about what happens to the pages)."""

    def search(self, query: str) -> list[FixturePage]:
        self.queries.append(query)
        return list(self.pages)


def test_a_deep_web_run_through_the_local_provider_servers(
    make_desk: DeskFactory, archive_home: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(archive_home, home)
    with fixture_web() as web:
        web.routes["/library"] = article(
            "Millbrook council raises library budget",
            [
                "The Millbrook council voted on March 3, 2026 to raise the library budget "
                "by 12 percent.",
                "Council member Ana Ruiz said the increase would fund longer opening hours.",
            ],
            date="2026-03-04",
        )
        web.routes["/moved"] = redirect("/library-2")
        web.routes["/library-2"] = article(
            "Library hours to grow",
            ["The library budget increase approved by the Millbrook council funds evening hours."],
            date="2026-03-05",
        )
        web.routes["/metadata"] = redirect("http://169.254.169.254/latest/meta-data/")
        pages = [
            FixturePage(web.url("/library"), "Millbrook council raises library budget"),
            FixturePage(web.url("/metadata"), "Council documents"),
            FixturePage(web.url("/moved"), "Library hours"),
        ]
        index = EveryPage(pages)
        url = {path: web.url(path) for path in ("/library", "/metadata", "/moved", "/library-2")}
        model = Model("chat")
        with FakeWebSearchAPI(index, api_key=KEY) as api, FakeProvider("chat", model) as fake:
            desk = make_desk(
                "chat",
                fake.base_url,
                home=home,
                search_provider=f"openai:gpt-4.1-mini@{api.base_url}",
                fetch_allow_loopback=True,
                fetch_ports=(web.port,),
            )
            receipt = desk.ask(QUESTION, mode="deep").receipt

    searches = [s for s in receipt["searches"] if s["engine"] != "archive"]
    assert 1 < len(searches) <= 3 and len(api.bodies) == len(searches)
    assert all(b["tools"] == [{"type": "web_search"}] for b in api.bodies)
    outcomes = {f["url"]: f["outcome"] for f in receipt["web"]["fetches"]}
    assert outcomes == {url["/library"]: "read", url["/metadata"]: "refused", url["/moved"]: "read"}
    web_sources = [s for s in receipt["sources"] if s["origin"] == "web"]
    assert {s["final_url"] for s in web_sources} <= {url["/library"], url["/library-2"]}
    assert web_sources, receipt["web"]
    # The model read the pages inside <sources>, marked as web sources, never elsewhere.
    answers = [user_text("chat", body) for role, body in model.seen if role == "answer"]
    assert answers and all('origin="web"' in a for a in answers)
    prompt = answers[0]
    assert prompt.index("<sources>") < prompt.index("Ana Ruiz") < prompt.index("</sources>")
    assert receipt["decision"] in ("AUTO_CLEARED", "PUBLISHED_AFTER_PRUNING"), receipt["reason"]
    assert desk.verify_receipt(receipt).ok


def test_paid_web_searches_count_against_the_runs_budget(
    make_desk: DeskFactory, archive_home: Path, tmp_path: Path
) -> None:
    """Each OpenAI web search is a model call: the discover stage's record counts it with
    its tokens (spend unknown: no price covers the tool), and a run whose calls are spent
    makes no search, saying why."""
    home = tmp_path / "home"
    shutil.copytree(archive_home, home)
    with fixture_web() as web:
        web.routes["/library"] = article(
            "Millbrook council raises library budget",
            ["The Millbrook council voted on March 3, 2026 to raise the library budget."],
            date="2026-03-04",
        )
        index = EveryPage([FixturePage(web.url("/library"), "Library budget")])
        with (
            FakeWebSearchAPI(index, api_key=KEY) as api,
            FakeProvider("chat", Model("chat")) as fake,
        ):
            settings = {
                "search_provider": f"openai:gpt-4.1-mini@{api.base_url}",
                "fetch_allow_loopback": True,
                "fetch_ports": (web.port,),
            }
            receipt = make_desk("chat", fake.base_url, home=home, **settings).ask(QUESTION).receipt
            discover = next(s for s in receipt["stages"] if s["name"] == "discover")
            assert discover["calls"] == 1 == len(api.bodies)
            assert discover["engine"] == "openai:gpt-4.1-mini"
            assert discover["input_tokens"] > 0 and discover["estimated_spend_usd"] is None
            assert "openai:gpt-4.1-mini" in receipt["usage"]["unpriced_engines"]
            assert receipt["usage"]["model_calls"] == sum(s["calls"] for s in receipt["stages"])

            spent = make_desk("chat", fake.base_url, home=home, max_model_calls=1, **settings)
            held = spent.ask(QUESTION).receipt
            assert len(api.bodies) == 1  # the planner took the only call: no search was made
            (search,) = [s for s in held["searches"] if s["engine"] != "archive"]
            assert (
                search["error"]
                == "The run's model calls are spent, so the web search was not made."
            )
