"""What every command shares: the two consoles, the desk of the invocation, one way to fail."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from ..desk import Desk
from ..errors import DeskError

err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)


def desk_of(ctx: click.Context) -> Desk:
    desk: Desk = ctx.obj["desk"]
    return desk


def fail(message: str) -> None:
    err.print(f"[red]error:[/red] {escape(message)}")
    sys.exit(1)


class DeskGroup(click.Group):
    """Turns a `DeskError` from any command into one clear line and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DeskError as exc:
            fail(str(exc))
