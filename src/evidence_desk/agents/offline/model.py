"""The offline engine as a Pydantic AI model, so offline runs take the providers' code path.

The planner, answerer and auditor agents send the offline model the same prompt and output
schema a provider gets, and validate and convert its reply with the same code. The offline
engine does not read prose, though: the role puts the structured request (question, profile,
earlier questions, plan, sources, claims) in a context variable for the length of its call,
and the model's function answers from that by calling the rule-based planner, the extractive
answerer and the calibrated auditor. Its reply is a call to the output tool, like any provider's.

The offline engine is not billed and its token counts would be guesses, so each reply
reports zero tokens (and a detail counter, so Pydantic AI does not estimate them); its calls
do not count against a run's model budget.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from pydantic import BaseModel
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from ...retrieval.embedder import Embedder
from ...types import Claim, Plan, Source
from ..base import ArchiveProfile, ClaimToAudit
from ..lessonout import lesson_output
from ..outputs import answer_output, audit_output, plan_output
from .answerer import RELATIVE_DATE_REACH_DAYS, OfflineAnswerer
from .auditor import OfflineAuditor
from .planner import OfflinePlanner
from .teacher import OfflineTeacher


@dataclass(frozen=True)
class PlanRequest:
    question: str
    profile: ArchiveProfile
    earlier: tuple[str, ...] = ()  # the conversation's earlier questions, oldest first


@dataclass(frozen=True)
class AnswerRequest:
    question: str
    plan: Plan
    sources: Sequence[Source]


@dataclass(frozen=True)
class AuditRequest:
    question: str
    claims: Sequence[ClaimToAudit]
    sources: Sequence[Source]


@dataclass(frozen=True)
class TeachRequest:
    question: str
    claims: Sequence[Claim]
    sources: Sequence[Source]


Request = PlanRequest | AnswerRequest | AuditRequest | TeachRequest
_REQUEST: ContextVar[Request | None] = ContextVar("evidence_desk_offline_request", default=None)


@contextmanager
def structured_request(request: Request) -> Iterator[None]:
    """Make `request` visible to the offline model for the duration of one agent run."""
    token = _REQUEST.set(request)
    try:
        yield
    finally:
        _REQUEST.reset(token)


class OfflineEngine:
    """The rule-based planner, extractive answerer, calibrated auditor and offline teacher
    behind one model."""

    def __init__(
        self, embedder: Embedder, relative_date_reach_days: int = RELATIVE_DATE_REACH_DAYS
    ) -> None:
        self.planner = OfflinePlanner()
        self.answerer = OfflineAnswerer(embedder, relative_date_reach_days=relative_date_reach_days)
        self.auditor = OfflineAuditor(embedder)
        self.teacher = OfflineTeacher()

    def respond(self, request: Request) -> BaseModel:
        """The typed output for `request`, as a model would fill it."""
        if isinstance(request, PlanRequest):
            plan = self.planner.plan(request.question, request.profile, request.earlier)
            return plan_output(plan)
        if isinstance(request, AnswerRequest):
            draft = self.answerer.answer(request.question, request.plan, request.sources)
            return answer_output(draft)
        if isinstance(request, TeachRequest):
            lesson = self.teacher.teach(request.question, request.claims, request.sources)
            return lesson_output(lesson)
        audits = self.auditor.audit(request.question, request.claims, request.sources)
        return audit_output(audits)

    def model(self) -> FunctionModel:
        async def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            request = _REQUEST.get()
            if request is None:
                raise RuntimeError("The offline model was called without a structured request.")
            args = self.respond(request).model_dump(mode="json")
            return ModelResponse(
                parts=[ToolCallPart(info.output_tools[0].name, args)],
                usage=RequestUsage(details={"offline_requests": 1}),
                model_name="offline",
            )

        return FunctionModel(reply, model_name="offline")
