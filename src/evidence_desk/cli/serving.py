"""The web app from the terminal: `serve` (with the sample prepared in the background when
the archive is empty) and `users` (the people who sign in)."""

from __future__ import annotations

import signal
import sys
import threading
from typing import TextIO, cast

import click

from ..desk import Desk
from ..progress import StatusLine, follow
from .common import desk_of, err, out


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--sample",
    type=str,
    help="When the archive is empty, prepare this bundled sample archive (`sotu`) in the "
    "background: the workspace serves at once and shows the progress.",
)
@click.option(
    "--log-level",
    default="info",
    show_default=True,
    type=click.Choice(["debug", "info", "warning", "error"]),
)
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, sample: str | None, log_level: str) -> None:
    """Serve the workspace, the standards desk and the reader widget (JSON logs on stderr).

    With --sample and an empty archive it serves at once and prepares the sample in the
    background, its progress on the terminal and on every page. Ctrl-C (or SIGTERM) stops
    it: the preparation, if any, and its processes end, nothing half-stored stays, exit 0.
    """
    desk = desk_of(ctx)
    line = StatusLine(sys.stderr)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupted)
    try:
        _serve(desk, line, host, port, sample, log_level)
    except KeyboardInterrupt:
        pass
    finally:
        desk.stop_preparation()
        line.close()
    line.say("Stopped.")


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _serve(
    desk: Desk, line: StatusLine, host: str, port: int, sample: str | None, log_level: str
) -> None:
    import uvicorn

    from ..server import create_app
    from ..server.logs import configure

    preparation = desk.prepare_sample(sample) if sample and desk.needs_preparation() else None
    if preparation is None:
        desk.warm()  # a missing archive fails here, in one sentence, before anything listens
    stderr, sys.stderr = sys.stderr, cast(TextIO, line)
    try:
        configure(log_level)  # its log lines go through `line`, above the progress line
    finally:
        sys.stderr = stderr
    config = uvicorn.Config(
        create_app(desk, warm=False),
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        proxy_headers=False,
    )
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    following = threading.Event()
    follower: threading.Thread | None = None
    if preparation is None:
        line.say(f"Evidence Desk is serving {desk.settings.home} at {url}")
    else:
        line.say(f"Serving at {url} — preparing the {sample} sample archive in the background.")
        follower = threading.Thread(
            target=follow, args=(preparation.progress, line, following), daemon=True
        )
        follower.start()
    try:
        server.run()
    finally:
        following.set()
        if follower is not None:
            follower.join(5)  # its last line before whatever is said next


@click.group()
def users() -> None:
    """The people of the web app: editors sign in to the standards desk."""


def _password(from_stdin: bool) -> str:
    if from_stdin or not sys.stdin.isatty():
        line = sys.stdin.readline()
        return line.rstrip("\r\n")
    value: str = click.prompt("Password", hide_input=True, confirmation_prompt=True, err=True)
    return value


@users.command("add")
@click.argument("name")
@click.option("--editor", is_flag=True, help="May review held answers and pause the widget.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.pass_context
def users_add(ctx: click.Context, name: str, editor: bool, password_stdin: bool) -> None:
    """Add a person; the password is prompted for (or read from stdin) and stored as an
    Argon2id hash."""
    user = desk_of(ctx).workspace.people.add(name, _password(password_stdin), editor=editor)
    err.print(f"Added {user.role} {user.name}.")


@users.command("passwd")
@click.argument("name")
@click.option("--editor", is_flag=True, help="Make (or keep) the person an editor.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.pass_context
def users_passwd(ctx: click.Context, name: str, editor: bool, password_stdin: bool) -> None:
    """Give a person a new password (and role); every session of theirs ends."""
    user = desk_of(ctx).workspace.people.reset(name, _password(password_stdin), editor=editor)
    err.print(f"Changed the password of {user.role} {user.name}; their sessions ended.")


@users.command("list")
@click.pass_context
def users_list(ctx: click.Context) -> None:
    """The named people of this desk and their roles."""
    for user in desk_of(ctx).workspace.people.users():
        out.print(f"{user.name}\t{user.role}\t{user.created_at}")
