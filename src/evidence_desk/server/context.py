"""Who is asking: the request's session, made on a first visit, and the CSRF check.

Routes take `Who` through FastAPI dependencies: `reader` for pages and reads (a first
visit gets an anonymous reader's session, its cookie set by the guard), `writer` for
unsafe requests (a live session and a valid CSRF token, from this site), `editor` for the
standards desk. Every store call runs in a worker thread: the event loop never waits on
SQLite or Argon2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from ..desk import Forbidden, Session, SignInRequired, User, WorkspaceError
from .security import check_csrf, cookie_name, session_cookie

if TYPE_CHECKING:
    from ..desk import Desk, Workspace


class CsrfRefused(WorkspaceError):
    status = 403


@dataclass(frozen=True)
class Who:
    session: Session
    token: str

    @property
    def user(self) -> User:
        return self.session.user

    @property
    def csrf(self) -> str:
        return self.session.csrf_token


def desk_of(request: Request) -> Desk:
    desk: Desk = request.app.state.desk
    return desk


def workspace_of(request: Request) -> Workspace:
    return desk_of(request).workspace


def own_origin(request: Request) -> str:
    configured = desk_of(request).settings.public_origin
    if configured:
        return configured.rstrip("/")
    host = request.headers.get("host", "")
    return f"{request.url.scheme}://{host}"


def set_session_cookie(request: Request, token: str) -> None:
    """Have the guard send this session's cookie with the response."""
    hours = desk_of(request).settings.session_hours
    secure = request.url.scheme == "https"
    request.state.set_cookie = session_cookie(token, secure=secure, max_age=int(hours * 3600))


async def current(request: Request) -> Who | None:
    token = request.cookies.get(cookie_name(request.url.scheme))
    if not token:
        return None
    people = workspace_of(request).people
    session = people.session(token)  # one indexed read: cheaper inline than in a thread
    return None if session is None else Who(session, token)


async def reader(request: Request) -> Who:
    """The request's session; a first visit (or an ended session) gets a new reader's."""
    who = await current(request)
    if who is not None:
        return who
    if request.method not in ("GET", "HEAD"):
        raise CsrfRefused(
            "The request was refused because your session has ended: reload the page."
        )
    opened = await run_in_threadpool(workspace_of(request).people.reader_session)
    set_session_cookie(request, opened.token)
    return Who(opened.session, opened.token)


async def form_token(request: Request) -> str | None:
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        return None
    form = await request.form()
    value: Any = form.get("csrf_token")
    return value if isinstance(value, str) else None


async def writer(request: Request) -> Who:
    """A session allowed to change something: live, with its CSRF token, from this site."""
    who = await current(request)
    why = check_csrf(
        request.method,
        {k.lower(): v for k, v in request.headers.items()},
        await form_token(request),
        who.session if who else None,
        own_origin(request),
    )
    if why is not None or who is None:
        raise CsrfRefused(why or "The request was refused: reload the page.")
    return who


async def editor(request: Request) -> Who:
    who = await current(request)
    if who is None:
        raise SignInRequired("Sign in to the standards desk first.")
    if not who.user.is_editor:
        raise Forbidden("Only an editor may open the standards desk.")
    return who


async def editor_writer(request: Request) -> Who:
    who = await writer(request)
    if not who.user.is_editor:
        raise Forbidden("Only an editor may do this.")
    return who
