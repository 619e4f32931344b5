"""The safe fetch as a LangChain structured tool: the LangGraph executor's door to the web.

One implementation, two doors: the tool's function is the fetch the stage executor calls
(`Fetcher.fetch` through the guard), so the tool refuses exactly what the desk refuses, with
the same `FetchRefused` and sentence (LangChain re-raises a tool's exception as it is). The
tool takes one argument, the URL; nothing about where or how it connects can be passed in.
A model given this tool could only ask for URLs, and every one is checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from .fetch import Page

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

TOOL_NAME = "fetch_page"
TOOL_DESCRIPTION = (
    "Fetch one http(s) page through Evidence Desk's safe fetch (public addresses only, "
    "redirects re-checked, bounded download) and return what was read."
)


class FetchArgs(BaseModel):
    url: str = Field(description="The http or https URL of the page to read.")


def fetch_tool(fetch: Callable[[str], Page]) -> BaseTool:
    """`fetch` as the structured tool `fetch_page(url)`."""
    from langchain_core.tools import StructuredTool

    def fetch_page(url: str) -> Page:
        return fetch(url)

    return StructuredTool.from_function(
        func=fetch_page, name=TOOL_NAME, description=TOOL_DESCRIPTION, args_schema=FetchArgs
    )


def through_tool(tool: BaseTool) -> Callable[[str], Page]:
    """The fetch a stage calls, made through `tool` (its refusals raised as they are)."""

    def fetch(url: str) -> Page:
        page = tool.invoke({"url": url})
        if not isinstance(page, Page):  # pragma: no cover - only our own tool is passed
            raise TypeError(f"the {tool.name} tool returned {type(page).__name__}")
        return page

    return fetch
