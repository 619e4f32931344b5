"""Lessons and notes over HTTP: explain a published answer, read its lesson, keep notes.

A reader explains their own published answer with a form on its page (`POST
/runs/{id}/explain`, CSRF-checked like every unsafe request): the lesson's run opens, or
the saved one reopens, and the browser is sent to `/runs/{lesson}/lesson`. A lesson still
being written is executed by the app's run executor, like an asked question, and its page
follows the run's events as a run's page does (`static/console.js`; without JavaScript it
refreshes itself). Once finished, the page shows the lesson the review kept: its blocks with
their citations, the diagram (the one piece of markup not written by a template, drawn and
escaped by `teaching/svg.py`) beside the same relations as a list, each relation's evidence,
and the check question's answer behind "Show the answer"; or, withheld, why, and nothing of
it. Editors also see every review decision. What anyone may see is the workspace's
(`desk/workspace/lessons.py`); this module carries it.

Notes are a reader's own (`desk/workspace/notes.py`): on their answers and lessons, shown
to them alone, never sent to a model. The JSON API offers the same under `/api/`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..desk import LessonView, Note
from .context import Who, workspace_of
from .logs import RUN_ID
from .reader import Reader, Writer, page, stage_rows, to_json
from .security import local_path

router = APIRouter()
# A lesson run the executor should take: waiting, going, or left by a worker that died.
RESUMABLE = ("queued", "running", "interrupted")


class NoteBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        description="The note (at most 4,000 characters): kept for you alone, never sent to "
        "a model."
    )


class Explained(BaseModel):
    run_id: str = Field(description="The lesson's run (its explanation run).")
    answer_run_id: str
    url: str
    page: str
    events_url: str


def lesson_json(lesson: LessonView) -> dict[str, Any]:
    body: dict[str, Any] = to_json(lesson)
    body.update(
        live=lesson.live,
        links={
            "page": f"/runs/{lesson.run_id}/lesson",
            "answer": f"/api/runs/{lesson.answer_run_id}",
            "events": f"/runs/{lesson.run_id}/events",
            "notes": f"/api/runs/{lesson.run_id}/notes",
        },
    )
    return body


def to_notes(target: str | None, default: str) -> str:
    """Back to the notes of the page a note form was on: a path of this site only."""
    return local_path(target, default).split("#", 1)[0] + "#notes"


async def _explain(request: Request, who: Who, run_id: str) -> str:
    """Open (or reopen) the lesson of `run_id`, and have the executor take it if it waits."""
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    lesson_id: str = await run_in_threadpool(ws.explain, who.user, run_id)
    state = await run_in_threadpool(ws.state, who.user, lesson_id)
    executor = request.app.state.runs
    if state in RESUMABLE and lesson_id not in executor.futures:
        executor.submit(lesson_id)
    return lesson_id


# ---------------------------------------------------------------------- pages


@router.post("/runs/{run_id}/explain", include_in_schema=False)
async def explain_form(request: Request, run_id: str, who: Writer) -> Response:
    """The Explain button: to the lesson's page, opened or reopened."""
    lesson_id = await _explain(request, who, run_id)
    return RedirectResponse(f"/runs/{lesson_id}/lesson", status_code=303)


@router.get("/runs/{run_id}/lesson", response_class=HTMLResponse, include_in_schema=False)
async def lesson_page(request: Request, run_id: str, who: Reader) -> HTMLResponse:
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    lesson = await run_in_threadpool(ws.lesson, who.user, run_id)
    events = await run_in_threadpool(ws.events, who.user, lesson.run_id)
    margin = await run_in_threadpool(ws.margin, who.user, lesson.run_id)
    page_path = f"/runs/{lesson.run_id}/lesson"
    return page(
        request,
        "lesson.html",
        who,
        lesson=lesson,
        stages=stage_rows(events),
        live=lesson.live,
        page_path=page_path,
        margin=margin,
        back=page_path,
    )


@router.post("/runs/{run_id}/notes", include_in_schema=False)
async def note_form(
    request: Request,
    run_id: str,
    who: Writer,
    text: Annotated[str, Form()],
    next: Annotated[str | None, Form()] = None,
) -> Response:
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    await run_in_threadpool(ws.add_note, who.user, run_id, text)
    return RedirectResponse(to_notes(next, f"/runs/{run_id}"), status_code=303)


@router.post("/notes/{note_id}/delete", include_in_schema=False)
async def delete_note_form(
    request: Request, note_id: str, who: Writer, next: Annotated[str | None, Form()] = None
) -> Response:
    ws = workspace_of(request)
    await run_in_threadpool(ws.delete_note, who.user, note_id)
    return RedirectResponse(to_notes(next, "/"), status_code=303)


# ---------------------------------------------------------------------- JSON API


@router.post(
    "/api/runs/{run_id}/explain", status_code=202, tags=["reader"], summary="Explain an answer"
)
async def api_explain(request: Request, run_id: str, who: Writer) -> Explained:
    """Open the lesson of your published answer (or reopen its saved one: no new run, no
    model call) and execute it in the background; read it at `url` once it has finished."""
    lesson_id = await _explain(request, who, run_id)
    return Explained(
        run_id=lesson_id,
        answer_run_id=run_id,
        url=f"/api/runs/{lesson_id}/lesson",
        page=f"/runs/{lesson_id}/lesson",
        events_url=f"/runs/{lesson_id}/events",
    )


@router.get("/api/runs/{run_id}/lesson", tags=["reader"], summary="A lesson")
async def api_lesson(request: Request, run_id: str, who: Reader) -> dict[str, Any]:
    """The lesson run `run_id` (or an answer's saved lesson): its state and, once finished,
    its decision, reason, kept blocks and relations with their evidence, and the diagram as
    SVG; for editors every review decision too. A lesson changed after its review is
    withheld. Another reader's is a 404."""
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    return lesson_json(await run_in_threadpool(ws.lesson, who.user, run_id))


@router.get("/api/runs/{run_id}/notes", tags=["reader"], summary="Your notes on a run")
async def api_notes(request: Request, run_id: str, who: Reader) -> list[dict[str, Any]]:
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    return [to_json(n) for n in await run_in_threadpool(ws.notes, who.user, run_id)]


@router.post(
    "/api/runs/{run_id}/notes", status_code=201, tags=["reader"], summary="Add a note to a run"
)
async def api_add_note(
    request: Request, run_id: str, body: NoteBody, who: Writer
) -> dict[str, Any]:
    """Keep a note on your own answer or lesson: only you see it; no model is sent it."""
    ws = workspace_of(request)
    RUN_ID.set(run_id)
    note: Note = await run_in_threadpool(ws.add_note, who.user, run_id, body.text)
    kept: dict[str, Any] = to_json(note)
    return kept


@router.delete(
    "/api/notes/{note_id}", status_code=204, tags=["reader"], summary="Delete one of your notes"
)
async def api_delete_note(request: Request, note_id: str, who: Writer) -> Response:
    ws = workspace_of(request)
    await run_in_threadpool(ws.delete_note, who.user, note_id)
    return Response(status_code=204)
