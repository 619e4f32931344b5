"""`evidence-desk explain RUN_ID`: a lesson of a published answer, reviewed in code.

It prints the lesson's decision, each block kept with its sentences and sources, each
diagram relation with its review decision, and what was dropped and why; `--json` prints
the lesson's receipt (the answer's receipt with its `teaching` section) and nothing else.
A saved lesson is printed as it is: explaining the same answer again asks no model.
"""

from __future__ import annotations

import json

import click
from rich.markup import escape

from ..desk import RunState
from ..types import BLOCK_TITLES, Receipt
from .common import desk_of, err, out


@click.command()
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print the lesson's receipt JSON only.")
@click.pass_context
def explain(ctx: click.Context, run_id: str, as_json: bool) -> None:
    """Explain the published answer of RUN_ID: a lesson and a diagram, every block and
    relation checked against the answer's own sources."""

    def follow(kind: str, stage: str, state: RunState) -> None:
        if kind == "run_opened":
            (err if as_json else out).print(f"Run {state.run_id} explains {run_id}")
        elif kind == "stage_done" and err.is_terminal:
            r = state.stages[-1]
            err.print(f"  {r.name:<16} {r.latency_ms:8.1f} ms", style="dim")

    result = desk_of(ctx).explain(run_id, on_event=follow)
    if as_json:
        click.echo(json.dumps(result.receipt, ensure_ascii=False, indent=2))
    receipt = Receipt.model_validate(result.receipt)
    teaching = receipt.teaching
    if teaching is None:  # pragma: no cover - an explanation's receipt always has one
        raise RuntimeError(f"Run {receipt.run_id} has no lesson.")
    if as_json:
        return
    style = "bold green" if teaching.decision == "PUBLISHED" else "bold yellow"
    out.print(f"[{style}]Lesson {teaching.decision.lower()}[/] — {escape(teaching.reason)}")
    if teaching.decision == "PUBLISHED":
        for b in (b for b in teaching.blocks if b.decision == "kept"):
            out.print(f"\n[bold]{BLOCK_TITLES[b.block.kind]}[/]")
            if b.block.question:
                out.print(escape(b.block.question))
            out.print(escape(b.published))
        kept = [r for r in teaching.relations if r.decision == "kept"]
        if kept:
            out.print("\n[bold]Diagram[/]")
            for r in kept:
                out.print(f"  {r.relation.id}  {escape(r.sentence)}")
    dropped: list[tuple[str, str]] = [
        (b.block.kind, b.reason) for b in teaching.blocks if b.decision != "kept"
    ]
    dropped += [(r.relation.id, r.reason) for r in teaching.relations if r.decision != "kept"]
    if dropped:
        out.print("\n[dim]Not shown:[/]")
        for what, why in dropped:
            out.print(f"  {what}: {escape(why)}", style="dim")
    if result.path is not None:
        out.print(f"\nReceipt: {result.path}")
