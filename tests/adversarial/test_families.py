"""No hostile draft escapes, family by family, whatever the auditor says.

Each family is its own test, per archive, so a failure names the family and prints the
drafts that escaped with the decision, the reason and the claims that were kept. The
always-supported auditor sees every draft: with it only the deterministic checks and the
gate stand between a false sentence and a reader. The offline auditor sees a sample.

A kind marked `[roles]` (`fam_answer.py`) is false purely in word roles: every word is its
passage's, in order, and only who does what changed. Code does not parse roles; with the
always-supported auditor such a draft may escape (counted and printed, not failed), with
the offline auditor it may not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from .conftest import OFFLINE, SUPPORTED, Results
from .corpus import DIGITALGOV, DIGITALGOV_PARTS, SOTU
from .hostile import FAMILIES, FAMILY_COUNTS, drafts_per_archive
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


ROLES = "[roles]"


def _check(results: Results, archive: str, family: str) -> None:
    tried = {a: len(results.of(a, archive, family)) for a in (SUPPORTED, OFFLINE)}
    wanted = drafts_per_archive(family, archive)
    # A document may offer fewer drafts of a kind than asked for; half is the floor.
    assert tried[SUPPORTED] >= max(1, wanted // 2), f"only {tried[SUPPORTED]} {family} drafts"
    escapes = {a: [o for o in results.of(a, archive, family) if o.escaped] for a in tried}
    roles = [o for o in escapes[SUPPORTED] if ROLES in o.case.kind]
    escapes[SUPPORTED] = [o for o in escapes[SUPPORTED] if ROLES not in o.case.kind]
    if roles:
        print(f"{family} ({archive}): {len(roles)} drafts false in word roles alone escaped the")
        print("always-supported auditor:", "; ".join(sorted({o.case.kind for o in roles})))
    assert not any(escapes.values()), _report(family, escapes, tried)


def _families(archive: str) -> list[str]:
    return [f for f in FAMILIES if drafts_per_archive(f, archive)]


@pytest.mark.parametrize("family", _families(SOTU))
def test_no_hostile_draft_escapes_on_the_sample(results: Results, family: str) -> None:
    _check(results, SOTU, family)


@pytest.mark.shared_data
@pytest.mark.parametrize("family", _families(DIGITALGOV))
def test_no_hostile_draft_escapes_on_digitalgov(
    shared_data_or_skip: Callable[..., Path], results: Results, family: str
) -> None:
    shared_data_or_skip(*DIGITALGOV_PARTS)
    _check(results, DIGITALGOV, family)


@pytest.mark.shared_data
def test_every_family_has_at_least_fifty_drafts(
    shared_data_or_skip: Callable[..., Path], results: Results
) -> None:
    shared_data_or_skip(*DIGITALGOV_PARTS)  # some families are drawn from its articles alone
    counts = {f: sum(c.family == f for c in results.cases) for f in FAMILIES}
    # A family whose clauses are rare has its own counts (`FAMILY_COUNTS`), checked per archive.
    assert all(n >= 50 for f, n in counts.items() if f not in FAMILY_COUNTS), counts
