"""Structured logs: one JSON object per line, with the run id on every line about a run.

The run id lives in a context variable: the web layer sets it while it serves a request
about a run, and the run executor while it executes one, so every line logged underneath,
the desk's own included, carries it without being passed down.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import time
from typing import Any

RUN_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("run_id", default=None)
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)

LOGGER = "evidence_desk.server"


class JsonLines(logging.Formatter):
    """`{"at", "level", "logger", "message", "run_id", "request_id", ...extra}` per line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "run_id": RUN_ID.get(),
            "request_id": REQUEST_ID.get(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(level: str = "info") -> None:
    """Send the desk's and uvicorn's logs to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    for name in ("evidence_desk", "uvicorn", "uvicorn.error"):
        log = logging.getLogger(name)
        log.handlers[:] = [handler]
        log.setLevel(level.upper())
        log.propagate = False
    logging.getLogger("uvicorn.access").disabled = True  # the guard logs each request


def log(message: str, *, level: int = logging.INFO, **fields: Any) -> None:
    logging.getLogger(LOGGER).log(level, message, extra={"fields": fields})
