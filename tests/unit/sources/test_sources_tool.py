"""The LangChain tool door to the web refuses exactly what the desk's fetch refuses: the
same function, the same exception, the same sentence."""

from __future__ import annotations

import pytest
from test_sources_netguard import APPENDIX, MORE

from evidence_desk.sources.fetch import Fetcher, FetchPolicy
from evidence_desk.sources.netguard import FetchRefused
from evidence_desk.sources.tool import TOOL_NAME, fetch_tool, through_tool
from evidence_desk.testing.fixtureweb import fixture_web, html


def test_the_tool_refuses_every_form_with_the_fetchs_own_sentence() -> None:
    with fixture_web({"/": html("<p>ok</p>")}) as web:
        fetcher = Fetcher(FetchPolicy(ports=(80, 443, 8080, web.port)))
        tool = fetch_tool(fetcher.fetch)
        via_tool = through_tool(tool)
        for form in (*APPENDIX, *MORE):
            url = form.replace("{port}", str(web.port))
            with pytest.raises(FetchRefused) as direct:
                fetcher.fetch(url)
            with pytest.raises(FetchRefused) as tooled:
                via_tool(url)
            assert str(tooled.value) == str(direct.value), url
        assert web.connections == 0


def test_the_tool_takes_a_url_and_nothing_else() -> None:
    with fixture_web({"/": html("<p>through the tool</p>")}) as web:
        fetcher = Fetcher(FetchPolicy(ports=(web.port,), allow_loopback=True))
        tool = fetch_tool(fetcher.fetch)
        assert tool.name == TOOL_NAME and list(tool.args) == ["url"]
        page = through_tool(tool)(web.url("/"))
        assert page.body == b"<p>through the tool</p>"
        with pytest.raises(ValueError):
            tool.invoke({"address": "127.0.0.1"})
