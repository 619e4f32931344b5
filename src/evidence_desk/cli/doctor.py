"""`doctor`: each agent role's provider, key, endpoint and price, and with `--probe` one
tiny request to each engine in the mode a run uses."""

from __future__ import annotations

import json
import sys

import click
from rich.markup import escape

from ..desk import EngineProbe
from .common import desk_of, err, out


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--timeout", default=5.0, show_default=True, help="Seconds per endpoint check.")
@click.option(
    "--probe",
    "probe",
    is_flag=True,
    help="Also send each engine one tiny request in the mode a run uses (costs a few tokens, "
    "stated first).",
)
@click.pass_context
def doctor(ctx: click.Context, as_json: bool, timeout: float, probe: bool) -> None:
    """Check each agent role's provider, key, endpoint and price; say what is missing."""
    desk = desk_of(ctx)
    report = desk.doctor(timeout)
    probes: list[EngineProbe] = []
    if probe and report.ready:
        plan = desk.probe_plan()
        (err if as_json else out).print(escape(plan.statement()))
        probes = desk.probe_engines(plan)
    if as_json:
        data = report.to_json()
        if probe:
            data["probes"] = [p.to_json() for p in probes]
            data["ready"] = data["ready"] and all(p.ok for p in probes)
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        for r in report.roles:
            mark = "[green]ready[/]" if r.ready else "[red]not ready[/]"
            out.print(f"[bold]{r.role}[/]: {escape(r.engine or r.setting)} — {mark}")
            for label, value in (
                ("endpoint", r.endpoint),
                ("key", r.key),
                ("reachable", r.reachable),
                ("price", r.price),
            ):
                if value:
                    out.print(f"  {label:>9}: {escape(value)}")
        warnings = report.all_warnings()
        if warnings:
            out.print("\nWorth knowing:")
            for w in warnings:
                out.print(f"  - {escape(w)}")
        if probe and not report.ready:
            out.print("\nNot probed: fix what is missing first.")
        for p in probes:
            _print_probe(p)
        problems = report.all_problems() + [x for p in probes for x in p.problems]
        if problems:
            out.print("\nMissing or wrong:")
            for x in problems:
                out.print(f"  - {escape(x)}")
            for advice in (a for p in probes for a in p.advice):
                out.print(f"  [bold]fix[/]: {escape(advice)}")
        else:
            out.print("\nEvery role is ready.")
    if not report.ready or not all(p.ok for p in probes):
        sys.exit(1)


def _print_probe(p: EngineProbe) -> None:
    mark = "[green]answers[/]" if p.ok else "[red]fails[/]"
    out.print(f"\n[bold]probe[/] {escape(p.engine)} ({', '.join(p.roles)}): {mark}")
    for t in p.trials:
        took = f", {t.seconds:.1f} s, {t.input_tokens} in / {t.output_tokens} out" if t.ok else ""
        out.print(f"  {t.mode:>9}: {'ok' if t.ok else 'failed'}: {escape(t.detail)}{took}")
    if p.context:
        out.print(f"    context: {escape(p.context)}")
    if p.citations:
        out.print(f"  citations: {escape(p.citations)}")
