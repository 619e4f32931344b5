"""The archive's commands: `ingest` (files, folders or the bundled sample), `status`,
and `reembed` with the embedder the settings name."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from ..desk import Estimate, publisher_name
from .common import desk_of, err, fail, out


def _notice(sentence: str) -> None:
    err.print(escape(sentence))


def _print_estimate(estimate: Estimate | None) -> None:
    if estimate is not None:
        err.print(escape(estimate.sentence()))


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--sample", type=str, help="Ingest a bundled sample archive (`sotu`).")
@click.option(
    "--publisher",
    help="Who published these documents (`Digital.gov`): kept as each one's publisher unless "
    "its own metadata names one, so an answer may say `Digital.gov reported that ...`.",
)
@click.pass_context
def ingest(
    ctx: click.Context, paths: tuple[Path, ...], sample: str | None, publisher: str | None
) -> None:
    """Build or update the archive from files and folders (text, markdown, HTML, PDF, JSONL)."""
    from ..progress import IngestProgressBar

    if bool(paths) == bool(sample):
        fail("Give either PATH... or --sample NAME.")
    if sample and publisher is not None:
        fail("--publisher is for PATH...: a bundled sample names its own speakers.")
    if publisher is not None:
        publisher_name(publisher)  # refuses a bad name before any work
    desk = desk_of(ctx)
    for p in paths:
        if not p.exists():
            fail(f"{p} does not exist.")
    desk.prepare_embedder(_notice)
    if sample:
        _print_estimate(desk.ingest_estimate(sample))
    else:
        _print_estimate(desk.ingest_estimate_paths(list(paths)))
    with IngestProgressBar(err) as bar:
        summary = (
            desk.ingest_sample(sample, progress=bar.update)
            if sample
            else desk.ingest(list(paths), progress=bar.update, publisher=publisher)
        )
    for where, reason in summary.skipped:
        err.print(f"[yellow]skipped[/yellow] {escape(where)}: {escape(reason)}")
    extra = [
        f"{label} {count}"
        for label, count in (
            ("re-extracted", summary.reextracted),
            ("re-chunked", summary.rechunked),
            ("metadata updated", summary.updated),
        )
        if count
    ]
    err.print(
        f"Added {summary.added}, replaced {summary.replaced}, unchanged {summary.unchanged}"
        f"{''.join(', ' + part for part in extra)}, skipped {len(summary.skipped)}. "
        f"Archive: {desk.settings.home}"
    )
    if summary.documents == 0:
        err.print("[red]error:[/red] nothing was ingested.")
        sys.exit(1)


@click.command()
@click.option("--yes", is_flag=True, help="Do not ask before a long re-embed.")
@click.pass_context
def reembed(ctx: click.Context, yes: bool) -> None:
    """Re-embed every passage with the embedder the settings name (EVIDENCE_DESK_EMBEDDER).

    All new vectors are stored in one transaction with the new embedder's record; stopped or
    failed, the archive keeps all of its old vectors and its old embedder.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    desk = desk_of(ctx)
    if desk.passage_count() == 0:
        fail("The archive has no passages to re-embed.")
    desk.prepare_embedder(_notice, reembed=True)
    estimate = desk.reembed_estimate()
    _print_estimate(estimate)
    if estimate is not None and not yes and sys.stdin.isatty():
        click.confirm("Re-embed now?", abort=True, err=True)
    with Progress(
        TextColumn("{task.description:>10}"),
        BarColumn(),
        TextColumn("{task.completed:>9,}/{task.total:<9,}"),
        TimeRemainingColumn(),
        console=err,
        disable=not err.is_terminal,
    ) as bar:
        task = bar.add_task("embedded", total=None)
        summary = desk.reembed(lambda n, total: bar.update(task, completed=n, total=total))
    out.print(
        f"Re-embedded {summary.passages:,} passages ({summary.before} -> {summary.after}): "
        f"{summary.texts_embedded:,} texts embedded, {summary.texts_cached:,} from the cache, "
        f"in {summary.seconds:.0f} s."
    )


@click.command()
@click.pass_context
def status(ctx: click.Context) -> None:
    """Show what the archive holds and where it lives."""
    for key, value in desk_of(ctx).status().items():
        out.print(f"{key:>18}: {value}")
