"""Family `roles`: a sentence of the cited document with who does what turned round.

`The Senate rejected the treaty` becomes `The treaty rejected the Senate`: every word, name,
number and polarity is the source's own, so neither the anchors nor an auditor that names
the source sentence (the liar of `bench.grounding`) stops it. Only the order of the words
around the verb does: the grounding contract's word order, and in the paraphrase tier the
rule that a word keeps its side of the verb it shares with the span (docs/grounding.md).
The kind is marked `[roles]` (`test_families.py`): the offline auditor may let none through;
an always-"supported" auditor may pass a draft whose verb the rule cannot read as one (a
participle used as an adjective, `the law of selfishness unrestrained`), counted and printed.
"""

from __future__ import annotations

import random
import re

from .cases import Case, Kind, Pools, cite, pick
from .corpus import DocView

FAMILY = "roles"
# A subject (a name, or `the` and a noun or two), a verb in the past tense, and a short
# object ending the clause.
_CLAUSE = re.compile(
    r"\b((?:[Tt]he )?(?:[A-Z][a-z]+ ){0,2}[A-Z][a-z]+|[Tt]he [a-z]+(?: [a-z]+)?) "
    r"([a-z]{3,}ed) ((?:the |a |an |our |its |their )?[a-z]+(?: [a-z]+){0,3})(?=[,.;])"
)
_NOT_SUBJECTS = frozenset("this that these those it we our they he she in on at for".split())


def _subject_ok(subject: str) -> bool:
    words = [w for w in subject.split() if w.lower() != "the"]
    return bool(words) and words[0].lower() not in _NOT_SUBJECTS


def turned(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    def usable(text: str) -> bool:
        return any(_subject_ok(m.group(1)) for m in _CLAUSE.finditer(text))

    s = pick(rng, doc, usable)
    if s is None:
        return None
    m = next(m for m in _CLAUSE.finditer(s.text) if _subject_ok(m.group(1)))
    subject, verb, obj = m.group(1), m.group(2), m.group(3)
    low = "the" + subject[3:] if subject.startswith("The ") else subject
    false = f"{obj[0].upper()}{obj[1:]} {verb} {low}."
    if doc.says(false.rstrip(".")):
        return None
    answer = cite(false)
    return Case(FAMILY, "turned [roles]", doc.archive, answer, (doc.doc_id,), false=(answer,))


KINDS: tuple[Kind, ...] = (turned,)
