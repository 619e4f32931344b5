"""The coverage stage: time, rare terms and the score floor each put a run outside coverage."""

from __future__ import annotations

import pytest

from evidence_desk.retrieval.coverage import (
    ArchiveStats,
    SubjectRule,
    assess,
    capitalised_words,
    evidence_score,
    key_term_share,
    synonym_share,
    text_senses,
    unanswered,
)
from evidence_desk.trust import lemmas
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
    assert not cov.covered and cov.missing_terms == ("Bitcoin",)
    assert "never mentions 'Bitcoin'" in cov.reason


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
    assert not cov.covered and cov.missing_terms == ("Gettysburg",)


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


# ------------------------------------------------------------ check reads the question


def dated(date: str, doc_id: str = "d", text: str = TEXT) -> Source:
    return source(text).model_copy(update={"date": date, "doc_id": doc_id})


W1963 = TimeWindow(start="1961-01-30", end="1963-01-14", label="John F. Kennedy")
W1982 = TimeWindow(start="1982-01-26", end="1988-01-25", label="Ronald Reagan")
RULE = SubjectRule(rare_term_max_df=0.02)


def test_a_draft_dated_outside_the_question_s_window_answers_another_question() -> None:
    why = unanswered(
        "What did Kennedy say?", plan((), (W1963,)), [dated("1934-01-03")], stats({}), RULE
    )
    assert why == (
        "the question asks about John F. Kennedy and no source that carries a sentence of "
        "the draft is dated then"
    )
    assert unanswered("q", plan((), (W1963,)), [dated("1962-01-11")], stats({}), RULE) is None


def test_one_reading_of_an_ambiguous_name_will_do_but_a_comparison_needs_each_side() -> None:
    either = plan((), (W1963, W1982))
    assert unanswered("q", either, [dated("1962-01-11")], stats({}), RULE) is None
    both = either.model_copy(update={"kind": "comparison"})
    why = unanswered("q", both, [dated("1962-01-11")], stats({}), RULE)
    assert why is not None and why.startswith("the question asks about Ronald Reagan and")
    neither = unanswered("q", either, [dated("1934-01-03")], stats({}), RULE)
    assert neither is not None and "John F. Kennedy or Ronald Reagan" in neither
    assert (
        unanswered("q", both, [dated("1962-01-11"), dated("1985-02-06")], stats({}), RULE) is None
    )


def test_a_distinctive_term_no_carrying_passage_mentions_answers_another_question() -> None:
    q = "What did the banks say about Gettysburg?"
    why = unanswered(
        q, plan(("bank", "gettysburg")), [source()], stats({"bank": 50, "gettysburg": 3}), RULE
    )
    assert why == (
        "the question asks about 'Gettysburg' and no passage that carries a sentence of the "
        "draft mentions it"
    )
    # One topic word of the question will do: the writer's "banking" for the reader's "banks".
    topic = plan(("trouble", "bank"))
    assert unanswered("What trouble hit the banks?", topic, [source()], stats({}), RULE) is None
    none = unanswered(
        "What did the army want?", plan(("army", "want")), [source()], stats({}), RULE
    )
    assert none == (
        "the question asks about 'army' or 'want' and no passage that carries a sentence of "
        "the draft mentions it"
    )


def test_a_question_naming_the_document_s_id_is_about_it() -> None:
    q = "What does 1934-Roosevelt-1 say?"
    cited = [dated("1934-01-03", doc_id="1934-Roosevelt-1")]
    assert unanswered(q, plan(()), cited, stats({}), RULE) is None
    other = [dated("1934-01-03", doc_id="1934-Kennedy-2")]
    assert unanswered(q, plan(()), other, stats({}), RULE) is not None


def test_nothing_carried_is_left_to_the_gate() -> None:
    assert unanswered("What did Kennedy say?", plan((), (W1963,)), [], stats({}), RULE) is None


UNIVERSITY = "I have proposed the expediency of establishing a national university."


def test_a_reader_s_synonym_earns_half_its_weight_beside_a_term_of_the_question(
    wordnet: None,
) -> None:
    """ "Founding" a university is "establishing" one; synonyms alone prove nothing."""
    weights = {"found": 1.0, "univers": 1.0}
    senses = {"found": lemmas.senses("founding")}
    held = text_senses(UNIVERSITY)
    assert synonym_share(["found", "univers"], weights, {"univers"}, senses, held) == 0.5
    # Without the question's own "university", "establishing" earns nothing.
    assert synonym_share(["found"], {"found": 1.0}, {"establish"}, senses, held) == 0.0
    assert synonym_share([], {}, set(), senses, held) == 0.0
    found, _ = assess(
        plan(("founding", "university")),
        [hit(0.30, UNIVERSITY)],
        [source(UNIVERSITY)],
        stats({}),
        floor=0.4,
        rare_term_max_df=0.01,
    )
    # 0.5 * 0.30 + 0.5 * (1 + 0.5 * 1) / 2: "university" itself, "founding" as a synonym.
    assert found.score == pytest.approx(0.525)


def test_a_name_the_question_capitalises_has_no_synonym(wordnet: None) -> None:
    """ "Grant" is an award in WordNet; a passage on an award is not about the president."""
    text = "The award was moved to a new office."
    asked = plan(("Grant", "moved"))
    args = ([hit(0.30, text)], [source(text)], stats({}))
    named, _ = assess(asked, *args, floor=0.4, rare_term_max_df=0.01, question="Did Grant move?")
    plain, _ = assess(asked, *args, floor=0.4, rare_term_max_df=0.01, question="did grant move?")
    assert named.score == pytest.approx(0.15 + 0.25)  # "moved" itself, no credit for a name
    assert plain.score == pytest.approx(0.15 + 0.375)  # a lower-case word may have its synonym
