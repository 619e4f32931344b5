"""Deep mode: the gap a first pass leaves, the queries aimed at it, and what receipts say.

The stand-in archive scores a passage by the share of a query's words it holds and finds
only documents dated inside the windows searched, so each test can say which passage a
query finds and which the first pass leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence_desk.agents.base import Advice, ArchiveProfile, ClaimToAudit, ModelUsage, RunBudget
from evidence_desk.retrieval.coverage import ArchiveStats
from evidence_desk.runs.deps import Deps, PipelineConfig
from evidence_desk.runs.gaps import (
    EXTRA_PASSAGES,
    MAX_QUERIES_PER_SIDE,
    SideSearch,
    gap_queries,
    missing_terms,
    plan_sides,
)
from evidence_desk.runs.pipeline import Pipeline
from evidence_desk.runs.retrieve import merge_gap_hits, retrieve_sides
from evidence_desk.runs.selection import SelectionBounds, kept_hits, select_sources
from evidence_desk.textutil import stem_terms
from evidence_desk.trust.receipts import seal, verify_receipt
from evidence_desk.trust.signing import raw_public_key
from evidence_desk.types import (
    ClaimAudit,
    Decision,
    Document,
    Draft,
    GatePolicy,
    Hit,
    Passage,
    Plan,
    Receipt,
    Source,
    SubQuestion,
    TimeWindow,
    Verdict,
)

Y2013 = TimeWindow(start="2013-01-01", end="2013-12-31", label="2013")
Y2017 = TimeWindow(start="2017-01-01", end="2017-12-31", label="2017")
Y2031 = TimeWindow(start="2031-01-01", end="2031-12-31", label="2031")
HARBOR = "The harbor of Boston was closed in 1774."
TEA = "Tea was thrown into the harbor by the townsmen."


def doc(doc_id: str, day: str, text: str) -> Document:
    return Document(
        doc_id=doc_id,
        title=f"Letter {doc_id}",
        date=day,
        content_sha256="0" * 64,
        ingested_at="2026-01-01T00:00:00Z",
        text=text,
    )


class Archive:
    """One passage per document; `num_passages` stands for a big archive around them."""

    def __init__(self, *docs: Document, num_passages: int = 1000) -> None:
        self.docs = {d.doc_id: d for d in docs}
        self.num_passages = num_passages
        self.searches: list[tuple[str, tuple[TimeWindow, ...]]] = []

    def search(self, query: str, windows: Sequence[TimeWindow], k: int) -> list[Hit]:
        self.searches.append((query, tuple(windows)))
        words = set(stem_terms(query))
        hits = []
        for d in self.docs.values():
            day = d.date or ""
            if windows and not any(w.start <= day <= w.end for w in windows):
                continue
            share = len(words & set(stem_terms(d.text))) / max(len(words), 1)
            if share > 0:
                p = Passage(
                    id=f"{d.doc_id}#0", doc_id=d.doc_id, text=d.text, start=0, end=len(d.text)
                )
                hits.append(Hit(passage=p, score=share, dense_score=0.5, doc_date=day))
        return sorted(hits, key=lambda h: (-h.score, h.passage.id))[:k]

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        return {i: self.docs[i] for i in doc_ids if i in self.docs}

    def texts(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
        return {}

    def doc_freq(self, term: str) -> int:
        return sum(term in stem_terms(d.text) for d in self.docs.values())

    def stats(self) -> ArchiveStats:
        def in_window(w: TimeWindow) -> int:
            return sum(w.start <= (d.date or "") <= w.end for d in self.docs.values())

        return ArchiveStats(self.num_passages, self.doc_freq, in_window)

    def profile(self) -> ArchiveProfile:
        return ArchiveProfile()


class Planner:
    engine_id = "test-planner"

    def __init__(self, plan: Plan) -> None:
        self.value = plan

    def plan(self, question: str, profile: ArchiveProfile, budget: RunBudget) -> Advice[Plan]:
        return Advice(self.value, ModelUsage("test-planner"))


class Answerer:
    """Quotes the first sentence of the first source."""

    engine_id = "test-answerer"

    def answer(
        self, question: str, plan: Plan, sources: Sequence[Source], budget: RunBudget
    ) -> Advice[Draft]:
        first = re.split(r"(?<=\.)\s", sources[0].passages[0].text)[0]
        return Advice(Draft(text=f'The source says "{first}" [S1]'), ModelUsage("test-answerer"))


class Auditor:
    engine_id = "test-auditor"

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        return Advice([ClaimAudit(verdict=Verdict.SUPPORTED) for _ in claims], ModelUsage("t"))


def config(max_sources: int = 1, per_source: int = 1, reach_days: int = 0) -> PipelineConfig:
    return PipelineConfig(
        GatePolicy(coverage_floor=0.2),
        SelectionBounds(max_sources, per_source),
        0.02,
        relative_date_reach_days=reach_days,
    )


def deps(archive: Archive, plan: Plan, cfg: PipelineConfig | None = None) -> Deps:
    return Pipeline(archive, Planner(plan), Answerer(), Auditor(), cfg or config()).deps()


def harbor_plan(*key_terms: str) -> Plan:
    return Plan(
        subquestions=(SubQuestion(text="What happened to the harbor?"),),
        queries=("harbor closed",),
        key_terms=key_terms,
    )


def two_year_plan() -> Plan:
    return Plan(
        subquestions=(
            SubQuestion(text="How were chats promoted? — 2013", window=Y2013),
            SubQuestion(text="How were chats promoted? — 2017", window=Y2017),
        ),
        time_windows=(Y2013, Y2017),
        queries=("chats promoted",),
        key_terms=("chats", "promoted"),
        kind="temporal",
    )


def comparison_plan() -> Plan:
    return Plan(
        subquestions=(
            SubQuestion(text="What was said about tea in 2013?", window=Y2013),
            SubQuestion(text="What was said about tea in 2017?", window=Y2017),
        ),
        time_windows=(Y2013, Y2017),
        queries=("tea", "tea 2013", "tea 2017"),
        key_terms=("tea", "harbor"),
        kind="comparison",
    )


CHATS = (
    doc("a", "2013-05-01", "Chats promoted on the site drew many readers."),
    doc("b", "2017-05-01", "Chats were promoted weeks ahead."),
)


# --------------------------------------------------------------------------- Quick


def test_quick_issues_the_plans_queries_and_nothing_more() -> None:
    archive = Archive(*CHATS)
    sides, searches = retrieve_sides(deps(archive, two_year_plan()), two_year_plan())
    assert archive.searches == [("chats promoted", (Y2013, Y2017))]
    assert [(s.query, s.windows, s.aim, s.hits) for s in searches] == [
        ("chats promoted", ("2013", "2017"), "plan", 2)
    ]
    assert all(h.queries == ("chats promoted",) for h in sides[0])


def test_quick_searches_a_comparison_side_by_side_as_before() -> None:
    archive = Archive(doc("a", "2013-05-01", "Tea in 2013."), doc("b", "2017-05-01", "Tea."))
    plan = comparison_plan()
    retrieve_sides(deps(archive, plan), plan)
    assert archive.searches == [
        ("tea", (Y2013,)),
        ("What was said about tea in 2013?", (Y2013,)),
        ("tea", (Y2017,)),
        ("What was said about tea in 2017?", (Y2017,)),
    ]


def test_quick_reaches_a_short_windows_tail_with_the_same_query() -> None:
    may = TimeWindow(start="2013-05-01", end="2013-05-31", label="May 2013")
    tail = TimeWindow(start="2013-06-01", end="2013-06-30", label="May 2013")
    plan = Plan(subquestions=(SubQuestion(text="q"),), time_windows=(may,), queries=("chats",))
    archive = Archive(*CHATS)
    retrieve_sides(deps(archive, plan, config(reach_days=30)), plan)
    assert archive.searches == [("chats", (may,)), ("chats", (tail,))]


def test_plan_sides_keeps_a_side_per_compared_period() -> None:
    sides = plan_sides(comparison_plan())
    assert [s.windows for s in sides] == [(Y2013,), (Y2017,)]
    assert sides[0].queries == ("tea", "What was said about tea in 2013?")
    assert plan_sides(two_year_plan()) == [
        SideSearch(two_year_plan().subquestions, ("chats promoted",), (Y2013, Y2017))
    ]


# --------------------------------------------------------------------------- gaps


def test_a_window_without_a_kept_passage_is_searched_alone_with_its_subquestion() -> None:
    archive = Archive(*CHATS)
    plan = two_year_plan()
    sides, searches = retrieve_sides(deps(archive, plan), plan, deep=True)
    gap = searches[1]
    assert (gap.query, gap.windows) == ("How were chats promoted? — 2017", ("2017",))
    assert gap.aim.startswith("window 2017")
    found = {h.passage.doc_id: h.queries for h in sides[0]}
    assert found["b"] == ("chats promoted", "How were chats promoted? — 2017")


def test_a_missing_uncommon_key_term_is_searched_with_the_plans_other_uncommon_terms() -> None:
    archive = Archive(doc("d1", "1774-10-01", HARBOR), doc("d2", "1774-11-01", TEA))
    plan = harbor_plan("harbor", "closed", "tea")
    sides, searches = retrieve_sides(deps(archive, plan), plan, deep=True)
    assert [(s.query, s.aim) for s in searches] == [
        ("harbor closed", "plan"),
        ("tea harbor closed", "terms 'tea': in no kept passage"),
    ]
    tea = next(h for h in sides[0] if h.passage.doc_id == "d2")
    assert tea.queries == ("harbor closed", "tea harbor closed")


def test_terms_the_archive_never_uses_or_uses_often_are_not_searched_for() -> None:
    archive = Archive(doc("d1", "1774-10-01", HARBOR), doc("d2", "1774-11-01", TEA))
    stats = archive.stats()
    kept = archive.search("harbor closed", (), 1)
    assert missing_terms(harbor_plan("harbor", "tea", "lighthouse"), kept, stats) == ["tea"]
    small = Archive(doc("d1", "1774-10-01", HARBOR), doc("d2", "1774-11-01", TEA), num_passages=10)
    assert missing_terms(harbor_plan("harbor", "tea"), kept, small.stats()) == []  # 1 in 10


def test_no_gap_no_extra_query() -> None:
    archive = Archive(doc("d1", "1774-10-01", HARBOR))
    plan = harbor_plan("harbor", "closed")
    _, searches = retrieve_sides(deps(archive, plan), plan, deep=True)
    assert [s.query for s in searches] == ["harbor closed"]


def test_windows_without_documents_are_not_searched_again() -> None:
    archive = Archive(*CHATS)
    plan = Plan(
        subquestions=(SubQuestion(text="chats in 2031?", window=Y2031),),
        time_windows=(Y2031,),
        queries=("chats",),
        key_terms=("chats", "tea"),
    )
    _, searches = retrieve_sides(deps(archive, plan), plan, deep=True)
    assert len(searches) == 1


def test_deep_issues_at_most_three_queries_per_side() -> None:
    # The plan's query finds nothing, so both windows are empty and both terms missing:
    # three gap queries are due and two fit.
    archive = Archive(*CHATS, doc("c", "2013-06-01", "Tea notes."))
    plan = two_year_plan().model_copy(
        update={"queries": ("nothing matches",), "key_terms": ("tea", "notes")}
    )
    sides = plan_sides(plan)
    assert len(gap_queries(plan, sides[0], [], archive.stats())) == MAX_QUERIES_PER_SIDE - 1
    _, searches = retrieve_sides(deps(archive, plan), plan, deep=True)
    assert len(searches) == MAX_QUERIES_PER_SIDE
    assert [s.aim[:6] for s in searches] == ["plan", "window", "window"]


def test_a_comparison_side_gets_one_gap_query_at_most() -> None:
    archive = Archive(
        doc("a", "2013-05-01", "Tea in 2013 harbor."),
        doc("b", "2017-05-01", "Tea in 2017."),
        doc("c", "2017-06-01", "The harbor in 2017."),
    )
    plan = comparison_plan()
    _, searches = retrieve_sides(deps(archive, plan), plan, deep=True)
    per_side = [sum(s.side == i for s in searches) for i in (0, 1)]
    assert per_side == [2, 3]
    assert searches[-1].query == "tea harbor" and searches[-1].windows == ("2017",)


def test_a_gap_query_ranks_a_passage_but_never_lends_it_its_cosine() -> None:
    p1 = Passage(id="d1#0", doc_id="d1", text=HARBOR, start=0, end=len(HARBOR))
    p2 = Passage(id="d2#0", doc_id="d2", text=TEA, start=0, end=len(TEA))
    first = [Hit(passage=p1, score=0.4, dense_score=0.3, dense_rank=1, queries=("a",))]
    extra = [
        Hit(passage=p1, score=0.9, dense_score=0.8, dense_rank=1, queries=("b",)),
        Hit(passage=p2, score=0.5, dense_score=0.7, lexical_score=3.0, queries=("b",)),
    ]
    merged = merge_gap_hits(first, [extra])
    assert [(h.passage.id, h.score, h.dense_score, h.queries) for h in merged] == [
        ("d1#0", 0.9, 0.3, ("a", "b")),
        ("d2#0", 0.5, None, ("b",)),
    ]
    assert merged[1].lexical_score is None


# --------------------------------------------------------------------------- the passage bound


class Paged(Archive):
    """Every sentence of a document is a passage of its own (`doc#i`)."""

    def search(self, query: str, windows: Sequence[TimeWindow], k: int) -> list[Hit]:
        self.searches.append((query, tuple(windows)))
        words = set(stem_terms(query))
        hits = []
        for d in self.docs.values():
            start = 0
            for i, text in enumerate(re.split(r"(?<=\.) ", d.text)):
                share = len(words & set(stem_terms(text))) / max(len(words), 1)
                span = (start, start + len(text))
                start += len(text) + 1
                if share > 0:
                    p = Passage(
                        id=f"{d.doc_id}#{i}", doc_id=d.doc_id, text=text, start=span[0], end=span[1]
                    )
                    hits.append(Hit(passage=p, score=share, dense_score=0.5, doc_date=d.date))
        return sorted(hits, key=lambda h: (-h.score, h.passage.id))[:k]


# Four harbor sentences that match alike (ranked by id): a bound of two leaves two out.
LETTER = doc(
    "d1",
    "1774-10-01",
    "The harbor was closed. The harbor closed again. The closed harbor held tea ships. "
    "The harbor stayed closed.",
)


def letter_hits() -> list[Hit]:
    return Paged(LETTER).search("harbor closed", (), 10)


def test_deep_shows_each_kept_document_its_best_passage_past_the_bound() -> None:
    bounds = SelectionBounds(1, 2)  # one source: pool 2, per source 2
    quick = kept_hits([letter_hits()], bounds)
    deep = kept_hits([letter_hits()], bounds, EXTRA_PASSAGES)
    assert [h.passage.id for h in quick["d1"]] == ["d1#0", "d1#1"]
    assert [h.passage.id for h in deep["d1"]] == ["d1#0", "d1#1", "d1#2"]


def test_the_extra_passage_never_passes_three_times_the_default() -> None:
    bounds = SelectionBounds(3, 1)  # one source found: it reads three, the cap already
    assert len(kept_hits([letter_hits()], bounds)["d1"]) == 3
    assert len(kept_hits([letter_hits()], bounds, EXTRA_PASSAGES)["d1"]) == 3


def test_a_term_in_the_extra_passage_is_no_gap() -> None:
    # "tea" is only in the third sentence: Quick's selection (bound 2) lacks it, Deep's holds it.
    archive = Paged(LETTER, doc("d2", "1774-11-01", TEA))
    plan = harbor_plan("harbor", "closed", "tea")
    cfg = config(max_sources=1, per_source=2)
    _, searches = retrieve_sides(deps(archive, plan, cfg), plan, deep=True)
    assert [s.aim for s in searches] == ["plan"]


def test_only_deep_runs_show_the_extra_passage() -> None:
    archive = Paged(LETTER)
    plan = harbor_plan("harbor", "closed")
    pipeline = Pipeline(archive, Planner(plan), Answerer(), Auditor(), config(1, 2))
    quick, deep = (pipeline.run("What happened to the harbor?", mode=m) for m in ("quick", "deep"))
    assert [p.id for p in quick.sources[0].passages] == ["d1#0", "d1#1"]
    assert [p.id for p in deep.sources[0].passages] == ["d1#0", "d1#1", "d1#2"]


def test_the_extra_passage_never_lifts_a_question_into_coverage() -> None:
    # Only the extra passage (d1#2) names the tea ships, so it alone scores over a floor of
    # 0.6 (0.75; Quick's best 0.5): Deep, which shows it, must judge coverage as Quick does.
    archive = Paged(LETTER)
    plan = harbor_plan("harbor", "closed", "tea", "ships")
    cfg = PipelineConfig(GatePolicy(coverage_floor=0.6), SelectionBounds(1, 2), 0.02)
    pipeline = Pipeline(archive, Planner(plan), Answerer(), Auditor(), cfg)
    question = "What happened to the tea ships in the closed harbor?"
    quick, deep = (pipeline.run(question, mode=m) for m in ("quick", "deep"))
    assert "d1#2" in [p.id for p in deep.sources[0].passages]
    assert quick.coverage is not None and not quick.coverage.covered
    assert deep.coverage == quick.coverage
    assert deep.decision == quick.decision == Decision.OUTSIDE_COVERAGE


# --------------------------------------------------------------------------- receipts


def test_each_source_records_the_queries_that_found_its_passages() -> None:
    hits = Archive(doc("d1", "1774-10-01", HARBOR)).search("harbor", (), 5)
    marked = [h.model_copy(update={"queries": ("harbor", "closed")}) for h in hits]
    docs = {"d1": doc("d1", "1774-10-01", HARBOR)}
    [source] = select_sources([marked], docs, SelectionBounds(2, 2), "t")
    assert source.queries == ("harbor", "closed")
    [unmarked] = select_sources([hits], docs, SelectionBounds(2, 2), "t")
    assert unmarked.queries == ()


def run(mode: str) -> Receipt:
    archive = Archive(doc("d1", "1774-10-01", HARBOR), doc("d2", "1774-11-01", TEA))
    plan = harbor_plan("harbor", "closed", "tea")
    pipeline = Pipeline(archive, Planner(plan), Answerer(), Auditor(), config())
    return pipeline.run("What happened to the harbor?", mode=mode)


def test_receipts_say_which_query_found_which_source_in_both_modes() -> None:
    quick, deep = run("quick"), run("deep")
    assert [(s.doc_id, s.queries) for s in quick.sources] == [("d1", ("harbor closed",))]
    assert [s.query for s in quick.searches] == ["harbor closed"]
    assert deep.plan.mode == "deep"
    assert [(s.doc_id, s.queries) for s in deep.sources] == [
        ("d1", ("harbor closed", "tea harbor closed"))
    ]
    assert [s.aim for s in deep.searches] == ["plan", "terms 'tea': in no kept passage"]
    assert deep.decision == quick.decision == Decision.AUTO_CLEARED


@pytest.mark.parametrize("mode", ["quick", "deep"])
def test_a_receipt_with_queries_round_trips_and_verifies(mode: str) -> None:
    key = Ed25519PrivateKey.generate()
    receipt = run(mode).model_dump(mode="json")
    sealed = seal(receipt, key, None)
    again = Receipt.model_validate(sealed).model_dump(mode="json", exclude={"integrity"})
    assert again == {k: v for k, v in receipt.items() if k != "integrity"}
    report = verify_receipt(sealed, trusted_public_keys={raw_public_key(key)})
    assert report.ok, report.problems


def test_an_older_receipt_without_queries_or_searches_still_verifies() -> None:
    key = Ed25519PrivateKey.generate()
    receipt = run("deep").model_dump(mode="json")
    del receipt["searches"]
    for source in receipt["sources"]:
        del source["queries"]
    sealed = seal(receipt, key, None)
    assert verify_receipt(sealed, trusted_public_keys={raw_public_key(key)}).ok
    model = Receipt.model_validate(sealed)
    assert model.searches == [] and all(s.queries == () for s in model.sources)
