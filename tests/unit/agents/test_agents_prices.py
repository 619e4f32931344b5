"""The price table: lookup by engine id, spend arithmetic and price files that override it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_desk.agents.prices import Price, PriceFileError, PriceTable


@pytest.fixture(scope="module")
def table() -> PriceTable:
    return PriceTable.load()


def write(tmp_path: Path, data: object, name: str = "prices.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_packaged_table_loads(table: PriceTable) -> None:
    assert table.as_of == "2025-10-01"
    assert len(table.prices) >= 10
    assert all(p.input_per_mtok >= 0 and p.output_per_mtok >= 0 for p in table.prices.values())
    assert table.price("offline") == Price(0.0, 0.0)


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


@pytest.mark.parametrize(
    "engine", ["ollama:llama3.1", "ollama:qwen2.5:7b", "openai-compatible:llama@http://h:8000/v1"]
)
def test_a_wildcard_entry_prices_every_model_it_prefixes(table: PriceTable, engine: str) -> None:
    assert table.price(engine) == Price(0.0, 0.0)
    assert table.spend(engine, 10_000, 10_000) == 0.0


@pytest.mark.parametrize(
    "engine", ["anthropic:claude-9", "mistral:large", "openai:", "gpt-4.1-mini", "ollama"]
)
def test_an_unknown_model_has_no_price(table: PriceTable, engine: str) -> None:
    assert table.price(engine) is None
    assert table.spend(engine, 1000, 1000) is None


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
    table = PriceTable({"x:*": Price(1.0, 1.0), "x:big-*": Price(5.0, 5.0)})
    assert table.price("x:big-model") == Price(5.0, 5.0)
    assert table.price("x:small") == Price(1.0, 1.0)


def test_an_exact_entry_beats_a_snapshot_and_a_wildcard() -> None:
    table = PriceTable(
        {
            "p:m": Price(1.0, 1.0),
            "p:m-2025-01-01": Price(2.0, 2.0),
            "p:*": Price(3.0, 3.0),
        }
    )
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
    assert table.as_of == "2026-02-01"
    assert table.price("openai:gpt-4.1-mini") == Price(1.0, 2.5)
    assert table.price("openai:gpt-4.1-mini-2025-04-14") == Price(1.0, 2.5)
    assert table.price("local:my-model") == Price(0.01, 0.02)
    assert table.price("openai:gpt-4.1") == packaged.price("openai:gpt-4.1")
    assert set(table.prices) == set(packaged.prices) | {"local:my-model"}
    assert table.spend("openai:gpt-4.1-mini", 1_000_000, 1_000_000) == pytest.approx(3.5)
    # Loading an override leaves the packaged table as it was.
    assert PriceTable.load().price("openai:gpt-4.1-mini") == Price(0.4, 1.6)


def test_an_override_without_as_of_keeps_the_packaged_date(tmp_path: Path) -> None:
    table = PriceTable.load(write(tmp_path, {"models": {}}))
    assert table.as_of == "2025-10-01"
    assert table.prices == PriceTable.load().prices


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
