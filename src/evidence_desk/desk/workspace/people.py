"""Readers, editors and their sessions: passwords, sign-in with rate limits, session tokens.

Passwords are hashed with Argon2id (memory-hard; argon2-cffi's defaults, 64 MiB and 3
passes). A session token is 32 random bytes, URL-safe; only its SHA-256 is stored. Signing
in makes a new session (the cookie rotates) and ends the one the browser held. A failed
sign-in is counted under the name and under the client; past `sign_in_attempts` in the
window, further attempts are refused before any password is checked. A name that does not
exist costs the same hash as one that does, so timing does not tell names apart.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from functools import cached_property

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ...settings import Settings
from ...store.accounts import AccountExists, Accounts, Role, Session, SessionKind, User
from .errors import SignInRequired, TooManyAttempts, WorkspaceError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Opened:
    """A new session: the token for the cookie (never stored) and the session."""

    token: str
    session: Session


class People:
    """The people of one desk and their sessions."""

    def __init__(self, accounts: Accounts, settings: Settings) -> None:
        self.accounts = accounts
        self.settings = settings
        self.hasher = PasswordHasher()

    @cached_property
    def _dummy_hash(self) -> str:
        return self.hasher.hash(secrets.token_urlsafe(16))

    def add(self, name: str, password: str, *, editor: bool) -> User:
        """A named reader or editor; an existing name is refused."""
        if not NAME.fullmatch(name):
            raise WorkspaceError(
                "A name is 1 to 64 letters, digits, dots, dashes or underscores, starting with "
                "a letter or digit."
            )
        self._check_password(password)
        role: Role = "editor" if editor else "reader"
        try:
            return self.accounts.add_user(name, role, self.hasher.hash(password))
        except AccountExists as exc:
            raise WorkspaceError(
                f"{exc} Use `users passwd {name}` to change the password."
            ) from None

    def reset(self, name: str, password: str, *, editor: bool) -> User:
        """A new password (and role) for an existing person; their sessions end."""
        self._check_password(password)
        if self.accounts.user_by_name(name) is None:
            raise WorkspaceError(f"There is no person named {name!r} on this desk.")
        role: Role = "editor" if editor else "reader"
        return self.accounts.set_password(name, role, self.hasher.hash(password))

    @staticmethod
    def _check_password(password: str) -> None:
        if len(password) < MIN_PASSWORD:
            raise WorkspaceError(f"A password has at least {MIN_PASSWORD} characters.")
        if len(password) > MAX_PASSWORD:
            raise WorkspaceError(f"A password has at most {MAX_PASSWORD} characters.")

    def users(self) -> list[User]:
        return self.accounts.users()

    # ------------------------------------------------------------------ sessions

    def _open(self, user: User, kind: SessionKind = "cookie") -> Opened:
        token = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        ttl = self.settings.session_hours * 3600.0
        self.accounts.open_session(user.user_id, token_sha256(token), csrf, ttl, kind)
        session = self.accounts.session(token_sha256(token), kind)
        assert session is not None  # just written, in the future
        return Opened(token, session)

    def reader_session(self, kind: SessionKind = "cookie") -> Opened:
        """A new anonymous reader and their session: a browser's first visit (`cookie`), or
        a widget frame's page (`widget`)."""
        return self._open(self.accounts.add_user(None, "reader", None), kind)

    def session(self, token: str | None, kind: SessionKind = "cookie") -> Session | None:
        """The live session of `kind` a token names, if any: a widget's token is no cookie,
        and a cookie's is no widget token."""
        if not token or len(token) > 256:
            return None
        return self.accounts.session(token_sha256(token), kind)

    def sign_in(self, name: str, password: str, client: str, *, previous: str | None) -> Opened:
        """Check the password; a new session, and the `previous` token's session ended."""
        s = self.settings
        window = s.sign_in_window_minutes * 60.0
        keys = (f"name:{name.lower()}", f"client:{client}")
        if any(self.accounts.failures(k, window) >= s.sign_in_attempts for k in keys):
            raise TooManyAttempts(
                f"Too many failed sign-ins: try again in {s.sign_in_window_minutes:g} minutes."
            )
        found = self.accounts.user_by_name(name) if len(password) <= MAX_PASSWORD else None
        stored = found[1] if found else None
        ok = self._verify(stored or self._dummy_hash, password) and stored is not None
        for key in keys:
            self.accounts.record_attempt(key, ok)
        if not ok or found is None:
            raise SignInRequired("The name or the password is wrong.")
        if previous:
            self.sign_out(previous)
        return self._open(found[0])

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password[:MAX_PASSWORD])
        except (VerificationError, InvalidHashError):
            return False

    def sign_out(self, token: str) -> None:
        self.accounts.revoke_session(token_sha256(token))

    def sign_out_everywhere(self, user: User) -> int:
        return self.accounts.revoke_user_sessions(user.user_id)
