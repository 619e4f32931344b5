"""Follow-up questions with and without their conversation: does the planner resolve the
subject, and does retrieval then find the gold document?

`evidence_desk/data/followups.jsonl` holds 20 follow-ups as readers type them ("What did he
say about freedom from fear?", "What about in 2016?"), on both archives: the bundled sample
(`sotu`) and the digital.gov news archive. Each names its earlier question(s), the subject
the follow-up is about (the person or topic it takes from them), the archive entity and
period its plan must search, and gold documents.

For every item the bench plans the follow-up twice with the offline planner: with the
thread (the earlier questions, as a run opened in a conversation gets them) and without
(the follow-up alone, as before conversations reached the planner: the baseline). Reported:

* **subject resolved**: the plan searches the expected entity and period and keeps the
  expected topic words (`check_plan`); with the thread, `resolved_subject` names the
  expected subject too. Planner only, no embedding model: fast
  (`tests/unit/agents/test_agents_followups_set.py` asserts every item resolves).
* **gold selected**: whether a gold document is among the run's selected sources, up to
  the coverage stage (plan, retrieve, select, coverage: `runs.loop.drive`), thread vs no
  thread; with it, the share of the selected sources that are gold documents (what an
  answer would quote from) and whether coverage let the run go on. Needs the ingested
  archives (`--sample-home`, `--digitalgov-home`, data dirs as
  `bench.static_embedding` takes them); `--planner-only` skips this half.

Run: `python -m bench.followups --sample-home DIR [--digitalgov-home DIR2]` where DIR holds
the ingested sample (`evidence-desk --data-dir DIR ingest --sample sotu`) and DIR2 the
digital.gov archive (`evidence-desk --data-dir DIR2 ingest <shared data>/digitalgov-news/
raw/content/news`). Without `--sample-home` the sample is ingested into a temporary data
dir first (minutes); the digital.gov items are planned against a profile read from the
shared data's JSONL and their retrieval is skipped without `--digitalgov-home`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.archive.entities import entities_from_documents
from evidence_desk.archive.results import Loaded
from evidence_desk.archive.sample import load_sample
from evidence_desk.types import Plan

from ._util import DIGITALGOV, load_average, median, print_table, sample_home

FOLLOWUPS = files("evidence_desk").joinpath("data/followups.jsonl")
Archive = Literal["sotu", "digitalgov"]
BASELINE = "no thread"


class FollowUp(BaseModel):
    """One follow-up of the set (a line of `followups.jsonl`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    archive: Archive
    earlier: tuple[str, ...] = Field(description="The questions asked before, oldest first.")
    followup: str = Field(description="The follow-up as a reader types it.")
    subject: str = Field(
        description="What the follow-up takes from the earlier questions: the person or "
        "topic its pronoun or elided subject stands for (its own subject when `resolves` "
        "is false)."
    )
    resolves: bool = Field(True, description="False for a follow-up that names its own subject.")
    entity: str | None = Field(None, description="The profile entity its plan must search.")
    window: tuple[str, str] | None = Field(
        None,
        description="A period its plan must search (start, end); None: no period but the "
        "entity's own span.",
    )
    topic_terms: tuple[str, ...] = Field(
        (), description="Words its plan's key terms must keep (lower-cased)."
    )
    gold_doc_ids: tuple[str, ...]
    notes: str = ""


def load_followups(text: str | None = None) -> list[FollowUp]:
    body = FOLLOWUPS.read_text(encoding="utf-8") if text is None else text
    return [FollowUp.model_validate_json(line) for line in body.splitlines() if line.strip()]


# --------------------------------------------------------------------------- profiles


def sotu_profile() -> ArchiveProfile:
    """The sample archive's profile, from its documents as ingest loads them."""
    docs = [r.document for r in load_sample("sotu") if isinstance(r, Loaded)]
    dates = sorted(d.date for d in docs if d.date)
    return ArchiveProfile(dates[0], dates[-1], entities_from_documents(docs))


@dataclass(frozen=True)
class _Row:
    date: str | None
    meta: dict[str, str]


def digitalgov_profile(path: Path = DIGITALGOV) -> ArchiveProfile | None:
    """The digital.gov archive's profile from the shared data's JSONL (authors and dates,
    as the markdown loader stores them); None when the shared data is absent."""
    if not path.exists():
        return None
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                day = str(rec.get("date") or "")[:10] or None
                rows.append(_Row(day, {"author": "; ".join(rec.get("authors") or [])}))
    dates = sorted(r.date for r in rows if r.date)
    return ArchiveProfile(dates[0], dates[-1], entities_from_documents(rows))


# --------------------------------------------------------------------------- the planner


@dataclass(frozen=True)
class PlanCheck:
    """How one plan of a follow-up compares with the item."""

    entity: bool
    window: bool
    topic: bool
    subject: bool  # `resolved_subject` as expected (always True for `resolves: false`)

    @property
    def resolved(self) -> bool:
        return self.entity and self.window and self.topic and self.subject

    def missing(self) -> list[str]:
        return [k for k in ("entity", "window", "topic", "subject") if not getattr(self, k)]


def _norm(text: str | None) -> str:
    low = " ".join((text or "").lower().split())
    return low[4:] if low.startswith("the ") else low


def check_plan(item: FollowUp, plan: Plan, profile: ArchiveProfile, *, thread: bool) -> PlanCheck:
    """Does `plan` search what the follow-up is about (see the module docstring)?"""
    entities = {sq.entity for sq in plan.subquestions}
    entity = entities == {item.entity} if item.entity else entities <= {None}
    windows = {(w.start, w.end) for w in plan.time_windows}
    if item.window is not None:
        window = tuple(item.window) in windows
    elif item.entity:
        own = {(w.start, w.end) for w in profile.entities.get(item.entity, ())}
        window = bool(windows) and windows <= own
    else:
        window = not windows
    topic = set(item.topic_terms) <= set(plan.key_terms)
    if not thread:
        subject = True
    elif item.resolves:
        subject = _norm(plan.resolved_subject) == _norm(item.subject)
    else:
        subject = plan.resolved_question is None
    return PlanCheck(entity, window, topic, subject)


def plan_both(
    planner: OfflinePlanner, item: FollowUp, profile: ArchiveProfile
) -> tuple[Plan, Plan]:
    """The follow-up's plan with its thread, and alone."""
    return planner.plan(item.followup, profile, item.earlier), planner.plan(item.followup, profile)


def planner_rows(
    items: Sequence[FollowUp], profiles: dict[str, ArchiveProfile | None]
) -> list[tuple[FollowUp, PlanCheck, PlanCheck, Plan]]:
    """(item, check with the thread, check without, the plan with the thread) per item
    whose archive has a profile."""
    planner = OfflinePlanner()
    out = []
    for item in items:
        profile = profiles.get(item.archive)
        if profile is None:
            continue
        threaded, alone = plan_both(planner, item, profile)
        out.append(
            (
                item,
                check_plan(item, threaded, profile, thread=True),
                check_plan(item, alone, profile, thread=False),
                threaded,
            )
        )
    return out


# --------------------------------------------------------------------------- retrieval


@dataclass(frozen=True)
class Gathered:
    """What one run of a follow-up selected, up to its coverage stage."""

    gold: bool  # a gold document is among the selected sources
    share: float  # the share of the selected sources that are gold documents
    covered: bool  # the coverage stage let it go on to an answer
    ms: float


class _Desks:
    """One desk per data dir, opened on first use."""

    def __init__(self) -> None:
        self._open: dict[Path, Any] = {}

    def __call__(self, home: Path) -> Any:
        from evidence_desk.desk import Desk
        from evidence_desk.settings import Settings

        if home not in self._open:
            self._open[home] = Desk(Settings(home=home))
        return self._open[home]


DESKS = _Desks()


def gather(home: Path, item: FollowUp, thread: bool) -> Gathered:
    """The follow-up's stages up to coverage (plan, retrieve, select, coverage) on the
    archive in `home`, opened with its thread or alone."""
    from evidence_desk.runs.loop import drive

    pipeline = DESKS(home).pipeline
    opening = pipeline.opening(item.followup, thread=item.earlier if thread else ())
    t0 = time.perf_counter()
    state = drive(opening, pipeline.deps(), until=("answer", "gate"))
    ms = (time.perf_counter() - t0) * 1000.0
    chosen = [s.doc_id for s in state.sources or ()]
    gold = [d for d in chosen if d in set(item.gold_doc_ids)]
    covered = state.coverage is not None and state.coverage.covered
    return Gathered(bool(gold), len(gold) / len(chosen) if chosen else 0.0, covered, ms)


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else ("∞" if a else "—")


def report_planner(rows: list[tuple[FollowUp, PlanCheck, PlanCheck, Plan]]) -> None:
    table = []
    for item, with_t, alone, plan in rows:
        table.append(
            (
                item.id,
                item.archive,
                item.subject,
                "yes" if with_t.resolved else "no: " + ", ".join(with_t.missing()),
                "yes" if alone.resolved else "no: " + ", ".join(alone.missing()),
                plan.resolved_question or "(as asked)",
            )
        )
    print_table(
        ("id", "archive", "subject", "thread", BASELINE, "resolved question"),
        table,
        title="Subject resolved by the offline planner",
    )
    for archive in ("sotu", "digitalgov", None):
        part = [r for r in rows if archive is None or r[0].archive == archive]
        if not part:
            continue
        t = sum(r[1].resolved for r in part)
        b = sum(r[2].resolved for r in part)
        name = archive or "both"
        print(
            f"{name}: subject resolved {t}/{len(part)} with the thread, {b}/{len(part)} "
            f"with {BASELINE} ({_ratio(t, b)} the {BASELINE} baseline)"
        )


def report_retrieval(items: Sequence[FollowUp], homes: dict[str, Path | None]) -> None:
    runs: list[tuple[FollowUp, Gathered, Gathered]] = []
    for item in items:
        home = homes.get(item.archive)
        if home is not None:
            runs.append((item, gather(home, item, True), gather(home, item, False)))
    skipped = sorted({i.archive for i in items if homes.get(i.archive) is None})
    if not runs:
        print("\nRetrieval skipped: no ingested archive given.")
        return

    def yes(flag: bool) -> str:
        return "yes" if flag else "no"

    print_table(
        ("id", "archive", "gold: thread", BASELINE, "gold share: thread", BASELINE,
         "covered: thread", BASELINE),
        [
            (i.id, i.archive, yes(t.gold), yes(b.gold), f"{t.share:.2f}", f"{b.share:.2f}",
             yes(t.covered), yes(b.covered))
            for i, t, b in runs
        ],
        title="Gold documents among the selected sources (stages up to coverage)",
    )  # fmt: skip
    for archive in ("sotu", "digitalgov", None):
        part = [r for r in runs if archive is None or r[0].archive == archive]
        if not part:
            continue
        n = len(part)
        t, b = sum(r[1].gold for r in part), sum(r[2].gold for r in part)
        ts, bs = median([r[1].share for r in part]), median([r[2].share for r in part])
        tc, bc = sum(r[1].covered for r in part), sum(r[2].covered for r in part)
        print(
            f"{archive or 'all'}: gold selected {t}/{n} with the thread, {b}/{n} with "
            f"{BASELINE} ({_ratio(t, b)}); median gold share of the sources {ts:.2f} vs "
            f"{bs:.2f} ({_ratio(ts, bs)}); covered {tc}/{n} vs {bc}/{n}"
        )
    ms_t, ms_b = median([r[1].ms for r in runs]), median([r[2].ms for r in runs])
    print(
        f"median ms to coverage: {ms_t:.0f} with the thread, {ms_b:.0f} without ({load_average()})"
    )
    if skipped:
        print(f"Retrieval not run for {', '.join(skipped)}: no ingested archive given.")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample-home", type=Path, help="a data dir with the sample ingested")
    parser.add_argument("--digitalgov-home", type=Path, help="a data dir with digital.gov ingested")
    parser.add_argument("--planner-only", action="store_true", help="skip the retrieval half")
    args = parser.parse_args(argv)
    items = load_followups()
    profiles: dict[str, ArchiveProfile | None] = {
        "sotu": sotu_profile(),
        "digitalgov": digitalgov_profile(),
    }
    print(f"{len(items)} follow-ups; baseline: {BASELINE} (the follow-up planned alone)")
    report_planner(planner_rows(items, profiles))
    if args.planner_only:
        return
    with sample_home(args.sample_home) as sample:
        report_retrieval(items, {"sotu": sample, "digitalgov": args.digitalgov_home})


if __name__ == "__main__":
    main()
