"""The coverage stage: does the archive hold what the question asks about?

An honest abstention beats a neighbouring answer made of true quotes. Three findings, any
one of which puts a run OUTSIDE_COVERAGE:

1. **Time.** The plan asks about a window (a year, a decade, a person's term) and the
   archive holds no document dated inside it.
2. **Subject.** A distinctive term of the question (`retrieval/subject.py`: a code-like
   token such as `WCAG 3.0` or `login.gov`, a multi-word name, or a key term that is
   capitalised or uncommon in English) is rare in the archive (as a word or a phrase, in at
   most `rare_term_max_df` of its passages) and not in the selected evidence: the retrieved
   text is about someone or something else. A word counts as found when a selected passage or
   title contains it or a word sharing its stem's first four or more letters. A common
   English word is left to the score: a reader's paraphrase ("surrender" for "gave up")
   must not stop a run. The reason names the missing term.
3. **Score.** The best selected passage's evidence score is below the floor. The evidence
   score blends the dense cosine between question and passage with the IDF-weighted share of
   the question's key terms the passage contains:
   `score = DENSE_WEIGHT * cosine + (1 - DENSE_WEIGHT) * key_term_share`.
   A key term the passage holds only as a WordNet synonym ("founding" for "establishing")
   counts `SYNONYM_CREDIT` of its weight, in a passage that holds another key term itself
   (a word the question capitalises is a name, with no synonym).
   The floor and the subject rule's thresholds are calibrated on data from two archives;
   see `docs/calibration.md` and `bench/calibrate_coverage.py`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from ..textutil import content_terms, stem, stem_terms, term_in, unique, words
from ..trust.lemmas import senses
from ..trust.units import fold
from ..types import Coverage, Hit, Plan, Source, TimeWindow
from .subject import (
    NAME_SPAN_EXTRA,
    SubjectTerm,
    capitalised_words,
    close_together,
    code_terms,
    in_order,
    is_distinctive_word,
    name_terms,
    unique_terms,
)

DENSE_WEIGHT = 0.5
# A key term the passage holds only as a synonym counts this much of its weight.
SYNONYM_CREDIT = 0.5


@dataclass(frozen=True)
class ArchiveStats:
    """What the coverage check needs to know about the whole archive."""

    num_passages: int
    doc_freq: Callable[[str], int]
    docs_in_window: Callable[[TimeWindow], int]
    # Passages holding stems in order, at most `slop` words apart; None: not known, and
    # every code-like token and name is then taken to be rare.
    phrase_freq: Callable[[Sequence[str], int], int] | None = None


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


def synonym_share(
    terms: Sequence[str],
    weights: Mapping[str, float],
    text_terms: set[str],
    term_senses: Mapping[str, frozenset[tuple[str, str]]],
    text_senses: frozenset[tuple[str, str]],
) -> float:
    """The IDF-weighted share of `terms` that a text holds only as a synonym (a WordNet
    sense of one of its words, `trust.lemmas.senses`), when it holds at least one of the
    terms itself: a reader who asks about "founding" an academy is answered by a passage
    on "establishing" one, but synonyms alone never make a passage about the question."""
    total = sum(weights[t] for t in terms)
    if total <= 0 or not any(t in text_terms for t in terms):
        return 0.0
    found = [
        t for t in terms if t not in text_terms and term_senses.get(t, frozenset()) & text_senses
    ]
    return sum(weights[t] for t in found) / total


@lru_cache(maxsize=4096)
def text_senses(text: str) -> frozenset[tuple[str, str]]:
    """Every WordNet sense of the words of `text` (a passage met again is read once)."""
    return frozenset().union(*(senses(fold(w)) for w in set(words(text))))


def evidence_score(dense: float | None, share: float) -> float:
    return DENSE_WEIGHT * (dense or 0.0) + (1.0 - DENSE_WEIGHT) * share


@dataclass(frozen=True)
class _Bag:
    """One selected passage as the subject rule reads it: its stems with its source's title
    and names (for words), and its, its title's, its site's and each name's tokens in order
    (stems for names, raw tokens for code)."""

    stems: frozenset[str]
    stem_runs: tuple[list[str], ...]
    token_runs: tuple[list[str], ...]


def _bags(sources: Sequence[Source]) -> list[_Bag]:
    bags: list[_Bag] = []
    for src in sources:
        # The site a source comes from names it too: "digital.gov" for its own articles; and
        # so does its id, which a question may name ("What does 1941-Roosevelt-1 say?").
        site = (urlsplit(src.url).hostname or "") if src.url else ""
        about = [src.title, *src.names]
        about_stems = [stem_terms(t) for t in about]
        about_tokens = [words(t) for t in [*about, site, src.doc_id]]
        for p in src.passages:
            own = stem_terms(p.text)
            bags.append(
                _Bag(
                    frozenset(own).union(*about_stems),
                    (own, *about_stems),
                    (words(p.text), *about_tokens),
                )
            )
    return bags


def _common_phrase(
    term: SubjectTerm, stems: Sequence[str], stats: ArchiveStats, most: float
) -> bool:
    """True when the archive holds the term as a phrase in more than `most` passages: a
    thing it writes about often ("digital.gov" in its own articles), which a question's
    evidence need not repeat. A name's words may stand `NAME_SPAN_EXTRA` words apart."""
    if stats.phrase_freq is None:
        return False
    slop = 0 if term.kind == "code" else NAME_SPAN_EXTRA
    return stats.phrase_freq(stems, slop) > most


def _found(term: SubjectTerm, bags: Sequence[_Bag]) -> bool:
    if term.kind == "code":
        return any(in_order(term.parts, toks) for bag in bags for toks in bag.token_runs)
    return any(close_together(term.parts, run) for bag in bags for run in bag.stem_runs)


def _windows_of(plan: Plan) -> list[TimeWindow]:
    windows = [sq.window for sq in plan.subquestions if sq.window is not None]
    return list(dict.fromkeys(windows or plan.time_windows))


@dataclass(frozen=True)
class SubjectRule:
    """The thresholds of the subject rule (settings; calibrated in docs/calibration.md)."""

    rare_term_max_df: float
    common_zipf: float = 0.0


def missing_subject_terms(
    question: str,
    plan: Plan,
    sources: Sequence[Source],
    stats: ArchiveStats,
    rule: SubjectRule,
) -> tuple[list[str], list[str]]:
    """(distinctive terms no selected passage holds, those of them the archive never uses),
    as the reader wrote them."""
    n = max(stats.num_passages, 1)
    bags = _bags(sources)
    every = frozenset().union(*(b.stems for b in bags)) if bags else frozenset()
    missing: list[str] = []
    never: list[str] = []
    covered_words: set[str] = set()
    for term in unique_terms([*code_terms(question), *name_terms(question)]):
        covered_words |= set(term.parts) | {stem(p) for p in term.parts}
        stems = [stem(p) for p in term.parts] if term.kind == "code" else list(term.parts)
        if _found(term, bags) or _common_phrase(term, stems, stats, rule.rare_term_max_df * n):
            continue
        missing.append(term.surface)
        if any(stats.doc_freq(s) == 0 for s in stems if not s.isdigit()):
            never.append(term.surface)
    capitals = capitalised_words(question)
    surface = {stem(t.lower()): t for t in reversed(unique(plan.key_terms))}
    for t, word in surface.items():
        if t in covered_words or word.lower() in covered_words:
            continue  # already judged as part of a name or code term
        df = stats.doc_freq(t)
        if df > rule.rare_term_max_df * n or term_in(t, every):
            continue
        if is_distinctive_word(word, capitals, rule.common_zipf):
            word = _as_written(word, question)
            missing.append(word)
            if df == 0:
                never.append(word)
    return missing, never


def _as_written(word: str, question: str) -> str:
    """`word` (a plan's key term, lower-cased) as the question spells it ("Hitler")."""
    m = re.search(rf"\b{re.escape(word)}\b", question, re.IGNORECASE)
    return m.group(0) if m else word


def assess(
    plan: Plan,
    hits: Sequence[Hit],
    sources: Sequence[Source],
    stats: ArchiveStats,
    *,
    floor: float,
    rare_term_max_df: float,
    question: str = "",
    common_zipf: float = 0.0,
) -> tuple[Coverage, dict[str, float]]:
    """The coverage finding, and the evidence score of every selected passage by id."""
    empty = [w.label for w in _windows_of(plan) if stats.docs_in_window(w) == 0]
    # Key terms may arrive as surface words or stems; compare stems.
    terms = unique(stem(t.lower()) for t in plan.key_terms)
    n = max(stats.num_passages, 1)
    weights = {t: idf(stats.doc_freq(t), n) for t in terms}

    # A name the question writes with a capital ("Washington") has no synonym.
    names = capitalised_words(question)
    surface = {stem(t.lower()): t.lower() for t in plan.key_terms}
    term_senses = {
        t: frozenset() if surface.get(t, t) in names else senses(fold(surface.get(t, t)))
        for t in terms
    }
    dense_by_id = {h.passage.id: h.dense_score for h in hits}
    scores: dict[str, float] = {}
    for src in sources:
        title_terms = set(stem_terms(src.title))
        for p in src.passages:
            p_terms = set(content_terms(p.text)) | title_terms
            share = key_term_share(terms, weights, p_terms)
            if 0.0 < share < 1.0:  # a term held itself, another perhaps as a synonym
                shared = synonym_share(
                    terms, weights, p_terms, term_senses, text_senses(f"{p.text} {src.title}")
                )
                share += SYNONYM_CREDIT * shared
            scores[p.id] = round(evidence_score(dense_by_id.get(p.id), share), 6)

    missing, never = missing_subject_terms(
        question, plan, sources, stats, SubjectRule(rare_term_max_df, common_zipf)
    )
    best = max(scores.values(), default=0.0)
    covered, reason = _verdict(empty, missing, never, best, floor, bool(sources))
    return (
        Coverage(
            covered=covered,
            score=round(best, 6),
            floor=floor,
            reason=reason,
            missing_terms=tuple(missing),
            empty_windows=tuple(empty),
        ),
        scores,
    )


def dated_in(source: Source, window: TimeWindow) -> bool:
    """True when the source's own date lies inside `window`."""
    return bool(source.date) and window.start[:10] <= (source.date or "")[:10] <= window.end[:10]


def unanswered(
    question: str,
    plan: Plan,
    carrying: Sequence[Source],
    stats: ArchiveStats,
    rule: SubjectRule,
    dates: Callable[[Source, TimeWindow], bool] = dated_in,
) -> str | None:
    """Why a draft written elsewhere does not answer `question`, or None when it may.

    `check` judges a draft against the sources it cites, not against what the desk would
    retrieve, so it reads the question against those: `carrying` holds each cited source
    with only the passages that carry a sentence of the draft. The draft answers another
    question when a window the question asks about holds none of its cited sources' dates
    (each window of a comparison; of any other plan, all of them), a distinctive term of
    the question (coverage's subject rule) is in none of those passages, titles, names or
    ids, or none of its topic words (the plan's key terms) is: one of them will do, as a
    word sharing its stem's first four letters, so a writer may leave the others to the
    source's own words. `dates(source, window)`: whether a carrying source dates what it
    says in the window (its own date, by default).
    """
    if not carrying:
        return None  # no sentence is carried: the gate holds the draft on that alone
    windows = _windows_of(plan)
    empty = [w for w in windows if not any(dates(s, w) for s in carrying)]
    # A comparison asks about each of its windows; any other plan's windows are readings of
    # one question ("Roosevelt": Theodore's years or Franklin's), and one of them will do.
    if empty and (plan.kind == "comparison" or len(empty) == len(windows)):
        labels = [w.label for w in (empty if plan.kind == "comparison" else windows)]
        asked = _join(labels) if plan.kind == "comparison" else " or ".join(labels)
        return (
            f"the question asks about {asked} and no source that carries a sentence of the "
            "draft is dated then"
        )
    missing, _ = missing_subject_terms(question, plan, carrying, stats, rule)
    if missing:
        return (
            f"the question asks about {_join(repr(t) for t in missing)} and no passage that "
            "carries a sentence of the draft mentions it"
        )
    topic = unique(plan.key_terms)
    every = frozenset().union(*(b.stems for b in _bags(carrying)))
    if topic and not any(term_in(stem(t.lower()), every) for t in topic):
        asked = " or ".join(repr(_as_written(t, question)) for t in topic)
        return (
            f"the question asks about {asked} and no passage that carries a sentence of the "
            "draft mentions it"
        )
    return None


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
