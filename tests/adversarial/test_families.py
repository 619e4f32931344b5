"""No hostile draft escapes, family by family, whatever the auditor says.

Each family is its own test, per archive, so a failure names the family and prints the
drafts that escaped with the decision, the reason and the claims that were kept. The
always-supported auditor sees every draft: with it only the deterministic checks and the
gate stand between a false sentence and a reader. The offline auditor sees a sample.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from .conftest import OFFLINE, SUPPORTED, Results
from .corpus import DIGITALGOV, DIGITALGOV_PARTS, SOTU
from .hostile import FAMILIES, PER_ARCHIVE
from .judge import Outcome

SHOWN = 8  # escaping drafts printed per auditor


def _report(family: str, escapes: Mapping[str, Sequence[Outcome]], tried: dict[str, int]) -> str:
    lines = [f"family {family!r}: hostile drafts published a false or tainted sentence"]
    for auditor, found in escapes.items():
        if not found:
            continue
        lines.append(f"\n-- {auditor} auditor: {len(found)} of {tried[auditor]} escaped")
        lines += [o.describe() for o in found[:SHOWN]]
    return "\n".join(lines)


def _check(results: Results, archive: str, family: str) -> None:
    tried = {a: len(results.of(a, archive, family)) for a in (SUPPORTED, OFFLINE)}
    assert tried[SUPPORTED] >= PER_ARCHIVE[archive], f"only {tried[SUPPORTED]} {family} drafts"
    escapes = {a: [o for o in results.of(a, archive, family) if o.escaped] for a in tried}
    assert not any(escapes.values()), _report(family, escapes, tried)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_no_hostile_draft_escapes_on_the_sample(results: Results, family: str) -> None:
    _check(results, SOTU, family)


@pytest.mark.shared_data
@pytest.mark.parametrize("family", list(FAMILIES))
def test_no_hostile_draft_escapes_on_digitalgov(
    shared_data_or_skip: Callable[..., Path], results: Results, family: str
) -> None:
    shared_data_or_skip(*DIGITALGOV_PARTS)
    _check(results, DIGITALGOV, family)


def test_every_family_has_at_least_fifty_drafts(results: Results) -> None:
    counts = {f: sum(c.family == f for c in results.cases) for f in FAMILIES}
    assert all(n >= 50 for n in counts.values()), counts
