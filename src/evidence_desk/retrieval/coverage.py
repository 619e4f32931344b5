"""The coverage stage: does the archive hold what the question asks about?

An honest abstention beats a neighbouring answer made of true quotes. Three findings, any
one of which puts a run OUTSIDE_COVERAGE:

1. **Time.** The plan asks about a window (a year, a decade, a person's term) and the archive
   holds no document dated inside it.
2. **Rare names.** A key term the question spells with a capital (a name, a place, an
   event: "Gettysburg", "Alexander Hamilton", "NASA"; not the question's first word) is rare
   in the archive (in at most `rare_term_max_df` of its passages) and no selected passage or
   title contains it, nor a word sharing its stem's first four or more letters: the retrieved
   text is about someone or something else. Lower-case words are left to the score: a reader's
   paraphrase ("surrender" for "gave up") must not stop a run.
3. **Score.** The best selected passage's evidence score is below the floor. The evidence
   score blends the dense cosine between question and passage with the IDF-weighted share of
   the question's key terms the passage contains:
   `score = DENSE_WEIGHT * cosine + (1 - DENSE_WEIGHT) * key_term_share`.
   The floor is calibrated on data; see `docs/calibration.md` and `bench/calibrate_coverage.py`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..textutil import content_terms, stem, stem_terms, term_in, unique
from ..types import Coverage, Hit, Plan, Source, TimeWindow

DENSE_WEIGHT = 0.5


@dataclass(frozen=True)
class ArchiveStats:
    """What the coverage check needs to know about the whole archive."""

    num_passages: int
    doc_freq: Callable[[str], int]
    docs_in_window: Callable[[TimeWindow], int]


def idf(df: int, n: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def key_term_share(
    terms: Sequence[str], weights: Mapping[str, float], text_terms: set[str]
) -> float:
    """IDF-weighted share of `terms` found in `text_terms` (1.0 when there are no terms)."""
    total = sum(weights[t] for t in terms)
    if total <= 0:
        return 1.0
    return sum(weights[t] for t in terms if t in text_terms) / total


def evidence_score(dense: float | None, share: float) -> float:
    return DENSE_WEIGHT * (dense or 0.0) + (1.0 - DENSE_WEIGHT) * share


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def capitalised_words(question: str) -> set[str]:
    """Lower-cased words the question writes with a capital, its first word excepted."""
    found = list(_WORD.finditer(question))
    return {m.group(0).lower() for m in found[1:] if m.group(0)[0].isupper()}


def _windows_of(plan: Plan) -> list[TimeWindow]:
    windows = [sq.window for sq in plan.subquestions if sq.window is not None]
    return list(dict.fromkeys(windows or plan.time_windows))


def assess(
    plan: Plan,
    hits: Sequence[Hit],
    sources: Sequence[Source],
    stats: ArchiveStats,
    *,
    floor: float,
    rare_term_max_df: float,
    question: str = "",
) -> tuple[Coverage, dict[str, float]]:
    """The coverage finding, and the evidence score of every selected passage by id."""
    empty = [w.label for w in _windows_of(plan) if stats.docs_in_window(w) == 0]
    # Key terms may arrive as surface words or stems; compare stems, report surface forms.
    surface = {stem(t.lower()): t for t in reversed(unique(plan.key_terms))}
    terms = list(surface)
    n = max(stats.num_passages, 1)
    dfs = {t: stats.doc_freq(t) for t in terms}
    weights = {t: idf(dfs[t], n) for t in terms}

    dense_by_id = {h.passage.id: h.dense_score for h in hits}
    selected_terms: set[str] = set()
    scores: dict[str, float] = {}
    for src in sources:
        title_terms = set(stem_terms(src.title))
        selected_terms |= title_terms
        for p in src.passages:
            p_terms = set(content_terms(p.text)) | title_terms
            selected_terms |= p_terms
            share = key_term_share(terms, weights, p_terms)
            scores[p.id] = round(evidence_score(dense_by_id.get(p.id), share), 6)

    names = capitalised_words(question)
    missing = [
        t
        for t in terms
        if surface[t].lower() in names
        and dfs[t] <= rare_term_max_df * n
        and not term_in(t, selected_terms)
    ]
    best = max(scores.values(), default=0.0)
    covered, reason = _verdict(
        empty,
        [surface[t] for t in missing],
        [surface[t] for t in missing if dfs[t] == 0],
        best,
        floor,
        bool(sources),
    )
    return (
        Coverage(
            covered=covered,
            score=round(best, 6),
            floor=floor,
            reason=reason,
            missing_terms=tuple(surface[t] for t in missing),
            empty_windows=tuple(empty),
        ),
        scores,
    )


def _verdict(
    empty: Sequence[str],
    missing: Sequence[str],
    never: Sequence[str],
    best: float,
    floor: float,
    any_sources: bool,
) -> tuple[bool, str]:
    if empty:
        return False, f"The archive holds no document dated in {_join(empty)}."
    if never:
        return False, f"The archive never mentions {_join(repr(t) for t in never)}."
    if missing:
        return False, (
            f"No passage found for this question mentions {_join(repr(t) for t in missing)}, "
            "so the archive does not appear to cover it."
        )
    if not any_sources:
        return False, "The search found no passage for this question."
    if best < floor:
        return False, (
            f"The best passage scored {best:.2f}, below the coverage floor of {floor:.2f}: "
            "the archive does not appear to answer this question."
        )
    return True, f"The best passage scored {best:.2f}, above the coverage floor of {floor:.2f}."


def _join(items: Iterable[str]) -> str:
    seq = list(items)
    if len(seq) <= 1:
        return "".join(seq)
    return ", ".join(seq[:-1]) + " and " + seq[-1]
