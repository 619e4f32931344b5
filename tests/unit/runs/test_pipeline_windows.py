"""A short window's search reaches later articles; the plan and coverage keep the real one.

"In early April, GSA launched ..." in an article of August 28, 2017 answers a question
about April 2017 (the offline answerer's relative dates), so a window of at most 31 days is
also searched in the `relative_date_reach_days` after it, and a hit from there counts only
when its passage dates itself into the window.
"""

from __future__ import annotations

from collections.abc import Sequence

from evidence_desk.agents.base import Advice, ArchiveProfile, ModelUsage, RunBudget
from evidence_desk.retrieval.coverage import ArchiveStats
from evidence_desk.runs.deps import PipelineConfig
from evidence_desk.runs.pipeline import Pipeline
from evidence_desk.runs.retrieve import reach_windows
from evidence_desk.runs.selection import SelectionBounds
from evidence_desk.types import (
    Document,
    Draft,
    GatePolicy,
    Hit,
    Passage,
    Plan,
    Source,
    SubQuestion,
    TimeWindow,
)

APRIL = TimeWindow(start="2017-04-01", end="2017-04-30", label="April 2017")
TEXT = "In early April, GSA launched a shared login service for federal agencies."
UNDATED = "GSA launched a shared login service for federal agencies."


class Archive:
    """One article dated August 28, 2017, found only by a search that reaches that far."""

    def __init__(self, text: str = TEXT) -> None:
        self.doc = Document(
            doc_id="2017/08/2017-08-28-login.md",
            title="Login news",
            date="2017-08-28",
            url=None,
            content_sha256="0" * 64,
            ingested_at="2026-01-01T00:00:00Z",
            text=text,
        )
        self.searched: list[tuple[TimeWindow, ...]] = []
        self.counted: list[TimeWindow] = []

    def search(self, query: str, windows: Sequence[TimeWindow], k: int) -> list[Hit]:
        self.searched.append(tuple(windows))
        day = self.doc.date or ""
        if windows and not any(w.start <= day <= w.end for w in windows):
            return []
        text = self.doc.text
        p = Passage(id="d#0", doc_id=self.doc.doc_id, text=text, start=0, end=len(text))
        return [Hit(passage=p, score=0.9, dense_score=0.9, doc_date=day)]

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        return {self.doc.doc_id: self.doc}

    def _docs_in_window(self, w: TimeWindow) -> int:
        self.counted.append(w)
        return 1

    def stats(self) -> ArchiveStats:
        return ArchiveStats(
            num_passages=100, doc_freq=lambda t: 1, docs_in_window=self._docs_in_window
        )

    def profile(self) -> ArchiveProfile:
        return ArchiveProfile(min_date="2017-01-01", max_date="2017-12-31")


class Planner:
    engine_id = "test-planner"

    def plan(self, question: str, profile: ArchiveProfile, budget: RunBudget) -> Advice[Plan]:
        plan = Plan(
            subquestions=(SubQuestion(text=question, window=APRIL),),
            time_windows=(APRIL,),
            queries=("login service",),
            key_terms=("login", "service"),
            kind="temporal",
        )
        return Advice(plan, ModelUsage("test-planner"))


class Silent:
    """Answerer and auditor that are never reached by `gather`."""

    engine_id = "test-silent"

    def answer(
        self, question: str, plan: Plan, sources: Sequence[Source], budget: RunBudget
    ) -> Advice[Draft]:
        raise AssertionError("gather does not answer")

    audit = answer


def _gather(reach: int, text: str = TEXT) -> tuple[Archive, list[Source], Plan]:
    archive = Archive(text)
    config = PipelineConfig(
        GatePolicy(coverage_floor=0.1),
        SelectionBounds(4, 2),
        0.02,
        relative_date_reach_days=reach,
    )
    pipeline = Pipeline(archive, Planner(), Silent(), Silent(), config)  # type: ignore[arg-type]
    g = pipeline.gather("What login service did GSA launch in April 2017?")
    return archive, g.sources, g.plan


def test_a_month_window_searches_further_while_coverage_sees_the_real_window() -> None:
    archive, sources, plan = _gather(183)
    searched = {w for ws in archive.searched for w in ws}
    assert {(w.start, w.end) for w in searched} == {
        ("2017-04-01", "2017-04-30"),
        ("2017-05-01", "2017-10-30"),
    }
    assert [s.doc_id for s in sources] == ["2017/08/2017-08-28-login.md"]
    assert plan.time_windows == (APRIL,)
    assert archive.counted and all(w == APRIL for w in archive.counted)


def test_a_later_passage_that_does_not_date_itself_into_the_window_is_not_kept() -> None:
    _, sources, _ = _gather(183, UNDATED)
    assert sources == []


def test_without_reach_the_search_keeps_the_plans_window() -> None:
    archive, sources, _ = _gather(0)
    assert {w for ws in archive.searched for w in ws} == {APRIL}
    assert sources == []


def test_only_short_nonempty_windows_have_a_tail() -> None:
    year = TimeWindow(start="2017-01-01", end="2017-12-31", label="2017")
    day = TimeWindow(start="1796-12-07", end="1796-12-07", label="last address")
    month31 = TimeWindow(start="2017-01-01", end="2017-01-31", label="January 2017")
    empty = TimeWindow(start="2017-05-01", end="2017-04-30", label="empty")
    open_end = TimeWindow(start="9999-12-01", end="9999-12-31", label="far")
    got = reach_windows([year, day, month31, empty, open_end], 183)
    assert [(w.start, w.end) for w in got] == [
        ("1796-12-08", "1797-06-08"),
        ("2017-02-01", "2017-08-02"),
    ]
    assert reach_windows([day], 0) == []
