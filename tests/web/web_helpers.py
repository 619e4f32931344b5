"""What the web tests share: the questions, the planted page, and `WebUser`, one browser on
the app. Their fixtures are in `conftest.py`."""

from __future__ import annotations

import re
import time
from typing import Any

from fastapi import FastAPI
from starlette.testclient import TestClient

from evidence_desk.testing.archives import HELD_QUESTION as HELD_QUESTION
from evidence_desk.testing.archives import PLANTED as PLANTED
from evidence_desk.testing.archives import QUESTION as QUESTION

OUTSIDE_QUESTION = "What did the president say about the internet in 1795?"
PASSWORD = "correct horse battery staple"
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
FINISHED = ("published", "held", "outside", "cancelled", "interrupted")


WIDGET_TOKEN = re.compile(r'data-widget-token="([^"]+)"')
OWN = {"origin": "http://testserver", "sec-fetch-site": "same-origin"}
JSON = {"accept": "application/json"}
DRAFT = "lighthouse tax was raised"
FINAL = ("published", "outside", "rejected", "stopped")


class Widget:
    """One embedded widget: a browser frame with no cookies, holding its page's token."""

    def __init__(self, app: FastAPI) -> None:
        self.client = TestClient(app, follow_redirects=False)
        page = self.client.get("/widget")
        assert page.status_code == 200, page.text
        assert "set-cookie" not in page.headers
        self.client.cookies.clear()  # a cross-site frame gets none: the token is all it has
        m = WIDGET_TOKEN.search(page.text)
        assert m, "the frame page carries no widget token"
        self.token = m.group(1)

    def headers(self, **extra: str) -> dict[str, str]:
        return {**OWN, **JSON, "x-widget-token": self.token, **extra}

    def ask(self, question: str = QUESTION) -> str:
        r = self.client.post("/widget/api/ask", json={"question": question}, headers=self.headers())
        assert r.status_code == 202, r.text
        run_id: str = r.json()["run_id"]
        return run_id

    def run(self, run_id: str, **headers: str) -> Any:
        return self.client.get(f"/widget/api/runs/{run_id}", headers=self.headers(**headers))

    def wait(self, run_id: str, until: tuple[str, ...] = (*FINAL, "held")) -> dict[str, Any]:
        deadline = time.monotonic() + 60
        while True:
            r = self.run(run_id)
            assert r.status_code == 200, r.text
            body: dict[str, Any] = r.json()
            if body["status"] in until:
                return body
            assert time.monotonic() < deadline, f"widget run {run_id} still {body['status']}"
            time.sleep(0.02)

    def form(self, path: str, data: dict[str, str], **headers: str) -> Any:
        return self.client.post(
            path, data={"widget_token": self.token, **data}, headers={**OWN, **headers}
        )


class WebUser:
    """One browser on the app: its cookies, its CSRF token, and the calls tests make."""

    def __init__(self, app: FastAPI) -> None:
        self.client = TestClient(app, follow_redirects=False)
        self.csrf = ""
        self.refresh()

    def refresh(self) -> str:
        """Load the workspace (a session on first visit) and read the page's CSRF token."""
        r = self.client.get("/")
        assert r.status_code == 200, r.text
        m = CSRF.search(r.text)
        assert m, "the workspace page carries no CSRF token"
        self.csrf = m.group(1)
        return self.csrf

    def get(self, path: str, **kw: Any) -> Any:
        return self.client.get(path, **kw)

    def post_json(self, path: str, body: Any, **kw: Any) -> Any:
        headers = {"x-csrf-token": self.csrf, **kw.pop("headers", {})}
        return self.client.post(path, json=body, headers=headers, **kw)

    def post_form(self, path: str, data: dict[str, str], **kw: Any) -> Any:
        return self.client.post(path, data={"csrf_token": self.csrf, **data}, **kw)

    def ask(self, question: str = QUESTION, **fields: Any) -> str:
        r = self.post_json("/api/ask", {"question": question, **fields})
        assert r.status_code == 202, r.text
        run_id: str = r.json()["run_id"]
        return run_id

    def wait(self, run_id: str, timeout: float = 60.0) -> dict[str, Any]:
        """The run as `/api/runs/{id}` shows it once it has finished."""
        deadline = time.monotonic() + timeout
        while True:
            r = self.get(f"/api/runs/{run_id}")
            assert r.status_code == 200, r.text
            body: dict[str, Any] = r.json()
            if body["state"] in FINISHED:
                return body
            assert time.monotonic() < deadline, f"run {run_id} still {body['state']}"
            time.sleep(0.02)

    def sign_in(self, name: str, password: str = PASSWORD) -> Any:
        r = self.post_form("/signin", {"name": name, "password": password})
        if r.status_code == 303:
            self.refresh()
        return r
