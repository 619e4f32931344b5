"""A run as a value: everything it has done so far, and the stage it does next.

`RunState` is what the stage functions (`stages.py`) pass along: each takes a state and
returns the next one, setting only the fields it owns (`STAGE_OUTPUTS`). Because those
fields are plain pydantic values, the executor can store each stage's output as it ends
(`store/runs.py`) and rebuild the state of a run interrupted at any point by laying the
stored outputs, in order, over the run's opening fields (`RunState.resumed`).

A state holds sources (their selected passages, by doc id and content hash), never whole
document texts: a stage that needs a text looks it up by that hash, so a re-ingest between
a crash and its resume cannot change what a run quotes.

Invariants: `run_id` and `created_at` exist from the first moment; `next_stage` is None
exactly when the run has finished (published, or stopped by `cancel`); a stage writes only
its own output fields, its `StageRecord` and `next_stage`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from ..types import (
    Claim,
    ClaimAudit,
    ClaimChecks,
    Coverage,
    Frozen,
    GateOutcome,
    Hit,
    Illustration,
    Lesson,
    Plan,
    Quote,
    Search,
    SentenceRest,
    Source,
    StageFailure,
    StageRecord,
    Teaching,
    WebEvidence,
)

Mode = Literal["quick", "deep"]

# A follow-up's planner sees at most this many earlier questions of its conversation.
MAX_THREAD = 4

# The stages in order. A run that ends early (outside coverage, a failed agent) jumps to
# "gate"; "publish" seals, signs and stores the receipt. "discover" (web search) runs only
# with a search provider, "read" only with one or with attached files (`runs/web.py`).
STAGES: tuple[str, ...] = (
    "plan",
    "retrieve",
    "discover",
    "read",
    "select",
    "coverage",
    "answer",
    "verify",
    "audit",
    "gate",
    "teach",
    "teaching_review",
    "illustrate",
    "publish",
)
# The stages of an explanation run (`teach.py`): a run of its own, opened on a published
# answer, that reads the answer's receipt and nothing else. "illustrate" runs only when the
# explanation was asked to illustrate, its lesson was published and an illustrator is set
# (`illustrate.py`).
EXPLAIN_STAGES: tuple[str, ...] = ("teach", "teaching_review", "illustrate", "publish")

# The stages of an answer's run, in order (an explanation's are its own).
ANSWER_STAGES: tuple[str, ...] = tuple(s for s in STAGES if s not in EXPLAIN_STAGES[:-1])
# The stages of a run that reads its archive alone (no search provider, nothing attached).
WEB_STAGES = ("discover", "read")
ARCHIVE_STAGES: tuple[str, ...] = tuple(
    s for s in STAGES if s not in WEB_STAGES and s not in EXPLAIN_STAGES[:-1]
)

# The fields each stage sets. Stored per stage; `resumed` lays them over the opening.
STAGE_OUTPUTS: dict[str, tuple[str, ...]] = {
    "plan": ("plan", "failure"),
    "retrieve": ("hits", "searches"),
    "discover": ("searches", "web_results"),
    "read": ("web", "web_sources", "web_hits"),
    "select": ("sources",),
    "coverage": ("coverage", "sources"),
    "answer": ("draft", "draft_rests", "sources", "failure"),
    "verify": ("checked",),
    "audit": ("audits", "failure"),
    "gate": ("claims", "outcome"),
    "teach": ("lesson", "lesson_failure"),
    "teaching_review": ("teaching",),
    "illustrate": ("illustration",),
    "publish": ("receipt_sha256",),
}


class RunStatus(StrEnum):
    """Where a run is. `running` with an expired lease is a run whose worker died."""

    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class CheckedRecord(Frozen):
    """The verify stage's finding for one claim of the draft (the claim is re-split from
    the stored draft, which is deterministic)."""

    checks: ClaimChecks
    quotes: tuple[Quote, ...] = ()


class WebCandidate(Frozen):
    """A page a web search proposed: data to fetch through the guard, never an order."""

    url: str
    title: str = ""
    snippet: str = ""
    query: str = ""
    engine: str = ""


class RunState(Frozen):
    """One run, as far as it has got."""

    run_id: str
    created_at: str
    question: str
    mode: Mode = "quick"
    attachments: tuple[str, ...] = Field(
        (), description="Snapshot ids of the files attached to the question (its own sources)."
    )
    thread: tuple[str, ...] = Field(
        (),
        description="The earlier questions of the conversation the run was asked in, oldest "
        f"first, at most {MAX_THREAD}: what the planner resolves a follow-up against.",
    )
    explains: str | None = Field(
        None,
        description="An explanation run: the id of the published answer it explains (its "
        "stages are `EXPLAIN_STAGES`, on that answer's receipt alone).",
    )
    illustrate: bool = Field(
        False,
        description="An explanation run asked to illustrate its lesson (`explain "
        "--illustrate`): its illustrate stage runs when the lesson is published and an "
        "illustrator is set.",
    )
    next_stage: str | None = "plan"
    plan: Plan | None = None
    hits: tuple[tuple[Hit, ...], ...] | None = Field(
        None, description="The retrieve stage's hits, one list per side of the question."
    )
    searches: tuple[Search, ...] | None = Field(
        None, description="The searches the retrieve stage issued, in order."
    )
    web_results: tuple[WebCandidate, ...] | None = Field(
        None, description="The pages the discover stage's web searches proposed, in order."
    )
    web: WebEvidence | None = None
    web_sources: tuple[Source, ...] | None = Field(
        None, description="The read stage's sources (web pages, attachments), numbered later."
    )
    web_hits: tuple[Hit, ...] | None = Field(
        None, description="The web sources' passages as hits (their cosines, for coverage)."
    )
    sources: tuple[Source, ...] | None = None
    coverage: Coverage | None = None
    draft: str | None = None
    draft_rests: tuple[SentenceRest, ...] = Field(
        (),
        description="The answer stage's spans per sentence of the draft (`Draft.rests`); "
        "empty in runs stored before the answerer named them.",
    )
    checked: tuple[CheckedRecord, ...] | None = None
    audits: tuple[ClaimAudit, ...] | None = None
    claims: tuple[Claim, ...] | None = None
    outcome: GateOutcome | None = None
    failure: StageFailure | None = None
    lesson: Lesson | None = Field(None, description="The teach stage's proposed lesson.")
    lesson_failure: str | None = Field(None, description="Why the teacher gave no lesson.")
    teaching: Teaching | None = Field(None, description="The teaching review's lesson.")
    illustration: Illustration | None = Field(
        None, description="The illustrate stage's picture, as made and judged."
    )
    stages: tuple[StageRecord, ...] = ()
    receipt_sha256: str | None = None

    def output_of(self, stage: str) -> dict[str, Any]:
        """The fields `stage` owns, as JSON-ready values (what the executor stores)."""
        return self.model_dump(mode="json", include=set(STAGE_OUTPUTS[stage]))

    @classmethod
    def opening(
        cls,
        run_id: str,
        created_at: str,
        question: str,
        mode: Mode,
        attachments: Sequence[str] = (),
        *,
        thread: Sequence[str] = (),
    ) -> RunState:
        """A new run's opening fields; `thread` keeps its last `MAX_THREAD` questions."""
        earlier = tuple(q.strip() for q in thread if q.strip())
        return cls(
            run_id=run_id,
            created_at=created_at,
            question=question,
            mode=mode,
            attachments=tuple(attachments),
            thread=earlier[-MAX_THREAD:],
        )

    @classmethod
    def explaining(
        cls,
        run_id: str,
        created_at: str,
        question: str,
        answer_run_id: str,
        *,
        illustrate: bool = False,
    ) -> RunState:
        """A new explanation run of the published answer `answer_run_id` (its `question`),
        asked to illustrate its lesson when `illustrate`."""
        return cls(
            run_id=run_id,
            created_at=created_at,
            question=question,
            explains=answer_run_id,
            illustrate=illustrate,
            next_stage=EXPLAIN_STAGES[0],
        )

    @classmethod
    def resumed(
        cls,
        opening: Mapping[str, Any],
        outputs: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
        next_stage: str | None,
    ) -> RunState:
        """The state after the stored stage outputs, in order, over the opening fields."""
        fields: dict[str, Any] = dict(opening)
        for output, _ in outputs:
            fields.update(output)
        fields["stages"] = [record for _, record in outputs]
        fields["next_stage"] = next_stage
        return cls.model_validate(fields)
