"""The offline answerer: an extractive draft that quotes the best-supported sentences.

For each sub-question (each side of a comparison on its own) it scores the sentences that
may answer it by key-term coverage weighted by rarity, the passage's retrieval score, and
embedding similarity (computed for the best lexical candidates only, in one batch, so a
warm answer stays fast). A sentence may answer a sub-question with a window when its
source is dated inside the window, or when its source is dated after the window (by at most
`relative_date_reach_days`) and a date it gives relative to its document ("in early April",
"last month": `docdates.py`) falls inside the window. It quotes one sentence, or two when
the second is nearly as good and adds terms, in a claim of the form

    <source title> (<year>): "<sentence, verbatim>" [S2].

or, when the quote dates something relative to its document, with the source's full date
so a reader can resolve it: `<title> (August 28, 2017): "In early April, ..." [S1].`

The framing uses only the cited source's metadata (title, its date as a whole), so it
introduces no number or name that the source does not carry. Quotes are exact substrings of
the passage text (white-space runs collapsed); a sentence with a double quote inside is
trimmed to its longest quote-free part of at least 8 words, or skipped. Every claim is
checked against the grounding contract with the gate's own code (`trust.checks.check_claim`)
before it is picked, so a draft never carries a sentence the gate would refuse (a quote cut
away from a negation, a hidden character); such a candidate is passed over for the next
best. When nothing clears the minimum score the draft is empty and the pipeline holds the
run.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from ...retrieval.embedder import Embedder
from ...retrieval.subject import many_voices
from ...textutil import content_terms, sentence_spans, stem, term_in, unique, words
from ...trust.checks import EvidenceSource, check_claim
from ...trust.claims import split_claims
from ...types import Draft, Plan, Source, SubQuestion, TimeWindow
from .compose import Voice, clean, lead, listed, quoted, voice
from .docdates import full_date, relative_windows
from .evidence import (
    TOPICAL_STOPWORDS,
    EvidenceSentence,
    Idf,
    collapse,
    evidence_sentences,
    local_idf,
    quotable,
)
from .phrases import distinct_phrase
from .planner import FILLER

_BOILERPLATE = re.compile(
    r"^\W*(?:fellow[- ]citizens|my\s+fellow|mr\.?\s+(?:speaker|president|vice\s+president)|"
    r"madam\s+speaker|senators\s+and\s+representatives|gentlemen\s+of\s+the|"
    r"members\s+of\s+(?:the\s+)?congress|to\s+the\s+(?:senate|congress)|thank\s+you|"
    r"ladies\s+and\s+gentlemen|good\s+(?:evening|morning)|god\s+bless)",
    re.I,
)
_TRAILING = ".,;:"
_WANTS_QUANTITY = re.compile(
    r"\b(?:how\s+(?:many|much|long|far|old|large|big|high)|what\s+(?:share|percent|"
    r"percentage|proportion|fraction|number|amount|sum|cost|price))\b",
    re.I,
)
# "When ...?", "... and when ...?", "by when": not "when they were introduced" inside one.
_WANTS_DATE = re.compile(
    r"(?:^\W*|,\s*|\band\s+|\bby\s+)when\b|\bwhat\s+(?:year|date|day|month)\b", re.I
)
_WANTS_LAW = re.compile(r"^\W*(?:which|what)\s+(?:bill|act|law|legislation)\b", re.I)
# Up to two words before the thing named: "What volunteer organization ...".
_WANTS_NAME = re.compile(
    r"^\W*(?:who\b|(?:which|what)\s+(?:(?!(?:did|do|does|is|was|are|were|has|have|had|will|"
    r"would|can|could|should|may|might|must)\b)[a-z]+\s+){0,2}?(?:treaty|program|programme|"
    r"organization|organisation|agency|department|country|nation|state|city|team|person|"
    r"company|party|doctrine|corps)\b|what\s+(?:is|was|are|were)\b[^?]*\b(?:called|named)\W*$)",
    re.I,
)
# A number stands alone: "18F" (a team's name) holds none.
_NUMBER = re.compile(
    r"(?<!\w)\d(?:[\d,.]*\d)?(?:st|nd|rd|th|s)?(?!\w)|\b(?:one|two|three|four|five|six|"
    r"seven|eight|nine|ten|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|trillion|half|quarter|decade|percent)\b",
    re.I,
)
# A year standing alone ("in 2019", "December 2019") counts a time, not a quantity.
_YEAR = re.compile(r"^(?:1[5-9]|20)\d\d$")
_MONTHS = "January February March April May June July August September October November December"
# A time a sentence gives: a year, a month, a season of a year, or a span from now.
_DATE = re.compile(
    r"(?<!\w)(?:1[5-9]|20)\d\d(?!\w)|\b(?:" + "|".join(_MONTHS.split()) + r")\b|"
    r"\b(?:spring|summer|autumn|fall|winter)\s+of\b|"
    r"\b(?:within|in|by|after|before)\s+(?:\d+|a|an|one|two|three|four|five|six|ten|the\s+next)"
    r"\s+(?:days?|weeks?|months?|years?|decades?)\b"
)
# Quotation marks (`trust/claims.py`), and a single mark unless it sits between two letters
# (an apostrophe: nation's).
_QUOTE_MARK = re.compile(
    r"(?<![^\W\d_])['’]|['’](?![^\W\d_])|[\"“”„‚‘«»‹›＂″〝〞〟「」『』`]|</?q\b[^<>]*>",
    re.IGNORECASE,
)
# Two capitalised words inside a sentence ("the Peace Corps"), or one with a capital inside
# it anywhere ("OpenFEC", "BetaFEC": a product's name).
_PROPER_NAME = re.compile(r"(?<=[a-z,;:] )(?:[A-Z][a-z]+ ){1,}[A-Z][a-z]+|\b[A-Z][a-z]+[A-Z]\w*")
# The name of a law: capitalised words ending in Act, Bill, Law or Amendment.
_LAW_NAME = re.compile(
    r"\b(?:[A-Z][\w'-]* )+(?:of (?:the )?)?(?:[A-Z][\w'-]* )*(?:Act|Bill|Law|Amendment)\b"
)


def expected_answer(question: str) -> str | None:
    """What a question asks for: "quantity" (how many, how much, what share ...), "date"
    (when, what year ...), "law" (which bill, act or law), "name" (who, which treaty ...)
    or None. A sentence that holds that kind of answer scores a little higher, and an
    answer quotes one whenever a candidate above the floor holds it (`OfflineAnswerer._pick`)."""
    if _WANTS_QUANTITY.search(question):
        return "quantity"
    if _WANTS_DATE.search(question):
        return "date"
    if _WANTS_LAW.search(question):
        return "law"
    if _WANTS_NAME.search(question):
        return "name"
    return None


def holds_answer_type(sentence: str, kind: str | None, question: str = "") -> bool:
    """True when `sentence` holds the kind of answer `question` asks for: a quantity (a
    number that is not a year), a date, the name of a law, or a name with a word the
    question does not use (its answer, not an echo of what it asks about)."""
    if kind == "quantity":
        return any(not _YEAR.match(m.group(0)) for m in _NUMBER.finditer(sentence))
    if kind == "date":
        return _DATE.search(sentence) is not None
    if kind == "law":
        return _LAW_NAME.search(sentence) is not None
    if kind == "name":
        asked = {w.lower() for w in re.findall(r"\w+", question)}
        return any(
            any(w.lower() not in asked for w in re.findall(r"\w+", m.group(0)))
            for m in _PROPER_NAME.finditer(sentence)
        )
    return False


@dataclass(frozen=True)
class Weights:
    """How a sentence's score is made; documented in docs/auditor.md."""

    lexical: float = 0.5
    dense: float = 0.35
    retrieval: float = 0.15
    short_penalty: float = 0.3
    long_penalty: float = 0.15
    boilerplate_penalty: float = 0.3
    open_penalty: float = 0.3
    min_score: float = 0.35
    min_score_no_terms: float = 0.25
    second_ratio: float = 0.85
    dense_margin: float = 0.3
    answer_type: float = 0.08
    typed_candidates: int = 8


@dataclass(frozen=True)
class _Candidate:
    sentence: EvidenceSentence
    quote: str
    lexical: float
    retrieval: float


RELATIVE_DATE_REACH_DAYS = 183  # the default of the `relative_date_reach_days` setting


def _days_after(window: TimeWindow, day: str) -> int | None:
    """Days from the window's end to `day` (an ISO date); None when either is not a date."""
    try:
        return (date.fromisoformat(day) - date.fromisoformat(window.end[:10])).days
    except ValueError:
        return None


def eligible(quote: str, source: Source, sq: SubQuestion, reach_days: int) -> bool:
    """True when `quote` (a sentence of `source`) may answer the sub-question.

    Without a window, always. With one: when the source is dated inside it, or dated after
    it by at most `reach_days` and the quote gives a date relative to its document that
    lies inside the window ("In early April, ..." in an article of August 28 answers April).
    An empty window (start after end) admits nothing.
    """
    w = sq.window
    if w is None:
        return True
    if not source.date or w.start > w.end:
        return False
    day = source.date[:10]
    if w.start <= day <= w.end:
        return True
    after = _days_after(w, day)
    if after is None or not 0 < after <= reach_days:
        return False
    return any(w.start <= r.start and r.end <= w.end for r in relative_windows(quote, day))


def query_terms(sq: SubQuestion, plan: Plan) -> list[str]:
    """The sub-question's topic terms: its content terms that are key terms of the plan.

    Names and time words are not key terms (the windows carry them). Stop words that name
    a topic ("freedom of speech") count when a plan query carries them. A sub-question
    sharing no term with the key terms keeps its own content terms minus question filler.
    """
    own = unique(content_terms(sq.text))
    key_stems = unique(stem(t) for t in plan.key_terms)
    keys = set(key_stems)
    query_words = {w for q in plan.queries for w in words(q)}
    topical = [stem(w) for w in words(sq.text) if w in TOPICAL_STOPWORDS and w in query_words]
    picked = [t for t in own if t in keys]
    if picked or keys:
        return unique((picked or key_stems) + topical)
    filler = set(content_terms(" ".join(FILLER)))
    entity = set(content_terms(sq.entity or ""))
    rest = [t for t in own if t not in filler and t not in entity and not t[:1].isdigit()]
    return unique(rest + topical)


def term_match(term: str, sentence_terms: frozenset[str]) -> float:
    """1 for the term itself, 0.5 for a stem sharing its prefix ("slave" / "slaveri")."""
    if term in sentence_terms:
        return 1.0
    return 0.5 if term_in(term, sentence_terms) else 0.0


def _near_duplicate(a: _Candidate, b: _Candidate) -> bool:
    """Two sentences saying nearly the same words (Jaccard of their terms above 0.8)."""
    x, y = a.sentence.terms, b.sentence.terms
    return bool(x | y) and len(x & y) / len(x | y) > 0.8


def frame(source: Source, full: bool = False, dated: bool = True) -> str:
    """The lead-in of a claim: the source's title and year, nothing it does not carry.

    With `full`, the source's full date instead of its year ("August 28, 2017"), also when
    the title carries the year: the date a relative date in the quote is read against.
    Without `dated`, the title alone.
    The title is made safe for the draft reader: quotation marks are dropped (no quote to
    verify; an apostrophe inside a word stays), brackets become parentheses (no citation
    marker), and a title of several sentences is joined with dashes (a claim is one
    sentence). Its words are unchanged, so the title still equals the source's metadata.
    """
    title = collapse(source.title or source.doc_id)
    title = _QUOTE_MARK.sub("", title).replace("[", "(").replace("]", ")")
    title = re.sub(r"[?!]", "", title)
    parts = [title[a:b].rstrip(" .:;,") for a, b in sentence_spans(title)]
    title = " – ".join(p for p in parts if p)
    if not dated:
        return title
    day = full_date(source.date) if full else None
    if day:
        return f"{title} ({day})"
    year = source.date[:4] if source.date and source.date[:4].isdigit() else None
    if year and year not in title:
        return f"{title} ({year})"
    return title


def gate_accepts(text: str, evidence: dict[str, EvidenceSource]) -> bool:
    """Whether the gate's deterministic checks pass a claim, the auditor aside. A source
    that addresses a model is not avoided here: the gate holds such an answer so that an
    editor sees the injection, rather than the answerer quietly writing around it."""
    claims = split_claims(text)
    if len(claims) != 1:
        return False
    checks, _ = check_claim(claims[0], evidence)
    return checks.model_copy(update={"model_directed_sources": ()}).passed


_YEAR = re.compile(r"(?<!\d)(?<!\d[,.])(1[6-9]\d\d|20\d\d)(?!\d|[,.]\d)")


def dating(source: Source, quote: str) -> str:
    """How a claim's frame dates its quote: "full" (the source's full date) when the quote
    dates something relative to its source, "none" when it names a year other than its
    source's ("By 2021, ..." in a 2025 article: the grounding contract reads a framing
    date as dating the quote), else "year"."""
    own = source.date[:4] if source.date else None
    if set(_YEAR.findall(quote)) - {own}:
        return "none"
    return "full" if relative_windows(quote, source.date) else "year"


def _is_title(quote: str, source: Source) -> bool:
    """A quote of the source's own heading (its title, an article before it or not): it
    tells a reader nothing its frame does not."""

    def bare(text: str) -> list[str]:
        return [w for w in words(text) if w not in ("the", "a", "an")]

    return bool(source.title) and bare(quote) == bare(source.title)


def claim_text(source: Source, quote: str) -> str:
    """One claim sentence with the title frame: the source's title and its date
    (`dating`), the verbatim quote in double quotes, the marker. The frame of a source
    whose metadata names no speaker or author, and the fallback of a composed one."""
    how = dating(source, quote)
    if how == "none":
        return f'{frame(source, dated=False)}: "{quote}" [{source.id}].'
    return f'{frame(source, how == "full")}: "{quote}" [{source.id}].'


def _number(source_id: str) -> int:
    return int(source_id[1:]) if source_id[1:].isdigit() else 0


@dataclass
class _Writer:
    """Writes the answer's claims (`compose.py`), each checked by the gate's own code."""

    by_id: dict[str, Source]
    voices: dict[str, Voice | None]
    evidence: dict[str, EvidenceSource]

    def forms(self, c: _Candidate, again: bool) -> list[str]:
        """The claim's forms, best first: a list named, the short frame, the title frame."""
        source = self.by_id[c.sentence.source_id]
        who = self.voices.get(source.id)
        how = dating(source, c.quote)
        out: list[str] = []
        if who is not None:
            passage = next((p for p in source.passages if p.id == c.sentence.passage_id), None)
            if passage is not None:
                gathered = listed(source, who, passage.text, c.sentence.text, how, again)
                if gathered is not None:
                    out.append(gathered)
            out.append(quoted(source, who, c.quote, how, again))
        out.append(claim_text(source, c.quote))
        return out

    def claim(self, c: _Candidate, again: bool = False) -> str | None:
        """The first form the gate's checks pass, or None."""
        forms = self.forms(c, again) + (self.forms(c, False) if again else [])
        return next((f for f in forms if gate_accepts(f, self.evidence)), None)

    def spoke_of(self, picks: Sequence[_Candidate], terms: list[str], others: list[str]) -> str:
        """`In 1963, Kennedy spoke of "tax reduction and tax reform" [S1].`: the first pick's
        noun phrase that holds a term of the question and a word none of `others` holds
        (`phrases.distinct_phrase`), behind a short frame; empty when there is none."""
        for c in picks:
            source = self.by_id[c.sentence.source_id]
            who = self.voices.get(source.id)
            phrase = distinct_phrase([c.quote], terms, others)
            if who is None or phrase is None:
                continue
            frame = lead(source, who, dating(source, phrase), False, verb="spoke of")
            text = f'{frame} "{phrase}" [{source.id}].'
            if gate_accepts(text, self.evidence):
                return text
        return ""

    def difference(
        self,
        first: tuple[list[str], Sequence[_Candidate]],
        second: tuple[list[str], Sequence[_Candidate]],
    ) -> str:
        """A comparison's closing pair, what differs: what each side speaks of that the
        other side's quotes do not, each side in its own sentence carried by its own source
        (a sentence linking two sources would be the answerer's claim, which no passage
        carries). Empty unless both sides have one, and they read apart."""
        (terms_a, picks_a), (terms_b, picks_b) = first, second
        a = self.spoke_of(picks_a, terms_a, [c.quote for c in picks_b])
        b = self.spoke_of(picks_b, terms_b, [c.quote for c in picks_a])
        if not a or not b or a.split('"')[0] == b.split('"')[0]:
            return ""
        return f"{a} {b}"

    def paragraph(self, picks: Sequence[_Candidate]) -> str:
        """The picks as one paragraph: a source's second claim says `also`; a quote that a
        list claim before it already named is left out."""
        claims: list[str] = []
        previous: str | None = None
        for c in picks:
            text = self.claim(c, again=c.sentence.source_id == previous)
            if text is None or any(c.quote in earlier for earlier in claims):
                continue
            claims.append(text)
            previous = c.sentence.source_id
        return " ".join(claims)


class OfflineAnswerer:
    """Extractive answerer (no model): the `offline` answerer engine."""

    engine_id = "offline"

    def __init__(
        self,
        embedder: Embedder,
        idf: Idf | None = None,
        dense_candidates: int = 24,
        weights: Weights | None = None,
        relative_date_reach_days: int = RELATIVE_DATE_REACH_DAYS,
    ) -> None:
        """`dense_candidates` bounds the sentences scored (and embedded) per sub-question;
        `relative_date_reach_days` is how long after a window a source may be dated and
        still answer it through a relative date (see `eligible`)."""
        self._embedder = embedder
        self._idf = idf
        self._k = dense_candidates
        self._w = weights or Weights()
        self._reach = relative_date_reach_days

    def answer(self, question: str, plan: Plan, sources: Sequence[Source]) -> Draft:
        sentences = evidence_sentences(sources)
        idf = self._idf or local_idf(sentences)
        by_id = {s.id: s for s in sources}
        evidence = {s.id: EvidenceSource.from_passages(s) for s in sources}
        writer = _Writer(by_id, {s.id: voice(s, sources) for s in sources}, evidence)
        subs = plan.subquestions or (SubQuestion(text=question),)
        kind = expected_answer(question)
        pools = [self._candidates(sq, plan, sentences, by_id, idf, kind, question) for sq in subs]

        def accept(c: _Candidate) -> bool:
            return writer.claim(c) is not None

        dense = self._dense(subs, pools)

        def embed(i: int, group: Sequence[_Candidate]) -> None:
            """The cosines of candidates not embedded yet to sub-question `i`, into `dense`."""
            todo = unique(c.quote for c in group if f"{i}|{c.quote}" not in dense)
            if todo:
                vectors = self._embedder.embed([subs[i].text, *todo])
                for text, v in zip(todo, vectors[1:], strict=True):
                    dense[f"{i}|{text}"] = float(v @ vectors[0])

        def speaker(c: _Candidate) -> str:
            return next(iter(by_id[c.sentence.source_id].names), c.sentence.source_id)

        voices = speaker if many_voices(question) else None
        used: set[tuple[str, int]] = set()
        paragraphs: list[str] = []
        sides: list[tuple[list[str], list[_Candidate]]] = []
        for i, (terms, pool) in enumerate(pools):
            most = 3 if len(pools) == 1 else 2
            picks = self._pick(
                i,
                terms,
                pool,
                dense,
                used,
                most,
                (kind, question),
                accept,
                functools.partial(embed, i),
                voices,
            )
            paragraph = writer.paragraph(picks)
            if paragraph:
                paragraphs.append(paragraph)
            sides.append((terms, picks))
        if len(sides) == 2 and all(picks for _, picks in sides):
            pair = writer.difference(sides[0], sides[1])
            if pair:
                paragraphs.append(pair)
        return Draft(text="\n\n".join(paragraphs))

    def _candidates(
        self,
        sq: SubQuestion,
        plan: Plan,
        sentences: Sequence[EvidenceSentence],
        by_id: dict[str, Source],
        idf: Idf,
        kind: str | None = None,
        question: str = "",
    ) -> tuple[list[str], list[_Candidate]]:
        """(query terms, candidates) for one sub-question: the best lexical ones, and when
        the question asks for a kind of answer, the best `typed_candidates` of the others
        that hold one (the sentence that answers "when" may share few of its words)."""
        terms = query_terms(sq, plan)
        # The quote, not the whole sentence, must carry a relative date: it is what is shown.
        quotes = [(s, quotable(s.text)) for s in sentences]
        usable = [
            (s, clean(collapse(q).rstrip(_TRAILING)))
            for s, q in quotes
            if q is not None
            and eligible(q, by_id[s.source_id], sq, self._reach)
            and not _is_title(q, by_id[s.source_id])
        ]
        top = max((s.passage_score for s, _ in usable), default=0.0)
        total = sum(idf(t) for t in terms)
        pool: list[_Candidate] = []
        for s, quote in usable:
            lex = sum(idf(t) * term_match(t, s.terms) for t in terms) / total if total > 0 else 0.0
            ret = s.passage_score / top if top > 0 else 0.0
            pool.append(_Candidate(s, quote, lex, ret))
        pool.sort(
            key=lambda c: (-(c.lexical + 0.3 * c.retrieval), c.sentence.source_id, c.sentence.order)
        )
        typed = [c for c in pool[self._k :] if holds_answer_type(c.quote, kind, question)]
        return terms, pool[: self._k] + typed[: self._w.typed_candidates]

    def _dense(
        self, subs: Sequence[SubQuestion], pools: Sequence[tuple[list[str], list[_Candidate]]]
    ) -> dict[str, float]:
        """Cosine of candidates to their sub-question, keyed by "<sq index>|<text>".

        Only candidates within `dense_margin` of their pool's best lexical score are
        embedded (all of them in one batch): the others cannot win on similarity alone.
        Those holding a kind of answer the picks lack are embedded when it is sought
        (`_pick`).
        """
        margin = self._w.dense_margin
        chosen = [
            [c for c in pool if c.lexical >= max(x.lexical for x in pool) - margin]
            for _, pool in pools
        ]
        if not any(chosen):
            return {}
        texts = unique([sq.text for sq in subs] + [c.quote for group in chosen for c in group])
        vectors = self._embedder.embed(texts)
        index = {t: i for i, t in enumerate(texts)}
        out: dict[str, float] = {}
        for i, (sq, group) in enumerate(zip(subs, chosen, strict=True)):
            q = vectors[index[sq.text]]
            for c in group:
                out[f"{i}|{c.quote}"] = float(vectors[index[c.quote]] @ q)
        return out

    def _score(
        self, c: _Candidate, dense: float, kind: str | None = None, question: str = ""
    ) -> float:
        w = self._w
        score = w.lexical * c.lexical + w.dense * max(dense, 0.0) + w.retrieval * c.retrieval
        if holds_answer_type(c.quote, kind, question):
            score += w.answer_type
        n = len(c.quote.split())
        if n < 6:
            score -= w.short_penalty
        if n > 80:
            score -= w.long_penalty
        if _BOILERPLATE.match(c.quote):
            score -= w.boilerplate_penalty
        if c.sentence.text.rstrip().endswith(("?", ":")):
            score -= w.open_penalty  # a question, or a lead-in to what follows: no answer
        return score

    def _pick(
        self,
        index: int,
        terms: list[str],
        pool: list[_Candidate],
        dense: dict[str, float],
        used: set[tuple[str, int]],
        max_picks: int,
        asked: tuple[str | None, str],
        accept: Callable[[_Candidate], bool],
        embed: Callable[[Sequence[_Candidate]], None] = lambda _group: None,
        voice: Callable[[_Candidate], str] | None = None,
    ) -> list[_Candidate]:
        """The best candidates of sub-question `index` above the floor, not quoted before
        and accepted by the gate's checks: the best one, and up to `max_picks - 1` more that
        score nearly as well.

        `asked` is (the kind of answer the question asks for, the question). When it asks
        for one (`expected_answer`) and no pick holds one, the best candidate above the
        floor that does is quoted too, one of the best pick's own source first (the answer
        read on in the document that answers): "Which bill ...?" answered by "We're going
        to ban surprise resort fees" alone names no bill; the sentence naming the Act is the
        answer.

        `voice` (a many-voices question, `subject.many_voices`) names a candidate's speaker:
        the best candidate above the floor of each speaker not quoted yet comes before a
        second quote of one already quoted."""
        kind, question = asked
        scored = [
            (self._score(c, dense.get(f"{index}|{c.quote}", 0.0), kind, question), c)
            for c in pool
            if (c.sentence.source_id, c.sentence.order) not in used
        ]
        scored.sort(key=lambda p: (-p[0], p[1].sentence.source_id, p[1].sentence.order))
        floor = self._w.min_score if terms else self._w.min_score_no_terms
        ranked = (p for p in scored if accept(p[1]))  # the gate's checks, best first, lazily
        first = next(ranked, None)
        if first is None or first[0] < floor:
            return []
        best_score, best = first
        picks = [best]
        if voice is not None:
            for score, c in scored:
                if len(picks) == max_picks or score < floor:
                    break
                if voice(c) in {voice(p) for p in picks}:
                    continue
                if not any(_near_duplicate(c, p) for p in picks) and accept(c):
                    picks.append(c)
        for score, c in ranked:
            if len(picks) == max_picks or score < self._w.second_ratio * best_score:
                break
            if c in picks:
                continue
            if score >= floor and not any(_near_duplicate(c, p) for p in picks):
                picks.append(c)
        if kind and not any(holds_answer_type(c.quote, kind, question) for c in picks):
            held = [
                c
                for _, c in scored
                if c not in picks
                and holds_answer_type(c.quote, kind, question)
                and not any(_near_duplicate(c, p) for p in picks)
            ]
            embed(held)  # `dense` now holds each of them: scored as any candidate is
            rescored = [
                (self._score(c, dense.get(f"{index}|{c.quote}", 0.0), kind, question), c)
                for c in held
            ]
            rescored.sort(key=lambda p: (-p[0], p[1].sentence.source_id, p[1].sentence.order))
            typed = [c for score, c in rescored if score >= floor]
            typed.sort(key=lambda c: c.sentence.source_id != best.sentence.source_id)  # stable
            found = next((c for c in typed if accept(c)), None)
            if found is not None:
                picks.append(found)
        for c in picks:
            used.add((c.sentence.source_id, c.sentence.order))
        return sorted(picks, key=lambda c: (_number(c.sentence.source_id), c.sentence.order))
