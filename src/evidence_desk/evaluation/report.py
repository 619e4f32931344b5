"""Human-readable rendering of an evaluation report (the JSON form is the contract)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def format_value(value: Any, missing: str = "n/a") -> str:
    """A report value as text: floats to three places, None as `missing`."""
    if value is None:
        return missing
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def render_report(report: Mapping[str, Any], console: Console) -> None:
    table = Table(title="Questions", show_lines=False)
    for col in ("id", "kind", "decision", "answer", "evidence", "ms"):
        table.add_column(col)
    for item in report["items"]:
        found = item["answer_found"]
        table.add_row(
            escape(item["id"]),
            item["kind"],
            item["decision"],
            "—" if found is None else ("yes" if found else "no"),
            "—"
            if not item["evidence_covered"]
            else f"{sum(item['evidence_covered'])}/{len(item['evidence_covered'])}",
            f"{item['latency_ms']:.0f}",
        )
    console.print(table)
    summary = report["summary"]
    console.print("\nSummary")
    for key, value in summary.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {format_value(v)}" for k, v in value.items())
        console.print(f"  {key:>32}: {format_value(value)}")
