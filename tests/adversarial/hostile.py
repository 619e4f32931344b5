"""The generator: hostile drafts by family, and faithful drafts, from stored archive text.

`generate(pools, seed)` returns every case for the archives in `pools` (archive name ->
document views, see `corpus.py`). It is deterministic: each (archive, family) pair draws
from its own `random.Random` seeded with a string, so adding a family or an archive does
not change the drafts of the others, and the same archive text always gives the same
drafts. The families and what makes a draft of each one false are described in the family
modules; `docs/grounding.md` is the contract they attack.

`CONTEXT_FAMILIES` (`fam_context.py`, `fam_answer.py`) attack what the contract does not
read yet: whether the source ASSERTS the words it holds (reported views, labels, far
conditions, questions, other speakers' quotes, other times, connectives bound to the wrong
sentence, answer-level tricks). Each has its own drafts per archive; they are merged into
`FAMILIES`. `faithful_prose` (`faithful_prose.py`, `PROSE`) is a second faithful family:
true drafts in natural prose, made last.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from . import (
    faithful,
    fam_answer,
    fam_breaks,
    fam_context,
    fam_quotes,
    fam_roles,
    fam_surface,
    fam_unquoted,
)
from .cases import FAITHFUL, Case, Kind, Pools, Producer
from .corpus import DIGITALGOV, SOTU
from .faithful_prose import KINDS as PROSE_KINDS
from .faithful_prose import PROSE, PROSE_PER_ARCHIVE

FAMILIES: dict[str, tuple[Kind, ...]] = {
    "unquoted": fam_unquoted.KINDS,
    "quote_meaning": fam_quotes.KINDS,
    "characters": fam_surface.CHARACTER_KINDS,
    "quote_marks": fam_surface.QUOTE_MARK_KINDS,
    "sentence_breaks": fam_breaks.BREAK_KINDS,
    "dates": fam_breaks.DATE_KINDS,
    "markup": fam_surface.MARKUP_KINDS,
    fam_roles.FAMILY: fam_roles.KINDS,
}
# Families against assertion in context, with their drafts per archive. Labelled myths and
# don'ts are a digital.gov structure: the addresses have none.
_CONTEXT_COUNTS = {SOTU: 50, DIGITALGOV: 25}
# What the fifteen articles offer: almost no reported views (the addresses carry that family),
# few governing words or other-time dates.
_CONTEXT_OVERRIDES = {
    fam_context.LABEL: {DIGITALGOV: 50, SOTU: 0},
    fam_context.REPORTED_VIEW: {DIGITALGOV: 0},
    fam_context.GOVERNING_GAP: {DIGITALGOV: 15},
    fam_context.DROPPED_TIME: {DIGITALGOV: 4},
}
CONTEXT_FAMILIES: dict[str, tuple[tuple[Kind, ...], dict[str, int]]] = {
    **{
        name: (kinds, _CONTEXT_COUNTS | _CONTEXT_OVERRIDES.get(name, {}))
        for name, kinds in fam_context.FAMILIES.items()
    },
    fam_answer.ANSWER_LEVEL: (fam_answer.KINDS, {SOTU: 60, DIGITALGOV: 30}),
}
FAMILIES.update({name: kinds for name, (kinds, _) in CONTEXT_FAMILIES.items()})
# Families where the contract holds the whole draft: any publication is an escape.
HOLD_WHOLE_DRAFT = frozenset({"characters", "quote_marks"})
# Drafts per family (or faithful drafts) from each archive. The sample alone meets the bar
# (50 per family, 200 faithful); digital.gov adds more when the shared data is present.
PER_ARCHIVE = {SOTU: 50, DIGITALGOV: 20}
FAITHFUL_PER_ARCHIVE = {SOTU: 200, DIGITALGOV: 60}
# Families whose clauses are rarer than the bar's 50: what the documents offer.
FAMILY_COUNTS = {fam_roles.FAMILY: {SOTU: 30, DIGITALGOV: 10}}
SEED = "evidence-desk-adversarial-1"


def generate(
    pools: Pools,
    seed: str = SEED,
    families: Sequence[str] = (*FAMILIES, FAITHFUL, PROSE),
    scale: float = 1.0,
) -> list[Case]:
    """Every case for every archive in `pools`, family by family, the faithful ones last.

    `scale` multiplies the counts (the property tests and quick runs use less).
    """
    out: list[Case] = []
    for archive, docs in pools.items():
        if not docs:
            continue
        for family in families:
            rng = random.Random(f"{seed}:{archive}:{family}")
            kinds, n = _kinds(family), drafts_per_archive(family, archive)
            if n == 0:
                continue
            out += Producer(family, kinds).produce(rng, docs, pools, max(1, round(n * scale)))
    return out


def _kinds(family: str) -> tuple[Kind, ...]:
    if family == FAITHFUL:
        return faithful.KINDS
    return PROSE_KINDS if family == PROSE else FAMILIES[family]


def drafts_per_archive(family: str, archive: str) -> int:
    """How many drafts of `family` `generate` makes from `archive` at scale 1 (0: none)."""
    if family == FAITHFUL:
        return FAITHFUL_PER_ARCHIVE[archive]
    if family == PROSE:
        return PROSE_PER_ARCHIVE[archive]
    if family in CONTEXT_FAMILIES:
        return CONTEXT_FAMILIES[family][1][archive]
    return FAMILY_COUNTS.get(family, PER_ARCHIVE)[archive]


def by_family(cases: Sequence[Case]) -> dict[str, list[Case]]:
    grouped: dict[str, list[Case]] = {f: [] for f in (*FAMILIES, FAITHFUL, PROSE)}
    for c in cases:
        grouped[c.family].append(c)
    return grouped
