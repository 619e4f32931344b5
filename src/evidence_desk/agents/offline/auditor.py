"""The offline auditor: per-claim verdicts from words, embeddings, numbers and negation.

For each claim it reads only the cited sources, one passage window at a time (a passage,
or two consecutive passages a quote runs across), the same notion of passage as the
grounding contract (docs/grounding.md): a claim is judged on the single window that covers
it best, never on words gathered from all over a document. It measures how much of the
claim's content (IDF-weighted) that window covers: verbatim quotes cover their own words,
the source's title, names and date cover framing words, and the best set of up to
`max_sentences` sentences of the window covers the rest. It adds the embedding similarity
between the claim and its best evidence sentence, then applies two vetoes: a figure the
evidence does not hold caps the verdict (and a different figure in the same slot
contradicts it), and a negation that the matching evidence lacks (or the reverse)
contradicts it. Thresholds are calibrated on WiCE (see calibration.py and
docs/auditor.md) with a floor on the precision of `supported`: when in doubt it says
`partial`. Its verdicts are advice: the gate decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from ...retrieval.embedder import Embedder
from ...textutil import STOPWORDS, content_terms, stem, unique, words
from ...trust.answer import LATER
from ...trust.numbers import unmatched_figures
from ...trust.units import (
    ATTRIBUTION_PHRASES_TEXT,
    ATTRIBUTION_VERBS_TEXT,
    DISCOURSE_WORDS_TEXT,
    REPORTING_PHRASES_TEXT,
    REPORTING_VERBS_TEXT,
    SOURCE_NOUNS_TEXT,
)
from ...types import CitedSpan, ClaimAudit, Source, Verdict
from ..base import ClaimToAudit
from .calibration import AuditThresholds, load_thresholds
from .claimtext import ClaimParts, parse_claim, plain
from .evidence import (
    EvidenceSentence,
    Idf,
    collapse,
    coverage,
    evidence_sentences,
    greedy_cover,
    local_idf,
)
from .gathering import gathered
from .numbers import figures, is_negation, negated, negated_near

_PUNCT = ".,;:!?'’()[]—–-|·"
# Words of a frame (`He also argued that`, `spoke of`): the grounding contract decides where
# they are one.
_FRAME_TERMS = frozenset(
    stem(w)
    for text in (
        ATTRIBUTION_VERBS_TEXT,
        ATTRIBUTION_PHRASES_TEXT.replace(";", " "),
        REPORTING_PHRASES_TEXT.replace(";", " "),
        REPORTING_VERBS_TEXT,
        DISCOURSE_WORDS_TEXT,
        SOURCE_NOUNS_TEXT,
    )
    for w in text.split()
)
_NEAR = 3  # best-overlap sentences whose figures also count as the claim's evidence
_RANK = {Verdict.UNSUPPORTED: 0, Verdict.PARTIAL: 1, Verdict.SUPPORTED: 2}


@dataclass(frozen=True)
class ClaimFeatures:
    """Everything the verdict is decided from; kept so calibration can replay decisions."""

    known_citations: bool
    coverage: float = 0.0
    similarity: float | None = None
    best_overlap: float = 0.0
    quotes: int = 0
    quotes_verbatim: int = 0
    missing_numbers: tuple[str, ...] = ()
    number_conflict: str | None = None
    negation_conflict: bool = False
    negation_missing: bool = False  # a negation outside quotes that the window lacks
    evidence: tuple[str, ...] = ()
    # The sentences of the best window that cover the claim, (source id, verbatim text):
    # the spans a `supported` verdict names for the paraphrase tier.
    spans: tuple[tuple[str, str], ...] = ()
    # A list the claim names, spelled out in consecutive sentences of one window
    # (`gathering.py`): those sentences, (source id, verbatim text).
    gathered: tuple[tuple[str, str], ...] = ()


@dataclass
class _Lexical:
    """Phase one of a claim's audit: everything but the embedding similarity."""

    parts: ClaimParts
    features: ClaimFeatures
    candidates: list[EvidenceSentence]


@dataclass(frozen=True)
class _Window:
    """One passage, or two consecutive passages joined: what may carry a claim."""

    source_id: str
    passage_ids: tuple[str, ...]
    text: str  # collapsed
    sentences: tuple[EvidenceSentence, ...]


def _ordinal(passage_id: str) -> int | None:
    tail = passage_id.rsplit("#", 1)[-1]
    return int(tail) if tail.isdigit() else None


class _Context:
    """The run's sources, split into sentences and passage windows once for all claims."""

    def __init__(self, sources: Sequence[Source], idf: Idf | None) -> None:
        self.by_id = {s.id: s for s in sources}
        sentences = evidence_sentences(sources)
        by_passage: dict[str, list[EvidenceSentence]] = {}
        for s in sentences:
            by_passage.setdefault(s.passage_id, []).append(s)
        self.idf = idf or local_idf(sentences)
        self.windows: dict[str, list[_Window]] = {}
        for src in sources:
            ordered = sorted(src.passages, key=lambda p: (p.start, p.id))
            wins = [
                _Window(src.id, (p.id,), collapse(p.text), tuple(by_passage.get(p.id, [])))
                for p in ordered
            ]
            for a, b in pairwise(ordered):
                oa, ob = _ordinal(a.id), _ordinal(b.id)
                if oa is not None and ob == oa + 1:
                    joined = tuple(by_passage.get(a.id, [])) + tuple(by_passage.get(b.id, []))
                    wins.append(
                        _Window(src.id, (a.id, b.id), collapse(f"{a.text} {b.text}"), joined)
                    )
            self.windows[src.id] = wins

    def metadata(self, source_id: str) -> str:
        """Title, names, doc id, date (also spelled out) and url: what framing words and
        figures may rest on."""
        s = self.by_id[source_id]
        parts = (s.title, *s.names, s.doc_id, s.date or "", _spelled_date(s.date), s.url or "")
        return " ".join(x for x in parts if x)


def _cap(verdict: Verdict, cap: Verdict) -> Verdict:
    return verdict if _RANK[verdict] <= _RANK[cap] else cap


def decide(f: ClaimFeatures, t: AuditThresholds) -> ClaimAudit:
    """The verdict for one claim's features under thresholds `t`."""
    ev = f.evidence
    if not f.known_citations:
        why = "The claim cites no source that exists in this run."
        return ClaimAudit(verdict=Verdict.UNSUPPORTED, confidence=1.0, rationale=why)
    overlap = round(f.best_overlap, 3)
    if f.negation_conflict:
        why = f"Negation differs from the evidence that shares {f.best_overlap:.0%} of its terms."
        return ClaimAudit(
            verdict=Verdict.CONTRADICTED, evidence=ev, confidence=overlap, rationale=why
        )
    if f.number_conflict:
        why = f"The evidence gives a different figure: {f.number_conflict}."
        return ClaimAudit(
            verdict=Verdict.CONTRADICTED, evidence=ev, confidence=overlap, rationale=why
        )
    if f.gathered and not f.quotes and not f.missing_numbers and not f.negation_missing:
        why = "Each item of the list is in a sentence of the source, which spells it out."
        rests = tuple(CitedSpan(source_id=sid, text=text) for sid, text in f.gathered)
        return ClaimAudit(
            verdict=Verdict.SUPPORTED, evidence=ev, confidence=0.9, rationale=why, spans=rests
        )
    verbatim = f.quotes and f.quotes_verbatim == f.quotes
    if verbatim and f.coverage >= 0.999 and not f.missing_numbers and not f.negation_missing:
        why = "Every quote is verbatim in a cited passage and the framing is in the source."
        return ClaimAudit(verdict=Verdict.SUPPORTED, evidence=ev, confidence=0.95, rationale=why)
    sim = max(f.similarity if f.similarity is not None else f.coverage, 0.0)
    score = t.lexical_weight * f.coverage + (1 - t.lexical_weight) * sim
    spans: tuple[CitedSpan, ...] = ()
    if score >= t.supported:
        verdict, conf = (
            Verdict.SUPPORTED,
            0.5 + 0.5 * (score - t.supported) / max(1e-9, 1 - t.supported),
        )
        spans = tuple(CitedSpan(source_id=sid, text=text) for sid, text in f.spans)
    elif score >= t.partial:
        verdict, conf = Verdict.PARTIAL, 0.5
    else:
        verdict, conf = Verdict.UNSUPPORTED, 0.5 + 0.5 * (t.partial - score) / max(1e-9, t.partial)
    why = f"Evidence covers {f.coverage:.0%} of the claim's terms; similarity {sim:.2f}"
    if f.missing_numbers:
        verdict = _cap(verdict, Verdict(t.missing_number_cap))
        why += f"; figures not in the evidence: {', '.join(f.missing_numbers)}"
    if f.quotes_verbatim < f.quotes:
        verdict = _cap(verdict, Verdict.PARTIAL)
        why += "; a quote is not verbatim in the cited passages"
    if f.negation_missing:
        verdict = _cap(verdict, Verdict.PARTIAL)
        why += "; a negation of the claim is not in the passage"
    return ClaimAudit(
        verdict=verdict,
        evidence=ev,
        confidence=round(min(conf, 0.99), 3),
        rationale=why + ".",
        spans=spans if verdict == Verdict.SUPPORTED else (),
    )


class OfflineAuditor:
    """Lexical + embedding + number/negation auditor (no model): the `offline` auditor engine."""

    engine_id = "offline"

    def __init__(
        self,
        embedder: Embedder,
        thresholds: AuditThresholds | None = None,
        idf: Idf | None = None,
    ) -> None:
        """Thresholds default to the packaged calibration (see calibration.py)."""
        self._embedder = embedder
        self.thresholds = thresholds or load_thresholds()
        self._idf = idf

    def audit(
        self, question: str, claims: Sequence[ClaimToAudit], sources: Sequence[Source]
    ) -> list[ClaimAudit]:
        return [decide(f, self.thresholds) for f in self.features(claims, sources)]

    def features(
        self, claims: Sequence[ClaimToAudit], sources: Sequence[Source]
    ) -> list[ClaimFeatures]:
        """Per-claim features; embeddings for all claims are computed in one batch."""
        ctx = _Context(sources, self._idf)
        lexical = [self._lexical(c, ctx) for c in claims]
        pending = [lx for lx in lexical if lx.candidates]
        texts = unique(
            [plain(lx.parts.body) for lx in pending]
            + [collapse(s.text) for lx in pending for s in lx.candidates]
        )
        vectors = self._embedder.embed(texts) if texts else None
        index = {t: i for i, t in enumerate(texts)}
        out: list[ClaimFeatures] = []
        for lx in lexical:
            if not lx.candidates or vectors is None:
                out.append(lx.features)
                continue
            q = vectors[index[plain(lx.parts.body)]]
            sim = max(float(vectors[index[collapse(s.text)]] @ q) for s in lx.candidates)
            out.append(_with_similarity(lx.features, sim))
        return out

    def _lexical(self, claim: ClaimToAudit, ctx: _Context) -> _Lexical:
        # `140 years later,` is the answer's arithmetic on its sources' dates, which the
        # gate checks (`trust/answer.py`): no words or figure for the passage to hold.
        parts = parse_claim(LATER.sub("", claim.text, count=1))
        cited = [c for c in unique(claim.citations) if c in ctx.by_id]
        if not cited:
            return _Lexical(parts, ClaimFeatures(known_citations=False), [])
        t = self.thresholds
        framing_terms = set(content_terms(parts.framing))
        # Attribution verbs and source nouns in the framing need no evidence (the contract's
        # frames, `trust/units.py`); inside a quote they are the source's words like any.
        quoted = {t for q in parts.quotes for t in content_terms(q)}
        terms = [
            t for t in unique(content_terms(parts.body)) if t not in _FRAME_TERMS or t in quoted
        ]
        best: tuple[tuple[int, float], _Window, list[str], float, list[EvidenceSentence]] | None
        best = None
        for window in (w for c in cited for w in ctx.windows[c]):
            verbatim = [q for q in parts.quotes if _verbatim_in(q, window.text)]
            meta = ctx.metadata(window.source_id)
            pre = {w for q in verbatim for w in content_terms(q)} | (
                framing_terms & set(content_terms(meta))
            )
            cov, chosen = _cover(terms, list(window.sentences), ctx.idf, t, pre)
            key = (len(verbatim), cov)
            if best is None or key > best[0]:
                best = (key, window, verbatim, cov, chosen)
        if best is None:  # cited sources without passages
            return _Lexical(parts, ClaimFeatures(known_citations=True), [])
        _, window, verbatim, cov, chosen = best
        meta = ctx.metadata(window.source_id)
        pre = {w for q in verbatim for w in content_terms(q)} | (
            framing_terms & set(content_terms(meta))
        )
        word_terms = [x for x in terms if not x[:1].isdigit()]
        ranked = sorted(window.sentences, key=lambda s: -coverage(word_terms, s.terms, ctx.idf))
        top = ranked[0] if ranked else None
        overlap = coverage(word_terms, top.terms | pre, ctx.idf) if top and word_terms else 0.0
        outside = parts.framing if len(verbatim) == len(parts.quotes) else parts.body
        near = list({id(s): s for s in chosen + ranked[:_NEAR]}.values())
        evidence = [s.text for s in near] + [meta]
        missing, conflict = _numbers(outside, evidence, meta, top, overlap, t)
        titles = [ctx.by_id[window.source_id].title]
        quote_ids = list(window.passage_ids) if verbatim else []
        features = ClaimFeatures(
            known_citations=True,
            coverage=cov,
            best_overlap=overlap,
            quotes=len(parts.quotes),
            quotes_verbatim=len(verbatim),
            missing_numbers=missing,
            number_conflict=conflict,
            negation_conflict=_negation_conflict(parts, verbatim, titles, top, terms, overlap, t),
            negation_missing=_negation_missing(outside, f"{window.text} {meta}"),
            evidence=tuple(unique(quote_ids + [s.passage_id for s in chosen])),
            spans=tuple((window.source_id, s.text) for s in sorted(chosen, key=lambda s: s.order)),
        )
        if not parts.quotes:
            features = _with_list(features, parts.body, cited, ctx)
        fast = parts.quotes and len(verbatim) == len(parts.quotes) and cov >= 0.999
        candidates = [] if fast else ranked[: t.dense_candidates]
        return _Lexical(parts, features, candidates)


_MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()


def _spelled_date(date: str | None) -> str:
    """ "January 6 1941" for "1941-01-06": the words a frame may date a claim with."""
    if not date or len(date) < 10 or not date[5:7].isdigit() or not 1 <= int(date[5:7]) <= 12:
        return ""
    day = date[8:10].lstrip("0")
    return f"{_MONTH_NAMES[int(date[5:7]) - 1]} {day} {date[:4]}"


def _verbatim_in(quote: str, text: str) -> bool:
    """The quote in the collapsed window text, as the grounding contract reads one
    (`trust/text.py`): its first letter in the writer's case (`"the actual state ..."` for
    the source's `The actual state ...`), and a final `.` or `,` inside the closing mark
    standing for other punctuation or none."""
    q = collapse(quote)
    if not q:
        return False
    return _found_as_written(q, text) or _found_as_written(q[0].swapcase() + q[1:], text)


def _found_as_written(q: str, text: str) -> bool:
    if q in text:
        return True
    core = q[:-1].rstrip()
    at = text.find(core) if q[-1:] in ".," and core else -1
    while at >= 0:
        if text[at + len(core) : at + len(core) + 1] not in ("?", "!"):
            return True
        at = text.find(core, at + 1)
    return False


def _negation_missing(claim_text: str, evidence: str) -> bool:
    """A negation cue of the claim (outside verbatim quotes) that the window and the
    source's metadata never use ("No Country for Old Men" negates nothing)."""
    cues = {w for w in words(claim_text) if is_negation(w)}
    return bool(cues - set(words(evidence)))


def _with_list(f: ClaimFeatures, body: str, cited: Sequence[str], ctx: _Context) -> ClaimFeatures:
    """The features with the sentences of the first window that spells out the list the
    claim names (`gathering.py`), when it names one."""
    for window in (w for c in cited for w in ctx.windows[c]):
        source = ctx.by_id[window.source_id]
        year = (source.date or "")[:4]
        framing = _FRAME_TERMS | set(content_terms(" ".join((*source.names, year))))
        found = gathered(body, window.sentences, framing)
        if found:
            spans = tuple((window.source_id, s.text) for s in found)
            return replace(f, gathered=spans)
    return f


def _with_similarity(f: ClaimFeatures, sim: float) -> ClaimFeatures:
    return ClaimFeatures(**{**f.__dict__, "similarity": sim})


def _cover(
    terms: list[str],
    sentences: list[EvidenceSentence],
    idf: Idf,
    t: AuditThresholds,
    pre: set[str],
) -> tuple[float, list[EvidenceSentence]]:
    """Coverage of the claim's terms by up to `max_sentences` evidence sentences."""
    return greedy_cover(terms, sentences, idf, t.max_sentences, pre)


def _numbers(
    text: str,
    evidence: list[str],
    meta: str,
    best: EvidenceSentence | None,
    overlap: float,
    t: AuditThresholds,
) -> tuple[tuple[str, ...], str | None]:
    """(figures of `text` the evidence does not state, a conflicting figure if one is found).

    Missing figures follow the deterministic number check's rules (`trust/numbers.py`), so
    the auditor and the gate agree on what a figure is, but only the sentences that match
    the claim count as evidence. A conflict needs the claim to match its best sentence
    closely and that sentence to give, for the same thing, a figure the claim does not
    state ("31" for "34" in "August 34, 2011, an exchange program started"), even when the
    claim's figure occurs elsewhere. Figures the source's metadata holds (a year in its
    title) never conflict.
    """
    missing = unmatched_figures(text, evidence)
    if best is None or overlap < t.number_conflict_overlap:
        return missing, None
    ours = figures(text)
    theirs = figures(best.text)
    claimed = {f.value for f in ours}
    held = {g.value for g in theirs} | {g.value for g in figures(meta)}
    for f in ours:
        if f.value in held:
            continue
        for g in theirs:
            if g.value not in claimed and set(f.context) & set(g.context):
                return missing, f"{g.value}, not {f.value} ({f.context[0].strip('<>')})"
    return missing, None


def _negation_conflict(
    parts: ClaimParts,
    verbatim: list[str],
    titles: list[str],
    best: EvidenceSentence | None,
    terms: list[str],
    overlap: float,
    t: AuditThresholds,
) -> bool:
    """True when the claim and its best-matching evidence disagree on a negation.

    Both sides are read the same way: a negation cue near the claim's terms, and only when
    the claim matches that sentence closely. A verbatim quote carries its own negations, so
    then only the framing is read, without the cited titles ("No Country for Old Men: ..."
    negates nothing); a negated framing with no content of its own ("never said") always
    contradicts the quote.
    """
    text, own = parts.body, set(terms)
    if parts.quotes and len(verbatim) == len(parts.quotes):
        title_words = {w for title in titles for w in words(title)}
        text = " ".join(w for w in words(parts.framing) if w not in title_words)
        own = {stem(w) for w in words(text) if w not in STOPWORDS and not is_negation(w)}
        if not negated(text):
            return False
        if not own:
            return True
    if best is None or overlap < t.negation_overlap:
        return False
    return negated_near(text, own) != negated_near(best.text, own & best.terms)
