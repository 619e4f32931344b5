"""Passage selection for read pages (`sources/passages.py`, `scoring.py`) and the evidence
pool (`sources/pool.py`): window math, caps, exact offsets, duplicates, budget, diversity."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidence_desk.retrieval.embedder import Vectors
from evidence_desk.sources.passages import (
    DEFAULT_SCORER,
    PageSelection,
    SelectionLimits,
    Window,
    default_scorers,
    excerpt_spans,
    select_passages,
    units,
    window_spans,
)
from evidence_desk.sources.pool import (
    DIVERSITY_CAVEAT,
    SourceMeta,
    diversity_of,
    estimate_tokens,
    pool_evidence,
    source_meta,
)
from evidence_desk.sources.scoring import BM25, Hybrid, Query, TermOverlap, page_idf
from evidence_desk.testing.embedder import HashingEmbedder
from evidence_desk.types import Document

FILLER = "Nothing of note happened on this quiet afternoon in the valley town. "


def _filler(chars: int) -> str:
    return (FILLER * (chars // len(FILLER) + 1))[:chars]


def _sentence(n_words: int, word: str = "lorem", *, key: str = "") -> str:
    body = " ".join([key] + [word] * (n_words - 1)) if key else " ".join([word] * n_words)
    return body[0].upper() + body[1:] + "."


def _assert_exact(text: str, sel: PageSelection) -> None:
    for p in sel.passages:
        assert p.text == text[p.start : p.end]
        q = p.quotation
        assert q.text == text[q.start : q.end]
        assert p.start <= q.start <= q.end <= p.end


# --------------------------------------------------------------------------- windows


def test_windows_start_every_1000_chars_and_cover_the_text() -> None:
    assert window_spans(0) == []
    assert window_spans(900) == [(0, 900)]
    assert window_spans(1_200) == [(0, 1_200)]
    assert window_spans(1_201) == [(0, 1_200), (1_000, 1_201)]
    assert window_spans(5_000) == [
        (0, 1_200),
        (1_000, 2_200),
        (2_000, 3_200),
        (3_000, 4_200),
        (4_000, 5_000),
    ]


def test_excerpt_keeps_best_five_positive_windows_merged_in_text_order() -> None:
    scores = {0: 5.0, 1_000: 4.0, 5_000: 9.0, 9_000: 3.0, 12_000: 2.0, 15_000: 1.0, 3_000: 0.0}
    windows = [Window(start=a, end=b, score=scores.get(a, 0.0)) for a, b in window_spans(20_000)]
    # Best five: 5000, 0, 1000, 9000, 12000; 0 and 1000 overlap and merge; 15000 is sixth.
    assert excerpt_spans(windows, SelectionLimits()) == [
        (0, 2_200),
        (5_000, 6_200),
        (9_000, 10_200),
        (12_000, 13_200),
    ]
    assert excerpt_spans([Window(start=0, end=1_200, score=0.0)], SelectionLimits()) == []


def test_excerpt_ties_go_to_the_earlier_window() -> None:
    windows = [Window(start=a, end=b, score=1.0) for a, b in window_spans(20_000)]
    limits = SelectionLimits(max_windows=2)
    assert excerpt_spans(windows, limits) == [(0, 2_200)]


def test_five_separate_windows_fill_the_6000_char_cap_and_a_tighter_cap_holds() -> None:
    scored = {0, 2_000, 4_000, 6_000, 8_000}
    windows = [
        Window(start=a, end=b, score=1.0 if a in scored else 0.0) for a, b in window_spans(20_000)
    ]
    spans = excerpt_spans(windows, SelectionLimits())
    assert sum(b - a for a, b in spans) == 6_000
    tight = SelectionLimits(max_excerpt_chars=2_000)
    best = [
        Window(start=0, end=1_200, score=3.0),
        Window(start=1_000, end=2_200, score=2.0),  # would merge to 2,200 chars: skipped
        Window(start=5_000, end=6_200, score=1.0),  # would make 2,400 chars: skipped
    ]
    assert excerpt_spans(best, tight) == [(0, 1_200)]


def test_excerpt_is_where_the_query_terms_are() -> None:
    text = _filler(9_500) + " The lighthouse keeper counted ships. " + _filler(9_500)
    sel = select_passages(text, "lighthouse keeper", doc_id="p")
    assert sel.excerpt_chars <= 6_000
    at = text.index("lighthouse")
    assert all(s.start <= at < s.end for s in sel.excerpt)
    assert [w.kept for w in sel.windows].count(True) == len([w for w in sel.windows if w.score])
    assert sel.passages and all("lighthouse" in p.text for p in sel.passages)
    _assert_exact(text, sel)


def test_a_page_that_never_mentions_the_query_gives_nothing() -> None:
    sel = select_passages(_filler(5_000), "lighthouse keeper", doc_id="p")
    assert sel.excerpt == () and sel.passages == ()


# --------------------------------------------------------------------------- passages


def test_at_most_8_passages_numbered_in_text_order_ranked_by_score() -> None:
    # 15 sentences of 60 words (~400 chars) in one 6,000-char stretch: 15 candidates.
    sentences = [_sentence(60, "harbor", key=f"word{i} ship") for i in range(15)]
    text = " ".join(sentences)
    sel = select_passages(text, "ship harbor", doc_id="doc")
    assert sel.candidates > 8
    assert len(sel.passages) == 8
    assert [p.id for p in sel.passages] == [f"doc#{n}" for n in range(8)]
    assert [p.start for p in sel.passages] == sorted(p.start for p in sel.passages)
    assert sorted(p.rank for p in sel.passages) == list(range(1, 9))
    best_first = sel.best_first()
    assert [p.score for p in best_first] == sorted((p.score for p in best_first), reverse=True)
    _assert_exact(text, sel)


def test_passages_hold_at_most_80_words_and_long_sentences_are_cut_exactly() -> None:
    long = " ".join(["Alpha"] + ["alpha"] * 99 + ["beacon"] + ["omega"] * 99) + "."
    text = "A short opener about the beacon. " + long + " Then the beacon shone."
    cut = [u for u in units(text, 80) if u.cut]
    assert [len(text[u.start : u.end].split()) for u in cut] == [80, 80, 40]
    sel = select_passages(text, "beacon", doc_id="p")
    assert all(p.words <= 80 and len(p.text.split()) == p.words for p in sel.passages)
    assert any(p.cut and "beacon" in p.text for p in sel.passages)
    _assert_exact(text, sel)


def test_passages_are_whole_sentences_packed_up_to_the_word_limit() -> None:
    text = "The mill burned in May. Its owner rebuilt the mill. Grain came again. " * 3
    sel = select_passages(
        text, "mill owner", doc_id="p", limits=SelectionLimits(max_passage_words=12)
    )
    spans = {(a, b) for a, b in ((u.start, u.end) for u in units(text, 12))}
    starts, ends = {a for a, _ in spans}, {b for _, b in spans}
    for p in sel.passages:
        assert p.start in starts and p.end in ends and p.words <= 12


def test_quotations_are_exact_at_most_20_words_and_show_the_query_terms() -> None:
    words = " ".join(f"w{i}" for i in range(30))
    text = f"{words} the comet returned in spring {words}. Other news followed here."
    sel = select_passages(text, "comet returned", doc_id="p")
    (p,) = [p for p in sel.passages if "comet" in p.text]
    assert len(p.quotation.text.split()) <= 20
    assert "comet returned" in p.quotation.text
    _assert_exact(text, sel)


def test_quotation_ends_are_trimmed_of_quote_marks_and_commas() -> None:
    text = '"The comet returned," she said.'
    (p,) = select_passages(text, "comet", doc_id="p").passages
    assert p.quotation.text == "The comet returned"
    assert text[p.quotation.start : p.quotation.end] == p.quotation.text


def test_near_duplicates_within_a_page_are_excluded_and_recorded() -> None:
    para = "The river flooded the lower town and the mayor ordered the bridge closed at noon."
    variant = para.replace("noon", "midday")
    text = f"{para}\n\n{variant}\n\n{para}"
    one_sentence_each = SelectionLimits(max_passage_words=len(para.split()))
    sel = select_passages(text, "river flooded bridge", doc_id="p", limits=one_sentence_each)
    assert len([p for p in sel.passages if "river flooded" in p.text]) == 1
    assert len(sel.excluded) == 2
    assert all(e.jaccard >= 0.8 for e in sel.excluded)
    kept = next(p for p in sel.passages if "river flooded" in p.text)
    assert {e.duplicate_of for e in sel.excluded} == {kept.id}
    assert kept.text == para and kept.start == 0  # the first of equal scores is kept
    repeats = sorted((e.jaccard, text[e.start : e.end]) for e in sel.excluded)
    assert [t for _, t in repeats] == [variant, para] and repeats[1][0] == 1.0


def test_several_queries_pool_their_terms() -> None:
    assert Query.of(["the harbor master", "Harbors closed"]).terms == ("harbor", "master", "close")


def test_default_scorer_needs_no_model_and_an_embedder_adds_hybrid_passages() -> None:
    assert isinstance(DEFAULT_SCORER, BM25)
    assert default_scorers(None) == (DEFAULT_SCORER, DEFAULT_SCORER)
    passages, windows = default_scorers(HashingEmbedder())
    assert isinstance(passages, Hybrid) and windows is DEFAULT_SCORER


def test_scorers_rank_the_matching_text_first() -> None:
    texts = ["The tide rose.", "The harbor master closed the harbor.", "Boats left the harbor."]
    idf = page_idf(texts)
    q = Query.of("harbor master")
    for scorer in (TermOverlap(), BM25()):
        scores = scorer.score(q, texts, idf)
        assert scores[0] == 0.0 and scores[1] == max(scores)


class _Axis:
    """A stand-in embedder: texts naming `word` point along one axis, others along another."""

    model_id = "test/axis"
    dim = 2

    def __init__(self, word: str) -> None:
        self.word = word

    def _vector(self, text: str) -> Vectors:
        return np.array([1.0, 0.0] if self.word in text else [0.0, 1.0], dtype=np.float32)

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        return np.stack([self._vector(t) for t in texts]).astype(np.float32)

    def embed_query(self, text: str) -> Vectors:
        return np.array([1.0, 0.0], dtype=np.float32)


def test_hybrid_breaks_a_lexical_tie_by_embedding() -> None:
    texts = ["The harbor was calm.", "The harbor was seaworthy."]
    scores = Hybrid(_Axis("seaworthy")).score(Query.of("harbor"), texts, page_idf(texts))
    assert scores[1] > scores[0] > 0


def test_hybrid_selection_with_a_stand_in_embedder_keeps_offsets_exact() -> None:
    text = _filler(3_000) + " The harbor master closed the harbor. " + _filler(3_000)
    sel = select_passages(text, "harbor master", doc_id="p", scorer=Hybrid(HashingEmbedder()))
    assert sel.scorer == "hybrid"
    assert any("harbor master" in p.text for p in sel.best_first()[:1])
    _assert_exact(text, sel)


def test_limits_are_validated() -> None:
    with pytest.raises(ValueError):
        SelectionLimits(stride_chars=1_300)
    with pytest.raises(ValueError):
        SelectionLimits(max_passages=0)


def test_a_selection_round_trips_as_json() -> None:
    text = "The harbor master closed the harbor. " * 5
    sel = select_passages(text, "harbor", doc_id="p")
    assert PageSelection.model_validate_json(sel.model_dump_json()) == sel


# --------------------------------------------------------------------------- pool


DEFAULT_LIMITS = SelectionLimits()


def _page(
    doc_id: str, paragraphs: Sequence[str], limits: SelectionLimits = DEFAULT_LIMITS
) -> PageSelection:
    return select_passages("\n\n".join(paragraphs), "harbor", doc_id=doc_id, limits=limits)


def _meta(doc_id: str, url: str | None = None, site: str | None = None) -> SourceMeta:
    return SourceMeta(doc_id=doc_id, title=f"Title {doc_id}", site=site, url=url)


def test_tokens_are_chars_over_four_rounded_up() -> None:
    assert [estimate_tokens(t) for t in ("", "a", "abcd", "abcde")] == [0, 1, 1, 2]


def test_pool_counts_metadata_lines_and_stays_within_budget() -> None:
    a = _page("a", ["The harbor opened.", "Ships filled the harbor."])
    b = _page("b", ["A new harbor wall was built."])
    metas = [_meta("a", "https://a.example/x"), _meta("b", "https://b.example/y")]
    pool = pool_evidence([a, b], metas)
    passages = [p for s in pool.sources for p in s.passages]
    lines = sum(estimate_tokens(s.meta.line) for s in pool.sources)
    assert pool.used_tokens == sum(estimate_tokens(p.text) for p in passages) + lines
    assert pool.used_tokens == sum(s.tokens for s in pool.sources)
    assert pool.drops == ()
    assert [s.meta.doc_id for s in pool.sources] == ["a", "b"]


def test_a_passage_that_does_not_fit_is_dropped_whole_and_recorded() -> None:
    big = "The harbor " + "grew busier every single year " * 20 + "."
    small = "A harbor cat."
    a = _page("a", [big])
    b = _page("b", [small])
    metas = [_meta("a"), _meta("b")]
    need_b = estimate_tokens(small) + estimate_tokens(metas[1].line)
    pool = pool_evidence([a, b], metas, budget_tokens=need_b + 5)
    assert [s.meta.doc_id for s in pool.sources] == ["b"]
    assert pool.sources[0].passages[0].text == small
    (drop,) = pool.drops
    assert drop.doc_id == "a" and drop.passage_id == "a#0" and drop.reason == "budget"
    assert drop.tokens == estimate_tokens(a.passages[0].text) + estimate_tokens(metas[0].line)
    assert pool.used_tokens <= pool.budget_tokens
    shown = [p.text for s in pool.sources for p in s.passages]
    assert not any(t in big for t in shown)  # nothing of the dropped passage, cut or whole


def test_the_metadata_line_can_be_what_does_not_fit() -> None:
    sel = _page("a", ["The harbor opened."])
    meta = _meta("a", "https://example.com/a-very-long-address/of/the/page")
    passage_only = estimate_tokens(sel.passages[0].text)
    pool = pool_evidence([sel], [meta], budget_tokens=passage_only)
    assert pool.sources == () and pool.drops[0].reason == "budget"


def test_every_page_best_passage_is_admitted_before_any_second_best() -> None:
    many = [f"The harbor story number {i} about the harbor and more harbor." for i in range(8)]
    a = _page("a", many)
    b = _page("b", ["Once a harbor."])
    metas = [_meta("a"), _meta("b")]
    first_a = a.best_first()[0]
    budget = (
        estimate_tokens(first_a.text)
        + estimate_tokens(b.passages[0].text)
        + estimate_tokens(metas[0].line)
        + estimate_tokens(metas[1].line)
    )
    pool = pool_evidence([a, b], metas, budget_tokens=budget)
    assert [[p.id for p in s.passages] for s in pool.sources] == [[first_a.id], ["b#0"]]
    assert all(d.reason == "budget" and d.doc_id == "a" for d in pool.drops)


def test_near_duplicates_across_sources_are_shown_once() -> None:
    story = (
        "The harbor authority said on Tuesday that the overnight storm sank four fishing "
        "boats near the old pier, and that the crews of all of them were rescued by the "
        "coast guard before dawn."
    )
    copy = story.replace("before dawn", "by dawn")  # a syndicated copy, lightly edited
    one_sentence_each = SelectionLimits(max_passage_words=len(story.split()))
    a = _page("a", [story, "Also the harbor café reopened."], one_sentence_each)
    b = _page("b", [copy, "Harbor fees rise."], one_sentence_each)
    pool = pool_evidence([a, b], [_meta("a"), _meta("b")])
    shown = [p.text for s in pool.sources for p in s.passages]
    assert sum("storm sank" in t for t in shown) == 1
    (drop,) = [d for d in pool.drops if d.reason == "duplicate"]
    assert drop.doc_id == "b" and "a#" in drop.detail


def test_diversity_counts_publishers_and_domains_with_the_caveat() -> None:
    metas = [
        _meta("1", "https://www.example.com/a", site="Example News"),
        _meta("2", "https://example.com/b", site="example news"),
        _meta("3", "https://news.other.org/c"),
        _meta("4"),
    ]
    d = diversity_of(metas)
    assert d.publishers == ("example news", "news.other.org")
    assert d.domains == ("example.com", "news.other.org")
    assert d.sources == 4
    assert d.caveat == DIVERSITY_CAVEAT and "not independent corroboration" in d.caveat
    assert d.summary.startswith("2 publishers and 2 domains across 4 sources.")
    assert d.summary.endswith(DIVERSITY_CAVEAT)


def test_pool_diversity_counts_only_shown_sources() -> None:
    a = _page("a", ["The harbor opened."])
    b = _page("b", ["Nothing here."])
    pool = pool_evidence([a, b], [_meta("a", "https://a.org/"), _meta("b", "https://b.org/")])
    assert pool.diversity.domains == ("a.org",)
    assert pool.diversity.summary.startswith("1 publisher and 1 domain across 1 source.")


def test_source_meta_reads_the_site_name_and_the_line_has_what_is_known() -> None:
    doc = Document(
        doc_id="d",
        title="Storm hits harbor",
        date="2024-03-01",
        url="https://www.example.com/storm",
        origin="web",
        content_sha256="0" * 64,
        ingested_at="2024-03-02T00:00:00Z",
        text="x",
        meta={"sitename": "Example News"},
    )
    meta = source_meta(doc)
    assert meta.publisher == "Example News" and meta.domain == "example.com"
    assert (
        meta.line == "Storm hits harbor · Example News · 2024-03-01 · https://www.example.com/storm"
    )


def test_pool_needs_one_meta_per_selection() -> None:
    with pytest.raises(ValueError):
        pool_evidence([_page("a", ["The harbor."])], [])


# --------------------------------------------------------------------------- property

_ALPHABET = st.sampled_from([*"abcdeXYZ019 .!?\n\"'()—é,;“”", "harbor", "Ship", "  ", "\n\n"])
_text = st.lists(_ALPHABET, max_size=400).map("".join)


@st.composite
def _limits(draw: st.DrawFn) -> SelectionLimits:
    window = draw(st.integers(20, 400))
    return SelectionLimits(
        window_chars=window,
        stride_chars=draw(st.integers(1, window)),
        max_windows=draw(st.integers(1, 6)),
        max_excerpt_chars=draw(st.integers(1, 1_500)),
        max_passages=draw(st.integers(1, 9)),
        max_passage_words=draw(st.integers(1, 12)),
        max_quote_words=draw(st.integers(1, 5)),
    )


@given(_text, st.sampled_from(["harbor ship", "abc", "x é", "ship"]), _limits())
def test_every_selected_passage_and_quotation_is_exact_at_its_offsets(
    text: str, query: str, limits: SelectionLimits
) -> None:
    sel = select_passages(text, query, doc_id="p", limits=limits)
    _assert_exact(text, sel)
    assert sel.excerpt_chars <= limits.max_excerpt_chars
    assert len(sel.passages) <= limits.max_passages
    spans = [(s.start, s.end) for s in sel.excerpt]
    previous_end = -1
    for p in sel.passages:
        assert len(p.text.split()) == p.words <= limits.max_passage_words
        assert len(p.quotation.text.split()) <= limits.max_quote_words
        assert any(a <= p.start and p.end <= b for a, b in spans)
        assert p.start >= previous_end and p.text.strip() == p.text
        previous_end = p.end
