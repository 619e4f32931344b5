"""The reader widget: a small frame publishers embed, showing only what readers may read.

A publisher adds one tag, `<script src="https://desk.example/widget.js" data-evidence-desk
async></script>` (which puts an iframe of `/widget` after itself), or the iframe directly:
`<iframe src="https://desk.example/widget" title="Ask the archive"></iframe>`. Every path
here starts with `/widget`, the only paths the guard lets other sites frame.

* **No cookies.** A cross-site frame gets no SameSite=Lax cookie, so the frame page opens an
  anonymous reader's session and puts its token in the page (`data-widget-token` on the
  form, a hidden `widget_token` field). Requests carry it in the `X-Widget-Token` header
  (JavaScript) or the `widget_token` field (the form). Only the frame's own page holds it,
  and a URL never does. It is also the CSRF defence; unsafe requests must besides come from
  the desk's own origin (`security.cross_site`): inside the frame they are same-origin.
* **Only what may be shown.** A published answer (the gate's, or one an editor approved or
  edited), or the honest reason there is none: outside coverage (with what the archive does
  cover), with the standards desk, not published. A held draft never leaves the desk.
* **The kill switch.** While an editor has paused the widget, every route here answers a calm
  notice and opens nothing; the workspace, the queue and running jobs carry on.
* **Without JavaScript** the form posts to `/widget/ask`, whose response is the run itself:
  it waits a few seconds for the answer, and while there is none yet it offers "Check
  again", a form post of the token to `/widget/runs/{id}`.
"""

from __future__ import annotations

import asyncio
import time
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..desk import NotFound, OwnedRun, RunPage, Session, Workspace, WorkspaceError
from .context import own_origin, workspace_of
from .logs import RUN_ID
from .security import cross_site

router = APIRouter()

HERE = Path(__file__).parent
TOKEN_HEADER = "x-widget-token"
LIVE = ("queued", "running")
NO_JS_WAIT_SECONDS = 8.0
NO_JS_POLL_SECONDS = 0.1
NO_STORE = {"cache-control": "no-store"}

PAUSED = "The reader widget is paused for the moment. Please try again later."
WORKING = "The desk is checking its sources."
HELD = "This answer is with the standards desk: an editor reviews it before it can be shown."
OUTSIDE = "The archive does not cover this question, so no answer is given."
REJECTED = "The standards desk reviewed this answer and did not publish it."
STOPPED = "This question could not be answered just now. Please ask again."
REVIEWED = "Published after review by the standards desk."
ENDED = "The widget's session has ended: reload the page to ask again."
NOT_WIDGET = "This session does not belong to the widget: reload the page to ask again."

Status = Literal["published", "outside", "held", "rejected", "working", "stopped"]


class WidgetSessionEnded(WorkspaceError):
    """No token, or one that names no live session."""

    status = 401


class WidgetRefused(WorkspaceError):
    """A request from another site, or a session that is not an anonymous reader's."""

    status = 403


# ---------------------------------------------------------------------- what is shown


class WidgetAsk(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The reader's question.")


class WidgetAsked(BaseModel):
    run_id: str = Field(description="Follow it at `/widget/api/runs/{run_id}`.")


class WidgetSource(BaseModel):
    id: str
    title: str
    date: str | None
    url: str | None = Field(description="An http(s) address, or none.")
    publisher: str


class WidgetRun(BaseModel):
    """A run as the widget shows it: published text with its sources, or only a message."""

    run_id: str
    question: str
    state: str = Field(description="The run's display state (`runs/records.py`).")
    status: Status = Field(description="What the widget shows; final unless working or held.")
    text: str | None = Field(description="The published answer; never a held draft.")
    sentences: list[list[tuple[Literal["text", "cite"], str]]] = Field(
        description="The published answer's sentences as text and `[S#]` citation segments."
    )
    tiers: list[str | None] = Field(
        default_factory=list,
        description="Each sentence's tier (`verbatim`, `extractive`, `paraphrase`; none "
        "where its receipt records none): the widget marks a paraphrase as one.",
    )
    spans_by: list[str] = Field(
        default_factory=list,
        description="Each sentence's `spans_by`: `answerer` where a paraphrase rests on words "
        "the answer's writer cited (its citations, checked in code), else empty.",
    )
    sources: list[WidgetSource]
    message: str | None = Field(description="One sentence for the reader, or none.")
    coverage_note: str | None = Field(description="What the archive covers (outside coverage).")


def safe_url(url: str | None) -> str | None:
    """Only http(s) links: a source's address is data, and `javascript:` is not a link."""
    if not url:
        return None
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return None
    return url if scheme in ("http", "https") else None


def widget_run(page: RunPage) -> WidgetRun:
    """What the widget may show of `page`: published text only, else an honest message."""
    answer = page.answer

    def shown(status: Status, message: str | None, note: str | None = None) -> WidgetRun:
        return WidgetRun(
            run_id=page.run_id,
            question=page.question,
            state=page.state,
            status=status,
            text=None,
            sentences=[],
            sources=[],
            message=message,
            coverage_note=note,
        )

    if answer is None:
        return shown("working", WORKING) if page.state in LIVE else shown("stopped", STOPPED)
    published = answer.published
    if published is not None:
        run = shown("published", REVIEWED if published.by != "gate" else None)
        run.text = published.text
        run.sentences = [list(s) for s in published.sentences]
        run.tiers = [tier.tier for _, tier in published.lines]
        run.spans_by = [tier.spans_by for _, tier in published.lines]
        run.sources = [
            WidgetSource(
                id=s.id, title=s.title, date=s.date, url=safe_url(s.url), publisher=s.publisher
            )
            for s in answer.sources
        ]
        return run
    if answer.outside:
        return shown("outside", OUTSIDE, answer.coverage_note)
    if answer.rejected is not None:  # the editor's reason is for the desk, not the reader
        return shown("rejected", REJECTED)
    return shown("held", HELD)


# ---------------------------------------------------------------------- who is asking


async def paused(request: Request) -> bool:
    return await run_in_threadpool(workspace_of(request).widget_paused)


async def widget_session(request: Request, token: str | None) -> Session:
    """The widget's session `token` names; an unsafe request must come from the desk."""
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        headers = {k.lower(): v for k, v in request.headers.items()}
        why = cross_site(headers, own_origin(request))
        if why is not None:
            raise WidgetRefused(f"The request was refused because {why}.")
    if not token:
        raise WidgetSessionEnded(ENDED)
    session = await run_in_threadpool(workspace_of(request).people.session, token, "widget")
    if session is None:
        raise WidgetSessionEnded(ENDED)
    if session.user.name is not None or session.user.is_editor:
        raise WidgetRefused(NOT_WIDGET)
    return session


def _widget_page(ws: Workspace, session: Session, run_id: str) -> RunPage:
    """The run if this widget session asked it in the widget; NotFound otherwise."""
    owned: OwnedRun | None = ws.owner_of(run_id)
    if owned is None or owned.owner_id != session.user.user_id or owned.channel != "widget":
        raise NotFound("There is no such run.")  # never echo an id of any length
    return ws.run_page(session.user, run_id)


async def _view(request: Request, session: Session, run_id: str) -> WidgetRun:
    RUN_ID.set(run_id)
    ws = workspace_of(request)
    return widget_run(await run_in_threadpool(_widget_page, ws, session, run_id))


async def _ask(request: Request, session: Session, question: str) -> str:
    ws = workspace_of(request)
    owned = await run_in_threadpool(lambda: ws.ask(session.user, question, channel="widget"))
    RUN_ID.set(owned.run_id)
    request.app.state.runs.submit(owned.run_id)
    return owned.run_id


# ---------------------------------------------------------------------- the frame


def frame(
    request: Request,
    *,
    token: str = "",
    status: int = 200,
    is_paused: bool = False,
    run: WidgetRun | None = None,
    error: str | None = None,
) -> HTMLResponse:
    html = request.app.state.templates.get_template("widget.html").render(
        request=request,
        token=token,
        paused=is_paused,
        paused_message=PAUSED,
        run=run,
        error=error,
        max_chars=workspace_of(request).settings.max_question_chars,
    )
    return HTMLResponse(html, status_code=status, headers=NO_STORE)


@router.get("/widget", response_class=HTMLResponse, include_in_schema=False)
async def widget_page(request: Request) -> HTMLResponse:
    if await paused(request):
        return frame(request, is_paused=True)
    opened = await run_in_threadpool(workspace_of(request).people.reader_session, "widget")
    return frame(request, token=opened.token)


async def _no_js_run(request: Request, session: Session, run_id: str, wait: float) -> WidgetRun:
    """The run's view, once it is final or `wait` seconds have passed."""
    deadline = time.monotonic() + wait
    while True:
        run = await _view(request, session, run_id)
        if run.status != "working" or time.monotonic() >= deadline:
            return run
        await asyncio.sleep(NO_JS_POLL_SECONDS)


@router.post("/widget/ask", response_class=HTMLResponse, include_in_schema=False)
async def widget_ask_form(
    request: Request,
    question: Annotated[str, Form()] = "",
    widget_token: Annotated[str | None, Form()] = None,
) -> HTMLResponse:
    """The form without JavaScript: the response is the run, after a short wait."""
    if await paused(request):
        return frame(request, is_paused=True)
    try:
        session = await widget_session(request, widget_token)
        run_id = await _ask(request, session, question)
        run = await _no_js_run(request, session, run_id, NO_JS_WAIT_SECONDS)
    except (WidgetRefused, WidgetSessionEnded) as exc:  # no form: the page offers a new start
        return frame(request, status=exc.status, error=str(exc))
    except WorkspaceError as exc:  # the question: the form again, to ask another
        return frame(request, token=widget_token or "", status=exc.status, error=str(exc))
    return frame(request, token=widget_token or "", run=run)


@router.post("/widget/runs/{run_id}", response_class=HTMLResponse, include_in_schema=False)
async def widget_run_form(
    request: Request, run_id: str, widget_token: Annotated[str | None, Form()] = None
) -> HTMLResponse:
    """ "Check again" without JavaScript: a form post, so the token stays out of the URL."""
    if await paused(request):
        return frame(request, is_paused=True)
    try:
        session = await widget_session(request, widget_token)
        run = await _view(request, session, run_id)
    except WorkspaceError as exc:
        return frame(request, status=exc.status, error=str(exc))
    return frame(request, token=widget_token or "", run=run)


# ---------------------------------------------------------------------- JSON


def _paused_json() -> JSONResponse:
    body = {"error": PAUSED, "paused": True, "status": "paused"}
    return JSONResponse(body, status_code=503, headers={**NO_STORE, "retry-after": "60"})


def _refused_json(exc: WorkspaceError) -> JSONResponse:
    return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=NO_STORE)


@router.post(
    "/widget/api/ask",
    status_code=202,
    tags=["widget"],
    summary="Ask from the widget",
    response_model=WidgetAsked,
    responses={503: {"description": "The widget is paused (`paused: true`)."}},
)
async def widget_api_ask(request: Request, body: WidgetAsk) -> Any:
    """Open a run for the widget's session (`X-Widget-Token`) and execute it in the
    background; read it at `/widget/api/runs/{run_id}`."""
    if await paused(request):
        return _paused_json()
    try:
        session = await widget_session(request, request.headers.get(TOKEN_HEADER))
        run_id = await _ask(request, session, body.question)
    except WorkspaceError as exc:
        return _refused_json(exc)
    return JSONResponse(WidgetAsked(run_id=run_id).model_dump(), 202, headers=NO_STORE)


@router.get(
    "/widget/api/runs/{run_id}",
    tags=["widget"],
    summary="A widget run, as readers may see it",
    response_model=WidgetRun,
    responses={503: {"description": "The widget is paused (`paused: true`)."}},
)
async def widget_api_run(request: Request, run_id: str) -> Any:
    """Published text and its sources, or only a message: outside coverage, with the
    standards desk, not published. Another session's run is a 404."""
    if await paused(request):
        return _paused_json()
    try:
        session = await widget_session(request, request.headers.get(TOKEN_HEADER))
        run = await _view(request, session, run_id)
    except WorkspaceError as exc:
        return _refused_json(exc)
    return JSONResponse(run.model_dump(), headers=NO_STORE)


# ---------------------------------------------------------------------- the embed script


@cache
def embed_script() -> bytes:
    return (HERE / "static" / "widget-embed.js").read_bytes()


@router.get("/widget.js", tags=["widget"], summary="The embed script")
async def widget_js() -> Response:
    """The one script a publisher includes: it puts the widget's frame after its tag."""
    return Response(
        embed_script(),
        media_type="application/javascript",
        headers={"cache-control": "public, max-age=3600"},
    )
