"""Asking and judging: `ask` (one run, its answer or its receipt), `check` (drafts judged
against the archive, the attacker's door: every draft is hostile input) and `eval`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from ..desk import AskResult, RunState
from ..types import Decision, Receipt
from .common import desk_of, err, fail, out


@click.command()
@click.argument("question")
@click.option("--json", "as_json", is_flag=True, help="Print the receipt JSON and nothing else.")
@click.option(
    "--deep",
    is_flag=True,
    help="Deep mode: gap queries and more passages; with a search provider, up to three web "
    "searches (one aimed at a gap or at counter-evidence) and more pages. Quick is the default.",
)
@click.option(
    "--attach",
    "attach",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A PDF, HTML, text or markdown file to read as a source of this question alone "
    "(repeatable); it is not added to the archive.",
)
@click.pass_context
def ask(
    ctx: click.Context, question: str, as_json: bool, deep: bool, attach: tuple[Path, ...]
) -> None:
    """Answer QUESTION from the archive, with citations, sources and a signed receipt."""
    desk = desk_of(ctx)
    attachments = desk.attach(attach) if attach else []

    def follow(kind: str, stage: str, state: RunState) -> None:
        if kind == "run_opened":  # the run exists from here: say its id before anything else
            (err if as_json else out).print(f"Run {state.run_id}")
        elif kind == "stage_done" and err.is_terminal:
            r = state.stages[-1]
            err.print(f"  {r.name:<8} {r.latency_ms:8.1f} ms", style="dim")

    result = desk.ask(
        question, mode="deep" if deep else "quick", on_event=follow, attachments=attachments
    )
    print_result(result, as_json)


def print_result(result: AskResult, as_json: bool) -> None:
    receipt = Receipt.model_validate(result.receipt)
    if as_json:
        click.echo(json.dumps(result.receipt, ensure_ascii=False, indent=2))
    else:
        _print_answer(receipt)
        if result.path is not None:
            out.print(f"\nReceipt: {result.path}")
    if receipt.failure is not None:  # the run ended at a failed stage: say so, exit non-zero
        err.print(f"[red]error:[/red] {escape(receipt.failure.reason)}")
        sys.exit(1)


_DECISION_STYLE = {
    Decision.AUTO_CLEARED: "bold green",
    Decision.PUBLISHED_AFTER_PRUNING: "bold green",
    Decision.HELD_FOR_REVIEW: "bold yellow",
    Decision.OUTSIDE_COVERAGE: "bold cyan",
}


def _print_answer(r: Receipt) -> None:
    out.print(f"[{_DECISION_STYLE[r.decision]}]{r.decision.shown}[/] — {escape(r.reason)}")
    if r.published_answer:
        out.print()
        out.print(escape(r.published_answer))
    elif r.decision == Decision.HELD_FOR_REVIEW:
        out.print("\nThe draft is held for an editor's review and is not shown to readers.")
    cited = {c for claim in r.claims if claim.kept for c in claim.citations}
    shown = [s for s in r.sources if s.id in cited] if r.published_answer else []
    if shown:
        out.print("\nSources:")
        for s in shown:
            line = f"  [{s.id}] {escape(s.title)}"
            if s.date:
                line += f" ({s.date})"
            out.print(line)
            out.print(f"       {escape(s.final_url or s.url or s.doc_id)}")
            if s.origin != "archive":
                kind = "attached file" if s.origin == "upload" else f"read {s.retrieved_at}"
                out.print(f"       {kind}; snapshot {s.doc_id}", style="dim")
    if r.web is not None:
        refused = [f for f in r.web.fetches if f.outcome != "read"]
        read = len(r.web.fetches) - len(refused)
        out.print(f"\nWeb ({escape(r.web.provider)}): {read} read, {len(refused)} not read.")
        for f in refused:
            out.print(f"  not read: {escape(f.url)} — {escape(f.reason or '')}", style="dim")
        if r.web.diversity:
            out.print(f"  {escape(r.web.diversity)}", style="dim")


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON result per draft, one per line.")
@click.pass_context
def check(ctx: click.Context, file: Path, as_json: bool) -> None:
    """Check drafts written elsewhere (JSON, a JSON list, or JSONL) against the archive.

    Every draft gets its result in file order, an invalid one an error in its place; the
    exit status is 1 when any draft was invalid.
    """
    desk = desk_of(ctx)
    results = desk.check_file(file)
    for res in results:
        if as_json:
            click.echo(json.dumps(res, ensure_ascii=False, separators=(",", ":")))
        elif res["decision"] is None:
            out.print(f"[bold red]INVALID[/] — {escape(res['error'])}")
        else:
            _print_check(res)
    invalid = [r for r in results if r["decision"] is None]
    if invalid:
        places = ", ".join(
            f"line {r['line']}" if "line" in r else f"item {r['index']}" for r in invalid
        )
        fail(f"{len(invalid)} of {len(results)} drafts in {file} could not be checked ({places}).")


def _print_check(res: dict[str, Any]) -> None:
    out.print(
        f"[{_DECISION_STYLE[Decision(res['decision'])]}]{Decision(res['decision']).shown}[/] "
        f"— {escape(res['reason'])}"
    )
    for claim in res["claims"]:
        mark = "kept" if claim["kept"] else "dropped"
        out.print(escape(f"  [{claim['verdict']}, {mark}] {claim['text']}"))
    if res["published_answer"]:
        out.print(f"  Published: {escape(res['published_answer'])}")


@click.command("eval")
@click.argument(
    "questions", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--set",
    "--sample",
    "set_name",
    metavar="NAME",
    type=str,
    help="Run a bundled question set: `sotu` (after `ingest --sample sotu`) or `digitalgov` "
    "(after ingesting the digital.gov news folder). `--sample NAME` is an alias.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report JSON and nothing else.")
@click.option("--deep", is_flag=True, help="Run every question in Deep mode; Quick is the default.")
@click.pass_context
def eval_(
    ctx: click.Context, questions: Path | None, set_name: str | None, as_json: bool, deep: bool
) -> None:
    """Run a question set (contracts/questions.md) and print the metrics.

    Give a QUESTIONS.jsonl file, or `--set NAME` for a bundled set; a bundled set needs the
    archive it was written for (its gold documents), and says how to ingest it if missing.
    The report's summary names the mode the questions ran in.
    """
    from ..evaluation.report import render_report

    if bool(questions) == bool(set_name):
        fail("Give either QUESTIONS.jsonl or --set NAME.")
    desk = desk_of(ctx)
    mode = "deep" if deep else "quick"
    if questions:
        report = desk.evaluate(questions, mode=mode)
    else:
        name = set_name or ""
        bundled = desk.sample_questions(name)
        desk.require_gold_documents(name, bundled)
        report = desk.evaluate(bundled, mode=mode)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        render_report(report, out)
