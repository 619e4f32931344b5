"""The paraphrase tier: a sentence not carried word for word, grounded by code and auditor.

A sentence the grounding contract does not carry (`grounding.py`) may still be grounded, when
the gate's policy allows paraphrase (`GatePolicy.grounding`), by both halves of this tier
(docs/grounding.md, "The paraphrase tier"):

(b) the auditor found it supported and named the spans of one cited source it rests on
    (`ClaimAudit.spans`); each must be verbatim there, on word boundaries, at least
    `MIN_SPAN_WORDS` words, and all of them in one window of at most `MAX_PASSAGES`
    consecutive passages;
(a) code checks the sentence against those spans:

    * every content word outside the sentence's frame (`units.py`) is a word of the spans,
      another form of it or a synonym (`lemmas.synonym`); `MAX_NEW_WORDS` may be in neither;
    * its anchors are the spans' own, never a synonym: numbers, names, comparisons and
      causal or temporal connectives must appear in the spans; negations, conditions,
      disclaimers, restrictive words (`only`, `hardly`), quantifiers, modals and verbs that
      turn a statement round (`prevent`, `oppose`) must be in the sentence exactly when they
      are in the stretch of the spans it uses (from its first word there to its last), each
      class compared as a whole (`would` may stand for `will` or `shall` in reported
      speech); a universal quantifier (`every`, `each`, `all`) is left out with the word it
      quantifies (`freedom of worship` for `freedom of every person to worship`), which
      only weakens the claim, unless the stretch holds a negation;
    * the source's speaker (a name, office or pronoun of its metadata) may be the subject
      of a sentence that leaves the frame only when the stretch speaks in the first person;
    * each stretch is asserted where it stands (`assertion.py`), is not negated just before
      nor disclaimed just after, and gives no other year than the sentence dates it by;
    * its quotes lie in the same window.

What an auditor says never overrides (a): a lying auditor can name real spans, and the
sentence must still keep their every anchor with its polarity.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from ..types import CitedSpan
from .assertion import unasserted
from .claims import DraftClaim, strip_markers
from .grounding import (
    MAX_GAP,
    QUALIFIERS,
    Carrier,
    Window,
    WindowWords,
    on_word_boundaries,
    short,
)
from .lemmas import synonym, variant, verb_lemmas
from .units import STOP, Metadata, Unit, fold, read_units, tokens, vocabulary

MIN_SPAN_WORDS = 3
MAX_PASSAGES = 3
MAX_NEW_WORDS = 0

NEGATION = vocabulary("""not no never nor neither none nobody nothing nowhere cannot without n't""")
CONDITION = vocabulary("if unless whether provided otherwise except")
STANCE = vocabulary(
    """false falsely untrue myth myths lie lies wrong mistaken claim claimed alleged allegedly
    supposedly pretend pretended doubt doubted"""
)
RESTRICTIVE = vocabulary("only just hardly rarely seldom barely scarcely merely nearly almost")
QUANTIFIER = vocabulary("all every each some any many most several few half much")
UNIVERSAL = vocabulary("all every each")  # left out with its word, a claim only weakens
# Each modal's class: reported speech shifts `will` and `shall` to `would`, `can` to
# `could`; `should` (what ought to be) is a class of its own.
_MODAL_CLASSES = {
    "will": "will", "would": "will", "shall": "will", "should": "should", "may": "may",
    "might": "may", "can": "can", "could": "can", "must": "must",
}  # fmt: skip
MODAL = frozenset(_MODAL_CLASSES)
# Verbs that turn what follows round (`prevent the use of`): compared by their lemmas.
TURNING_LEMMAS = frozenset(
    """prevent stop end ban oppose reject refuse deny fight combat reduce cut avoid eliminate
    abolish halt block resist forbid prohibit veto repeal cancel lack fail lose decline
    abandon weaken threaten destroy undermine""".split()
)
# Words that say a thing is not (yet) so: `the proposed rule` is no rule.
HEDGE = vocabulary(
    """proposed draft planned possible potential prospective tentative pending expected
    anticipated suggested would-be hypothetical"""
)
COMPARISON = vocabulary(
    """more less fewer least better best worse worst greater greatest larger largest higher
    highest lower lowest bigger biggest smaller smallest first last"""
)
CONNECTIVE = vocabulary(
    """because since therefore thus hence consequently result cause caused due so before after
    until when while once then later earlier"""
)
FIRST_PERSON = vocabulary("i me my mine we us our ours")
# The words of a frame about what a source says, free after its speaker or a source word
# (`Kennedy laid out three points`, `The article advises readers to`): verbs by their lemma.
SPEECH_LEMMAS = frozenset(
    """say tell state note add ask quote declare argue warn urge insist explain remark observe
    announce report maintain emphasize emphasise stress recall call describe name list outline
    set lay make speak refer mention advise recommend point highlight cite term identify
    characterize characterise summarize summarise""".split()
)
FRAME_PARTICLES = vocabulary("out of up forth point points item items reader readers")
SOURCE_WORDS = vocabulary(
    "address speech message article remarks post source document report page letter"
)
ORDINALS = vocabulary("first second third fourth fifth sixth seventh eighth ninth tenth")
COUNTS = {w: n for n, w in enumerate("two three four five six seven eight nine ten".split(), 2)}
_TWO_WAY = {"negation": NEGATION, "condition": CONDITION, "disclaimer": STANCE,
            "restriction": RESTRICTIVE, "quantifier": QUANTIFIER, "modal": MODAL,
            "hedge": HEDGE}  # fmt: skip
_INITIAL = re.compile(r"(?:^|[.!?:;\"“”‘’(\[—–]\s*)$")

_NO_SPANS = "the auditor named no words of a cited source it rests on"
_ONE_SOURCE = "the spans it rests on come from more than one source"
_NOT_CITED = "it rests on a span of {sid}, a source it does not cite"
_NOT_VERBATIM = "the span {span} it rests on is not word for word in {sid}"
_SHORT = f"the span {{span}} it rests on is shorter than {MIN_SPAN_WORDS} words"
_SPREAD = f"the spans it rests on are not within {MAX_PASSAGES} consecutive passages of {{sid}}"
_GOVERNING = "it leaves out {words}, which govern what it keeps in {sid}"
_UNUSED = "it uses none of the words of the span {span}"
_NEW = "its words {words} are not in the spans it rests on (nor forms or synonyms of theirs)"
_ANCHOR = "its {kind} {words} are not in the spans it rests on"
_POLARITY = "its {kind} words ({mine}) are not those of the words it rests on in {sid} ({theirs})"
_SPEAKER = "it makes the speaker the subject of words {sid} does not say in the first person"
_QUOTE_ELSEWHERE = "its quote {span} is not in the spans of {sid} it rests on"
_QUOTES_ONLY = "it paraphrases nothing: a sentence of quotes is the contract's alone to carry"
_POINTS = (
    "it opens with “{word}”, which the words it rests on in {sid} do not open with: what it "
    "points to is the writer's, not the source's"
)
# Words that point back: a paraphrase that opens with one names what the source said before
# the spans only if the spans open with it too (`It can help` from `Science can help`). `He`
# and `she` name a speaker, which the speaker rule checks (`_SPEAKER`, `answer.py`).
_POINTING = frozenset(fold(w) for w in "this that these those such it they".split())
_APART = "the spans it rests on are not in consecutive sentences of {sid}"
_ORDER = "its numbers are not in the order of the words it rests on in {sid}"
_DISCLAIMED = "{sid} negates or disclaims the words it rests on, right before or after them"
_OTHER_YEAR = "the words it rests on in {sid} give another year"
_QUALIFIED = (
    "{sid} qualifies the words it rests on right before them (a word such as 'only', "
    "'proposed' or 'prevent')"
)


@dataclass(frozen=True)
class Rest:
    """The paraphrase tier's finding for one sentence: its problems (none: grounded), and
    where it rests: the source, the window, the stretches of the spans it uses, and its
    anchors (`kind: word`)."""

    problems: tuple[str, ...]
    source_id: str | None = None
    window: Window | None = None
    stretches: tuple[tuple[int, int], ...] = ()
    anchors: tuple[str, ...] = ()

    @property
    def grounded(self) -> bool:
        return not self.problems


def _list(words: Sequence[str]) -> str:
    return ", ".join(f"'{w}'" for w in dict.fromkeys(words))


def rest(claim: DraftClaim, spans: Sequence[CitedSpan], carriers: Sequence[Carrier]) -> Rest:
    """Whether `claim` rests on `spans` under the tier's rules; `carriers` are its cited
    sources that exist."""
    if not spans:
        return Rest((_NO_SPANS,))
    sid = spans[0].source_id
    if any(s.source_id != sid for s in spans):
        return Rest((_ONE_SOURCE,))
    carrier = next((c for c in carriers if c.source_id == sid), None)
    if carrier is None:
        return Rest((_NOT_CITED.format(sid=sid),))
    located: list[list[tuple[int, int]]] = []
    for span in spans:
        problem, found = _occurrences(span.text, carrier)
        if problem:
            return Rest((problem,))
        located.append(found)
    window, chosen = _window(carrier, located)
    if window is None:
        return Rest((_SPREAD.format(sid=sid),))
    return _judge(claim, carrier, window, chosen)


def _occurrences(span: str, carrier: Carrier) -> tuple[str | None, list[tuple[int, int]]]:
    sid, text = carrier.source_id, carrier.stored.text
    found = [(a, b) for a, b in carrier.stored.find_all(span) if on_word_boundaries(text, a, b)]
    if not found:
        return _NOT_VERBATIM.format(span=short(span), sid=sid), []
    if len(tokens(span)) < MIN_SPAN_WORDS:
        return _SHORT.format(span=short(span)), []
    return None, found


def _window(
    carrier: Carrier, located: Sequence[Sequence[tuple[int, int]]]
) -> tuple[Window | None, list[tuple[int, int]]]:
    """The narrowest run of consecutive passages (at most `MAX_PASSAGES`) holding one
    occurrence of every span, and those occurrences."""
    passages = carrier.passages
    for size in range(1, MAX_PASSAGES + 1):
        for k in range(len(passages) - size + 1):
            run = passages[k : k + size]
            if size > 1 and not carrier.consecutive(k, k + size - 1):
                continue
            lo, hi = run[0][1], run[-1][2]
            chosen = [
                next((s for s in spans if lo <= s[0] and s[1] <= hi), None) for spans in located
            ]
            if all(c is not None for c in chosen):
                window = Window(lo, hi, tuple(p[0] for p in run))
                return window, [c for c in chosen if c is not None]
    return None, []


@dataclass(frozen=True)
class _Sentence:
    """The words of a sentence the tier compares: content words, anchors, speaker words."""

    words: tuple[str, ...]  # folded, outside the frame, quotes included
    names: frozenset[str]  # of those, written with a capital where no sentence starts
    every: frozenset[str]  # every word of the sentence, its frame's too
    ordered: tuple[str, ...] = ()  # every word of the sentence, in order


def _sentence(claim: DraftClaim, units: Sequence[Unit]) -> _Sentence:
    words: list[str] = []
    for unit in units:
        if unit.quote is None:
            words.append(unit.word)
        else:
            words.extend(t.word for t in tokens(claim.quotes[unit.quote]))
    text = strip_markers(claim.text)
    names = frozenset(
        t.word
        for t in tokens(text)
        if text[t.start].isupper() and not _INITIAL.search(text[: t.start])
    )
    every = tuple(t.word for t in tokens(text))
    return _Sentence(tuple(words), names, frozenset(every), every)


def _judge(
    claim: DraftClaim, carrier: Carrier, window: Window, spans: Sequence[tuple[int, int]]
) -> Rest:
    reading = read_units(claim, carrier.metadata)
    if all(u.quote is not None for u in reading.units):
        return Rest((_QUOTES_ONLY,))
    if not _consecutive(
        carrier.stored.text,
        _paraphrased_spans(reading.units, spans, _speaker_words(carrier.metadata)),
    ):
        return Rest((_APART.format(sid=carrier.source_id),))
    readings = [reading.units]
    if reading.first_person is not None:
        readings.append(reading.first_person)
    # The sentence's opening word as written (the first-person reading may read it away).
    said = _sentence(claim, reading.units).words
    opening = said[0] if said else ""
    outcomes = [_against(claim, carrier, window, spans, units, bool(reading.event_years),
                         reading.event_years, opening) for units in readings]  # fmt: skip
    return next((o for o in outcomes if o.grounded), outcomes[0])


def _against(
    claim: DraftClaim,
    carrier: Carrier,
    window: Window,
    spans: Sequence[tuple[int, int]],
    units: Sequence[Unit],
    dated: bool,
    years: frozenset[str],
    opening: str,
) -> Rest:
    sid, text = carrier.source_id, carrier.stored.text
    meta = carrier.metadata
    sentence = _sentence(claim, units)
    words = WindowWords.of(window, text)
    span_toks = [
        [k for k, t in enumerate(words.toks) if a <= t.start and t.end <= b] for a, b in spans
    ]
    in_spans = {k for ks in span_toks for k in ks}
    found = _match(sentence, words, in_spans, _speaker_words(meta), len(spans))
    matched, new, anchors, missing = found.tokens, found.new, found.anchors, found.missing
    problems: list[str] = []
    for kind, ws in missing.items():
        problems.append(_ANCHOR.format(kind=_PLURAL[kind], words=_list(ws)))
    if len(new) > MAX_NEW_WORDS:
        problems.append(_NEW.format(words=_list(new)))
    stretches: list[tuple[int, int]] = []
    for (a, b), ks in zip(spans, span_toks, strict=True):
        used = sorted(k for k in ks if k in matched)
        if not used:
            problems.append(_UNUSED.format(span=short(text[a:b])))
            continue
        stretches.append(_widen(words, ks, used[0], used[-1], sentence))
    if problems:
        return Rest(tuple(problems))
    if opening in _POINTING:
        # The stretch it rests on then opens with that word too, so that the answer as a
        # whole reads it as pointing back (`answer.py`: the sentence before must be what
        # the source says just before it).
        f, last = stretches[0]
        ks = next((ks for ks in span_toks if ks and ks[0] <= f <= ks[-1]), [])
        if ks and words.toks[ks[0]].word == opening:
            stretches[0] = (ks[0], last)
        else:
            problems.append(_POINTS.format(word=opening, sid=sid))
    stretch_words = _weighed(words, stretches, sentence.every)
    polarity, kept = _polarity(sentence.words, stretch_words, sid)
    problems.extend(polarity)
    problems.extend(_roles(sentence, words, [(ks[0], ks[-1]) for ks in span_toks if ks], sid))
    anchors.extend(kept)
    dropped = _governing(words, stretches, sentence.words)
    if dropped:
        problems.append(_GOVERNING.format(words=_list(dropped), sid=sid))
    if found.speaks and not any(words.toks[k].word in FIRST_PERSON for k in in_spans):
        problems.append(_SPEAKER.format(sid=sid))
    for quote_at in (u.quote for u in units if u.quote is not None):
        quote = claim.quotes[quote_at]
        where = carrier.stored.find_all(quote)
        if not any(a <= qa and qb <= b for qa, qb in where for a, b in spans):
            problems.append(_QUOTE_ELSEWHERE.format(span=short(quote), sid=sid))
    numbers = [w for w in sentence.words if w[:1].isdigit()]
    if not _in_order(numbers, words, sorted(in_spans)):
        problems.append(_ORDER.format(sid=sid))
    region = carrier.region(window)
    for first, last in stretches:
        a, b = words.toks[first].start, words.toks[last].end
        if words.negated_before(first) or words.disclaimed_after(last):
            problems.append(_DISCLAIMED.format(sid=sid))
        elif _guarded_before(words, first):
            problems.append(_QUALIFIED.format(sid=sid))
        elif years and words.other_year(first, last, years):
            problems.append(_OTHER_YEAR.format(sid=sid))
        else:
            reason = unasserted(text, region, (a, b), claim, dated)
            if reason is not None:
                problems.append(reason.format(sid=sid))
    if problems:
        return Rest(tuple(dict.fromkeys(problems)))
    located = tuple((words.toks[f].start, words.toks[last].end) for f, last in stretches)
    return Rest((), sid, window, located, tuple(dict.fromkeys(anchors)))


_TWO_WAY_KINDS = frozenset(_TWO_WAY)


@dataclass
class _Matched:
    """What `_match` found: the window's tokens the sentence uses, its words in neither the
    spans nor their forms and synonyms, the anchors found, those missing (by kind), and
    whether the speaker is a subject the spans do not name."""

    tokens: set[int]
    new: list[str]
    anchors: list[str]
    missing: dict[str, list[str]]
    speaks: bool


def _same(kind: str | None, a: str, b: str) -> bool:
    """Token `a` of the spans stands for the sentence's word `b`."""
    if kind == "modal":
        return _MODAL_CLASSES.get(a) == _MODAL_CLASSES[b]
    if kind == "negation":
        return _anchor_kind(a) == "negation"
    return a == b or variant(a, b, STOP)


def _match(
    sentence: _Sentence, words: WindowWords, in_spans: set[int], speaker: frozenset[str], n: int
) -> _Matched:
    """Each word of the sentence against the spans' tokens (`in_spans`); `n` spans."""
    out = _Matched(set(), [], [], {}, False)
    framed = False  # a speaker or source word came first: a speech verb after it is frame
    ordinals = {w for w in sentence.words if w in ORDINALS}
    pending = False  # a speaker the spans do not name, unless a frame verb follows it
    for w in sentence.words:
        kind = _anchor_kind(w, sentence.names)
        exact = [k for k in in_spans if _same(kind, words.toks[k].word, w)]
        if kind not in _TWO_WAY_KINDS and w not in STOP:  # only these bound the stretches
            out.tokens.update(exact)
        speech = bool(verb_lemmas(w) & SPEECH_LEMMAS)
        if pending and not speech and w not in STOP:
            out.speaks, pending = True, False
        elif pending and speech:
            pending = False
        if w in FIRST_PERSON or (w in speaker and kind in ("name", None)):
            pending = pending or not exact
            framed = True
        elif w in SOURCE_WORDS:
            framed = True
        elif exact and kind not in _TWO_WAY_KINDS and kind is not None:
            out.anchors.append(f"{kind}: {w}")
        elif exact or kind in _TWO_WAY_KINDS:
            continue
        elif framed and (verb_lemmas(w) & SPEECH_LEMMAS or w in FRAME_PARTICLES):
            out.anchors.append(f"frame: {w}")
        elif w in ORDINALS and len(ordinals) > 1 and n > 1:
            out.anchors.append(f"list: {w}")
        elif COUNTS.get(w) == n and n > 1:
            out.anchors.append(f"count: {w}")
        elif kind is not None:
            out.missing.setdefault(kind, []).append(w)
        elif w in STOP:
            continue
        elif any(synonym(words.toks[k].word, w) for k in in_spans):
            out.tokens.update(k for k in in_spans if synonym(words.toks[k].word, w))
        else:
            out.new.append(w)
    out.speaks = out.speaks or pending
    return out


_PLURAL = {"number": "numbers", "name": "names", "comparison": "comparisons",
           "connective": "connectives"}  # fmt: skip


def _anchor_kind(word: str, names: frozenset[str] = frozenset()) -> str | None:
    """The anchor class of a sentence word, or None for an ordinary word."""
    if word[:1].isdigit():
        return "number"
    for kind, vocab in _TWO_WAY.items():
        if word in vocab or (kind == "negation" and word.endswith("n't")):
            return kind
    if word in COMPARISON:
        return "comparison"
    if word in CONNECTIVE:
        return "connective"
    if word in names:
        return "name"
    return None


def _polarity(
    mine_words: Sequence[str], stretch_words: Sequence[str], sid: str
) -> tuple[list[str], list[str]]:
    """(problems, anchors): each two-way class, and the turning verbs, compared between the
    sentence and the stretches it rests on."""
    problems: list[str] = []
    anchors: list[str] = []
    for kind in _TWO_WAY:
        mine = _classes(kind, [w for w in mine_words if _anchor_kind(w) == kind])
        theirs = _classes(kind, [w for w in stretch_words if _anchor_kind(w) == kind])
        same = sorted(set(mine)) == sorted(set(theirs))
        if same and (kind != "negation" or len(mine) == len(theirs)):
            anchors.extend(f"{kind}: {c}" for c in dict.fromkeys(mine))
        else:
            problems.append(_mismatch(kind, mine, theirs, sid))
    mine = _turning(mine_words)
    theirs = _turning(stretch_words)
    if (
        len(mine) == len(theirs)
        and all(any(synonym(m, t) for t in theirs) for m in mine)
        and all(any(synonym(t, m) for m in mine) for t in theirs)
    ):
        anchors.extend(f"turning verb: {v}" for v in mine)
    else:
        problems.append(_mismatch("turning-verb", mine, theirs, sid))
    return problems, anchors


_SENTENCE_END = re.compile(r"[.!?][\"”’)]*\s+|\n\s*\n")


def _consecutive(text: str, spans: Sequence[tuple[int, int]]) -> bool:
    """No whole sentence lies between two spans (in the order of the text)."""
    ordered = sorted(spans)
    return all(
        len(_SENTENCE_END.findall(text, b, a2)) <= 1 for (_, b), (a2, _) in pairwise(ordered)
    )


def _guarded_before(words: WindowWords, first: int) -> bool:
    """A qualifier, hedge or turning verb within `MAX_GAP` words before token `first`, in the
    same source sentence: it governs the stretch, and the sentence left it out."""
    return words.before(first, MAX_GAP, _guards)


def _guards(word: str) -> bool:
    return word in QUALIFIERS or word in HEDGE or bool(verb_lemmas(word) & TURNING_LEMMAS)


def _weighed(
    words: WindowWords, stretches: Sequence[tuple[int, int]], mine: frozenset[str]
) -> list[str]:
    """The stretches' words whose polarity the sentence must keep: all of them, but for a
    universal quantifier that the sentence leaves out with the word after it (`every
    person`), when no negation turns it round (`not every person`)."""
    ks = [k for f, last in stretches for k in range(f, last + 1)]
    out = [words.toks[k].word for k in ks]
    if any(_anchor_kind(w) == "negation" for w in out):
        return out
    return [
        w
        for k, w in zip(ks, out, strict=True)
        if not (w in UNIVERSAL and k + 1 in ks and words.toks[k + 1].word not in mine)
    ]


def _widen(
    words: WindowWords, ks: Sequence[int], first: int, last: int, sentence: _Sentence
) -> tuple[int, int]:
    """The stretch first..last (tokens of one span, `ks`) widened, within the span and its
    source sentence, to the nearest two-way words of the sentence's own classes that only
    stop words or its own words (its frame's included) separate from it (`No representative
    of` where the sentence says `No representative`), so the stretch holds the polarity
    words the sentence keeps."""
    kinds = {_anchor_kind(w) for w in sentence.words} & _TWO_WAY_KINDS
    own = sentence.every
    lo, hi = ks[0], ks[-1]

    def reach(k: int, step: int, stop: int) -> int:
        best, j = k, k + step
        while (j >= stop if step < 0 else j <= stop) and not words.breaks[max(j, j - step)]:
            w = words.toks[j].word
            if _anchor_kind(w) in kinds:
                best = j
            elif w not in STOP and w not in own:
                break
            j += step
        return best

    return reach(first, -1, lo), reach(last, 1, hi)


def _paraphrased_spans(
    units: Sequence[Unit], spans: Sequence[tuple[int, int]], speaker: frozenset[str]
) -> list[tuple[int, int]]:
    """The spans that must be consecutive: all of them, unless the sentence's own words are
    frame alone (a quoted list: `Kennedy laid out three points: first, "..."; second, "..."`):
    its spans then only back its quotes, and two quotes of one window may stand in any order
    under the contract."""
    own = [u.word for u in units if u.quote is None and u.word not in STOP | speaker]
    return list(spans) if any(not _frame_only(w) for w in own) else []


def _frame_only(word: str) -> bool:
    return bool(
        verb_lemmas(word) & SPEECH_LEMMAS
        or word in FRAME_PARTICLES
        or word in ORDINALS
        or word in COUNTS
        or word in SOURCE_WORDS
    )


def _in_order(numbers: Sequence[str], words: WindowWords, ks: Sequence[int]) -> bool:
    """The sentence's numbers can be found among tokens `ks` in the sentence's order."""
    at = -1
    for n in numbers:
        nxt = next((k for k in sorted(ks) if k > at and words.toks[k].word == n), None)
        if nxt is None:
            return False
        at = nxt
    return True


def _governing(
    words: WindowWords, stretches: Sequence[tuple[int, int]], mine: Sequence[str]
) -> list[str]:
    """The verbs of the stretches that govern an infinitive (`tried to steal`, `seek to
    do`) that the sentence keeps without them: it has no form of the verb before a `to`."""
    toks = words.toks
    kept = {w for w, nxt in pairwise(mine) if nxt == "to"}
    out: list[str] = []
    for first, last in stretches:
        if first >= 2:  # the verb just before the stretch (`plan to protect`)
            first -= 2
        for k in range(first, last - 1):
            verb, to, then = toks[k].word, toks[k + 1].word, toks[k + 2].word
            infinitive = then in _PLAIN_VERBS or (then not in STOP and verb_lemmas(then))
            if to != "to" or not infinitive or verb in STOP or not verb_lemmas(verb):
                continue
            if words.text[toks[k].start].isupper():  # a name (`asked Congress to`)
                continue
            if not any(variant(w, verb, STOP) for w in kept):
                out.append(verb)
    return out


_PLAIN_VERBS = vocabulary("be do have")


def _turning(words: Sequence[str]) -> list[str]:
    """The turning verbs among `words`, one lemma per word, in order."""
    out = []
    for w in words:
        lemmas = sorted(verb_lemmas(w) & TURNING_LEMMAS)
        if lemmas:
            out.append(lemmas[0])
    return out


def _mismatch(kind: str, mine: Sequence[str], theirs: Sequence[str], sid: str) -> str:
    return _POLARITY.format(
        kind=kind, mine=", ".join(mine) or "none", theirs=", ".join(theirs) or "none", sid=sid
    )


def _classes(kind: str, words: Sequence[str]) -> list[str]:
    if kind == "modal":
        return [_MODAL_CLASSES[w] for w in words]
    if kind == "negation":
        return ["not" for _ in words]
    return list(words)


def _speaker_words(meta: Metadata) -> frozenset[str]:
    """The words naming the source's speaker: each name's words, offices, and pronouns."""
    out = {t.word for n in (*meta.names, *meta.offices) for t in tokens(n)}
    return frozenset(out) | _PRONOUNS


_PRONOUNS = vocabulary("he she they him her them his their")


# How far a name may stand from its verb and still be read as its subject or object.
_SUBJECT_GAP = 1
_OBJECT_GAP = 2
_AGENT = frozenset({"by"})
_RELATIVE = frozenset({"that", "which", "who", "whom", "whose"})
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being"})


# A word after one of these is a noun, whatever verb it could also be (`the harbor`).
_DETERMINERS = frozenset(
    "a an the this that these those its his her their our my your of each every".split()
)


def _passive(words: Sequence[str], at: int) -> bool:
    """The verb at `at` is passive: a form of `be` just before it, or `by` just after."""
    return (at > 0 and words[at - 1] in _BE) or bool(_AGENT & set(words[at + 1 : at + 3]))


def _not_a_verb(words: Sequence[str], at: int) -> bool:
    """The word at `at` does not read as a verb taking an object here: a determiner stands
    just before it (`the harbor`), or it neither ends as a past form nor has a determiner
    after it (`last week`, where `passed the` and `supported many` read as verbs)."""
    if at > 0 and words[at - 1] in _DETERMINERS:
        return True
    after = words[at + 1] if at + 1 < len(words) else ""
    return not words[at].endswith("ed") and after not in _DETERMINERS


def _heads(toks: Sequence[str], k: int, names: frozenset[str]) -> tuple[list[str], list[str]]:
    """The words of a span that stand as the subject and the object of its verb at `k`: its
    names just before and just after it (`_SUBJECT_GAP`, `_OBJECT_GAP`), the content word
    right before it, and the first content word after it past a determiner."""
    before = [w for w in toks[max(k - _SUBJECT_GAP - 1, 0) : k] if w in names]
    after = [w for w in toks[k + 1 : k + 2 + _OBJECT_GAP] if w in names]
    if k > 0 and toks[k - 1] not in STOP and toks[k - 1] not in _DETERMINERS:
        before.append(toks[k - 1])
    rest = [w for w in toks[k + 1 : k + 3] if w not in _DETERMINERS]
    if rest and rest[0] not in STOP:
        after.append(rest[0])
    return before, after


def _turned(said: Sequence[str], at: int, before: Sequence[str], after: Sequence[str]) -> str:
    """The first head that stands on the other side of the verb at `at` in the sentence
    (once there, and no relative pronoun between it and the verb), or ""."""
    for word, wrong_side in [(w, True) for w in before] + [(w, False) for w in after]:
        places = [i for i, w in enumerate(said) if w == word]
        if len(places) != 1 or (places[0] > at) != wrong_side:
            continue
        a, b = sorted((places[0], at))
        if not _RELATIVE & set(said[a:b]):
            return word
    return ""


def _roles(
    sentence: _Sentence, words: WindowWords, spans: Sequence[tuple[int, int]], sid: str
) -> list[str]:
    """Who does what to whom stays as the spans have it: where a span has a name or a word
    just before a verb the sentence shares (its subject, `Sherlock supported`) or just after
    it (its object, `appropriated the fund`), the sentence has that word on the same side of
    that verb (`_heads`, `_turned`), unless the sentence or the span is passive (`by` after
    the verb, `be` before it), the verb reads as a noun, or a relative clause turns it round
    (`the fund that Congress appropriated`). Without this, `many studies supported
    Sherlock` rests on `Sherlock supported many studies`, and `For arming the militia
    appropriated the fund` on `the fund appropriated for arming the militia`: the same
    words, anchors and polarity, the roles turned round."""
    said = list(sentence.ordered)
    for first, last in spans:
        toks = [t.word for t in words.toks[first : last + 1]]
        for k, verb in enumerate(toks):
            if verb in sentence.names or not verb_lemmas(verb):
                continue
            at = next((i for i, w in enumerate(said) if variant(verb, w, STOP)), None)
            if at is None or _passive(said, at) or _passive(toks, k):
                continue
            if _not_a_verb(toks, k) or (at > 0 and said[at - 1] in _DETERMINERS):
                continue
            word = _turned(said, at, *_heads(toks, k, sentence.names))
            if word:
                return [_ROLES.format(name=word, verb=said[at], sid=sid)]
    return []


_ROLES = "it turns round who does what: {sid} has {name!r} on the other side of {verb!r}"
