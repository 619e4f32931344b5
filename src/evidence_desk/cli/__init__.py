"""The command line: a thin layer over `Desk`.

Every command parses its arguments, calls one `Desk` method and prints the result. With
`--json`, stdout carries only the documented JSON (a receipt, one object per draft, or the
evaluation report); progress and messages go to stderr. A user error is one sentence on
stderr and exit status 1 (`common.py`).

One module per command group: `archive.py` (ingest, status, reembed), `asking.py` (ask,
check, eval), `explaining.py` (explain), `runs.py`, `sources.py` (fetch, sources),
`receipts.py`, `doctor.py` and
`serving.py` (serve, users). Like `server/`, it imports the application from
`evidence_desk.desk`'s face alone.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..desk import Desk
from ..settings import Settings
from . import archive, asking, doctor, explaining, receipts, runs, serving, sources
from .common import DeskGroup


@click.group(cls=DeskGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="EVIDENCE_DESK_HOME",
    help="Where the archive, indexes, key and receipts live (default ~/.evidence-desk; "
    "env EVIDENCE_DESK_HOME).",
)
@click.version_option(package_name="evidence-desk")
@click.pass_context
def main(ctx: click.Context, data_dir: Path | None) -> None:
    """Evidence Desk: answers only with what its sources say, and proves it."""
    settings = Settings(home=data_dir) if data_dir else Settings()
    ctx.obj = {"desk": Desk(settings)}


for command in (
    archive.ingest,
    archive.status,
    archive.reembed,
    asking.ask,
    asking.check,
    asking.eval_,
    explaining.explain,
    runs.runs,
    sources.fetch_cmd,
    sources.sources,
    receipts.receipt,
    doctor.doctor,
    serving.serve,
    serving.users,
):
    main.add_command(command)
