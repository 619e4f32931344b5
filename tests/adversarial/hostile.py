"""The generator: hostile drafts by family, and faithful drafts, from stored archive text.

`generate(pools, seed)` returns every case for the archives in `pools` (archive name ->
document views, see `corpus.py`). It is deterministic: each (archive, family) pair draws
from its own `random.Random` seeded with a string, so adding a family or an archive does
not change the drafts of the others, and the same archive text always gives the same
drafts. The families and what makes a draft of each one false are described in the family
modules; `docs/grounding.md` is the contract they attack.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from . import faithful, fam_breaks, fam_quotes, fam_surface, fam_unquoted
from .cases import FAITHFUL, Case, Kind, Pools, Producer
from .corpus import DIGITALGOV, SOTU

FAMILIES: dict[str, tuple[Kind, ...]] = {
    "unquoted": fam_unquoted.KINDS,
    "quote_meaning": fam_quotes.KINDS,
    "characters": fam_surface.CHARACTER_KINDS,
    "quote_marks": fam_surface.QUOTE_MARK_KINDS,
    "sentence_breaks": fam_breaks.BREAK_KINDS,
    "dates": fam_breaks.DATE_KINDS,
    "markup": fam_surface.MARKUP_KINDS,
}
# Families where the contract holds the whole draft: any publication is an escape.
HOLD_WHOLE_DRAFT = frozenset({"characters", "quote_marks"})
# Drafts per family (or faithful drafts) from each archive. The sample alone meets the bar
# (50 per family, 200 faithful); digital.gov adds more when the shared data is present.
PER_ARCHIVE = {SOTU: 50, DIGITALGOV: 20}
FAITHFUL_PER_ARCHIVE = {SOTU: 200, DIGITALGOV: 60}
SEED = "evidence-desk-adversarial-1"


def generate(
    pools: Pools,
    seed: str = SEED,
    families: Sequence[str] = (*FAMILIES, FAITHFUL),
    scale: float = 1.0,
) -> list[Case]:
    """Every case for every archive in `pools`, family by family, faithful last.

    `scale` multiplies the counts (the property tests and quick runs use less).
    """
    out: list[Case] = []
    for archive, docs in pools.items():
        if not docs:
            continue
        for family in families:
            rng = random.Random(f"{seed}:{archive}:{family}")
            if family == FAITHFUL:
                kinds, n = faithful.KINDS, FAITHFUL_PER_ARCHIVE[archive]
            else:
                kinds, n = FAMILIES[family], PER_ARCHIVE[archive]
            out += Producer(family, kinds).produce(rng, docs, pools, max(1, round(n * scale)))
    return out


def by_family(cases: Sequence[Case]) -> dict[str, list[Case]]:
    grouped: dict[str, list[Case]] = {f: [] for f in (*FAMILIES, FAITHFUL)}
    for c in cases:
        grouped[c.family].append(c)
    return grouped
