"""Grounding: is a sentence carried, all of it, by one passage of a source it cites?

The rules are the grounding contract (docs/grounding.md); this module is its matching half
(`units.py` reads a sentence into units). The units must be found in one passage window (a
passage, or the consecutive passages a quote crosses) in the sentence's order, each at most
`MAX_GAP` words after the one before, skipping no number and no word of `CRITICAL`; two
quotes separated only by frame words may come in any order. A quote must be verbatim, start
and end on word boundaries, and be long enough. Neither a quote nor an extractive sentence
may be cut away from a negation or disclaimer just before it (`NEGATIONS`, within
`LOOKBACK` words of the same source sentence), an extractive sentence not from a qualifier
just before it either (`QUALIFIERS`, within `MAX_GAP` words: "Their only interest is ..."
does not carry "their interest is ...", whose leading pronoun a frame sets aside; a quote
shows where it starts), nor either from a disclaimer just after its last word
(`DISCLAIMERS_AFTER`, within `LOOKAHEAD` words). A sentence that dates its content by the
source's own date (`In 1941, taxes rose`) is not carried by source sentences that give
another year.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise, product

from .assertion import unasserted
from .claims import DraftClaim
from .lemmas import variant, verb_lemmas
from .text import StoredText
from .units import (
    ATTRIBUTION_VERBS,
    REPORTING_VERBS,
    Metadata,
    Reading,
    Token,
    as_list,
    is_year,
    read_units,
    tokens,
    too_short,
    vocabulary,
)

MAX_GAP = 3  # words a sentence may skip between two of its units
LOOKBACK = 8  # source words before a quote (same sentence) searched for a negation
LOOKAHEAD = 4  # source words after the last unit searched for a disclaimer
MIN_QUOTE_WORDS = 3
MIN_QUOTE_CONTENT_WORDS = 2
CONTEXT_BEFORE, CONTEXT_AFTER = 3, 1  # neighbouring passages read as a window's context

# Words a sentence may never skip: negations, modals, conditionals, contrasts, quantifiers,
# comparisons and stance words. Skipping one changes what the source says. (All three
# lists are folded like the tokens they are compared with.)
CRITICAL = vocabulary(
    """not no never nor neither none nobody nothing nowhere cannot can't won't don't doesn't
    didn't isn't aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't
    mustn't without n't will would shall should may might must can could if unless whether
    until but although though however yet except only just even all every each some any many
    most more less fewer few several half least almost nearly about over under than rather
    false falsely untrue myth lie lies wrong deny denies denied denial reject rejects rejected
    oppose opposes opposed refuse refuses refused claim claims claimed allege alleges alleged
    supposedly pretend pretends pretended doubt doubts fail fails failed"""
)
# Before a quote or an extractive sentence: negations and disclaimers a sentence may not cut.
NEGATIONS = vocabulary(
    """not no never nor neither none nobody nothing cannot can't won't don't doesn't didn't
    isn't aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't mustn't n't
    false falsely untrue myth lie wrong deny denies denied reject rejects rejected claim
    claims claimed allege alleges alleged pretend pretends pretended doubt if unless whether
    supposedly"""
)
# What a gap between two units may skip, and nothing else: articles, determiners, "and",
# prepositions a frame may have taken ("in 1941 to fund" against "to fund ... in 1938"),
# and adverbs that only stress or link; and a parenthesis set off by commas or dashes that
# holds no critical word or number ("We must, as a nation, invest"). A verb ("prevent the
# use of" is not "use of"), a degree adverb ("hardly"), an adjective ("proposed", "draft"),
# a name or a number is never skipped: each is a word the sentence must carry or leave the
# passage's order for.
GAP_MAY_SKIP = vocabulary(
    """a an the this that these those our my your his her its their and also too very
    really truly indeed now here today so thus therefore then moreover furthermore besides
    however certainly surely clearly simply to in on of as at by for with from"""
)
# Auxiliaries a gap may skip before a verb form (`WindowWords._auxiliaries`).
PERFECT = vocabulary("have has had")
PROGRESSIVE = vocabulary("am is are was were")
# Before a quote, a gap may also skip the source's own speech verb (and its `who`: `Bryan,
# who said, "..."`).
SPEECH_VERBS = ATTRIBUTION_VERBS | REPORTING_VERBS | vocabulary("who")
_PARENTHESIS = re.compile(r"\s*(?:,[^,;:]*,|[—–][^—–;:]*[—–]|\([^()]*\))\s*")
# Before the carried words, within `MAX_GAP`: the critical words a sentence may not leave out
# at its start either (contrasts such as "but" or "however" it may).
QUALIFIERS = CRITICAL - vocabulary("but although though however yet until than rather")
# After the carried words: disclaimers that turn a statement into someone's false claim,
# and conditions that make it hypothetical.
DISCLAIMERS_AFTER = vocabulary(
    """false falsely untrue myth lie lies wrong mistaken claim claims claimed allege alleges
    alleged supposedly if unless except provided otherwise"""
)
_SENTENCE_BREAK = re.compile(r"[.!?;:]\s|[.!?]$|\n\s*\n")
# Gathering: a list the source spreads over consecutive sentences or lines ("The first is ...
# The second is ...", a markdown list) may be joined in one sentence at its list joints. The
# source's words between two items are only the end of the one item's sentence, at most
# `LOOKAHEAD` words holding no negation, disclaimer, condition or contrast (`ITEM_TAIL_STOPS`),
# and the start of the next one's, at most `LIST_LEAD_WORDS` words of `LIST_LEADS` or a list
# number (`2.`); each item is asserted where it stands.
LIST_LEAD_WORDS = 4
LIST_LEADS = vocabulary(
    """a an the and also another next finally lastly first second third fourth fifth sixth
    seventh eighth ninth tenth firstly secondly thirdly one is are was were"""
)
CONTRASTS = vocabulary("but although though however yet except rather instead nevertheless")
# The words that end an item's sentence may hold none of these, nor a number, within
# `LOOKAHEAD` words of the item.
ITEM_TAIL_STOPS = CRITICAL | NEGATIONS | DISCLAIMERS_AFTER | CONTRASTS
# An item's sentence may go on longer only with a clause set off by a comma or a dash that
# opens with one of `RELATIVES` ("freedom from want—which, translated into world terms,
# means ..."): it tells more of the item and does not unsay it, unless it disclaims or
# contrasts (`ELABORATION_STOPS`) anywhere in it.
RELATIVES = vocabulary("which who whom whose")
ELABORATION_STOPS = DISCLAIMERS_AFTER | CONTRASTS
_LIST_NUMBER = re.compile(r"\d{1,2}[.)]")
_NOT_TOGETHER = "no passage of {sid} holds its words together and in the same order"
_DISCLAIMED = "{sid} negates or disclaims the words it uses, right before or after them"
_OTHER_YEAR = "the passage of {sid} that holds its words gives another year"
_QUALIFIED = "{sid} qualifies the words it uses right before them (a word such as 'only' left out)"


@dataclass(frozen=True)
class Window:
    """A span of a source's stored text that may carry a sentence: one passage, or the
    consecutive passages a quote crosses."""

    start: int
    end: int
    passage_ids: tuple[str, ...]


@dataclass(frozen=True)
class Finding:
    """The outcome for one sentence against its cited sources."""

    problems: tuple[str, ...]
    source_id: str | None = None
    window: Window | None = None
    span: tuple[int, int] | None = None  # the stored text's stretch that carries the sentence
    # Not carried for another reason than its words' order (a quote, its length, or words
    # found together but not asserted there): the paraphrase tier may not rescue it.
    refused: bool = False

    @property
    def grounded(self) -> bool:
        return not self.problems


class Carrier:
    """One cited source as grounding sees it: stored text, passage windows and metadata."""

    def __init__(
        self,
        source_id: str,
        stored: StoredText,
        passages: Sequence[tuple[str, int, int]],
        metadata: Metadata,
    ) -> None:
        self.source_id = source_id
        self.stored = stored
        self.passages = sorted(passages, key=lambda p: (p[1], p[2]))
        self.metadata = metadata

    def windows(self, spans: Sequence[tuple[int, int]]) -> list[Window]:
        """Each passage, and for each quote span the passages it crosses, joined."""
        out = [Window(a, b, (pid,)) for pid, a, b in self.passages]
        for qa, qb in spans:
            touched = [(pid, a, b) for pid, a, b in self.passages if a < qb and qa < b]
            if len(touched) > 1 and _contiguous(self.stored.text, touched):
                out.append(Window(touched[0][1], touched[-1][2], tuple(p[0] for p in touched)))
        return out

    def runs_on(self) -> list[Window]:
        """Each two passages next to each other in the document, joined: where a gathered
        list may run on across the split between passages (`The third is ...` ending one
        passage, `The fourth is ...` opening the next)."""
        return [
            Window(a, b2, (pid, nid))
            for k, ((pid, a, _), (nid, _, b2)) in enumerate(pairwise(self.passages))
            if self._neighbours(k)
        ]

    def region(self, window: Window) -> tuple[int, int]:
        """The window with up to `CONTEXT_BEFORE` passages before it and `CONTEXT_AFTER`
        after, as long as they follow each other in the document (consecutive ordinals,
        only white space between): the context its sentences are read in."""
        ids = [pid for pid, _, _ in self.passages]
        first, last = ids.index(window.passage_ids[0]), ids.index(window.passage_ids[-1])
        lo, hi = first, last
        while lo > 0 and first - lo < CONTEXT_BEFORE and self._neighbours(lo - 1):
            lo -= 1
        while hi + 1 < len(ids) and hi - last < CONTEXT_AFTER and self._neighbours(hi):
            hi += 1
        return min(self.passages[lo][1], window.start), max(self.passages[hi][2], window.end)

    def consecutive(self, first: int, last: int) -> bool:
        """Passages first..last (indexes into `passages`) follow each other in the document."""
        return all(self._neighbours(k) for k in range(first, last))

    def _neighbours(self, k: int) -> bool:
        """Passages k and k+1 are next to each other in the document."""
        (pid, _, b), (nid, a, _) = self.passages[k], self.passages[k + 1]
        return _ordinal(nid) == _ordinal(pid) + 1 and not self.stored.text[b:a].strip()


def _ordinal(passage_id: str) -> int:
    """A passage's number in its document (`doc#7` -> 7), or -2 for another kind of id."""
    tail = passage_id.rpartition("#")[2]
    return int(tail) if tail.isdigit() else -2


def _contiguous(text: str, passages: Sequence[tuple[str, int, int]]) -> bool:
    return all(not text[b:a2].strip() for (_, _, b), (_, a2, _) in pairwise(passages))


def ground(claim: DraftClaim, carriers: Sequence[Carrier]) -> Finding:
    """Grounded when one window of one cited source carries the whole sentence.

    `carriers` are the claim's cited sources that exist, in citation order. The problems of
    the first source tried are reported when none carries the sentence.
    """
    if not carriers:
        return Finding(("it cites no source that exists",), refused=True)
    first: Finding | None = None
    refused = False
    for carrier in carriers:
        finding = _ground_in(claim, carrier)
        if finding.grounded:
            return finding
        first = first or finding
        refused = refused or finding.refused
    assert first is not None
    return replace(first, refused=refused)


def _ground_in(claim: DraftClaim, carrier: Carrier) -> Finding:
    text = carrier.stored.text
    quote_spans: list[list[tuple[int, int]]] = []
    for quote in claim.quotes:
        problem, spans = _quote_spans(quote, carrier)
        if problem:
            return Finding((problem,), refused=True)
        quote_spans.append(spans)
    reading = read_units(claim, carrier.metadata)
    words = " ".join(u.word for u in reading.units)
    if not claim.quotes and too_short(words, MIN_QUOTE_WORDS, MIN_QUOTE_CONTENT_WORDS):
        return Finding(
            (
                "it is too short to be checked against a passage (fewer than "
                f"{MIN_QUOTE_WORDS} words, or fewer than {MIN_QUOTE_CONTENT_WORDS} that are "
                "not stop words, outside its frame)",
            ),
            refused=True,
        )
    best = _NOT_TOGETHER
    readings = [reading]
    if reading.first_person is not None:
        readings.append(replace(reading, units=reading.first_person, first_person=None))
    # The list reading last: a sentence the passage carries as it reads needs no gathering.
    listings = [
        replace(r, units=listed, first_person=None)
        for r in readings
        if (listed := as_list(r.units)) is not None
    ]
    windows = carrier.windows([s for spans in quote_spans for s in spans])
    # A list alone may run on into the next passage, and only after every single window.
    attempts = [
        *product(windows, readings + listings),
        *product(carrier.runs_on() if listings else [], listings),
    ]
    for window, read in attempts:
        problem, chains = _carried(read, quote_spans, window, text)
        if problem is None:
            # Carried: asserted where any one chain of it sits, each piece of it where it
            # stands? (`chains` is never empty, nor is a chain.)
            region, dated = carrier.region(window), bool(reading.event_years)
            reasons = [
                next(
                    (r for p in pieces if (r := unasserted(text, region, p, claim, dated))),
                    None,
                )
                for pieces in chains
            ]
            if None in reasons:
                pieces = chains[reasons.index(None)]
                return Finding((), carrier.source_id, window, (pieces[0][0], pieces[-1][1]))
            problem = next(r for r in reasons if r is not None)
        if problem != _NOT_TOGETHER:
            best = problem
    return Finding((best.format(sid=carrier.source_id),), refused=best != _NOT_TOGETHER)


def _quote_spans(quote: str, carrier: Carrier) -> tuple[str | None, list[tuple[int, int]]]:
    """(the problem with a quote, or None; its usable occurrences in the source)."""
    spans = carrier.stored.find_all(quote)
    if not spans:
        return f"the quote {short(quote)} is not in {carrier.source_id}", []
    if too_short(quote, MIN_QUOTE_WORDS, MIN_QUOTE_CONTENT_WORDS):
        return (
            f"the quote {short(quote)} is too short to prove anything (fewer than "
            f"{MIN_QUOTE_WORDS} words, or fewer than {MIN_QUOTE_CONTENT_WORDS} that are not "
            "stop words)"
        ), []
    text = carrier.stored.text
    spans = [(a, b) for a, b in spans if on_word_boundaries(text, a, b)]
    if not spans:
        return f"the quote {short(quote)} starts or ends inside a word of {carrier.source_id}", []
    return None, spans


def short(quote: str) -> str:
    q = " ".join(quote.split())
    return f'"{q[:40]}…"' if len(q) > 40 else f'"{q}"'


def on_word_boundaries(text: str, a: int, b: int) -> bool:
    """Neither end of text[a:b] cuts a word: no letter or digit on both sides of a cut."""
    cut_start = text[a - 1 : a].isalnum() and text[a : a + 1].isalnum()
    cut_end = text[b : b + 1].isalnum() and text[b - 1 : b].isalnum()
    return not cut_start and not cut_end


# ------------------------------------------------------------------ matching in a window


@dataclass(frozen=True)
class WindowWords:
    """A window's words, and where its sentences break."""

    toks: list[Token]
    breaks: list[bool]  # breaks[k]: a sentence ends between token k-1 and token k
    text: str  # the stored text the tokens' offsets point into

    @classmethod
    def of(cls, window: Window, text: str) -> WindowWords:
        toks = tokens(text[window.start : window.end], window.start)
        breaks = [
            k == 0 or bool(_SENTENCE_BREAK.search(text[toks[k - 1].end : toks[k].start]))
            for k in range(len(toks))
        ]
        return cls(toks, breaks, text)

    def options(
        self, reading: Reading, quote_spans: list[list[tuple[int, int]]], window: Window
    ) -> list[list[tuple[int, int]]]:
        """For each unit, the (first, last) token ranges where it occurs in the window (a
        word, or another form of the same verb: `lemmas.py`)."""
        out: list[list[tuple[int, int]]] = []
        for unit in reading.units:
            if unit.quote is None:
                forms = verb_lemmas(unit.word) if unit.word not in CRITICAL else frozenset()
                out.append(
                    [
                        (k, k)
                        for k, t in enumerate(self.toks)
                        if t.word == unit.word or (forms and variant(t.word, unit.word, CRITICAL))
                    ]
                )
                continue
            ranges = [
                self._range(a, b)
                for a, b in quote_spans[unit.quote]
                if window.start <= a and b <= window.end
            ]
            out.append([r for r in ranges if r[0] <= r[1]])
        return out

    def _range(self, a: int, b: int) -> tuple[int, int]:
        first = next((k for k, t in enumerate(self.toks) if t.end > a), len(self.toks))
        last = max((k for k, t in enumerate(self.toks) if t.start < b), default=-1)
        return first, last

    def linked(
        self, prev_last: int, first: int, echo: frozenset[str] = frozenset(), quote: bool = False
    ) -> bool:
        """A unit at `first` may follow one ending at `prev_last`: in order, a small gap,
        and every word skipped one of `GAP_MAY_SKIP`, of the sentence's own words there
        (`echo`, never a critical one), or, before a quote, a speech verb (`Jefferson wrote,
        "..."` for `quoted Jefferson as saying "..."`)."""
        gap = first - prev_last - 1
        if not 0 <= gap <= MAX_GAP:
            return False
        skipped = [self.toks[k].word for k in range(prev_last + 1, first)]
        may = GAP_MAY_SKIP | SPEECH_VERBS if quote else GAP_MAY_SKIP
        may |= self._auxiliaries(first)
        if all(w in may or (w in echo and w not in CRITICAL) for w in skipped):
            return True
        between = self.text[self.toks[prev_last].end : self.toks[first].start]
        return bool(_PARENTHESIS.fullmatch(between)) and not any(
            w in CRITICAL or w[:1].isdigit() for w in skipped
        )

    def has_and(self, prev_last: int, first: int) -> bool:
        """The passage has `and` between token `prev_last` and token `first`."""
        return any(t.word == "and" for t in self.toks[prev_last + 1 : first])

    def pieces(self, lo: int, hi: int, seams: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
        """The text of tokens lo..hi, cut at each gathered seam (end of an item, start of the
        next) into the pieces that carry a sentence."""
        bounds = [lo, *(k for seam in seams for k in seam), hi]
        if bounds != sorted(bounds):  # quotes after the list, in another order: one piece
            bounds = [min(bounds), max(bounds)]
        pairs = zip(bounds[::2], bounds[1::2], strict=True)
        return [(self.toks[a].start, self.toks[b].end) for a, b in pairs]

    def gathers(self, prev_last: int, first: int) -> bool:
        """A list item at `first` may follow one ending at `prev_last` across exactly one
        sentence or line break: before it, at most `LOOKAHEAD` words end the earlier item's
        sentence, none of `ITEM_TAIL_STOPS` (or a longer relative clause set off from the
        item, none of `ELABORATION_STOPS` in it); after it, at most `LIST_LEAD_WORDS` words of
        `LIST_LEADS` or list numbers start the item's own."""
        if first <= prev_last:
            return False
        cuts = [
            k
            for k in range(prev_last + 1, first + 1)
            if self._breaks_line(k) and not (k > prev_last + 1 and self._list_number(k - 1))
        ]
        if len(cuts) != 1:
            return False
        tail, head = self.toks[prev_last + 1 : cuts[0]], range(cuts[0], first)
        relative = bool(tail) and self._sets_off(prev_last) and tail[0].word in RELATIVES
        return (
            (len(tail) <= LOOKAHEAD or relative)
            and not any(t.word in ITEM_TAIL_STOPS or t.word[:1].isdigit() for t in tail[:LOOKAHEAD])
            and not any(t.word in ELABORATION_STOPS for t in tail)
            and len(head) <= LIST_LEAD_WORDS
            and all(self.toks[k].word in LIST_LEADS or self._list_number(k) for k in head)
        )

    def _sets_off(self, k: int) -> bool:
        """A comma or a dash follows token `k`: what comes next is set off from it."""
        gap = self.text[self.toks[k].end : self.toks[k + 1].start]
        return any(mark in gap for mark in (",", "—", "–", "--"))

    def _breaks_line(self, k: int) -> bool:
        """A sentence or a line ends between token k-1 and token k."""
        return self.breaks[k] or "\n" in self.text[self.toks[k - 1].end : self.toks[k].start]

    def _list_number(self, k: int) -> bool:
        """Token `k` numbers an item of a list: it opens its line and `.` or `)` follows."""
        t = self.toks[k]
        line_start = self.text.rfind("\n", 0, t.start) + 1
        return not self.text[line_start : t.start].strip(" \t-*+") and bool(
            _LIST_NUMBER.match(self.text, t.start)
        )

    def _auxiliaries(self, k: int) -> frozenset[str]:
        """The auxiliaries a gap may skip before token `k`: `have` before a verb form (`I have
        directed` carries `Washington directed`), `am`/`is`/... before an `-ing` form (`I am
        proposing`). A form of `be` before a participle is a passive (`was attacked` is not
        `attacked`) and is never skipped."""
        word = self.toks[k].word
        if word.endswith("ing") and verb_lemmas(word):
            return PROGRESSIVE | PERFECT
        return PERFECT if verb_lemmas(word) and word != "been" else frozenset()

    def before(self, first: int, reach: int, test: Callable[[str], bool]) -> bool:
        """A word passing `test` within `reach` words before token `first`, in the same
        sentence."""
        k = first
        while k > 0 and first - k < reach and not self.breaks[k]:
            k -= 1
            if test(self.toks[k].word):
                return True
        return False

    def negated_before(self, first: int) -> bool:
        return self.before(first, LOOKBACK, NEGATIONS.__contains__)

    def qualified_before(self, first: int) -> bool:
        return self.before(first, MAX_GAP, QUALIFIERS.__contains__)

    def disclaimed_after(self, last: int) -> bool:
        k = last + 1
        while k < len(self.toks) and k - last <= LOOKAHEAD and not self.breaks[k]:
            if self.toks[k].word in DISCLAIMERS_AFTER:
                return True
            k += 1
        return False

    def other_year(self, first: int, last: int, years: frozenset[str]) -> bool:
        """A year other than `years` in the source sentences spanning tokens first..last."""
        a = first
        while a > 0 and not self.breaks[a]:
            a -= 1
        b = last + 1
        while b < len(self.toks) and not self.breaks[b]:
            b += 1
        return any(is_year(t.word) and t.word not in years for t in self.toks[a:b])


def _carried(
    reading: Reading, quote_spans: list[list[tuple[int, int]]], window: Window, text: str
) -> tuple[str | None, list[list[tuple[int, int]]]]:
    """(None, for each way the window carries the units, the pieces of text that carry
    them) when it does; otherwise (the reason it does not, []). A piece is all the carried
    text but where the sentence gathers a list: there each item is a piece of its own.

    A chain is (first token of the first unit, first and last token of the latest unit, the
    gathered seams: (last token of an item, first token of the next)); chains grow unit by
    unit, in the sentence's order.
    """
    passage = WindowWords.of(window, text)
    options = passage.options(reading, quote_spans, window)
    if not all(options):
        return _NOT_TOGETHER, []
    units = reading.units
    starts = [(a, b) for a, b in options[0] if not passage.negated_before(a)]
    # A quote shows where it starts; an extractive sentence's first words do not.
    extractive = units[0].quote is None
    seamless: tuple[tuple[int, int], ...] = ()
    chains = [
        (a, a, b, seamless) for a, b in starts if not (extractive and passage.qualified_before(a))
    ]
    disclaimed = not starts
    qualified = bool(starts) and not chains
    for i in range(1, len(units)):
        unit = units[i]
        free = unit.quote is not None and units[i - 1].quote is not None
        grown: list[tuple[int, int, int, tuple[tuple[int, int], ...]]] = []
        for first, last in options[i]:
            if free and passage.negated_before(first):
                disclaimed = True
                continue
            echo, quote = unit.echo, unit.quote is not None
            chain = next(
                (
                    (c[0], first, last, c[3])
                    for c in chains
                    if free
                    or (
                        passage.linked(c[2], first, echo, quote)
                        and (not unit.conjoined or passage.has_and(c[2], first))
                    )
                ),
                None,
            )
            if chain is None and unit.joint:
                chain = next(
                    (
                        (c[0], first, last, (*c[3], (c[2], first)))
                        for c in chains
                        if passage.gathers(c[2], first)
                    ),
                    None,
                )
            if chain is not None:
                grown.append(chain)
        chains = grown
    ends = [c for c in chains if not passage.disclaimed_after(c[2])]
    if chains and not ends:
        return _DISCLAIMED, []
    if reading.event_years:
        ends = [c for c in ends if not passage.other_year(c[0], c[2], reading.event_years)]
        if chains and not ends:
            return _OTHER_YEAR, []
    if ends:
        return None, [passage.pieces(min(c[0], c[2]), max(c[0], c[2]), c[3]) for c in ends]
    if disclaimed:
        return _DISCLAIMED, []
    return (_QUALIFIED if qualified else _NOT_TOGETHER), []
