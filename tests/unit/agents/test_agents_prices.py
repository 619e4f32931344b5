"""The price table: lookup by engine id across its sources (a price file, the packaged table,
genai-prices), spend arithmetic, the source each spend names, and price files that override."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import genai_prices
import pytest
from genai_prices import data_snapshot, update_prices

from evidence_desk.agents import prices as prices_module
from evidence_desk.agents.base import ModelUsage
from evidence_desk.agents.doctor import price_line
from evidence_desk.agents.prices import (
    GenaiPrices,
    Price,
    PriceFileError,
    PriceTable,
    Quote,
    TableSource,
)

PACKAGED = "packaged table 2025-10-01"
GENAI = f"genai-prices {genai_prices.__version__}"


@pytest.fixture(scope="module")
def table() -> PriceTable:
    return PriceTable.load()


def write(tmp_path: Path, data: object, name: str = "prices.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_packaged_table_loads(table: PriceTable) -> None:
    packaged, genai = table.sources
    assert isinstance(packaged, TableSource) and isinstance(genai, GenaiPrices)
    assert packaged.as_of == "2025-10-01" and packaged.source == PACKAGED
    assert len(packaged.prices) >= 10
    assert all(p.input_per_mtok >= 0 and p.output_per_mtok >= 0 for p in packaged.prices.values())
    assert table.price("offline") == Price(0.0, 0.0)


def test_the_packaged_prices_agree_with_genai_prices(table: PriceTable) -> None:
    # Every hosted model the table lists has the base rates genai-prices ships for it.
    packaged = table.sources[0]
    assert isinstance(packaged, TableSource)
    hosted = [k for k in packaged.prices if ":" in k and not k.endswith("*")]
    for engine in hosted:
        quote = GenaiPrices().quote(engine)
        assert quote is not None and quote.price == packaged.prices[engine], engine


def test_an_exact_id(table: PriceTable) -> None:
    assert table.price("openai:gpt-4.1-mini") == Price(0.4, 1.6)
    assert table.price("openai:gpt-4.1") == Price(2.0, 8.0)
    assert table.price("anthropic:claude-sonnet-4-5") == Price(3.0, 15.0)


def test_openai_responses_uses_the_openai_prices(table: PriceTable) -> None:
    assert table.price("openai-responses:gpt-4.1-mini") == table.price("openai:gpt-4.1-mini")
    assert table.price("openai-responses:gpt-4o") == Price(2.5, 10.0)
    assert table.price("openai-responses:no-such-model") is None


def test_a_dated_snapshot_matches_its_model_not_a_shorter_one(table: PriceTable) -> None:
    assert table.price("openai:gpt-4.1-mini-2025-04-14") == Price(0.4, 1.6)
    assert table.price("openai:gpt-4.1-2025-04-14") == Price(2.0, 8.0)
    assert table.price("openai-responses:gpt-4.1-nano-2025-04-14") == Price(0.1, 0.4)


def test_a_model_that_only_shares_a_prefix_has_no_price(table: PriceTable) -> None:
    # Not a dated snapshot of gpt-4.1: another model.
    assert table.price("openai:gpt-4.1-turbo") is None
    assert table.price("openai:gpt-4.1x") is None


SELF_HOSTED = [
    "ollama:llama3.1",
    "ollama:qwen2.5:7b",
    "openai-compatible:llama@http://h:8000/v1",
    "vllm:qwen3-8b",
    "llamacpp:gemma-3",
    # A local model under a hosted model's name is still free: genai-prices is not asked.
    "vllm:gpt-4-turbo",
    "llamacpp:claude-opus-4-5",
]


@pytest.mark.parametrize("engine", SELF_HOSTED)
def test_a_wildcard_entry_prices_every_model_it_prefixes(table: PriceTable, engine: str) -> None:
    assert table.price(engine) == Price(0.0, 0.0)
    assert table.spend(engine, 10_000, 10_000) == 0.0
    assert table.quote(engine) == Quote(Price(0.0, 0.0), PACKAGED)


@pytest.mark.parametrize("engine", SELF_HOSTED)
def test_genai_prices_is_never_asked_about_a_self_hosted_model(engine: str) -> None:
    assert GenaiPrices().quote(engine) is None
    assert GenaiPrices().estimate(engine, 1000, 1000) is None


@pytest.mark.parametrize(
    "engine",
    [
        "anthropic:claude-9",
        "mistral:large",
        "openai:",
        "gpt-4.1-mini",
        "ollama",
        "openai:gpt-4.1-turbo",
        "openai-responses:no-such-model",
        "anthropic:gpt-4-turbo",  # genai-prices knows it, not from this provider
    ],
)
def test_an_unknown_model_has_no_price(table: PriceTable, engine: str) -> None:
    assert table.price(engine) is None
    assert table.quote(engine) is None
    assert table.spend(engine, 1000, 1000) is None
    assert table.estimate(engine, 1000, 1000) is None
    assert table.usage(engine, 1, 1000, 1000) == ModelUsage(
        engine, 1, 1000, 1000, spend_usd=None, price_source=None
    )


def test_spend_arithmetic(table: PriceTable) -> None:
    assert table.spend("openai:gpt-4.1-mini", 1_000_000, 0) == pytest.approx(0.4)
    assert table.spend("openai:gpt-4.1-mini", 0, 1_000_000) == pytest.approx(1.6)
    assert table.spend("openai:gpt-4.1-mini", 2_500, 500) == pytest.approx(
        (2_500 * 0.4 + 500 * 1.6) / 1e6
    )
    assert table.spend("openai:gpt-4.1-mini", 0, 0) == 0.0


def test_price_spend_is_per_million_tokens() -> None:
    assert Price(3.0, 15.0).spend(1_000_000, 1_000_000) == pytest.approx(18.0)
    assert Price(3.0, 15.0).spend(1, 0) == pytest.approx(3e-6)


def test_the_longest_wildcard_wins() -> None:
    table = PriceTable([TableSource({"x:*": Price(1.0, 1.0), "x:big-*": Price(5.0, 5.0)}, "t")])
    assert table.price("x:big-model") == Price(5.0, 5.0)
    assert table.price("x:small") == Price(1.0, 1.0)


def test_an_exact_entry_beats_a_snapshot_and_a_wildcard() -> None:
    prices = {"p:m": Price(1.0, 1.0), "p:m-2025-01-01": Price(2.0, 2.0), "p:*": Price(3.0, 3.0)}
    table = PriceTable([TableSource(prices, "t")])
    assert table.price("p:m-2025-01-01") == Price(2.0, 2.0)
    assert table.price("p:m-2026-01-01") == Price(1.0, 1.0)
    assert table.price("p:other") == Price(3.0, 3.0)


# --------------------------------------------------------------------------- price files


def test_an_override_file_replaces_and_adds_entries(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "as_of": "2026-02-01",
            "models": {
                "openai:gpt-4.1-mini": {"input": 1, "output": 2.5},
                "local:my-model": {"input": 0.01, "output": 0.02},
            },
        },
    )
    packaged = PriceTable.load()
    table = PriceTable.load(path)
    override = table.sources[0]
    assert isinstance(override, TableSource) and override.as_of == "2026-02-01"
    assert len(table.sources) == 3 and isinstance(table.sources[2], GenaiPrices)
    assert table.price("openai:gpt-4.1-mini") == Price(1.0, 2.5)
    assert table.price("openai:gpt-4.1-mini-2025-04-14") == Price(1.0, 2.5)
    assert table.price("local:my-model") == Price(0.01, 0.02)
    assert table.price("openai:gpt-4.1") == packaged.price("openai:gpt-4.1")
    assert table.spend("openai:gpt-4.1-mini", 1_000_000, 1_000_000) == pytest.approx(3.5)
    # Loading an override leaves the packaged table as it was.
    assert PriceTable.load().price("openai:gpt-4.1-mini") == Price(0.4, 1.6)


def test_each_spend_names_its_price_source(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"as_of": "2026-02-01", "models": {"openai:gpt-4.1-mini": {"input": 1, "output": 2}}},
    )
    table = PriceTable.load(path)
    own = f"price file {path} (as_of 2026-02-01)"
    assert table.estimate("openai:gpt-4.1-mini", 1_000_000, 0) == prices_module.Estimate(1.0, own)
    assert table.quote("openai:gpt-4.1") == Quote(Price(2.0, 8.0), PACKAGED)
    genai = table.estimate("openai:gpt-4-turbo", 1_000_000, 1_000_000)
    assert genai is not None and genai.source == GENAI
    assert table.usage("openai:gpt-4.1", 2, 1000, 500) == ModelUsage(
        "openai:gpt-4.1",
        2,
        1000,
        500,
        spend_usd=(1000 * 2.0 + 500 * 8.0) / 1e6,
        price_source=PACKAGED,
    )
    assert table.usage("ollama:llama3.1").price_source == PACKAGED  # free, and says so


def test_an_override_without_as_of_is_named_by_its_path(tmp_path: Path) -> None:
    path = write(tmp_path, {"models": {"x:y": {"input": 1, "output": 1}}})
    table = PriceTable.load(path)
    assert table.quote("x:y") == Quote(Price(1.0, 1.0), f"price file {path}")
    assert table.quote("openai:gpt-4.1") == Quote(Price(2.0, 8.0), PACKAGED)


def test_the_override_is_looked_up_before_the_packaged_table(tmp_path: Path) -> None:
    # A wildcard in the price file beats the packaged table's exact entry: the file first.
    path = write(tmp_path, {"models": {"openai:*": {"input": 9, "output": 9}}})
    table = PriceTable.load(path)
    assert table.price("openai:gpt-4.1-mini") == Price(9.0, 9.0)
    assert table.price("openai-responses:gpt-4o") == Price(9.0, 9.0)
    assert table.price("openai:gpt-4-turbo") == Price(9.0, 9.0)  # before genai-prices too
    assert table.price("anthropic:claude-haiku-4-5") == Price(1.0, 5.0)


# --------------------------------------------------------------------------- genai-prices


@pytest.mark.parametrize(
    ("engine", "price"),
    [
        ("openai:gpt-4-turbo", Price(10.0, 30.0)),
        ("openai-responses:gpt-4-turbo", Price(10.0, 30.0)),
        ("openai:o3-mini-2025-01-31", Price(1.1, 4.4)),
        ("anthropic:claude-opus-4-5", Price(5.0, 25.0)),
    ],
)
def test_a_model_only_genai_prices_knows_is_priced_by_it(
    table: PriceTable, engine: str, price: Price
) -> None:
    assert table.quote(engine) == Quote(price, GENAI)
    spend = table.estimate(engine, 2_000, 1_000)
    assert spend is not None and spend.source == GENAI
    assert spend.usd == pytest.approx(price.spend(2_000, 1_000))
    assert table.spend(engine, 0, 0) == 0.0


def test_genai_prices_applies_a_tier_past_its_input_tokens() -> None:
    # claude-sonnet-4-5: $3 / $15 per M, $6 / $22.50 once a request has over 200,000 input
    # tokens (the packaged table, first in line, lists the base rate only).
    quote = GenaiPrices().quote("anthropic:claude-sonnet-4-5")
    assert quote == Quote(Price(3.0, 15.0), GENAI, tiered=True)
    below = GenaiPrices().estimate("anthropic:claude-sonnet-4-5", 200_000, 1_000)
    above = GenaiPrices().estimate("anthropic:claude-sonnet-4-5", 300_000, 1_000)
    assert below is not None and below.usd == pytest.approx((200_000 * 3 + 1_000 * 15) / 1e6)
    assert above is not None and above.usd == pytest.approx((300_000 * 6 + 1_000 * 22.5) / 1e6)


@pytest.fixture
def no_genai_prices(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """genai-prices as if it were not installed."""
    prices_module._genai.cache_clear()
    monkeypatch.setitem(sys.modules, "genai_prices", None)
    yield
    monkeypatch.undo()
    prices_module._genai.cache_clear()


def test_without_genai_prices_its_models_stay_unpriced(no_genai_prices: None) -> None:
    table = PriceTable.load()
    assert table.quote("openai:gpt-4-turbo") is None
    assert table.spend("openai:gpt-4-turbo", 1000, 1000) is None
    assert table.usage("anthropic:claude-opus-4-5", 1, 10, 10).spend_usd is None
    assert table.quote("openai:gpt-4.1-mini") == Quote(Price(0.4, 1.6), PACKAGED)


def test_genai_prices_never_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its updater is the only code that downloads; a snapshot an updater installed (here an
    # empty one) is not read: the bundled data of the installed release is.
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("no network, no updater")

    monkeypatch.setattr(update_prices.UpdatePrices, "start", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(data_snapshot, "_custom_snapshot", None)
    data_snapshot.set_custom_snapshot(
        data_snapshot.DataSnapshot(providers=[], from_auto_update=True)
    )
    try:
        prices_module._genai.cache_clear()
        spend = PriceTable.load().estimate("openai:gpt-4-turbo", 1_000_000, 0)
    finally:
        data_snapshot.set_custom_snapshot(None)
    assert spend == prices_module.Estimate(10.0, GENAI)


# --------------------------------------------------------------------------- usage and doctor


def usage(spend: float | None, source: str | None) -> ModelUsage:
    return ModelUsage("e", 1, 10, 5, spend_usd=spend, price_source=source)


def test_a_sum_of_usages_keeps_one_source_and_lists_different_ones() -> None:
    assert (usage(0.1, "a") + usage(0.2, "a")).price_source == "a"
    assert (usage(0.1, "a") + usage(0.2, "b")).price_source == "a; b"
    assert (usage(0.1, "a") + usage(0.2, "b") + usage(0.0, "a")).price_source == "a; b"
    total = usage(0.1, "a") + usage(None, None)
    assert (total.spend_usd, total.price_source) == (None, None)
    assert (usage(None, None) + usage(0.1, "a")).price_source is None
    assert (usage(0.1, None) + usage(0.2, "b")).price_source == "b"


def test_doctor_names_the_price_and_its_source(table: PriceTable) -> None:
    assert price_line(table.quote("openai:gpt-4.1-mini")) == (
        f"$0.4 in / $1.6 out per M tokens (from {PACKAGED})"
    )
    assert price_line(table.quote("openai:gpt-4-turbo")) == (
        f"$10 in / $30 out per M tokens (from {GENAI})"
    )
    assert price_line(GenaiPrices().quote("anthropic:claude-sonnet-4-5")) == (
        f"$3 in / $15 out per M tokens, more past a number of input tokens (from {GENAI})"
    )
    assert price_line(table.quote("mistral:large")).startswith("unpriced")


# --------------------------------------------------------------------------- bad price files


def test_a_missing_file_raises(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(PriceFileError, match="Cannot read the price file") as info:
        PriceTable.load(missing)
    assert str(missing) in str(info.value)


def test_a_file_that_is_not_json_raises(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"models": {"a": ', encoding="utf-8")
    with pytest.raises(PriceFileError, match="Cannot read the price file"):
        PriceTable.load(path)


@pytest.mark.parametrize("data", [[], {"prices": {}}, {"models": []}, {"models": "cheap"}, 3])
def test_a_file_without_a_models_object_raises(tmp_path: Path, data: object) -> None:
    path = write(tmp_path, data)
    with pytest.raises(PriceFileError, match="has no 'models' object") as info:
        PriceTable.load(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    "entry",
    [
        {"input": "cheap", "output": 1.0},
        {"input": 1.0},
        {"output": 1.0},
        {"input": None, "output": 1.0},
        {"input": [1.0], "output": 1.0},
        [1.0, 2.0],
        "1.0",
        None,
    ],
)
def test_a_non_numeric_or_incomplete_price_raises(tmp_path: Path, entry: object) -> None:
    path = write(tmp_path, {"models": {"openai:gpt-4.1-mini": entry}})
    with pytest.raises(PriceFileError, match="needs numeric 'input' and 'output'") as info:
        PriceTable.load(path)
    message = str(info.value)
    assert "'openai:gpt-4.1-mini'" in message
    assert str(path) in message


@pytest.mark.parametrize("entry", [{"input": -0.1, "output": 1.0}, {"input": 1.0, "output": -5}])
def test_a_negative_price_raises(tmp_path: Path, entry: object) -> None:
    path = write(tmp_path, {"models": {"x:y": entry}})
    with pytest.raises(PriceFileError, match=r"'x:y' must be a finite number, zero or more\.$"):
        PriceTable.load(path)


def test_a_price_file_error_is_a_value_error() -> None:
    assert issubclass(PriceFileError, ValueError)


@pytest.mark.parametrize("value", ["NaN", "inf", "-nan"])
def test_a_price_that_is_not_a_finite_number_raises(tmp_path: Path, value: str) -> None:
    path = write(tmp_path, {"models": {"x:y": {"input": value, "output": 1.0}}})
    with pytest.raises(PriceFileError):
        PriceTable.load(path)
