"""Price sources in whole runs against a local provider server: a model only genai-prices
knows is priced by it, each stage's spend names its price source, the receipt lists the
sources used, a resumed run keeps the source its ledger recorded, and receipts verify with
the new fields and without them.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import genai_prices
import pytest
from provider_helpers import DeskFactory
from scripts import Model

from evidence_desk.testing.fakeproviders import FakeProvider
from evidence_desk.trust.receipts import seal
from evidence_desk.types import Decision, Receipt

QUESTION = "When was the Erie Canal opened?"
GENAI_ONLY = "openai:gpt-4-turbo"  # $10 in / $30 out per M tokens; not in the packaged table
GENAI = f"genai-prices {genai_prices.__version__}"
PACKAGED = "packaged table 2025-10-01"


class Crash(Exception):
    """Stands in for the process dying after a reply was recorded, before its stage."""


def test_a_model_only_genai_prices_knows_has_its_spend_and_source_in_the_receipt(
    make_desk: DeskFactory,
) -> None:
    with FakeProvider("chat", Model("chat")) as fake:
        desk = make_desk("chat", fake.base_url, model=GENAI_ONLY)
        result = desk.ask(QUESTION)
        assert desk.verify_receipt(result.receipt).ok
    receipt = Receipt.model_validate(result.receipt)
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    stages = {s.name: s for s in receipt.stages}
    for name in ("plan", "answer", "audit"):
        stage = stages[name]
        assert stage.engine == GENAI_ONLY and stage.price_source == GENAI
        expected = (stage.input_tokens * 10 + stage.output_tokens * 30) / 1e6
        assert stage.estimated_spend_usd == pytest.approx(expected, abs=1e-6)
    assert stages["retrieve"].price_source is None  # no model ran there
    assert receipt.usage.unpriced_engines == ()
    assert receipt.usage.price_sources == (GENAI,)
    assert receipt.usage.estimated_spend_usd == pytest.approx(
        sum(stages[n].estimated_spend_usd or 0.0 for n in ("plan", "answer", "audit")), abs=1e-6
    )


def test_the_receipt_lists_each_price_source_once(make_desk: DeskFactory) -> None:
    with FakeProvider("chat", Model("chat")) as fake:
        desk = make_desk(
            "chat",
            fake.base_url,
            model=GENAI_ONLY,
            planner="openai:gpt-4.1-mini",
            auditor="openai:gpt-4.1-mini",
        )
        receipt = Receipt.model_validate(desk.ask(QUESTION).receipt)
    sources = {s.name: s.price_source for s in receipt.stages if s.engine}
    assert sources == {"plan": PACKAGED, "answer": GENAI, "audit": PACKAGED}
    assert receipt.usage.price_sources == (PACKAGED, GENAI)


def test_a_resumed_run_keeps_the_price_source_its_ledger_recorded(
    make_desk: DeskFactory, archive_home: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(archive_home, home)

    def crash_after_the_answer(key: str) -> None:
        if key.startswith("answerer"):
            raise Crash

    model = Model("chat")
    with FakeProvider("chat", model) as fake:
        first = make_desk("chat", fake.base_url, home=home, model=GENAI_ONLY)
        first.executor.on_call_recorded = crash_after_the_answer
        with pytest.raises(Crash):
            first.ask(QUESTION)
        (run,) = first.runs("running")
        second = make_desk("chat", fake.base_url, home=home, model=GENAI_ONLY)
        second.executor.owner = first.executor.owner  # the same worker, restarted
        receipt = Receipt.model_validate(second.resume(run.run_id).receipt)
    assert model.calls("answer") == 1  # the recorded reply was read back, not asked again
    answer = next(s for s in receipt.stages if s.name == "answer")
    assert answer.price_source == GENAI and (answer.estimated_spend_usd or 0) > 0
    assert receipt.usage.price_sources == (GENAI,)


def _without_price_sources(receipt: dict[str, Any]) -> dict[str, Any]:
    """`receipt` as written before stages and usage named their price sources."""
    old = {k: v for k, v in receipt.items() if k != "integrity"}
    old["stages"] = [{k: v for k, v in s.items() if k != "price_source"} for s in old["stages"]]
    old["usage"] = {k: v for k, v in old["usage"].items() if k != "price_sources"}
    return old


def test_receipts_verify_with_the_price_sources_and_without_them(
    make_desk: DeskFactory,
) -> None:
    with FakeProvider("chat", Model("chat")) as fake:
        desk = make_desk("chat", fake.base_url)
        new = desk.ask(QUESTION).receipt
    assert desk.verify_receipt(new).ok
    assert all("price_source" in s for s in new["stages"])
    previous = new["integrity"]["previous_receipt_sha256"]
    old = seal(_without_price_sources(new), desk.key, previous)
    assert "price_sources" not in old["usage"]
    assert desk.verify_receipt(old).ok, desk.verify_receipt(old).problems
    # The fields are signed content: changing a source breaks the seal.
    forged = {**new, "usage": {**new["usage"], "price_sources": ["price file /tmp/cheap.json"]}}
    assert not desk.verify_receipt(forged).ok
