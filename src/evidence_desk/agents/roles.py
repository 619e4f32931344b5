"""The planner, answerer, auditor and teacher: one Pydantic AI agent each, whatever model
runs it.

A role builds its prompt (`prompts.py`), runs its agent through a `ModelCaller` (retries,
budget, usage), and converts the typed output into the desk's own types (`outputs.py`).
The offline engine and every provider go through exactly this code; only the model differs.
The structured request rides along in a context variable for the offline model
(`offline/model.py`); providers ignore it.

Agents have no function tools: the output tool is the only tool a model is offered. How the
output is asked for is the engine's output mode (`providers.OutputMode`): the output tool,
forced (`tool`; named in `tool_choice` where the server needs it named), the JSON-schema
response format (`native`), or JSON text to the schema in the instructions (`prompted`). The
instructions' last line says which (`prompts.instructions`).

A model that reasons by default (its Pydantic AI profile says `thinking_enabled_by_default`
or `thinking_always_enabled`: OpenAI's o-series and GPT-5, Claude Sonnet 5, ...) is asked
to think at `model_reasoning_effort` (the unified `thinking` setting, which each adapter
maps onto `reasoning_effort` or `thinking`/`effort`) and gets the larger reasoning output
cap; `temperature` is sent only to a model that accepts it (see `reasoning_settings`). A
model that reasons only when asked is left not thinking: the desk does not need it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import cached_property
from typing import ClassVar, Generic, TypeVar

from pydantic_ai import Agent, NativeOutput, PromptedOutput, ToolOutput
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings, ThinkingLevel

from ..types import Claim, ClaimAudit, Draft, Lesson, Plan, Source
from . import prompts
from .base import Advice, ArchiveProfile, ClaimToAudit, RunBudget
from .calls import CallPolicy, ModelCaller
from .lessonout import LessonOut, to_lesson
from .offline.model import (
    AnswerRequest,
    AuditRequest,
    PlanRequest,
    TeachRequest,
    structured_request,
)
from .offline.planner import OfflinePlanner
from .outputs import AnswerOut, AuditOut, PlanOut, anchor_plan, to_audits, to_draft, to_plan
from .prices import PriceTable
from .providers import OutputMode

OutT = TypeVar("OutT")

# `model_reasoning_effort` → Pydantic AI's unified `thinking` (None: send none).
THINKING: dict[str, ThinkingLevel | None] = {
    "default": None,
    "off": False,
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
    "max": "max",
}


def reasons_by_default(model: Model) -> bool:
    """Whether the model thinks when a request does not say (the library's profile)."""
    profile = model.profile
    return bool(
        profile.get("thinking_enabled_by_default", False)
        or profile.get("thinking_always_enabled", False)
    )


def reasoning_settings(model: Model, effort: str) -> tuple[ModelSettings, bool]:
    """The thinking and sampling settings for `model`, and whether it will reason.

    Only a model that reasons by default gets `thinking` (the effort; "off" turns thinking
    off where the model can, else asks for its least). `temperature=0` goes only where the
    model accepts it: not to a reasoning OpenAI model while it reasons (the library drops it
    with a warning: `drop_sampling_params_for_reasoning`), nor to a Claude model whose profile
    says `anthropic_disallows_sampling_settings`, nor to a thinking Claude model (thinking
    rejects a changed temperature).
    """
    profile = model.profile
    settings = ModelSettings()
    reasons = reasons_by_default(model)
    if reasons:
        thinking = THINKING[effort]
        if thinking is not None:
            settings["thinking"] = thinking
        turned_off = thinking is False and not profile.get("thinking_always_enabled", False)
        reasons = not turned_off
    if not reasons and not profile.get("anthropic_disallows_sampling_settings", False):
        settings["temperature"] = 0.0
    return settings, reasons


class _Role(Generic[OutT]):
    """One role's agent: its output type and tool, its instructions, and the caller."""

    role: ClassVar[str]
    tool: ClassVar[str]
    task: ClassVar[str]
    output: type[OutT]
    # Input tokens each request carries beyond its text (an image), reserved with it.
    extra_tokens: ClassVar[int] = 0

    def __init__(
        self,
        engine: str,
        model: Model,
        policy: CallPolicy,
        prices: PriceTable,
        *,
        mode: OutputMode = "tool",
        named_tool_choice: bool = False,
    ) -> None:
        """`mode`: how the output is asked for; `named_tool_choice`: a forced tool call
        names the tool (a server that refuses `tool_choice: "required"`)."""
        self.engine_id = engine
        self.mode = mode
        self.instructions = prompts.instructions(self.task, mode)
        settings, reasons = reasoning_settings(model, policy.reasoning_effort)
        if reasons:
            policy = replace(
                policy, max_output_tokens=policy.reasoning_max_output_tokens, reasons=True
            )
        self.policy = policy
        if mode == "tool" and named_tool_choice:
            # Sent over the library's own `tool_choice: "required"` (the SDK merges the
            # extra body last): the same forcing, written as the one tool's name.
            named = {"type": "function", "function": {"name": self.tool}}
            settings["extra_body"] = {"tool_choice": named}
        settings = ModelSettings(
            **settings,
            max_tokens=policy.max_output_tokens,
            timeout=policy.timeout,
            max_retries=0,
            # Our instructions say how to read the prompt; keep them first and unchanged.
            framing_announcement="never",
        )
        agent: Agent[None, OutT] = Agent(
            model,
            output_type=self._output_spec(mode),
            instructions=self.instructions,
            model_settings=settings,
            retries=policy.output_retries,
            name=f"evidence-desk-{self.role}",
        )
        overhead = self.instructions + json.dumps(agent.output_json_schema())
        self._call = ModelCaller(
            self.role,
            engine,
            agent,
            self.output,
            policy,
            prices,
            overhead=overhead,
            extra_tokens=self.extra_tokens,
        )

    def _output_spec(
        self, mode: OutputMode
    ) -> ToolOutput[OutT] | NativeOutput[OutT] | PromptedOutput[OutT]:
        if mode == "native":
            # The template is used only where the library's profile says the model needs
            # the schema in its instructions as well (vLLM's Qwen, ...).
            return NativeOutput(self.output, name=self.tool, template=prompts.PROMPTED_TEMPLATE)
        if mode == "prompted":
            return PromptedOutput(self.output, name=self.tool, template=prompts.PROMPTED_TEMPLATE)
        return ToolOutput(self.output, name=self.tool)


class AgentPlanner(_Role[PlanOut]):
    """The planner role, held to what code reads in the question (`outputs.anchor_plan`)."""

    role = "planner"
    tool = "submit_plan"
    task = prompts.PLANNER_TASK
    output = PlanOut

    @cached_property
    def _rules(self) -> OfflinePlanner:
        """What code reads in the question."""
        return OfflinePlanner()

    def plan(
        self,
        question: str,
        profile: ArchiveProfile,
        budget: RunBudget,
        earlier: Sequence[str] = (),
    ) -> Advice[Plan]:
        """`earlier`: the conversation's earlier questions, oldest first: in the prompt as
        data (`prompts.thread_block`), and what code resolves a follow-up against."""
        today = datetime.now(UTC).date().isoformat()
        earlier = tuple(earlier)
        prompt = prompts.plan_prompt(question, profile, today, earlier)
        with structured_request(PlanRequest(question, profile, earlier)):
            out, usage = self._call.call(prompt, budget)
        code = self._rules.plan(question, profile, earlier)
        return Advice(anchor_plan(to_plan(out, code.key_terms), code), usage)


class AgentAnswerer(_Role[AnswerOut]):
    """The answerer role: claims with citations, quotes and the words they rest on, rendered
    as a draft (`outputs.to_draft`)."""

    role = "answerer"
    tool = "submit_answer"
    task = prompts.ANSWERER_TASK
    output = AnswerOut

    def answer(
        self, question: str, plan: Plan, sources: Sequence[Source], budget: RunBudget
    ) -> Advice[Draft]:
        prompt = prompts.answer_prompt(question, plan, sources)
        with structured_request(AnswerRequest(question, plan, sources)):
            out, usage = self._call.call(prompt, budget)
        return Advice(to_draft(out, sources), usage)


class AgentAuditor(_Role[AuditOut]):
    """The auditor role: one verdict per claim, never more lenient than the model said."""

    role = "auditor"
    tool = "submit_audit"
    task = prompts.AUDITOR_TASK
    output = AuditOut

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        if not claims:
            return Advice([], self._call.nothing())
        prompt = prompts.audit_prompt(question, claims, sources)
        with structured_request(AuditRequest(question, claims, sources)):
            out, usage = self._call.call(prompt, budget)
        return Advice(to_audits(out, claims, sources), usage)


class AgentTeacher(_Role[LessonOut]):
    """The teacher role: a lesson of a published answer (`lessonout.to_lesson`), advice
    that the teaching review judges block by block and relation by relation."""

    role = "teacher"
    tool = "submit_lesson"
    task = prompts.TEACHER_TASK
    output = LessonOut

    def teach(
        self,
        question: str,
        claims: Sequence[Claim],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[Lesson]:
        answer = " ".join(c.text for c in claims if c.kept)
        prompt = prompts.teach_prompt(question, answer, sources)
        with structured_request(TeachRequest(question, tuple(claims), sources)):
            out, usage = self._call.call(prompt, budget)
        return Advice(to_lesson(out, sources), usage)
