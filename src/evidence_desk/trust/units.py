"""A sentence read as units: the words and quotes a passage must hold, frames set aside.

The first half of the grounding contract (docs/grounding.md; the matching is in
`grounding.py`). Words compare case-insensitively after folding a possessive `'s` and a
plural `-s`/`-es`; numbers compare by their digits. Nothing else is folded: this is
extraction, not paraphrase.

Set aside, needing no passage:

* articles (`a`, `an`, `the`), anywhere;
* frames: a maximal stretch of frame vocabulary (the source's metadata, attribution verbs
  and phrases, source nouns, pronouns, `FRAME_WORDS`, `DISCOURSE_WORDS`, articles) that
  holds an attribution verb or the source's title or date. Inside a frame every word is
  free, except:

  - a name, free only in a frame with an attribution verb (`Roosevelt said`, never
    `Roosevelt vetoed`), and a subject pronoun only before that verb (`he said`, never
    `said that they`);
  - a reporting verb (`REPORTING_VERBS`: `argued`, `warned`, ...; verbs that also state
    deeds, `declared war`), an attribution verb only in the shape of one: a `that` follows
    it in the stretch (`argued that`), or the stretch ends its run (a quote or the
    sentence's end follows) and holds a speaker (`he warned: "..."`); otherwise an ordinary
    word;
  - a discourse word (`also`, `later`, `same`, ...), free only in a frame with an
    attribution verb: before the verb when the stretch opens its run or follows a speaker
    (`It also said`, never `taxes rose further, he said`), after it when a `that` follows
    or the stretch ends its run (`said in the same address that`);
  - an office (metadata `offices`: `the President`), free only as the speaker: before the
    verb, after a prepositional frame (`according to the President`, `in the words of the
    President`), or inverted at the end of its run (`"...," said the President`);
  - an addressee (metadata `addressees`: `Congress`), free only right after a verb or after
    a verb's or source noun's `to` (`told Congress that`, `his message to Congress`), and
    after the verb only when a `that` follows or the stretch ends its run (never `asked
    Congress to`).

  Between two quotes, frame vocabulary alone is a frame (`"..." and "..."`), unless it holds
  a discourse word, an office or an addressee and no attribution verb.

Metadata is the carrying source's own: its whole title, each name (whole, or its last word),
each office and addressee (whole), and its date as a whole (the year; month and year; the
full date in the common orders; ISO). A date in a frame without an attribution verb dates
the event the sentence states (`In 1941, taxes rose`); those years are reported so the
matcher can refuse a passage that dates the same words otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

from .claims import DraftClaim


def vocabulary(words: str) -> frozenset[str]:
    """A closed word list as tokens compare: each word folded (`fold`)."""
    return frozenset(fold(w) for w in words.split())


ARTICLES = frozenset({"a", "an", "the"})
# Speech verbs, frames wherever they stand.
ATTRIBUTION_VERBS_TEXT = (
    "said say says wrote writes stated told noted notes added adds asked asks according quoted "
    "quotes"
)
# Reporting verbs, attribution verbs only in the shape of one (a `that` after them, or the end
# of their run beside a speaker): most also state deeds (`declared war`, `maintain the navy`).
# Forms that are common nouns or adjectives are left out (`state`, `report`, `warning`,
# `remarks`, `stress`, `urge`, `recall`, `writing`, `written`), and so are verbs that
# disclaim, concede or evaluate what they report (`claim`, `allege`, `deny`, `admit`,
# `concede`, `acknowledge`, `suggest`, `describe`, `believe`, `promise`).
REPORTING_VERBS_TEXT = """tell tells telling saying stating noting adding asking declare declared
    declares declaring argue argued argues arguing warn warned warns urged urging insist
    insisted insists insisting explain explained explains explaining remarked remarking
    observe observed observes observing announce announced announces announcing reported
    maintain maintained maintains maintaining emphasize emphasized emphasizes emphasizing
    emphasise emphasised emphasises emphasising stressed stressing recalled recalling states"""
# Reporting phrases, each a reporting verb as a whole: `It went on: "..."`.
REPORTING_PHRASES_TEXT = "went on; goes on; go on"
# Attribution phrases, each an attribution verb as a whole (`as <speaker> put it` too).
ATTRIBUTION_PHRASES_TEXT = """according to; in his words; in her words; in its words; in their
    words; in his own words; in her own words; in its own words; in their own words; in the
    words of; used the phrase; used the words; used the term; used the expression; uses the
    phrase; uses the words; uses the term; spoke of; speaks of; as saying; as writing; as
    declaring; as asking"""
# Discourse phrases, each a discourse word as a whole (`Lincoln, for his part, said`).
DISCOURSE_PHRASES_TEXT = """for his part; for her part; for its part; for their part; in turn;
    in the same address; in the same message; in the same speech; in the same article;
    years later; decades later; a decade later; a century later; centuries later;
    a generation later; generations later"""
SOURCE_NOUNS_TEXT = "address speech message article remarks post source document"
SUBJECT_PRONOUNS_TEXT = "he she they it"
FRAME_WORDS_TEXT = "his her their its in on of that as and to"
# Discourse and connective words: free only in a frame with an attribution verb.
DISCOURSE_WORDS_TEXT = (
    "also further furthermore moreover then later again too same own went continued elsewhere"
)
STOP_TEXT = """a an the of to in on at by for with from as that this these those it its is are
    was were be been being has have had do does did and or but if so we i you he she they our
    their his her my your me us him them there here which who what when where how all any
    some no not will would shall should can could may might must"""
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)*")
_MARKER = re.compile(r"\[[^\[\]\n]*\]")
_MONTHS = (
    "january february march april may june july august september october november december"
).split()

(
    _FREE,
    _NAME,
    _TITLE,
    _DATE,
    _VERB,
    _NOUN,
    _PRONOUN,
    _FRAME,
    _WORD,
    _REPORT,
    _DISCOURSE,
    _OFFICE,
    _ADDRESSEE,
) = range(13)
_SPEAKERS = frozenset({_NAME, _PRONOUN, _OFFICE, _NOUN})
# Free only beside an attribution verb, even between two quotes.
_VERB_BOUND = frozenset({_DISCOURSE, _OFFICE, _ADDRESSEE})


def fold(word: str) -> str:
    """A word as it is compared: lower case, possessive and plural folded, digits bare."""
    w = word.lower().replace("’", "'")
    if w[:1].isdigit():
        return w.replace(",", "")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("es") and w[:-2].endswith(("s", "x", "z", "ch", "sh")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


ATTRIBUTION_VERBS = vocabulary(ATTRIBUTION_VERBS_TEXT)
SOURCE_NOUNS = vocabulary(SOURCE_NOUNS_TEXT)
SUBJECT_PRONOUNS = vocabulary(SUBJECT_PRONOUNS_TEXT)
FRAME_WORDS = vocabulary(FRAME_WORDS_TEXT)
REPORTING_VERBS = vocabulary(REPORTING_VERBS_TEXT)
DISCOURSE_WORDS = vocabulary(DISCOURSE_WORDS_TEXT)
ATTRIBUTION_PHRASES = tuple(
    tuple(fold(w) for w in phrase.split()) for phrase in ATTRIBUTION_PHRASES_TEXT.split(";")
)
REPORTING_PHRASES = tuple(
    tuple(fold(w) for w in phrase.split()) for phrase in REPORTING_PHRASES_TEXT.split(";")
)
DISCOURSE_PHRASES = tuple(
    tuple(fold(w) for w in phrase.split()) for phrase in DISCOURSE_PHRASES_TEXT.split(";")
)
_PREPOSITIONS = vocabulary("to of")  # the end of `according to`, `in the words of`
STOP = vocabulary(STOP_TEXT)


def is_year(word: str) -> bool:
    return len(word) == 4 and word.isdigit() and 1000 <= int(word) <= 2999


@dataclass(frozen=True)
class Token:
    word: str  # folded
    start: int
    end: int


def tokens(text: str, offset: int = 0) -> list[Token]:
    """The words of `text` with their offsets (plus `offset`), in order."""
    return [
        Token(fold(m.group(0)), m.start() + offset, m.end() + offset) for m in _TOKEN.finditer(text)
    ]


def too_short(text: str, min_words: int, min_content: int) -> bool:
    """Fewer than `min_words` words, or fewer than `min_content` that are not stop words."""
    words = [t.word for t in tokens(text)]
    return len(words) < min_words or sum(w not in STOP for w in words) < min_content


@dataclass(frozen=True)
class Metadata:
    """What a source says about itself: the words a sentence may use without a passage."""

    title: str = ""
    date: str | None = None  # ISO, YYYY-MM-DD or longer
    names: tuple[str, ...] = ()  # speaker, author, publisher
    offices: tuple[str, ...] = ()  # the speaker's office: "President"
    addressees: tuple[str, ...] = ()  # whom the source addresses: "Congress"

    @cached_property
    def phrases(self) -> tuple[tuple[tuple[str, ...], int], ...]:
        """(word sequence, kind) of each piece of metadata, longest first."""
        out: dict[tuple[str, ...], int] = {}
        for name in self.names:
            words = tuple(t.word for t in tokens(name))
            for phrase in (words, words[-1:]):
                if phrase:
                    out[phrase] = _NAME
        for kind, values in ((_OFFICE, self.offices), (_ADDRESSEE, self.addressees)):
            for value in values:
                words = tuple(t.word for t in tokens(value))
                if words:
                    out.setdefault(words, kind)
        for phrase in _date_phrases(self.date):
            out.setdefault(phrase, _DATE)
        title = tuple(t.word for t in tokens(self.title))
        if title:
            out.setdefault(title, _TITLE)
        return tuple(sorted(out.items(), key=lambda p: -len(p[0])))


def _date_phrases(date: str | None) -> set[tuple[str, ...]]:
    """The date as a whole: year; month and year; full date in the common orders; ISO."""
    if not date or not re.match(r"\d{4}-(0[1-9]|1[0-2])-\d{2}", date):
        return set()
    year, month, day = date[:4], int(date[5:7]), str(int(date[8:10]))
    name = _MONTHS[month - 1]
    return {
        (year,),
        (year, date[5:7], date[8:10]),
        (name, year),
        (name, day, year),
        (day, name, year),
    }


@dataclass(frozen=True)
class Unit:
    """A word the passage must hold, or a quote (its index among the sentence's quotes)."""

    word: str = ""
    quote: int | None = None
    # Words the sentence set aside right before this unit (`and added to` in `resources and
    # added to our strength`): a passage may skip them there too, since the sentence has them.
    echo: frozenset[str] = frozenset()
    # The sentence has list punctuation (`,` `;` `:`) or a list `and` right before this word:
    # an item of a list it gathers may start here (`grounding.py`, gathering).
    joint: bool = False
    # In the list reading (`as_list`), the sentence's `and` right before this word was set
    # aside: the passage has `and` there too, or the word starts an item it gathers.
    conjoined: bool = False


@dataclass(frozen=True)
class Reading:
    """A sentence as units, and the years it dates its content by (event dates).

    `first_person` is the same sentence with its leading speaker read as the source's own
    `I` (`In 1963, Kennedy proposed` as `In 1963, I proposed`), when it opens with one."""

    units: tuple[Unit, ...]
    event_years: frozenset[str]
    first_person: tuple[Unit, ...] | None = None


def read_units(claim: DraftClaim, metadata: Metadata) -> Reading:
    """The sentence's quotes and the words outside them that a passage must hold, in order."""
    units, years = _read(claim, metadata, first_person=False)
    alternative, _ = _read(claim, metadata, first_person=True)
    return Reading(units, frozenset(years), alternative if alternative != units else None)


def _read(
    claim: DraftClaim, metadata: Metadata, first_person: bool
) -> tuple[tuple[Unit, ...], set[str]]:
    text = claim.text
    units: list[Unit] = []
    years: set[str] = set()
    cursor = 0
    ends = [a for a, _ in claim.quote_spans] + [len(text)]
    quoted = {t.word for a, b in claim.quote_spans for t in tokens(text[a:b])}
    for q, end in enumerate(ends):
        run = _framing_tokens(text, cursor, end)
        if q == 0:
            run = _without_topic(run, text, quoted)
        if first_person and q == 0:
            run = _as_first_person(run, metadata)
        between_quotes = 0 < q < len(claim.quote_spans)  # after quote q-1, before quote q
        units.extend(_run_units(run, text, metadata, years, between_quotes))
        if q < len(claim.quote_spans):
            units.append(Unit(quote=q))
            cursor = claim.quote_spans[q][1]
    return tuple(units), years


TOPIC_WORDS = 3


def _without_topic(run: list[Token], text: str, quoted: set[str]) -> list[Token]:
    """The run without a leading topic (`On war, Washington said: "... war ..."`): `on`, one
    to `TOPIC_WORDS` words and a comma, every content word of it in the sentence's own quotes.
    It says only what the quotes are about, which they show."""
    if len(run) < 2 or run[0].word != "on":
        return run
    for n in range(1, min(TOPIC_WORDS, len(run) - 1) + 1):
        if text[run[n].end : run[n].end + 1] == ",":
            content = {t.word for t in run[1 : n + 1]} - STOP
            return run[n + 1 :] if content and content <= quoted else run
    return run


def _as_first_person(run: list[Token], metadata: Metadata) -> list[Token]:
    """The run with its leading speaker (the source's name, its office, or `he`/`she`, right
    before the first content word and with no attribution verb before it) as `i`."""
    kinds = _classify([t.word for t in run], metadata)
    j = next((k for k, kind in enumerate(kinds) if kind == _WORD), len(run))
    if j == len(run) or _VERB in kinds[:j]:
        return run
    end = j
    while end > 0 and kinds[end - 1] == _FREE:
        end -= 1
    start = end
    while start > 0 and kinds[start - 1] in (_NAME, _OFFICE):
        start -= 1
    if start == end:
        if not (end > 0 and kinds[end - 1] == _PRONOUN and run[end - 1].word in ("he", "she")):
            return run
        start -= 1
    while start > 0 and kinds[start - 1] == _FREE:  # `the President`
        start -= 1
    return [*run[:start], Token("i", run[start].start, run[end - 1].end), *run[end:]]


def _framing_tokens(text: str, a: int, b: int) -> list[Token]:
    """Tokens of text[a:b] outside citation markers, offsets into `text`."""
    piece = _MARKER.sub(lambda m: " " * len(m.group(0)), text[a:b])
    return tokens(piece, a)


def _run_units(
    run: list[Token], text: str, metadata: Metadata, years: set[str], between_quotes: bool
) -> list[Unit]:
    """Units of a run of words outside quotes; event years are added to `years`. Between
    two quotes, frame vocabulary alone makes a frame (`"..." and "..."`), unless it holds a
    word that needs an attribution verb and has none."""
    words = [t.word for t in run]
    kinds = _classify(words, metadata)
    if (
        between_quotes
        and _WORD not in kinds
        and (_VERB in kinds or not _VERB_BOUND.intersection(kinds))
    ):
        return []
    units: list[Unit] = []
    freed: set[str] = set()
    i = 0
    while i <= len(run):
        j = i
        while j < len(run) and kinds[j] != _WORD:
            j += 1
        stretch = _Stretch(words, kinds, i, j)
        if stretch.is_frame and not stretch.said:
            years.update(words[k] for k in range(i, j) if kinds[k] == _DATE and is_year(words[k]))
        for k in [*range(i, j), *([j] if j < len(run) else [])]:
            if k < j and stretch.free(k):
                freed.add(words[k])
                continue
            joint = k > 0 and bool(_LIST_PUNCTUATION.search(text[run[k - 1].end : run[k].start]))
            units.append(Unit(word=words[k], echo=frozenset(freed), joint=joint))
            freed = set()
        i = j + 1
    return units


_LIST_PUNCTUATION = re.compile(r"[,;:]")


def as_list(units: tuple[Unit, ...]) -> tuple[Unit, ...] | None:
    """The list reading of a sentence, or None when it has no list joint: each `and` before a
    word is set aside and that word is a joint, `conjoined` (`speech, worship and want` reads
    as `speech`, `worship`, `want`, each an item that may start a sentence of its own)."""
    out: list[Unit] = []
    conjoin = False
    for k, unit in enumerate(units):
        later = units[k + 1] if k + 1 < len(units) else None
        if unit.word == "and" and out and later is not None and later.quote is None:
            conjoin = True
            continue
        out.append(replace(unit, joint=True, conjoined=True) if conjoin else unit)
        conjoin = False
    listed = tuple(out)
    return listed if any(u.joint for u in listed) else None


@dataclass(frozen=True)
class _Stretch:
    """A maximal stretch words[i:j] of frame vocabulary in its run, and what of it is free."""

    words: list[str]
    kinds: list[int]
    i: int
    j: int

    @property
    def said(self) -> bool:
        return _VERB in self.kinds[self.i : self.j]

    @property
    def is_frame(self) -> bool:
        return bool({_VERB, _DATE, _TITLE}.intersection(self.kinds[self.i : self.j]))

    @property
    def verb_at(self) -> int:
        """The first attribution verb (the end of the stretch when it has none)."""
        return next((k for k in range(self.i, self.j) if self.kinds[k] == _VERB), self.j)

    def free(self, k: int) -> bool:
        """Whether words[k] needs no passage (see the module's docstring)."""
        kind = self.kinds[k]
        if kind == _FREE:
            return True
        if not self.is_frame:
            return False
        if kind in (_NAME, _PRONOUN, _DISCOURSE, _OFFICE, _ADDRESSEE) and not self.said:
            return False
        before = k < self.verb_at
        if kind == _PRONOUN:
            return before
        if kind == _DISCOURSE:
            return self._anchored_before(k) if before else self._anchored_after(k)
        if kind == _OFFICE:
            return before or self._speaker_after(k)
        if kind == _ADDRESSEE:
            return self._addressed(k) and (before or self._anchored_after(k))
        return True

    def _closes(self) -> bool:
        """Nothing but a quote or the sentence's end follows the stretch."""
        return self.j == len(self.words)

    def _anchored_before(self, k: int) -> bool:
        """The stretch opens its run (`Later, he said`) or a speaker comes before `k`."""
        return self.i == 0 or any(self.kinds[m] in _SPEAKERS for m in range(self.i, k))

    def _anchored_after(self, k: int) -> bool:
        """A `that` follows `k` in the stretch, or the stretch ends its run."""
        return self._closes() or any(
            self.words[m] == "that" and self.kinds[m] == _FRAME for m in range(k + 1, self.j)
        )

    def _previous(self, k: int) -> int | None:
        """The word before `k` in the stretch, articles skipped."""
        m = k - 1
        while m >= self.i and self.kinds[m] == _FREE:
            m -= 1
        return m if m >= self.i else None

    def _speaker_after(self, k: int) -> bool:
        """An office after the verb speaks: after `according to` or `in the words of`, or
        right after the verb at the end of its run with no speaker before the verb
        (`"...," said the President`)."""
        m = self._previous(k)
        if m is None or self.kinds[m] != _VERB:
            return False
        if self.words[m] in _PREPOSITIONS:
            return True
        return self._closes() and not self._anchored_before_verb()

    def _anchored_before_verb(self) -> bool:
        return any(self.kinds[m] in _SPEAKERS for m in range(self.i, self.verb_at))

    def _addressed(self, k: int) -> bool:
        """Right after a verb (`told Congress`), or after the `to` of a verb or a source
        noun (`said to Congress`, `his message to Congress`)."""
        m = self._previous(k)
        if m is None:
            return False
        if self.kinds[m] == _VERB:
            return self.words[m] not in _PREPOSITIONS
        if self.words[m] != "to" or self.kinds[m] != _FRAME:
            return False
        n = self._previous(m)
        return n is not None and self.kinds[n] in (_VERB, _NOUN)


_YEARS_LATER = re.compile(r"\d{1,3}")
_YEARS_LATER_TAIL = (fold("years"), fold("later"))


def _classify(words: list[str], metadata: Metadata) -> list[int]:
    kinds = [_WORD] * len(words)
    phrases = (
        metadata.phrases
        + tuple((p, _VERB) for p in ATTRIBUTION_PHRASES)
        + tuple((p, _DISCOURSE) for p in DISCOURSE_PHRASES)
        + tuple((p, _REPORT) for p in REPORTING_PHRASES)
    )
    i = 0
    while i < len(words):
        if _YEARS_LATER.fullmatch(words[i]) and tuple(words[i + 1 : i + 3]) == _YEARS_LATER_TAIL:
            kinds[i : i + 3] = [_DISCOURSE] * 3  # `140 years later`: `answer.py` checks the number
            i += 3
            continue
        match = next(
            ((p, kind) for p, kind in phrases if tuple(words[i : i + len(p)]) == p),
            None,
        )
        if match is not None:
            phrase, kind = match
            kinds[i : i + len(phrase)] = [kind] * len(phrase)
            i += len(phrase)
            continue
        w = words[i]
        if w in ARTICLES:
            kinds[i] = _FREE
        elif w in ATTRIBUTION_VERBS:
            kinds[i] = _VERB
        elif w in REPORTING_VERBS:
            kinds[i] = _REPORT
        elif w in SOURCE_NOUNS:
            kinds[i] = _NOUN
        elif w in SUBJECT_PRONOUNS:
            kinds[i] = _PRONOUN
        elif w in DISCOURSE_WORDS:
            kinds[i] = _DISCOURSE
        elif w in FRAME_WORDS:
            kinds[i] = _FRAME
        i += 1
    _mark_put_it(words, kinds)
    _resolve_reporting(words, kinds)
    return kinds


def _mark_put_it(words: list[str], kinds: list[int]) -> None:
    """`as <speaker> put it`: `put it` is an attribution verb after `as` and a speaker."""
    for k in range(1, len(words) - 1):
        if words[k : k + 2] != ["put", "it"]:
            continue
        m = k - 1
        while m > 0 and kinds[m] in _SPEAKERS | {_FREE}:
            m -= 1
        if m < k - 1 and words[m] == "as" and kinds[m] == _FRAME:
            kinds[k : k + 2] = [_VERB, _VERB]


def _resolve_reporting(words: list[str], kinds: list[int]) -> None:
    """Each reporting verb becomes an attribution verb in the shape of one, else a word;
    from the last, so that each sees the stretch the later ones leave."""
    for k in reversed(range(len(words))):
        if kinds[k] != _REPORT:
            continue
        j = k + 1
        while j < len(words) and kinds[j] != _WORD:
            j += 1
        i = k
        while i > 0 and kinds[i - 1] != _WORD:
            i -= 1
        that = any(words[m] == "that" and kinds[m] == _FRAME for m in range(k + 1, j))
        spoken = j == len(words) and any(kinds[m] in _SPEAKERS for m in range(i, j))
        kinds[k] = _VERB if that or spoken else _WORD
