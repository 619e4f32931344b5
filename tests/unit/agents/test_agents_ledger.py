"""A stored run's ledger as the model caller uses it: each try recorded as it returns, a
recorded reply read back instead of sent again, the key on every request.

The ledger here keeps its rows in a list; `runs/ledger.py`'s `StoredLedger` keeps them in
the archive database (`tests/providers/test_providers_ledger.py` kills processes over it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pydantic_ai import Agent, ToolOutput
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from evidence_desk.agents.base import ModelUsage, RecordedReply, RunBudget
from evidence_desk.agents.calls import CALL_HEADER, CallPolicy, ModelCaller
from evidence_desk.agents.outputs import AnswerOut
from evidence_desk.agents.prices import PriceTable
from evidence_desk.agents.providers import OFFLINE

VALID = {"claims": [{"text": "Banks reopened in 1933.", "citations": ["S1"]}]}


@dataclass
class Rows:
    """What a ledger stored: (key, role, usage, output) per try."""

    tries: list[tuple[str, str, ModelUsage, str | None]] = field(default_factory=list)


class ListLedger:
    """A `CallLedger` over `Rows`; a new one on the same rows is a restarted process."""

    def __init__(self, rows: Rows) -> None:
        self.rows = rows
        self.asked: Counter[str] = Counter()

    def key(self, role: str, engine: str, prompt: str) -> str:
        name = f"{role}|{engine}|{prompt}"
        self.asked[name] += 1
        return f"{name}|{self.asked[name] - 1}"

    def reply(self, key: str) -> RecordedReply | None:
        for k, _, usage, output in self.rows.tries:
            if k == key and output is not None:
                return RecordedReply(output, usage)
        return None

    def record(self, key: str, role: str, usage: ModelUsage, output: str | None) -> None:
        self.rows.tries.append((key, role, usage, output))


@dataclass
class Server:
    """A model answering `VALID` after `failures` server errors; it counts requests and
    keeps the call header each one carried."""

    failures: int = 0
    headers: list[str | None] = field(default_factory=list)

    def model(self) -> FunctionModel:
        async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            extra = (info.model_settings or {}).get("extra_headers") or {}
            self.headers.append(extra.get(CALL_HEADER))
            if len(self.headers) <= self.failures:
                raise ModelHTTPError(status_code=503, model_name="m")
            return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, VALID)])

        return FunctionModel(respond)


def caller(server: Server, engine: str = "openai:gpt-4.1-mini") -> ModelCaller[AnswerOut]:
    agent: Agent[None, AnswerOut] = Agent(
        server.model(), output_type=ToolOutput(AnswerOut, name="submit_answer")
    )
    policy = CallPolicy(backoff=0.0)
    return ModelCaller(
        "answerer", engine, agent, AnswerOut, policy, PriceTable.load(), sleep=lambda _: None
    )


def budget(ledger: ListLedger | None) -> RunBudget:
    return RunBudget(max_calls=10, max_tokens=100_000, ledger=ledger)


def test_a_reply_is_recorded_under_the_key_its_request_carried() -> None:
    server, rows = Server(), Rows()
    out, usage = caller(server).call("Question: when?", budget(ListLedger(rows)))
    assert out.claims[0].text == "Banks reopened in 1933."
    ((key, role, recorded, output),) = rows.tries
    assert server.headers == [key] and role == "answerer"
    assert recorded == usage and usage.calls == 1
    assert output is not None and AnswerOut.model_validate_json(output) == out


def test_a_restarted_run_reads_the_recorded_reply_back_and_sends_nothing() -> None:
    server, rows = Server(), Rows()
    first = caller(server).call("Question: when?", budget(ListLedger(rows)))
    again = caller(server).call("Question: when?", budget(ListLedger(rows)))  # restarted
    assert again == first and len(server.headers) == 1 and len(rows.tries) == 1


def test_the_same_prompt_asked_twice_in_one_run_is_two_calls() -> None:
    server, rows = Server(), Rows()
    ledger = ListLedger(rows)
    run = caller(server)
    run.call("Question: when?", budget(ledger))
    run.call("Question: when?", budget(ledger))
    assert len(server.headers) == 2 and len(set(server.headers)) == 2


def test_failed_tries_are_recorded_without_output() -> None:
    server, rows = Server(failures=2), Rows()
    _, usage = caller(server).call("Question: when?", budget(ListLedger(rows)))
    assert [output is None for _, _, _, output in rows.tries] == [True, True, False]
    assert len({key for key, *_ in rows.tries}) == 1  # every try of one call, one key
    assert sum(u.calls for _, _, u, _ in rows.tries) == usage.calls == 3


def test_a_run_kept_in_memory_sends_no_key() -> None:
    server = Server()
    caller(server).call("Question: when?", budget(None))
    assert server.headers == [None]


def test_the_offline_engine_records_nothing() -> None:
    server, rows = Server(), Rows()
    caller(server, engine=OFFLINE).call("Question: when?", budget(ListLedger(rows)))
    assert rows.tries == [] and server.headers == [None]
