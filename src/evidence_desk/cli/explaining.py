"""`evidence-desk explain RUN_ID`: a lesson of a published answer, reviewed in code.

It prints the lesson's decision, each block kept with its sentences and sources, each
diagram relation with its review decision, and what was dropped and why; `--json` prints
the lesson's receipt (the answer's receipt with its `teaching` section) and nothing else.
A saved lesson is printed as it is: explaining the same answer again asks no model.

`--illustrate` asks for the lesson's optional picture (`runs/illustrate.py`): only on this
explicit request, and only with an illustrator set (`EVIDENCE_DESK_ILLUSTRATOR`; without
one the command fails with one sentence). It prints whether the picture is shown and why,
and where a shown picture is kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.markup import escape

from ..desk import RunState
from ..types import BLOCK_TITLES, Illustration, Receipt
from .common import desk_of, err, out


@click.command()
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print the lesson's receipt JSON only.")
@click.option(
    "--illustrate",
    is_flag=True,
    help="Also draw a picture of the lesson, reviewed before it is shown (needs "
    "EVIDENCE_DESK_ILLUSTRATOR; the spend counts in the run's budget).",
)
@click.pass_context
def explain(ctx: click.Context, run_id: str, as_json: bool, illustrate: bool) -> None:
    """Explain the published answer of RUN_ID: a lesson and a diagram, every block and
    relation checked against the answer's own sources."""

    def follow(kind: str, stage: str, state: RunState) -> None:
        if kind == "run_opened":
            (err if as_json else out).print(f"Run {state.run_id} explains {run_id}")
        elif kind == "stage_done" and err.is_terminal:
            r = state.stages[-1]
            err.print(f"  {r.name:<16} {r.latency_ms:8.1f} ms", style="dim")

    desk = desk_of(ctx)
    result = desk.explain(run_id, on_event=follow, illustrate=illustrate)
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
    picture = receipt.model_extra.get("illustration") if receipt.model_extra else None
    if picture is not None:
        _print_picture(Illustration.model_validate(picture), desk.settings.illustrations_dir)
    if result.path is not None:
        out.print(f"\nReceipt: {result.path}")


def _print_picture(picture: Illustration, folder: Path) -> None:
    """The picture's decision and reason, and where a shown one is kept."""
    name = picture.file_name()
    style = "bold green" if name else "bold yellow"
    out.print(
        f"\n[{style}]Picture {'shown' if name else 'not shown'}[/] — {escape(picture.reason)}"
    )
    if name:
        out.print(f"Picture: {folder / name}")
