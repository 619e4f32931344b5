"""What a generated draft is, and the word surgery every family shares.

A `Case` is one draft for `evidence-desk check` with what the generator knows about it:
its family and kind, which of its sentences are false or tainted (as written in the
answer), and for markup the string it inserted. A generator kind is a function
`(rng, doc, pools) -> Case | None` that returns None when the document offers nothing it
can use; `produce` drives kinds round-robin over the documents until it has enough.

The helpers change real sentences the way a hostile editor would (swap a word for its
antonym, add or remove a negation, swap two figures) and refuse results the source
actually says, so every hostile sentence is false by construction, not by luck.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from evidence_desk.textutil import STOPWORDS

from .corpus import DIGITALGOV, SOTU, DocView, Sentence

FAITHFUL = "faithful"


@dataclass(frozen=True)
class Case:
    """One draft. `false` holds its false or tainted sentences exactly as the answer has them."""

    family: str
    kind: str
    archive: str
    answer: str
    doc_ids: tuple[str, ...]  # cited as S1, S2, ... in this order
    false: tuple[str, ...] = ()
    marker: str = ""  # markup family: what was inserted
    question: str = ""

    def draft(self) -> dict[str, object]:
        return {
            "question": self.question or f"What does {self.doc_ids[0]} say?",
            "answer": self.answer,
            "sources": [{"id": f"S{i}", "doc_id": d} for i, d in enumerate(self.doc_ids, 1)],
        }


Pools = Mapping[str, Sequence[DocView]]  # archive name -> its documents
Kind = Callable[[random.Random, DocView, Pools], Case | None]


@dataclass
class Producer:
    """Runs kinds round-robin over documents, keeping distinct drafts, until `n` exist."""

    family: str
    kinds: Sequence[Kind]
    seen: set[str] = field(default_factory=set)

    def produce(
        self, rng: random.Random, docs: Sequence[DocView], pools: Pools, n: int
    ) -> list[Case]:
        out: list[Case] = []
        for attempt in range(n * 60):
            if len(out) >= n:
                break
            kind = self.kinds[attempt % len(self.kinds)]
            doc = docs[(attempt // len(self.kinds)) % len(docs)]
            case = kind(rng, doc, pools)
            if case is not None and case.answer not in self.seen:
                self.seen.add(case.answer)
                out.append(case)
        return out


# --------------------------------------------------------------------------- words

WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w,])|(?<![\w.,])\d+(?![\w,])")
NEGATIONS = frozenset(
    "not no never nor cannot neither none nothing nobody nowhere without".split()
) | frozenset(w for w in "don't doesn't didn't won't can't isn't aren't wasn't weren't".split())
DISCLAIMERS = NEGATIONS | frozenset(
    "false untrue myth deny denied denies claim claims claimed pretend pretends pretended if "
    "unless whether say though although except lest hardly".split()
)
AUXILIARIES = frozenset(
    "is are was were will can shall should must would could may might has have had does do did"
    " need ought".split()
)
# Words a faithful paraphrase never drops: negations, modals, conditionals, contrasts,
# quantifiers and stance words (a superset of the contract's CRITICAL list).
CRITICAL = (
    DISCLAIMERS
    | AUXILIARIES
    | frozenset(
        "but however yet only some all any every each few many most more less least much several "
        "both either also even still just than too very rejected refused opposed opposes oppose "
        "reject refuse denial falsely wrong against again always".split()
    )
)
ARTICLES = frozenset({"a", "an", "the"})
# A negation, or a short condition ending in a comma, with the words after it: cutting
# those words away from it says the opposite, or says unconditionally what was conditional.
CUT = re.compile(
    r"\b(?:not|no|never|nor)\b(?:\s+[^\s.;:]+){0,5}?\s+(?:say|believe|claim|pretend|think)"
    r"\s+that\s+"  # "it may not be quite safe to say that ...", "nor can anyone believe that"
    r"|\b(?:claims?|claimed|pretends?|pretended|deny|denies|denied)\s+that\s+"
    r"|\b(?:not|never|cannot|no longer)\s+"
    r"|\b(?:if|unless|whether)(?:\s+[^\s,;:]+){1,6},\s+(?:then\s+)?",  # within 8 words
    re.I,
)
# A main clause followed by the condition it holds under: the clause alone says more. Not
# after a verb of asking (`verify if` means whether) and not for a negated clause (`could
# not save it if we wished` still could not save it): see `conditional_head`.
CONDITION_AFTER = re.compile(
    r"^(?P<main>[A-Z][^,;:]{25,}?[a-z]{4}),? (?:if|unless|only if|provided that|except)\b"
)
_ASKING = frozenset(
    "verify see know ask asked check determine decide wonder learn find tell".split()
)


def conditional_head(text: str) -> str | None:
    """The main clause of `text` when a condition follows it and dropping that says more."""
    m = CONDITION_AFTER.match(text)
    if m is None or has_negation(m["main"]):
        return None
    if lower_words(m["main"])[-1] in _ASKING | AUXILIARIES:  # `verify if`, `would, if`
        return None
    return m["main"]


QUALIFYING = frozenset("if unless only provided except until but when whenever".split())
DISCLAIMED_AFTER = frozenset(
    "false falsely untrue myth lie lies wrong mistaken claim claims claimed allege alleges "
    "alleged supposedly".split()
)


def qualified(rest: str) -> bool:
    """Whether the text after a cut qualifies what came before: it begins with a condition,
    contrast or negation (`if`, `but`, `not`), or a disclaimer (`falsely`, `a myth`) follows
    within 4 words."""
    words = lower_words(rest)
    first = words[0] if words else ""
    return first in QUALIFYING | NEGATIONS or bool(DISCLAIMED_AFTER & set(words[:4]))


# Words that start a dependent clause: a clause led by one is no sentence of its own.
SUBORDINATE = frozenset(
    "if when whenever while although though because since unless until as but and or so yet "
    "whether after before once where wherever for nor then however moreover indeed now thus "
    "therefore still which that who whose".split()
)
PREPOSITIONS = frozenset(
    "to of in on at by for with without from under over during through upon among between "
    "against within like despite toward towards across into onto about beyond".split()
)
NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty "
    "hundred hundreds thousand thousands million millions billion billions percent dozen".split()
)


def numeric(word: str) -> bool:
    """A figure or a word of one (`1,500`, `$15`, `six`, `hundred`)."""
    bare = word.strip(",.;:()$%").lower()
    return bare[:1].isdigit() or bare in NUMBER_WORDS


def ends(text: str) -> str:
    """`text` without its sentence-final punctuation."""
    return text.rstrip(".!?;:, ")


def decap(text: str) -> str:
    """Lower-cases the first letter unless the first word is `I` or looks like a name."""
    first = text.split(maxsplit=1)[0]
    if first == "I" or first.lower() not in STOPWORDS | ARTICLES | AUXILIARIES:
        return text
    return text[0].lower() + text[1:]


def swap_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def like_case(model: str, word: str) -> str:
    return word[0].upper() + word[1:] if model[:1].isupper() else word


def lower_words(text: str) -> list[str]:
    """The words of `text`, lower-cased, with curly apostrophes made straight."""
    return [w.lower().replace("’", "'") for w in WORD.findall(text)]


def _forms(word: str) -> set[str]:
    w = word.lower().replace("’", "'").removesuffix("'s")
    return {w, w.removesuffix("s"), w.removesuffix("es")}


def same_word(a: str, b: str) -> bool:
    """Equal as the contract compares words: case, a plural -s/-es and a possessive folded."""
    return bool(_forms(a) & _forms(b))


def has_negation(text: str) -> bool:
    return any(w in NEGATIONS for w in lower_words(text))


def negate(text: str) -> str | None:
    """`text` with `not` after its first auxiliary verb (None when it has none or negates)."""
    if has_negation(text):
        return None
    for m in WORD.finditer(text):
        if m.start() > 0 and m.group().lower() in AUXILIARIES:
            return swap_span(text, m.end(), m.end(), " not")
    return None


def unnegate(text: str) -> str | None:
    """`text` with its first `not`, `never` or `cannot` taken out (None when there is none)."""
    m = re.search(r"\b(?:not|never) |\bcannot\b", text)
    if m is None:
        return None
    return swap_span(text, m.start(), m.end(), "can" if m.group() == "cannot" else "")


_PAIRS = """increase decrease increased decreased increases decreases increasing decreasing
win lose won lost accept reject accepted rejected support oppose supported opposed rise fall
rising falling more less higher lower strengthen weaken strong weak stronger weaker success
failure peace war friends enemies friend enemy victory defeat gain loss expand reduce
expanded reduced open closed able unable begin end first last safe dangerous rich poor
remember forget approve veto growth decline grow shrink best worst better worse easy hard
easier harder large small larger smaller many few create destroy created destroyed public
private foreign domestic past future early late before after agree disagree allow forbid
allowed forbidden protect endanger help hurt justice injustice honest dishonest possible
impossible necessary unnecessary legal illegal cheap expensive simple complex fast slow
faster slower freedom tyranny always never everyone nobody majority minority success failure
""".split()
ANTONYMS: dict[str, str] = {}
for _a, _b in zip(_PAIRS[::2], _PAIRS[1::2], strict=True):
    ANTONYMS.setdefault(_a, _b)
    ANTONYMS.setdefault(_b, _a)


def antonym_spots(text: str) -> list[re.Match[str]]:
    """Words of `text` that have an antonym the sentence does not already use."""
    lowered = {w.lower() for w in WORD.findall(text)}
    return [
        m
        for m in WORD.finditer(text)
        if m.group().lower() in ANTONYMS and ANTONYMS[m.group().lower()] not in lowered
    ]


def antonym_swap(text: str, rng: random.Random) -> str | None:
    """`text` with one word replaced by its antonym (absent from the sentence)."""
    spots = antonym_spots(text)
    if not spots:
        return None
    m = rng.choice(spots)
    return swap_span(text, m.start(), m.end(), like_case(m.group(), ANTONYMS[m.group().lower()]))


def falsify(text: str, rng: random.Random, doc: DocView) -> str | None:
    """A false version of the sentence `text`: a negation added or removed, or an antonym.

    None when no change applies or the result is something the document says.
    """
    tries: list[Callable[[str], str | None]] = [negate, unnegate, lambda t: antonym_swap(t, rng)]
    rng.shuffle(tries)
    for change in tries:
        out = change(text)
        if out is not None and not doc.says(ends(out)):
            return " ".join(out.split())
    return None


# --------------------------------------------------------------------------- picking


def pick(
    rng: random.Random, doc: DocView, test: Callable[[str], bool] = lambda _t: True
) -> Sentence | None:
    found = [s for s in doc.clean if test(s.text)]
    return rng.choice(found) if found else None


def content_words(text: str) -> list[str]:
    return [w for w in WORD.findall(text) if w.lower() not in STOPWORDS]


def meaningful(quote: str) -> bool:
    """At least 3 words, 2 of them not stop words (the contract's floor for a quote)."""
    return len(quote.split()) >= 3 and len(content_words(quote)) >= 2


# --------------------------------------------------------------------------- frames


def who(doc: DocView, rng: random.Random) -> str:
    """How a writer names the source: a president's full or last name, or the article."""
    if doc.speaker is None:
        return "The article"
    assert doc.last_name is not None
    return rng.choice([doc.speaker, doc.last_name])


def said_frame(doc: DocView, rng: random.Random) -> str:
    """An attribution frame made only of metadata and attribution words, ending in a colon
    or comma, to put before a quote."""
    if doc.speaker is None:
        return rng.choice(
            [
                "The article says:",
                "According to the article,",
                f"In {doc.year}, the article noted:",
                "The article notes that",
                "As the article says,",
            ]
        )
    name = who(doc, rng)
    return rng.choice(
        [
            f"In his {doc.year} address, {doc.speaker} said:",
            f"{name} said:",
            f"According to {name},",
            f"{name} wrote in {doc.year}:",
            f"As {name} said in his {doc.year} message,",
            f"{name} said that",
        ]
    )


def that_frame(doc: DocView, rng: random.Random) -> str:
    """A frame that leads an unquoted sentence: `Roosevelt said that`."""
    if doc.speaker is None:
        return rng.choice(["The article says that", "According to the article,"])
    return f"{who(doc, rng)} {rng.choice(['said that', 'noted that', 'stated that'])}"


def cite(body: str, *ids: str) -> str:
    """`body` with its citation markers before the final period: `... [S1].`"""
    markers = "".join(f"[{i}]" for i in ids) if ids else "[S1]"
    return f"{ends(body)} {markers}."


def quoted(frame: str, quote: str, ids: Sequence[str] = ("S1",)) -> str:
    """`frame "quote" [S1]`, with a closing period when the quote has no end mark."""
    markers = "".join(f"[{i}]" for i in ids)
    stop = "" if quote[-1] in ".!?" else "."
    return f'{frame} "{quote}" {markers}{stop}'


ARCHIVES = (SOTU, DIGITALGOV)
