"""The workspace's refusals, each with the HTTP status the web app answers it with.

Every one is a `DeskError` whose message is one sentence a person can act on; the command
line prints it, the web app sends it with `status`.
"""

from __future__ import annotations

from ...errors import DeskError


def shown(value: str, limit: int = 64) -> str:
    """An id as a refusal repeats it: at most `limit` characters (ids come from requests)."""
    return value if len(value) <= limit else value[: limit - 1] + "…"


class WorkspaceError(DeskError, ValueError):
    """Bad input: a 400."""

    status = 400


class NotFound(WorkspaceError):
    """No such record, or one that belongs to someone else: both read the same, a 404."""

    status = 404


class SignInRequired(WorkspaceError):
    status = 401


class Forbidden(WorkspaceError):
    """Signed in, but not allowed (a reader on an editor's route)."""

    status = 403


class Conflict(WorkspaceError):
    """The record is not in a state that allows this (a held run already reviewed)."""

    status = 409


class TooLarge(WorkspaceError):
    status = 413


class TooManyAttempts(WorkspaceError):
    status = 429
