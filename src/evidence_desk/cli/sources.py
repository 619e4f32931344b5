"""Sources beyond the archive: `fetch` (one page through the fetch guard, read and
selected as a run would) and `sources show` (a stored snapshot, its record or its bytes)."""

from __future__ import annotations

import json
import sys

import click
from rich.markup import escape

from .common import desk_of, err, out


@click.command("fetch")
@click.argument("url")
@click.option("--question", help="Select the passages this question would get.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def fetch_cmd(ctx: click.Context, url: str, question: str | None, as_json: bool) -> None:
    """Read URL through the desk's safe fetch and reader, and print what would become a
    source (or the refusal and its reason). Nothing is stored."""
    report = desk_of(ctx).fetch_page(url, question)
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    elif report.refused is not None:
        err.print(f"[red]refused:[/red] {escape(report.refused)}")
    else:
        page = report.page
        out.print(f"[bold]{escape(str(page['title']))}[/bold]")
        for key in ("final_url", "site", "author", "date", "content_type", "retrieved_at"):
            if page.get(key):
                out.print(f"  {key:<13} {escape(str(page[key]))}")
        for hop in page["redirects"]:
            out.print(f"  redirected   {escape(hop)}")
        out.print(f"  body sha256  {page['body_sha256']} ({page['bytes']} bytes)")
        out.print(f"  text sha256  {page['content_sha256']} ({page['text_chars']} characters)")
        out.print(f"\nPassages ({len(report.passages)}):")
        for p in report.passages:
            out.print(f"  [{p['id']}] {p['start']}-{p['end']} score {p['score']:.3f}")
            out.print(f"      {escape(p['text'])}")
    if report.refused is not None:
        sys.exit(1)


@click.group()
def sources() -> None:
    """Web pages and attached files runs have read, as stored snapshots."""


@sources.command("show")
@click.argument("source_id")
@click.option("--raw", is_flag=True, help="Write the stored bytes exactly as they were read.")
@click.option("--json", "as_json", is_flag=True, help="Print the snapshot's record as JSON.")
@click.pass_context
def sources_show(ctx: click.Context, source_id: str, raw: bool, as_json: bool) -> None:
    """Re-open SOURCE_ID (a receipt source's doc_id: web-… or upload-…) as it was read."""
    snap = desk_of(ctx).web.snapshot(source_id)
    if raw:
        sys.stdout.buffer.write(snap.body)
        return
    doc = snap.document
    record = {
        "snapshot_id": snap.snapshot_id,
        "url": snap.url,
        "final_url": snap.final_url,
        "origin": snap.origin,
        "content_type": snap.content_type,
        "retrieved_at": snap.retrieved_at,
        "body_sha256": snap.body_sha256,
        "fetch": snap.fetch,
        "title": doc.title if doc else None,
        "date": doc.date if doc else None,
        "content_sha256": doc.content_sha256 if doc else None,
        "text": doc.text if doc else None,
    }
    if as_json:
        click.echo(json.dumps(record, ensure_ascii=False, indent=2))
        return
    for key in ("snapshot_id", "title", "url", "final_url", "date", "retrieved_at"):
        if record[key]:
            out.print(f"{key:<13} {escape(str(record[key]))}")
    out.print(f"{'body sha256':<13} {snap.body_sha256} ({len(snap.body)} bytes)")
    if doc is None:
        out.print("\nThe page was stored but could not be read.")
        return
    out.print(f"{'text sha256':<13} {doc.content_sha256}\n")
    out.print(escape(doc.text))
