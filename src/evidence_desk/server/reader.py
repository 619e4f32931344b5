"""The readers' workspace: ask, watch the run, read the answer and its sources, keep threads.

Pages work without JavaScript: asking is a form that redirects to the run's page, which
shows the stored stages and, once the run has one, the answer with its citations; a run
still going refreshes itself. With JavaScript the page follows the run's server-sent events
(`/runs/{id}/events`), replayed from the stored events after a reload or a dropped
connection (`Last-Event-ID`). The JSON API under `/api/` offers the same records.
Beside a run, its reader's margin (`margin_html`): the Explain button of a published answer
and the reader's own notes, rendered for each request into a kept page (their routes are
`lessons.py`'s).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Header, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..desk import OwnedRun, RunPage, StoredEvent, Workspace
from .context import Who, reader, workspace_of, writer
from .logs import RUN_ID

router = APIRouter()
Reader = Annotated[Who, Depends(reader)]
Writer = Annotated[Who, Depends(writer)]
LIVE = ("queued", "running")
POLL_SECONDS = 0.05
KEEPALIVE_SECONDS = 15.0


class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The reader's question.")
    mode: Literal["quick", "deep"] = Field("quick", description="Quick (default) or Deep.")
    conversation_id: str | None = Field(
        None, description="Ask in this conversation of yours (a follow-up); none: a new one."
    )


class Asked(BaseModel):
    run_id: str
    conversation_id: str | None
    url: str
    events_url: str


class ViewCache:
    """Finished runs' JSON, newest used kept, at most `size`: a finished run changes only
    when it is reviewed, and its key says how many reviews it had."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    def get(self, key: tuple[str, str]) -> bytes | None:
        body = self._items.get(key)
        if body is not None:
            self._items.move_to_end(key)
        return body

    def put(self, key: tuple[str, str], body: bytes) -> None:
        self._items[key] = body
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


CSRF_SLOT = "\x00csrf\x00"  # where a cached page gets the reader's own token
MARGIN_SLOT = "\x00margin\x00"  # where it gets the reader's margin (notes, the lesson)


def render(request: Request, name: str, who: Who | None, csrf: str, **context: Any) -> str:
    templates = request.app.state.templates
    html: str = templates.get_template(name).render(
        request=request, who=who, csrf=csrf, setup=workspace_of(request).setup(), **context
    )
    return html


def page(
    request: Request, name: str, who: Who | None, status: int = 200, **context: Any
) -> HTMLResponse:
    html = render(request, name, who, who.csrf if who else "", **context)
    return HTMLResponse(html, status_code=status)


async def margin_html(request: Request, who: Who, run_id: str, back: str) -> str:
    """The margin of a run's page for `who` (`_margin.html`): the Explain button of a
    published answer, and their own notes with their forms; `back`: the page's path."""
    ws = workspace_of(request)
    margin = await run_in_threadpool(ws.margin, who.user, run_id)
    return render(request, "_margin.html", who, who.csrf, margin=margin, back=back)


def to_json(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: to_json(v) for k, v in dataclasses.asdict(value).items()}
    return value


def run_json(run: RunPage) -> dict[str, Any]:
    body: dict[str, Any] = to_json(run)
    body["links"] = {
        "page": f"/runs/{run.run_id}",
        "events": f"/runs/{run.run_id}/events",
        "receipts": [
            f"/runs/{run.run_id}/receipts/{r}" for r in (run.answer.receipts if run.answer else ())
        ],
    }
    return body


async def _ask(
    request: Request,
    who: Who,
    question: str,
    mode: str,
    conv: str | None,
    files: Sequence[tuple[str, bytes]] = (),
) -> OwnedRun:
    ws = workspace_of(request)
    owned = await run_in_threadpool(
        lambda: ws.ask(who.user, question, mode=mode, conv_id=conv or None, files=files)
    )
    RUN_ID.set(owned.run_id)
    request.app.state.runs.submit(owned.run_id)
    return owned


# ---------------------------------------------------------------------- pages


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def home(request: Request, who: Reader) -> HTMLResponse:
    ws = workspace_of(request)
    conversations = await run_in_threadpool(ws.conversations, who.user)
    return page(request, "workspace.html", who, conversations=conversations)


@router.post("/ask", include_in_schema=False)
async def ask_form(
    request: Request,
    who: Writer,
    question: Annotated[str, Form()],
    mode: Annotated[str, Form()] = "quick",
    conversation_id: Annotated[str | None, Form()] = None,
    files: Annotated[list[UploadFile] | None, File()] = None,
) -> Response:
    """The ask form; its files (optional) are attached to this question alone."""
    attached = [(f.filename or "", await f.read()) for f in files or () if f.filename]
    owned = await _ask(request, who, question, mode, conversation_id, attached)
    return RedirectResponse(f"/runs/{owned.run_id}", status_code=303)


@router.get("/runs/{run_id}", response_class=HTMLResponse, include_in_schema=False)
async def run_page(request: Request, run_id: str, who: Reader) -> HTMLResponse:
    """A finished run's page is kept like its JSON, per way the navigation reads (editor or
    not, signed-in name), with a placeholder where each reader's CSRF token goes."""
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    key = ws.view_key(who.user, run_id)
    cache: ViewCache = request.app.state.views
    slot = (run_id, f"page|{key}|{who.user.is_editor}|{who.user.name}")
    body = cache.get(slot) if key else None
    if body is None:
        run = await run_in_threadpool(ws.run_page, who.user, run_id)
        events = await run_in_threadpool(ws.events, who.user, run_id)
        conv = None
        if run.conv_id:
            conv = await run_in_threadpool(ws.conversation, who.user, run.conv_id)
        html = render(
            request,
            "run.html",
            who,
            CSRF_SLOT,
            run=run,
            stages=stage_rows(events),
            live=run.state in LIVE,
            conversation=conv,
            followup_hint=await run_in_threadpool(ws.followup_hint, conv),
            margin=MARGIN_SLOT,
        )
        body = html.encode()
        if key:
            cache.put(slot, body)
    margin = await margin_html(request, who, run_id, f"/runs/{run_id}")
    body = body.replace(CSRF_SLOT.encode(), who.csrf.encode())
    return HTMLResponse(body.replace(MARGIN_SLOT.encode(), margin.encode()))


@router.get(
    "/runs/{run_id}/sources/{source_id}", response_class=HTMLResponse, include_in_schema=False
)
async def source_page(request: Request, run_id: str, source_id: str, who: Reader) -> HTMLResponse:
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    source = await run_in_threadpool(ws.source, who.user, run_id, source_id)
    run = await run_in_threadpool(ws.run_page, who.user, run_id)
    return page(request, "source.html", who, source=source, run=run)


@router.get("/conversations/{conv_id}", response_class=HTMLResponse, include_in_schema=False)
async def thread_page(request: Request, conv_id: str, who: Reader) -> HTMLResponse:
    ws = workspace_of(request)
    thread = await run_in_threadpool(ws.thread, who.user, conv_id)
    hint = await run_in_threadpool(ws.followup_hint, thread.conversation)
    return page(request, "thread.html", who, thread=thread, followup_hint=hint)


@router.get("/runs/{run_id}/receipts/{receipt_id}", tags=["reader"], summary="Download a receipt")
async def receipt(request: Request, run_id: str, receipt_id: str, who: Reader) -> Response:
    """The signed receipt as a JSON attachment: the run's own, or a review receipt of it."""
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    text = await run_in_threadpool(ws.receipt_for, who.user, run_id, receipt_id)
    return Response(
        text + "\n",
        media_type="application/json",
        headers={"content-disposition": f'attachment; filename="{receipt_id}.json"'},
    )


# ---------------------------------------------------------------------- events


def stage_rows(events: list[StoredEvent]) -> list[dict[str, Any]]:
    """Each stage once, in order: started, and ended with its latency, calls and tokens."""
    rows: dict[str, dict[str, Any]] = {}
    for e in events:
        if e.stage is None or e.kind not in ("stage_started", "stage_ended"):
            continue
        row = rows.setdefault(e.stage, {"stage": e.stage, "state": "running"})
        if e.kind == "stage_ended":
            row.update(
                state="done",
                **{
                    k: e.data.get(k)
                    for k in (
                        "latency_ms",
                        "calls",
                        "input_tokens",
                        "output_tokens",
                        "estimated_spend_usd",
                    )
                },
            )
    return list(rows.values())


def sse(event: StoredEvent) -> str:
    data = {
        "seq": event.seq,
        "at": event.at,
        "kind": event.kind,
        "stage": event.stage,
        **event.data,
    }
    return f"id: {event.seq}\nevent: {event.kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def event_stream(ws: Workspace, who: Who, run_id: str, after: int) -> AsyncIterator[str]:
    yield "retry: 1000\n\n"
    quiet = 0.0
    while True:
        events = await run_in_threadpool(ws.events, who.user, run_id, after)
        for e in events:
            yield sse(e)
            after = e.seq
        if events:
            quiet = 0.0
            continue
        state = await run_in_threadpool(ws.state, who.user, run_id)
        if state not in LIVE:  # its last events may have been stored since the read above
            for e in await run_in_threadpool(ws.events, who.user, run_id, after):
                yield sse(e)
            yield f"event: end\ndata: {json.dumps({'state': state})}\n\n"
            return
        await asyncio.sleep(POLL_SECONDS)
        quiet += POLL_SECONDS
        if quiet >= KEEPALIVE_SECONDS:
            quiet = 0.0
            yield ": keepalive\n\n"


@router.get("/runs/{run_id}/events", tags=["reader"], summary="Follow a run's events (SSE)")
async def events(
    request: Request,
    run_id: str,
    who: Reader,
    last_event_id: Annotated[str | None, Header()] = None,
    after: int = 0,
) -> StreamingResponse:
    """Server-sent events: every stored event of the run after `Last-Event-ID` (or `after`),
    then new ones as they are stored, then `end` with the run's state."""
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    await run_in_threadpool(ws.state, who.user, run_id)  # 404 before the stream starts
    start = int(last_event_id) if last_event_id and last_event_id.isdigit() else max(after, 0)
    return StreamingResponse(
        event_stream(ws, who, run_id, start),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


# ---------------------------------------------------------------------- JSON API


@router.post("/api/ask", status_code=202, tags=["reader"], summary="Ask a question")
async def api_ask(request: Request, body: AskBody, who: Writer) -> Asked:
    """Open a run now and execute it in the background; follow it at `events_url`."""
    owned = await _ask(request, who, body.question, body.mode, body.conversation_id)
    return Asked(
        run_id=owned.run_id,
        conversation_id=owned.conv_id,
        url=f"/api/runs/{owned.run_id}",
        events_url=f"/runs/{owned.run_id}/events",
    )


@router.get("/api/runs/{run_id}", tags=["reader"], summary="A run and its answer")
async def api_run(request: Request, run_id: str, who: Reader) -> Response:
    """The run's state and, once it has one, its decision, reason, published answer with its
    sentences' citations, and its sources. Another reader's run is a 404.

    A finished run's JSON is kept (`ViewCache`) under what it depends on, its status and its
    number of reviews: read again, it costs the one query that checks its owner."""
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    key = ws.view_key(who.user, run_id)  # one indexed read: cheaper inline than in a thread
    cache: ViewCache = request.app.state.views
    body = cache.get((run_id, key)) if key else None
    if body is None:
        page = await run_in_threadpool(ws.run_page, who.user, run_id)
        body = json.dumps(run_json(page), ensure_ascii=False).encode()
        if key:
            cache.put((run_id, key), body)
    return Response(body, media_type="application/json")


@router.get("/api/runs/{run_id}/events", tags=["reader"], summary="A run's stored events")
async def api_events(
    request: Request, run_id: str, who: Reader, after: int = 0
) -> list[dict[str, Any]]:
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    stored = await run_in_threadpool(ws.events, who.user, run_id, max(after, 0))
    return [dataclasses.asdict(e) for e in stored]


@router.get("/api/runs/{run_id}/sources/{source_id}", tags=["reader"], summary="One source")
async def api_source(request: Request, run_id: str, source_id: str, who: Reader) -> dict[str, Any]:
    """A source's card, numbered passages split at the quotes, and the quotes' offsets."""
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    body: dict[str, Any] = to_json(await run_in_threadpool(ws.source, who.user, run_id, source_id))
    return body


@router.get("/api/conversations", tags=["reader"], summary="Your conversations")
async def api_conversations(request: Request, who: Reader) -> list[dict[str, Any]]:
    ws = workspace_of(request)
    return [to_json(c) for c in await run_in_threadpool(ws.conversations, who.user)]


@router.get("/api/conversations/{conv_id}", tags=["reader"], summary="One conversation")
async def api_thread(request: Request, conv_id: str, who: Reader) -> dict[str, Any]:
    ws = workspace_of(request)
    thread = await run_in_threadpool(ws.thread, who.user, conv_id)
    return {
        "conversation": to_json(thread.conversation),
        "runs": [run_json(r) for r in thread.runs],
        "lessons": {
            answer: f"/api/runs/{lesson}/lesson" for answer, lesson in thread.lessons.items()
        },
    }


@router.get("/api/setup", tags=["reader"], summary="Which engines run, what leaves the machine")
async def api_setup(request: Request) -> dict[str, Any]:
    return workspace_of(request).setup()
