"""A receipt's content, for comparing two runs of one question.

Two runs of the same question on the same archive — one uninterrupted, one killed and
resumed; one per executor — must agree on everything a reader or auditor relies on. They
differ by design in the run id, the times, the stages' latencies and the signature; this
drops exactly those, and keeps the stage names and the model calls the receipt counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_PER_RUN = {"run_id", "created_at", "integrity", "stages", "usage"}


def comparable(receipt: Mapping[str, Any]) -> dict[str, Any]:
    """`receipt` without what differs between two runs of one question."""
    body = {k: v for k, v in receipt.items() if k not in _PER_RUN}
    body["sources"] = [{k: v for k, v in s.items() if k != "retrieved_at"} for s in body["sources"]]
    body["stages"] = [s["name"] for s in receipt["stages"]]
    body["calls"] = receipt["usage"]["model_calls"]
    return body
