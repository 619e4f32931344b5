"""The follow-up set (`evidence_desk/data/followups.jsonl`, `bench/followups.py`) through the
offline planner, no embedding model: every follow-up resolves to its expected subject with
its thread, and without the thread (the baseline) the plans miss it.

The sample's items always run; the digital.gov items need the shared data folder (their
profile is read from its JSONL) and are skipped with the reason when it is absent.
"""

from __future__ import annotations

import pytest
from bench.followups import (
    FollowUp,
    check_plan,
    digitalgov_profile,
    load_followups,
    planner_rows,
    sotu_profile,
)

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.archive.sample import sotu_metadata

ITEMS = load_followups()
PROFILES: dict[str, ArchiveProfile | None] = {
    "sotu": sotu_profile(),
    "digitalgov": digitalgov_profile(),
}


def _profile(item: FollowUp) -> ArchiveProfile:
    profile = PROFILES[item.archive]
    if profile is None:
        pytest.skip("The shared data folder (digital.gov news) is absent.")
    return profile


def test_the_set_has_twenty_follow_ups_on_both_archives() -> None:
    assert len(ITEMS) == 20
    assert len({i.id for i in ITEMS}) == 20
    archives = [i.archive for i in ITEMS]
    assert archives.count("sotu") >= 8 and archives.count("digitalgov") >= 6
    assert all(i.earlier and i.gold_doc_ids for i in ITEMS)
    assert any(not i.resolves for i in ITEMS)  # one names its own subject


def test_the_samples_gold_documents_exist() -> None:
    fileids = {row["fileid"] for row in sotu_metadata()}
    for item in ITEMS:
        if item.archive == "sotu":
            assert set(item.gold_doc_ids) <= fileids, item.id


@pytest.mark.parametrize("item", ITEMS, ids=[i.id for i in ITEMS])
def test_every_follow_up_resolves_as_expected(item: FollowUp) -> None:
    profile = _profile(item)
    plan = OfflinePlanner().plan(item.followup, profile, item.earlier)
    check = check_plan(item, plan, profile, thread=True)
    assert check.resolved, (item.id, check.missing(), plan)
    if item.resolves:
        assert plan.resolved_from in item.earlier
        assert item.subject.lower() in (plan.resolved_question or "").lower()


def test_without_the_thread_the_planner_misses_the_subject() -> None:
    rows = planner_rows(ITEMS, PROFILES)
    threaded = sum(r[1].resolved for r in rows)
    alone = sum(r[2].resolved for r in rows)
    assert threaded == len(rows)
    # only the follow-up that names its own subject plans right on its own
    assert alone == sum(not r[0].resolves for r in rows)
