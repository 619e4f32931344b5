"""The coverage stage: time, rare terms and the score floor each put a run outside coverage."""

from __future__ import annotations

from evidence_desk.retrieval.coverage import (
    ArchiveStats,
    assess,
    capitalised_words,
    evidence_score,
    key_term_share,
)
from evidence_desk.types import Hit, Passage, Plan, ScoredPassage, Source, SubQuestion, TimeWindow

TEXT = "The banks of the nation were closed, and the banking crisis deepened through the winter."
W1934 = TimeWindow(start="1934-01-01", end="1934-12-31", label="1934")
W2031 = TimeWindow(start="2031-01-01", end="2031-12-31", label="2031")


def plan(key_terms: tuple[str, ...], windows: tuple[TimeWindow, ...] = ()) -> Plan:
    subs = tuple(SubQuestion(text="q", window=w) for w in windows) or (SubQuestion(text="q"),)
    return Plan(subquestions=subs, time_windows=windows, queries=("q",), key_terms=key_terms)


def source(text: str = TEXT, title: str = "Annual message, 1934") -> Source:
    return Source(
        id="S1",
        doc_id="d",
        title=title,
        retrieved_at="2026-01-01T00:00:00Z",
        content_sha256="0" * 64,
        passages=(ScoredPassage(id="d#0", text=text, start=0, end=len(text), score=0.0),),
    )


def hit(dense: float, text: str = TEXT) -> Hit:
    return Hit(
        passage=Passage(id="d#0", doc_id="d", text=text, start=0, end=len(text)),
        score=1.0,
        dense_score=dense,
    )


def stats(df: dict[str, int], docs_in: int = 5, n: int = 1000) -> ArchiveStats:
    return ArchiveStats(
        num_passages=n, doc_freq=lambda t: df.get(t, 0), docs_in_window=lambda w: docs_in
    )


def test_a_window_with_no_documents_is_outside_coverage() -> None:
    cov, _ = assess(
        plan(("bank",), (W2031,)),
        [hit(0.9)],
        [source()],
        stats({"bank": 50}, 0),
        floor=0.3,
        rare_term_max_df=0.02,
    )
    assert not cov.covered and cov.empty_windows == ("2031",)
    assert "2031" in cov.reason


def test_a_name_the_archive_never_uses_is_outside_coverage() -> None:
    cov, _ = assess(
        plan(("bank", "bitcoin")),
        [hit(0.9)],
        [source()],
        stats({"bank": 50}),
        floor=0.3,
        rare_term_max_df=0.02,
        question="What did banks say about Bitcoin?",
    )
    assert not cov.covered and cov.missing_terms == ("bitcoin",)
    assert "never mentions 'bitcoin'" in cov.reason


def test_a_rare_name_missing_from_the_selected_passages_is_outside_coverage() -> None:
    cov, _ = assess(
        plan(("bank", "gettysburg")),
        [hit(0.9)],
        [source()],
        stats({"bank": 50, "gettysburg": 3}),
        floor=0.3,
        rare_term_max_df=0.02,
        question="What did the banks do at Gettysburg?",
    )
    assert not cov.covered and cov.missing_terms == ("gettysburg",)


def test_a_rare_lower_case_word_is_left_to_the_score() -> None:
    # A reader's paraphrase ("surrender") need not appear in the archive's words.
    cov, _ = assess(
        plan(("bank", "surrender")),
        [hit(0.9)],
        [source()],
        stats({"bank": 50}),
        floor=0.3,
        rare_term_max_df=0.02,
        question="Did the banks surrender?",
    )
    assert cov.covered, cov.reason


def test_capitalised_words_skip_the_first_word() -> None:
    assert capitalised_words("What did NASA and Lincoln do?") == {"nasa", "lincoln"}


def test_common_terms_may_be_missing_and_titles_count() -> None:
    common = stats({"bank": 50, "winter": 900, "1934": 10})
    cov, _ = assess(
        plan(("bank", "winter", "1934")),
        [hit(0.9)],
        [source(TEXT.replace("winter", "year"))],
        common,
        floor=0.3,
        rare_term_max_df=0.02,
    )
    assert cov.covered, cov.reason


def test_the_score_floor_rejects_weak_evidence() -> None:
    weak = stats({"bank": 50, "crisis": 40})
    low, scores = assess(
        plan(("bank", "crisi")), [hit(-0.5)], [source()], weak, floor=0.9, rare_term_max_df=0.02
    )
    assert not low.covered and "below the coverage floor" in low.reason
    assert scores["d#0"] == low.score
    high, _ = assess(
        plan(("bank", "crisi")), [hit(0.8)], [source()], weak, floor=0.5, rare_term_max_df=0.02
    )
    assert high.covered and high.score > 0.5


def test_no_sources_is_outside_coverage() -> None:
    cov, _ = assess(plan(()), [], [], stats({}), floor=0.0, rare_term_max_df=0.02)
    assert not cov.covered and "no passage" in cov.reason


def test_evidence_score_blends_dense_and_term_share() -> None:
    assert evidence_score(1.0, 1.0) == 1.0
    assert evidence_score(None, 0.0) == 0.0
    assert evidence_score(0.5, 0.5) == 0.5
    weights = {"a": 1.0, "b": 3.0}
    assert key_term_share(["a", "b"], weights, {"b"}) == 0.75
    assert key_term_share([], {}, set()) == 1.0
