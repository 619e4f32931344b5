"""One judgment, three paths: a run's verify, audit and gate stages, the `check` command and
an editor's edit of a held run give one draft, judged against the same sources, the same
claims (checks, quotes, verdicts, what is kept) and the same decision and reason.

The sources are the ones `check` builds (every passage of each document a real run of
`QUESTION` selected, and of one more address), given to the run in place of its own and
recorded in the held receipt the edit reads, so the three see one input. The drafts are a
handful written the way each decision comes about, each judged by the offline auditor and
by an auditor that fails; the decision each should get is asserted too, so a draft that
stops exercising its case does not pass unnoticed.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from runs_helpers import QUESTION, desk_at

from evidence_desk.agents.base import Advice, AgentFailure, ModelUsage
from evidence_desk.desk import Desk
from evidence_desk.desk.drafts import DraftInput, DraftSource, draft_sources
from evidence_desk.runs.loop import drive
from evidence_desk.runs.pipeline import new_run_id
from evidence_desk.runs.stages import receipt_of
from evidence_desk.runs.state import RunState
from evidence_desk.store.accounts import User

ROOSEVELT = "1941-Roosevelt-1"
OTHER = "1934-Roosevelt-1"
FIRST = "The first is freedom of speech and expression"
SECOND = "The second is freedom of every person to worship God in his own way"
HELD_DRAFT = 'Roosevelt said: "freedom from taxes for ever and ever" [{s}].'

# (draft, the decision the offline auditor's judgment gets); `{s}` is the 1941 address,
# `{o}` the 1934 one.
DRAFTS = [
    (f'In his 1941 address, Franklin D. Roosevelt said: "{FIRST}" [{{s}}].', "AUTO_CLEARED"),
    (
        f'Roosevelt said: "{FIRST}" [{{s}}]. He said: "{SECOND}" [{{s}}]. '
        f'According to the address, "{FIRST}" [{{s}}]. The moon is made of cheese [{{s}}].',
        "PUBLISHED_AFTER_PRUNING",
    ),
    ('Roosevelt said: "The first is freedom of taxation everywhere" [{s}].', "HELD_FOR_REVIEW"),
    (f'Roosevelt said: "{FIRST}" [S9].', "HELD_FOR_REVIEW"),
    (f'Roosevelt said: "{FIRST}" [{{o}}].', "HELD_FOR_REVIEW"),
    ("Roosevelt named 7 essential human freedoms in 1941 [{s}].", "HELD_FOR_REVIEW"),
    ("Nothing here cites a source.", "HELD_FOR_REVIEW"),
]


class FailingAuditor:
    """An auditor whose provider gave up."""

    engine_id = "test-failing-auditor"

    def audit(self, *args: object) -> Advice[list[Any]]:
        usage = ModelUsage(self.engine_id, calls=1, spend_usd=None)
        raise AgentFailure("auditor", "The auditor failed: the provider had a server error.", usage)


@pytest.fixture(scope="module")
def offline_desk(hashed_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Desk:
    folder = tmp_path_factory.mktemp("one-judgment")
    shutil.copytree(hashed_home, folder / "home")
    return desk_at(folder / "home", folder / "cache")


@pytest.fixture(scope="module")
def covered(offline_desk: Desk) -> RunState:
    """A real run of `QUESTION` up to its answer, with the sources `check` would build."""
    pipeline = offline_desk.pipeline
    state = drive(pipeline.opening(QUESTION), pipeline.deps(), until=("answer", "gate"))
    assert state.next_stage == "answer" and state.coverage is not None
    cited = [DraftSource(id=s.id, doc_id=s.doc_id) for s in state.sources or ()]
    assert ROOSEVELT in [c.doc_id for c in cited]
    if OTHER not in [c.doc_id for c in cited]:
        cited.append(DraftSource(id=f"S{len(cited) + 1}", doc_id=OTHER))
    docs = offline_desk.store.get_documents([c.doc_id for c in cited])
    sources = draft_sources(DraftInput(answer=".", sources=cited), docs, offline_desk.settings)
    return state.model_copy(update={"sources": tuple(sources)})


def desk_judging_with(desk: Desk, auditor: str) -> tuple[Desk, User]:
    """A desk on `desk`'s data whose auditor is `auditor`, and an editor of it."""
    if auditor == "failing":
        agents = replace(desk.agents, auditor=FailingAuditor())
        desk = Desk(desk.settings, embedder=desk.given_embedder, agents=agents)
    name = f"editor-{auditor}"
    found = desk.workspace.accounts.user_by_name(name)
    if found is not None:
        return desk, found[0]
    return desk, desk.workspace.people.add(name, "correct horse battery", editor=True)


def through_the_run(desk: Desk, state: RunState, draft: str, run_id: str = "") -> RunState:
    """`draft` through the run's verify, audit and gate stages, as its answer."""
    run_id = run_id or new_run_id(desk.clock())
    answered = state.model_copy(update={"run_id": run_id, "draft": draft, "next_stage": "verify"})
    return drive(answered, desk.pipeline.deps(), until=("publish",))


def judged(decision: str, reason: str, answer: str, claims: list[Any]) -> dict[str, Any]:
    return {"decision": decision, "reason": reason, "published_answer": answer, "claims": claims}


def by_run(desk: Desk, state: RunState, draft: str) -> dict[str, Any]:
    end = through_the_run(desk, state, draft)
    assert end.outcome is not None
    claims = [c.model_dump(mode="json") for c in end.claims or ()]
    o = end.outcome
    return judged(o.decision.value, o.reason, o.published_answer, claims)


def by_check(desk: Desk, state: RunState, draft: str, folder: Path) -> dict[str, Any]:
    cited = [{"id": s.id, "doc_id": s.doc_id} for s in state.sources or ()]
    path = folder / "draft.json"
    path.write_text(json.dumps({"question": QUESTION, "answer": draft, "sources": cited}))
    [r] = desk.check_file(path)
    return judged(r["decision"], r["reason"], r["published_answer"], r["claims"])


def by_edit(desk: Desk, editor: User, state: RunState, draft: str, held: str) -> dict[str, Any]:
    """`draft` as an editor's edit of a run held for `held` (its run stored, its receipt
    the one `held` was judged to)."""
    held_state = through_the_run(desk, state, held, desk.submit(QUESTION))
    assert held_state.outcome is not None and held_state.outcome.decision == "HELD_FOR_REVIEW"
    desk.publisher.publish(receipt_of(held_state, desk.pipeline.engine, desk.policy))
    result = desk.workspace.standards.edit(editor, held_state.run_id, draft)
    outcome = result.review.outcome
    if result.receipt is None:
        return judged(outcome["decision"], outcome["reason"], "", outcome["claims"])
    r = result.receipt
    return judged(r["decision"], r["reason"], r["published_answer"], r["claims"])


@pytest.mark.parametrize("auditor", ["offline", "failing"])
@pytest.mark.parametrize(("template", "expected"), DRAFTS)
def test_runs_check_and_edit_judge_a_draft_alike(
    offline_desk: Desk,
    covered: RunState,
    tmp_path: Path,
    auditor: str,
    template: str,
    expected: str,
) -> None:
    sources = covered.sources or ()
    ids = {s.doc_id: s.id for s in sources}
    draft = template.format(s=ids[ROOSEVELT], o=ids[OTHER])
    held = HELD_DRAFT.format(s=ids[ROOSEVELT])
    desk, editor = desk_judging_with(offline_desk, auditor)

    run = by_run(desk, covered, draft)
    assert by_check(desk, covered, draft, tmp_path) == run
    assert by_edit(desk, editor, covered, draft, held) == run
    assert run["decision"] == (expected if auditor == "offline" else "HELD_FOR_REVIEW"), run
    if auditor == "failing":
        assert "The auditor failed" in run["reason"] and "Nothing was published" in run["reason"]
