"""Faithful drafts publish: at most 5% held, with either auditor, on either archive.

A gate that holds what editors write every day gets switched off; these drafts are written
the ways people write (frames, American punctuation, curly and single quotes, quotes across
a passage boundary, negations, extractive paraphrase). A failure prints every held draft
with its reason and the checks its claims failed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .cases import FAITHFUL
from .conftest import OFFLINE, SUPPORTED, Results
from .corpus import DIGITALGOV, DIGITALGOV_PARTS, SOTU

MAX_HELD = 0.05


def _check(results: Results, archive: str, auditor: str) -> None:
    outcomes = results.of(auditor, archive, FAITHFUL)
    assert outcomes, f"no faithful drafts for {archive}"
    held = [o for o in outcomes if o.held]
    not_auto = [o for o in outcomes if o.decision != "AUTO_CLEARED"]
    message = (
        f"{len(held)} of {len(outcomes)} faithful drafts held ({auditor} auditor, {archive}); "
        f"{len(not_auto)} not auto-cleared\n" + "\n".join(o.describe() for o in held)
    )
    assert len(held) <= MAX_HELD * len(outcomes), message


@pytest.mark.parametrize("auditor", [SUPPORTED, OFFLINE])
def test_faithful_drafts_publish_on_the_sample(results: Results, auditor: str) -> None:
    _check(results, SOTU, auditor)


@pytest.mark.shared_data
@pytest.mark.parametrize("auditor", [SUPPORTED, OFFLINE])
def test_faithful_drafts_publish_on_digitalgov(
    shared_data_or_skip: Callable[..., Path], results: Results, auditor: str
) -> None:
    shared_data_or_skip(*DIGITALGOV_PARTS)
    _check(results, DIGITALGOV, auditor)


def test_at_least_two_hundred_faithful_drafts(results: Results) -> None:
    assert sum(c.family == FAITHFUL for c in results.cases) >= 200
