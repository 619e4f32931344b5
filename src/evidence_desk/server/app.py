"""The web app: one FastAPI application over one `Desk`.

`create_app(desk)` wires the guard (`security.py`), the routes of readers (`reader.py`),
their lessons and notes (`lessons.py`), editors (`editor.py`) and the widget (`widget.py`),
the templates and static files, and the run executor (`jobs.py`). The app talks only to the
desk and its workspace. Every refusal is one sentence: a JSON `{"error": ...}` for the API
(paths under `/api/`) and for anything that asked for JSON, a small page otherwise.

A desk still preparing its archive (`serve --sample` on an empty data directory,
`desk/preparing.py`) serves at once: every page shows the progress (`preparing.py`), a
question asked meanwhile is a 503 saying how long is left (its page keeps the question in
its form), and the runs interrupted before wait until the archive is ready.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from ..desk import ArchivePreparing, WorkspaceError, state_words
from ..errors import DeskError
from ..types import decision_words
from .context import current
from .jobs import RunExecutor
from .logs import log
from .preparing import shown
from .reader import ViewCache
from .security import BodyTooLarge, Guard

if TYPE_CHECKING:
    from ..desk import Desk

HERE = Path(__file__).parent
VERSION = "0.1.0"


def templates() -> Jinja2Templates:
    t = Jinja2Templates(directory=str(HERE / "templates"))
    t.env.autoescape = True
    t.env.trim_blocks = True
    t.env.lstrip_blocks = True
    # one vocabulary for decisions and states, the command line's too
    t.env.globals.update(decision_words=decision_words, state_words=state_words)
    return t


def wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return request.url.path.startswith("/api/") or (
        "application/json" in accept and "text/html" not in accept
    )


def refusal(request: Request, status: int, message: str) -> Response:
    if wants_json(request):
        return JSONResponse({"error": message}, status_code=status)
    page = request.app.state.templates.get_template("error.html").render(
        status=status, message=message, request=request
    )
    return HTMLResponse(page, status_code=status)


def _validation_sentence(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "The request is invalid."
    first = errors[0]
    kind = str(first.get("type", ""))
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "form")]
    where = ".".join(loc)
    if kind == "json_invalid":
        return "The request body is not valid JSON."
    if kind == "missing":
        return f"The field {where} is required." if where else "The request body is missing."
    if kind in ("model_attributes_type", "dict_type"):
        return "The request body must be a JSON object."
    message = str(first.get("msg", "is invalid")).rstrip(".")
    return f"The field {where}: {message}." if where else f"The request is invalid: {message}."


async def not_ready(request: Request, exc: ArchivePreparing) -> Response:
    """The 503 for a question asked before the archive is ready: the sentence with the time
    left, as JSON (with the progress) or as a page whose form keeps the question."""
    eta = exc.progress.eta if exc.progress is not None and exc.progress.eta else 30.0
    headers = {"retry-after": str(int(min(max(eta, 5.0), 300.0))), "cache-control": "no-store"}
    if wants_json(request):
        body = {
            "error": str(exc),
            "preparing": None if exc.progress is None else exc.progress.to_json(),
        }
        return JSONResponse(body, status_code=503, headers=headers)
    who = await current(request)
    page = request.app.state.templates.get_template("error.html").render(
        status=503,
        message=str(exc),
        request=request,
        who=who,
        csrf=who.csrf if who else "",
        asked=exc.question,
        asked_mode=exc.mode,
    )
    return HTMLResponse(page, status_code=503, headers=headers)


def install_errors(app: FastAPI) -> None:
    @app.exception_handler(ArchivePreparing)
    async def preparing(request: Request, exc: ArchivePreparing) -> Response:
        return await not_ready(request, exc)

    @app.exception_handler(WorkspaceError)
    async def workspace_error(request: Request, exc: WorkspaceError) -> Response:
        return refusal(request, exc.status, str(exc))

    @app.exception_handler(DeskError)
    async def desk_error(request: Request, exc: DeskError) -> Response:
        return refusal(request, 400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return refusal(request, 422, _validation_sentence(exc))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        messages = {
            404: "There is no such page.",
            405: "That method is not allowed here.",
        }
        detail = (
            exc.detail if isinstance(exc.detail, str) and exc.status_code not in messages else None
        )
        return refusal(
            request, exc.status_code, detail or messages.get(exc.status_code, "The request failed.")
        )

    @app.exception_handler(BodyTooLarge)
    async def too_large(request: Request, exc: BodyTooLarge) -> Response:
        return refusal(request, 413, str(exc))


def create_app(desk: Desk, *, run_threads: int = 2, warm: bool = True) -> FastAPI:
    """The web app over `desk`. When it starts, runs whose worker died resume, and with
    `warm` the desk's parts open first (`serve` warms the desk itself, before it listens)."""

    def resume() -> None:
        resumed = app.state.runs.resume_interrupted()
        if resumed:
            log("resumed interrupted runs", runs=resumed)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        preparation = desk.preparation
        if preparation is None:
            if warm:
                await run_in_threadpool(desk.warm)
            await run_in_threadpool(resume)
        else:  # it opens the desk's parts itself, as its last step
            preparation.when_ready(resume)
        log("serving", home=str(desk.settings.home), preparing=preparation is not None)
        yield
        await run_in_threadpool(desk.stop_preparation)
        app.state.runs.shutdown()

    app = FastAPI(
        title="Evidence Desk",
        version=VERSION,
        summary="Answers a reader's question only with what its sources say, and proves it.",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.desk = desk
    app.state.runs = RunExecutor(desk, run_threads)
    app.state.templates = templates()
    app.state.templates.env.globals["archive_preparing"] = lambda: shown(desk)
    app.state.views = ViewCache()
    install_errors(app)

    from . import auth, editor, lessons, preparing, reader, widget

    app.include_router(preparing.router)
    app.include_router(reader.router)
    app.include_router(lessons.router)
    app.include_router(auth.router)
    app.include_router(editor.router)
    app.include_router(widget.router)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        """The icon, for a browser that asks for it where no page names it (a JSON view)."""
        return Response(
            (HERE / "static" / "favicon.svg").read_bytes(),
            media_type="image/svg+xml",
            headers={"cache-control": "public, max-age=86400"},
        )

    @app.get("/healthz", tags=["operations"], summary="Health")
    async def health() -> dict[str, Any]:
        """`ok` when the archive opens; how many documents and runs executing."""
        documents = await run_in_threadpool(desk.document_count)
        return {"ok": True, "documents": documents, "executing": len(app.state.runs.futures)}

    @app.get("/api/docs", response_class=HTMLResponse, tags=["operations"], summary="API docs")
    async def api_docs(request: Request) -> HTMLResponse:
        """The JSON API's operations, from its OpenAPI document (served without any CDN)."""
        spec = app.openapi()
        operations = [
            {"method": method.upper(), "path": path, **op}
            for path, item in spec["paths"].items()
            for method, op in item.items()
        ]
        page = app.state.templates.get_template("api_docs.html").render(
            request=request, operations=operations, spec_json=json.dumps(spec, indent=2)
        )
        return HTMLResponse(page)

    app.add_middleware(Guard)
    return app
