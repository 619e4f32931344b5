"""Receipts: `receipt verify` (one file, against the desk's key or trusted ones),
`verify-chain` (the stored chain) and `key` (the desk's public key)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from .common import desk_of, err, out


@click.group()
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
    report = desk_of(ctx).verify_receipt_file(file, key_files=key_files)
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
    report = desk_of(ctx).verify_chain(key_files=key_files)
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
    click.echo(desk_of(ctx).public_key())
