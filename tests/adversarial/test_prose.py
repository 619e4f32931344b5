"""Faithful drafts in natural prose (`faithful_prose.py`): how many the contract holds today.

The family is true by construction, so every held draft is a draft a careful writer would
have seen held for nothing. The bounds below are what the checks achieve TODAY, rounded up
to the next 5%: they catch a regression, not a target. The contract is about to be widened
(reporting verbs, connectives, offices); tighten these bounds to the new figures then, down
to the issue's targets (held at most 5% with an honest auditor, 25% with the offline one).

The conftest's `Results` knows the two auditors it runs (supported-for-all, offline) over the
drafts `hostile.generate` makes; until `hostile.py` registers the prose family, this module
makes its drafts itself (the same seeds, so the same drafts) and runs the honest
`OracleAuditor` and the offline auditor on them, in the same `Results` shape.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .cases import Case
from .conftest import OFFLINE, Archive, Results, untraced
from .corpus import DIGITALGOV, DIGITALGOV_PARTS, SOTU
from .faithful_prose import PROSE, generate
from .judge import OracleAuditor, run

ORACLE = "oracle"
# Held share today, rounded up to the next 5% (measured on this change: sample 35.0% honest,
# 54.0% offline; digital.gov 22.0% honest, 38.0% offline; before assertion in context and
# the wider frames: 74.0 / 76.5% and 42.0 / 51.0%). Tighten these as the contract widens.
MAX_HELD = {
    (SOTU, ORACLE): 0.40,
    (SOTU, OFFLINE): 0.55,
    (DIGITALGOV, ORACLE): 0.25,
    (DIGITALGOV, OFFLINE): 0.40,
}


@pytest.fixture(scope="module")
def prose(adversarial_archive: Archive) -> Results:
    desk = adversarial_archive.desk
    cases: list[Case] = generate(adversarial_archive.pools)
    reads = desk.question_reader()
    with untraced():
        outcomes = {
            name: run(cases, desk.store, auditor, desk.policy, desk.settings, False, reads)
            for name, auditor in ((ORACLE, OracleAuditor(cases)), (OFFLINE, desk.agents.auditor))
        }
    return Results(cases, outcomes)


def test_at_least_two_hundred_prose_drafts_on_the_sample(prose: Results) -> None:
    assert sum(c.family == PROSE and c.archive == SOTU for c in prose.cases) >= 200


def _held_share(prose: Results, archive: str, auditor: str) -> None:
    outcomes = prose.of(auditor, archive, PROSE)
    assert outcomes, f"no prose drafts for {archive}"
    held = [o for o in outcomes if o.held]
    share = len(held) / len(outcomes)
    by_kind: dict[str, list[int]] = {}
    for o in outcomes:
        row = by_kind.setdefault(o.case.kind.split(" ")[0], [0, 0])
        row[0] += o.held
        row[1] += 1
    kinds = ", ".join(f"{k} {h}/{n}" for k, (h, n) in sorted(by_kind.items()))
    report = f"{len(held)} of {len(outcomes)} prose drafts held ({share:.1%}, {auditor}, {archive})"
    print(f"{report}; by kind: {kinds}")
    bound = MAX_HELD[(archive, auditor)]
    message = f"{report}, bound {bound:.0%}\n" + "\n".join(o.describe() for o in held[:15])
    assert share <= bound, message


@pytest.mark.parametrize("auditor", [ORACLE, OFFLINE])
def test_prose_drafts_held_on_the_sample(prose: Results, auditor: str) -> None:
    _held_share(prose, SOTU, auditor)


@pytest.mark.shared_data
@pytest.mark.parametrize("auditor", [ORACLE, OFFLINE])
def test_prose_drafts_held_on_digitalgov(
    shared_data_or_skip: Callable[..., Path], prose: Results, auditor: str
) -> None:
    shared_data_or_skip(*DIGITALGOV_PARTS)
    _held_share(prose, DIGITALGOV, auditor)
