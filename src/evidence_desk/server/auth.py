"""Signing in and out: the only routes that change who a session belongs to.

Signing in checks the password (`desk/workspace/people.py`: Argon2id, rate-limited per name and
per client), ends the browser's current session and sets a new cookie, so a session id
planted before sign-in is worth nothing after it. Signing out revokes the session.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ..desk import SignInRequired, TooManyAttempts
from .context import Who, reader, set_session_cookie, workspace_of, writer
from .reader import page
from .security import local_path

router = APIRouter()


def client_key(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.get("/signin", response_class=HTMLResponse, include_in_schema=False)
async def signin_page(
    request: Request, who: Annotated[Who, Depends(reader)], next: str | None = None
) -> HTMLResponse:
    return page(request, "signin.html", who, next=local_path(next), error=None)


@router.post("/signin", include_in_schema=False)
async def signin(
    request: Request,
    who: Annotated[Who, Depends(writer)],
    name: Annotated[str, Form(max_length=64)],
    password: Annotated[str, Form(max_length=1024)],
    next: Annotated[str | None, Form()] = None,
) -> Response:
    people = workspace_of(request).people
    try:
        opened = await run_in_threadpool(
            lambda: people.sign_in(name, password, client_key(request), previous=who.token)
        )
    except (SignInRequired, TooManyAttempts) as exc:
        return page(request, "signin.html", who, exc.status, next=local_path(next), error=str(exc))
    set_session_cookie(request, opened.token)
    return RedirectResponse(local_path(next), status_code=303)


@router.post("/signout", include_in_schema=False)
async def signout(request: Request, who: Annotated[Who, Depends(writer)]) -> Response:
    await run_in_threadpool(workspace_of(request).people.sign_out, who.token)
    request.state.set_cookie = None
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie("evidence_session", path="/")
    response.delete_cookie("__Host-evidence_session", path="/", secure=True)
    return response
