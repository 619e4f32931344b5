"""The standards desk over HTTP: editors decide what becomes of the runs the gate held, watch
the desk's dashboard and pull the reader widget's kill switch.

The pages (`/desk...`) work without JavaScript: the queue of held runs, oldest first, each
with why it was held, and the widget's switch with its log; a run's review page, the
draft's sentences and their problems beside the sources' passages, with three forms
(approve, reject, edit) that answer with a redirect; a dashboard. `static/desk.js` only adds
`j`/`k` to move between the queue's runs. The JSON API (`/api/desk/...`) offers the same
operations. Every route refuses a reader (403) and a visitor with no session (401; on an
unsafe method the CSRF check answers first, with its 403): `context.editor` and
`context.editor_writer`. The decisions, and the rule that a run is decided once, are the
workspace's (`desk/workspace/review.py`); this module carries them over HTTP and nothing more.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..desk import Review, ReviewResult, SwitchFlip, User, Workspace, WorkspaceError, held_reasons
from .context import Who, editor, editor_writer, workspace_of
from .logs import RUN_ID
from .reader import page
from .security import local_path

router = APIRouter()
Editor = Annotated[Who, Depends(editor)]
EditorWriter = Annotated[Who, Depends(editor_writer)]
MAX_NOTE = 2000
MAX_SWITCH_REASON = 500
DECISIONS = ("AUTO_CLEARED", "PUBLISHED_AFTER_PRUNING", "HELD_FOR_REVIEW", "OUTSIDE_COVERAGE")
PAUSE = frozenset({"yes", "true", "on", "1"})
RESUME = frozenset({"no", "false", "off", "0"})


class ApproveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = Field("", max_length=MAX_NOTE, description="A note kept with the approval.")


class RejectBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(
        max_length=MAX_NOTE,
        description="Why the answer is not published (required): its reader is told, and the "
        "reason is kept.",
    )


class EditBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    draft: str = Field(
        description="The new draft, checked through the same checks, auditor and gate against "
        "the held run's own sources; published only if the gate publishes it."
    )
    note: str = Field("", max_length=MAX_NOTE, description="A note kept with the edit.")


class SwitchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    paused: bool = Field(description="True pauses the reader widget; false resumes it.")
    reason: str = Field(
        max_length=MAX_SWITCH_REASON, description="Why (required): kept in the switch's log."
    )


def plain(value: Any) -> Any:
    """`value` as JSON takes it: dataclasses as dicts and tuples as lists, all the way down."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _switch_value(value: str) -> bool:
    word = value.strip().lower()
    if word in PAUSE or word in RESUME:
        return word in PAUSE
    raise WorkspaceError("Say whether to pause the widget: paused is yes or no.")


async def _in_thread(request: Request, act: Callable[[Workspace], Any]) -> Any:
    """`act` on the request's workspace, in a worker thread (it reads and writes the store)."""
    ws = workspace_of(request)
    return await run_in_threadpool(act, ws)


async def _flip(request: Request, who: Who, paused: bool, reason: str) -> SwitchFlip:
    if not reason.strip():
        raise WorkspaceError("Say why the switch is flipped: the reason is kept in its log.")
    flip: SwitchFlip = await _in_thread(
        request, lambda ws: ws.flip_widget(who.user, paused, reason)
    )
    return flip


def last_held_edit(held: dict[str, Any]) -> dict[str, Any] | None:
    """The newest edit of a still-open run that the gate held: its draft and its problems."""
    reviews: list[Review] = held["reviews"]
    last = reviews[-1] if reviews else None
    if held["closed"] or last is None or last.action != "edited" or last.receipt_run_id:
        return None
    return {
        "review": last,
        "draft": str(last.outcome.get("draft", "")),
        "claims": held_reasons({"claims": last.outcome.get("claims", [])}),
    }


def per_day(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    """Decisions per day, newest first: each day's count of every decision and their total."""
    return [
        {
            "day": day,
            "decisions": {d: counts.get(d, 0) for d in DECISIONS},
            "total": sum(counts.values()),
        }
        for day, counts in dashboard["per_day"]
    ]


def _queue_view(ws: Workspace, user: User, reviewed: str | None) -> dict[str, Any]:
    """What the queue page shows; `reviewed`: the run just decided, with its last review."""
    done = None
    if reviewed:
        try:
            reviews = ws.held(user, reviewed)["reviews"]
            done = {"run_id": reviewed, "review": reviews[-1]} if reviews else None
        except WorkspaceError:
            done = None
    return {
        "queue": ws.queue(user),
        "paused": ws.widget_paused(),
        "flips": ws.widget_flips(user)[:10],
        "done": done,
    }


# ---------------------------------------------------------------------- pages


@router.get("/desk", response_class=HTMLResponse, include_in_schema=False)
async def queue_page(request: Request, who: Editor, reviewed: str | None = None) -> HTMLResponse:
    view = await _in_thread(request, lambda ws: _queue_view(ws, who.user, reviewed))
    return page(request, "desk_queue.html", who, **view)


@router.get("/desk/runs/{run_id}", response_class=HTMLResponse, include_in_schema=False)
async def review_page(request: Request, run_id: str, who: Editor) -> HTMLResponse:
    RUN_ID.set(run_id)
    held = await _in_thread(request, lambda ws: ws.held(who.user, run_id))
    edit = last_held_edit(held)
    draft = edit["draft"] if edit else str(held["receipt"].get("draft", ""))
    claims = [*held["claims"], *(edit["claims"] if edit else ())]
    cited = {v for c in claims for kind, v in c["segments"] if kind == "cite"}
    return page(
        request, "desk_review.html", who, held=held, last_edit=edit, draft=draft, cited=cited
    )


@router.get("/desk/dashboard", response_class=HTMLResponse, include_in_schema=False)
async def dashboard_page(request: Request, who: Editor) -> HTMLResponse:
    board = await _in_thread(request, lambda ws: ws.dashboard(who.user))
    return page(
        request, "desk_dashboard.html", who, board=board, days=per_day(board), decisions=DECISIONS
    )


@router.post("/desk/runs/{run_id}/approve", include_in_schema=False)
async def approve_form(
    request: Request,
    run_id: str,
    who: EditorWriter,
    note: Annotated[str, Form(max_length=MAX_NOTE)] = "",
) -> Response:
    RUN_ID.set(run_id)
    await _in_thread(request, lambda ws: ws.approve(who.user, run_id, note))
    return RedirectResponse(f"/desk?reviewed={run_id}", status_code=303)


@router.post("/desk/runs/{run_id}/reject", include_in_schema=False)
async def reject_form(
    request: Request,
    run_id: str,
    who: EditorWriter,
    reason: Annotated[str, Form(max_length=MAX_NOTE)] = "",
) -> Response:
    RUN_ID.set(run_id)
    await _in_thread(request, lambda ws: ws.reject(who.user, run_id, reason))
    return RedirectResponse(f"/desk?reviewed={run_id}", status_code=303)


@router.post("/desk/runs/{run_id}/edit", include_in_schema=False)
async def edit_form(
    request: Request,
    run_id: str,
    who: EditorWriter,
    draft: Annotated[str, Form()] = "",
    note: Annotated[str, Form(max_length=MAX_NOTE)] = "",
) -> Response:
    """Back to the review page: it shows the published edit, or why the gate still holds it."""
    RUN_ID.set(run_id)
    await _in_thread(request, lambda ws: ws.edit(who.user, run_id, draft, note))
    return RedirectResponse(f"/desk/runs/{run_id}", status_code=303)


@router.post("/desk/widget", include_in_schema=False)
async def switch_form(
    request: Request,
    who: EditorWriter,
    paused: Annotated[str, Form()],
    reason: Annotated[str, Form(max_length=MAX_SWITCH_REASON)] = "",
    next: Annotated[str | None, Form()] = None,
) -> Response:
    await _flip(request, who, _switch_value(paused), reason)
    return RedirectResponse(local_path(next), status_code=303)


# ---------------------------------------------------------------------- JSON API


@router.get("/api/desk/queue", tags=["editor"], summary="The held runs to review")
async def api_queue(request: Request, who: Editor) -> list[dict[str, Any]]:
    """Held runs no editor has decided yet, oldest first: each with the gate's reason and,
    sentence by sentence, its problems (which sentence, which quote, which check)."""
    queue = await _in_thread(request, lambda ws: ws.queue(who.user))
    return [plain(item) for item in queue]


@router.get("/api/desk/runs/{run_id}", tags=["editor"], summary="A held run for review")
async def api_held(request: Request, run_id: str, who: Editor) -> dict[str, Any]:
    """The held receipt and its hash, the claims and why they were held, the sources with
    their passages and quotes, and the run's reviews. A run that is not held is a 409."""
    RUN_ID.set(run_id)
    held = await _in_thread(request, lambda ws: ws.held(who.user, run_id))
    body: dict[str, Any] = plain(held)
    return body


def review_json(result: ReviewResult) -> dict[str, Any]:
    body: dict[str, Any] = plain(result)
    body["published"] = result.receipt is not None
    return body


@router.post("/api/desk/runs/{run_id}/approve", tags=["editor"], summary="Approve a held run")
async def api_approve(
    request: Request, run_id: str, body: ApproveBody, who: EditorWriter
) -> dict[str, Any]:
    """Publish the held draft as written, under the editor's name and time, in a new signed
    receipt (`<run_id>-r<n>`) that links the held one by its hash."""
    RUN_ID.set(run_id)
    result = await _in_thread(request, lambda ws: ws.approve(who.user, run_id, body.note))
    return review_json(result)


@router.post("/api/desk/runs/{run_id}/reject", tags=["editor"], summary="Reject a held run")
async def api_reject(
    request: Request, run_id: str, body: RejectBody, who: EditorWriter
) -> dict[str, Any]:
    """Publish nothing; the reason is kept and the run's reader is told."""
    RUN_ID.set(run_id)
    result = await _in_thread(request, lambda ws: ws.reject(who.user, run_id, body.reason))
    return review_json(result)


@router.post("/api/desk/runs/{run_id}/edit", tags=["editor"], summary="Edit and re-check a draft")
async def api_edit(
    request: Request, run_id: str, body: EditBody, who: EditorWriter
) -> dict[str, Any]:
    """Check a new draft through the same gate. If it publishes, a new signed receipt is
    sealed (`receipt`); if not, the review is kept with the gate's reason, `receipt` is null
    and the run stays in the queue."""
    RUN_ID.set(run_id)
    result = await _in_thread(request, lambda ws: ws.edit(who.user, run_id, body.draft, body.note))
    return review_json(result)


@router.get("/api/desk/dashboard", tags=["editor"], summary="The desk's dashboard")
async def api_dashboard(request: Request, who: Editor) -> dict[str, Any]:
    """Recent runs, runs by state, decisions per day, failures, spend, model calls and the
    recent reviews."""
    board = await _in_thread(request, lambda ws: ws.dashboard(who.user))
    body: dict[str, Any] = plain({**board, "per_day": per_day(board)})
    return body


@router.get("/api/desk/widget", tags=["editor"], summary="The widget's kill switch")
async def api_switch(request: Request, who: Editor) -> dict[str, Any]:
    """Whether the reader widget is paused, and the switch's recent flips, newest first."""
    state = await _in_thread(request, lambda ws: (ws.widget_paused(), ws.widget_flips(who.user)))
    return {"paused": state[0], "flips": plain(state[1])}


@router.post("/api/desk/widget", tags=["editor"], summary="Flip the widget's kill switch")
async def api_flip(request: Request, body: SwitchBody, who: EditorWriter) -> dict[str, Any]:
    """Pause (or resume) the reader widget at once: readers see a calm notice while the
    workspace, the queue and running jobs stay live. The flip is logged with the editor's
    name, the time and the reason."""
    flip = await _flip(request, who, body.paused, body.reason)
    return {"paused": flip.paused, "flip": plain(flip)}
