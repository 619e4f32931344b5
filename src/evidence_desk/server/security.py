"""The web app's guard: sessions, CSRF, security headers, body limits, request logs.

* **Sessions.** An opaque random token in an HttpOnly, SameSite=Lax cookie, named with the
  `__Host-` prefix and marked Secure over HTTPS. A first visit to a page makes an anonymous
  reader and their session; signing in makes a new one (`desk/workspace/people.py`).
* **CSRF.** Every unsafe request (anything but GET, HEAD, OPTIONS) must carry the
  session's token, in the `X-CSRF-Token` header or a `csrf_token` form field, compared in
  constant time, and must not come from another site: `Sec-Fetch-Site`, when the browser
  sends it, is `same-origin` or `none`, and `Origin`, when sent, is the app's own. The
  widget's routes carry no cookie at all (a cross-site frame gets none): they authenticate
  by a token the widget holds in its page and sends in a header or form field, which no
  other site can read, so the same check applies to it.
* **Headers.** A strict Content-Security-Policy with no inline script (`script-src 'self'`),
  `frame-ancestors 'none'` everywhere but the widget's frame, no sniffing, no referrer
  across origins.
* **Bodies.** Larger than `MAX_BODY` is a 413 before the app reads it; the ask form sent as
  multipart (it carries attached files) may be `MAX_UPLOAD_BODY`, counted as it arrives too.
"""

from __future__ import annotations

import hmac
import json
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.exceptions import HTTPException

from ..desk import Session
from .logs import REQUEST_ID, RUN_ID, log

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY = 128 * 1024
MAX_UPLOAD_BODY = 24 * 1024 * 1024  # three attachments and the form around them
UPLOAD_PATHS = frozenset({"/ask"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
COOKIE = "evidence_session"
SECURE_COOKIE = "__Host-evidence_session"
WIDGET_PREFIXES = ("/widget",)

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors {ancestors}"
)


def cookie_name(scheme: str) -> str:
    return SECURE_COOKIE if scheme == "https" else COOKIE


def session_cookie(token: str, *, secure: bool, max_age: int) -> str:
    name = SECURE_COOKIE if secure else COOKIE
    parts = [f"{name}={token}", "Path=/", "HttpOnly", "SameSite=Lax", f"Max-Age={max_age}"]
    if secure:
        parts.append("Secure")
    return "; ".join(parts)


def local_path(target: str | None, default: str = "/desk") -> str:
    """Where a form may send the browser next: a path of this site only, never another
    origin (`//evil.example`, `/\\evil.example`, `https://...`)."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return default


def tokens_match(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def cross_site(headers: dict[str, str], own_origin: str) -> str | None:
    """Why an unsafe request looks cross-site, or None."""
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return f"it was sent from another site (Sec-Fetch-Site: {fetch_site})"
    origin = headers.get("origin")
    if origin is not None and origin.rstrip("/") != own_origin:
        return f"it was sent from {origin}, not {own_origin}"
    return None


def check_csrf(
    method: str,
    headers: dict[str, str],
    form_token: str | None,
    session: Session | None,
    own_origin: str,
) -> str | None:
    """Why an unsafe request is refused (a sentence), or None when it may go on."""
    if method in SAFE_METHODS:
        return None
    why = cross_site(headers, own_origin)
    if why is not None:
        return f"The request was refused because {why}."
    if session is None:
        return "The request was refused because your session has ended: reload the page."
    given = headers.get("x-csrf-token") or form_token
    if not tokens_match(given, session.csrf_token):
        return (
            "The request was refused because its CSRF token is missing or wrong: reload the page."
        )
    return None


def _json_error(status: int, message: str) -> tuple[dict[str, Any], bytes]:
    body = json.dumps({"error": message}).encode()
    start = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    return start, body


class Guard:
    """ASGI middleware: request ids and logs, body limits, security headers, cookies the
    app set on `scope["state"]["set_cookie"]`."""

    def __init__(self, app: ASGIApp, *, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})  # the app's `request.state`: the cookie to set
        request_id = uuid.uuid4().hex[:12]
        req_token = REQUEST_ID.set(request_id)
        run_token = RUN_ID.set(None)
        started = time.perf_counter()
        status_box = [0]
        path: str = scope.get("path", "")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            length = int(headers.get("content-length") or 0)
        except ValueError:
            length = 0
        uploading = path in UPLOAD_PATHS and headers.get("content-type", "").startswith(
            "multipart/form-data"
        )
        limit = max(self.max_body, MAX_UPLOAD_BODY) if uploading else self.max_body
        try:
            if length > limit:
                start, body = _json_error(413, f"The request body is larger than {_size(limit)}.")
                status_box[0] = 413
                await send(start)
                await send({"type": "http.response.body", "body": body})
                return
            await self.app(
                scope, self._limited(receive, limit), self._headers(scope, send, status_box)
            )
        finally:
            if not path.startswith("/static/"):
                log(
                    "request",
                    method=scope.get("method"),
                    path=path,
                    status=status_box[0],
                    ms=round((time.perf_counter() - started) * 1000, 2),
                )
            RUN_ID.reset(run_token)
            REQUEST_ID.reset(req_token)

    def _limited(self, receive: Receive, limit: int) -> Receive:
        seen = [0]

        async def limited() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                seen[0] += len(message.get("body", b""))
                if seen[0] > limit:
                    raise BodyTooLarge(limit)
            return message

        return limited

    def _headers(self, scope: Scope, send: Send, status_box: list[int]) -> Send:
        path: str = scope.get("path", "")
        framed = path.startswith(WIDGET_PREFIXES)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_box[0] = message["status"]
                extra = [
                    (
                        b"content-security-policy",
                        CSP.format(ancestors="*" if framed else "'none'").encode(),
                    ),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                    (b"cross-origin-opener-policy", b"same-origin"),
                    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
                ]
                if not framed:
                    extra.append((b"x-frame-options", b"DENY"))
                cookie = (scope.get("state") or {}).get("set_cookie")
                if cookie:
                    extra.append((b"set-cookie", cookie.encode("latin-1")))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        return with_headers


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


class BodyTooLarge(HTTPException):
    """A chunked body grew past the limit while it was read (the app answers 413). An
    `HTTPException`, because FastAPI re-raises those from its body reader and turns any
    other error there into a 400 ("There was an error parsing the body")."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"The request body is larger than {_size(limit)}.")

    def __str__(self) -> str:
        return str(self.detail)
