"""Runs as records: `runs list`, `show`, `events` (with `--follow`), `resume` and
`cancel`."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.markup import escape

from ..desk import DISPLAY_STATES
from ..types import Decision, decision_words
from .asking import print_result
from .common import desk_of, out


@click.group()
def runs() -> None:
    """Runs as stored records: list, show, follow, resume and cancel them."""


@runs.command("list")
@click.option(
    "--state",
    type=click.Choice(DISPLAY_STATES),
    help="Only runs in this state (interrupted: its worker died; `runs resume` continues it).",
)
@click.option("--limit", default=50, show_default=True, help="Newest runs shown.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per run, one per line.")
@click.pass_context
def runs_list(ctx: click.Context, state: str | None, limit: int, as_json: bool) -> None:
    """The newest runs first, with their state and question."""
    for r in desk_of(ctx).runs(state, limit):
        if as_json:
            click.echo(json.dumps(r.to_json(), ensure_ascii=False, separators=(",", ":")))
        else:
            where = decision_words(r.decision) or (f"next: {r.next_stage}" if r.next_stage else "")
            out.print(f"{r.run_id}  {r.state:<11} {escape(where):<24} {escape(r.question[:70])}")


@runs.command("show")
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print the run record as JSON.")
@click.pass_context
def runs_show(ctx: click.Context, run_id: str, as_json: bool) -> None:
    """One run: its state, each finished stage with latency, calls, tokens and spend."""
    record = desk_of(ctx).run_record(run_id)
    if as_json:
        click.echo(json.dumps(record, ensure_ascii=False, indent=2))
        return
    out.print(f"[bold]{record['run_id']}[/] — {record['state']}")
    out.print(f"  question: {escape(record['question'])}")
    out.print(f"  mode: {record['mode']}; created {record['created_at']}")
    if record["next_stage"]:
        out.print(f"  next stage: {record['next_stage']}")
    if record["outcome"]:
        out.print(
            f"  decision: {Decision(record['outcome']['decision']).shown} — "
            f"{escape(record['outcome']['reason'])}"
        )
    for s in record["stages"]:
        out.print(_stage_line(s))
    ledger = record["ledger"]
    if ledger["tries"]:
        failed = sum(t["outcome"] == "failed" for t in ledger["tries"])
        unpriced = f", {ledger['unpriced_tries']} unpriced" if ledger["unpriced_tries"] else ""
        out.print(
            f"  ledger: {len(ledger['tries'])} model tries ({failed} failed), "
            f"{ledger['requests']} requests, {ledger['tokens']} tokens, "
            f"${ledger['spend_usd']:.6f}{unpriced}"
        )


def _stage_line(s: dict[str, Any]) -> str:
    spend = s.get("estimated_spend_usd")
    cost = "unpriced" if spend is None else f"${spend:.6f}"
    line = (
        f"  {s['name']:<8} {s['latency_ms']:9.1f} ms  calls {s['calls']}  "
        f"tokens {s['input_tokens']}+{s['output_tokens']}  {cost}"
    )
    return line + (f"  [red]{escape(s['error'])}[/]" if s.get("error") else "")


@runs.command("events")
@click.argument("run_id")
@click.option("--follow", is_flag=True, help="Keep printing events until the run stops.")
@click.option("--json", "as_json", is_flag=True, help="One JSON event per line.")
@click.pass_context
def runs_events(ctx: click.Context, run_id: str, follow: bool, as_json: bool) -> None:
    """A run's events: opened, each stage started and ended (latency, calls, tokens, spend),
    finished. With --follow, new events as they are stored, until the run stops."""
    desk = desk_of(ctx)
    for event in desk.follow_events(run_id, follow=follow):
        if as_json:
            click.echo(json.dumps(event.to_json(), ensure_ascii=False, separators=(",", ":")))
        elif event.kind == "stage_ended":
            out.print(f"{event.at}  ended   " + _stage_line(event.data).lstrip())
        else:
            extra = " ".join(f"{k}={v}" for k, v in event.data.items())
            out.print(escape(f"{event.at}  {event.kind}  {event.stage or ''} {extra}".rstrip()))


@runs.command("resume")
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print the receipt JSON and nothing else.")
@click.pass_context
def runs_resume(ctx: click.Context, run_id: str, as_json: bool) -> None:
    """Continue a run from the stage it was in (after a crash, a kill, a lost worker)."""
    print_result(desk_of(ctx).resume(run_id), as_json)


@runs.command("cancel")
@click.argument("run_id")
@click.pass_context
def runs_cancel(ctx: click.Context, run_id: str) -> None:
    """Stop a running run before its next stage; nothing of it is published."""
    before = desk_of(ctx).cancel(run_id)
    if before.status in ("running", "queued"):
        out.print(f"Cancelled {run_id} before its {before.next_stage} stage.")
    else:
        out.print(f"Run {run_id} was already {before.status}; nothing changed.")
