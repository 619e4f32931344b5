"""The output schemas are strict-compatible: every field required, no defaults, no extras.

That is what makes Pydantic AI send `strict: true` on OpenAI's output tools (the provider
tests check the wire). The Python models keep their empty defaults, so a server that does
not enforce the schema may still leave an optional field out.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai.tools import GenerateToolJsonSchema

from evidence_desk.agents.outputs import (
    AnswerOut,
    AuditOut,
    ClaimOut,
    PlanOut,
    SubQuestionOut,
    VerdictOut,
)

OUTPUTS = [PlanOut, AnswerOut, AuditOut]


def objects(schema: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            found.append(schema)
        for value in schema.values():
            found.extend(objects(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(objects(value))
    return found


@pytest.mark.parametrize("output", OUTPUTS, ids=lambda o: o.__name__)
def test_every_object_in_an_output_schema_requires_all_its_fields(output: type[BaseModel]) -> None:
    # The generator Pydantic AI itself uses for output tools (`_output.py`).
    schema = output.model_json_schema(schema_generator=GenerateToolJsonSchema)
    found = objects(schema)
    assert len(found) >= 2  # the root and at least one nested model
    for obj in found:
        assert list(obj["required"]) == list(obj["properties"]), obj.get("title")
        assert obj["additionalProperties"] is False
        for name, prop in obj["properties"].items():
            assert "default" not in prop, (obj.get("title"), name)


def test_nullable_fields_say_so_and_lists_may_be_empty() -> None:
    sub = SubQuestionOut.model_json_schema()["properties"]
    assert {"type": "null"} in sub["window"]["anyOf"] and {"type": "null"} in sub["entity"]["anyOf"]
    assert "empty" in ClaimOut.model_json_schema()["properties"]["quotes"]["description"]
    verdict = VerdictOut.model_json_schema()["properties"]
    assert "S1" in verdict["evidence"]["description"]  # both evidence forms are offered
    assert "passage" in verdict["evidence"]["description"]


def test_a_lenient_server_may_still_leave_optional_fields_out() -> None:
    sub = SubQuestionOut.model_validate({"text": "q"})
    assert sub.window is None and sub.entity is None
    claim = ClaimOut.model_validate({"text": "The canal opened.", "citations": ["S1"]})
    assert claim.quotes == []
    verdict = VerdictOut.model_validate({"claim": 1, "verdict": "partial", "evidence": []})
    assert verdict.rationale == ""


def test_a_strict_model_may_send_the_empty_values() -> None:
    sub = SubQuestionOut.model_validate({"text": "q", "window": None, "entity": None})
    assert sub == SubQuestionOut(text="q")
    claim = ClaimOut.model_validate({"text": "It opened.", "citations": ["S1"], "quotes": []})
    assert claim.quotes == []
    verdict = VerdictOut.model_validate(
        {"claim": 1, "verdict": "unsupported", "evidence": [], "rationale": ""}
    )
    assert verdict.rationale == ""
