"""A scripted model behind a real `ModelCaller`, for the tests of calling a model.

`Script` is a `FunctionModel` that plays its steps in order (a provider error, an output
tool call, a whole `ModelResponse`), repeating the last; `caller` runs it with a policy as
a role would, recording sleeps instead of sleeping. (A module of its own, named so no
other test folder has it, so each test module can import it.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent, ToolOutput
from pydantic_ai.exceptions import ModelAPIError, ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from evidence_desk.agents.calls import CallPolicy, ModelCaller
from evidence_desk.agents.outputs import AnswerOut
from evidence_desk.agents.prices import PriceTable

ENGINE = "openai:gpt-4.1-mini"
PRICES = PriceTable.load()

Step = dict[str, Any] | ModelResponse | Callable[[], Exception]


@dataclass
class Script:
    """A model that plays `steps` in order, repeating the last one; counts its requests."""

    steps: list[Step]
    requests: int = 0
    prompts: list[str] = field(default_factory=list)
    max_tokens: list[int | None] = field(default_factory=list)

    def model(self) -> FunctionModel:
        async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.requests += 1
            self.max_tokens.append((info.model_settings or {}).get("max_tokens"))
            step = self.steps[min(self.requests, len(self.steps)) - 1]
            if isinstance(step, ModelResponse):
                return step
            if isinstance(step, dict):
                return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, step)])
            raise step()

        return FunctionModel(respond)


def http(
    status: int, category: type[ModelAPIError] | None = None, **kw: Any
) -> Callable[[], Exception]:
    def make() -> Exception:
        if category is None:
            return ModelHTTPError(status_code=status, model_name="m", **kw)
        return ModelHTTPError.for_category(category, status_code=status, model_name="m", **kw)

    return make


@dataclass
class Run:
    script: Script
    caller: ModelCaller[AnswerOut]
    sleeps: list[float]


def caller(
    *steps: Step,
    engine: str = ENGINE,
    policy: CallPolicy | None = None,
    role: str = "answerer",
) -> Run:
    policy = policy or CallPolicy()
    script = Script(list(steps))
    agent: Agent[None, AnswerOut] = Agent(
        script.model(),
        output_type=ToolOutput(AnswerOut, name="submit_answer"),
        retries=policy.output_retries,
    )
    sleeps: list[float] = []
    return Run(
        script,
        ModelCaller(role, engine, agent, AnswerOut, policy, PRICES, sleep=sleeps.append),
        sleeps,
    )
