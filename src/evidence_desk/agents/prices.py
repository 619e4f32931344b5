"""The prices behind every receipt's estimated spend, and where each price came from.

Prices are USD per million input and output tokens, keyed by engine id
(`openai:gpt-4.1-mini`). A model's price is looked up in three sources, in order; the first
that knows the model prices it, and names itself in the spend (`Estimate.source`):

1. the price file `EVIDENCE_DESK_PRICES_FILE` names, when set
   (source `price file /path (as_of 2026-02-01)`);
2. the packaged table `data/prices.json`: public list prices on its `as_of` date
   (source `packaged table 2025-10-01`). Self-hosted kinds (`ollama:`, `openai-compatible:`,
   `vllm:`, `llamacpp:`) are listed there as free;
3. the installed `genai-prices` package's bundled data (source `genai-prices 0.2.3`), for
   OpenAI (`openai:`, `openai-responses:`) and Anthropic (`anthropic:`) models the tables
   lack. It applies the model's tiered and dated prices as the package knows them.

Within a table (1 and 2), lookup is: the exact id (`openai-responses:` ids use the `openai:`
entries: same models, same prices); a dated snapshot of a listed model
(`openai:gpt-4.1-mini-2025-04-14`); the longest wildcard entry that prefixes the id
(`ollama:*`).

Every source prices input and output tokens only: cached input is priced as uncached input
and reasoning tokens as output (they are counted in it), so the estimate errs high. A model
no source knows has no estimate (nor has one only genai-prices knows, when it cannot be
imported): the receipt records its spend as unknown rather than as zero.

Nothing here touches the network: genai-prices downloads newer prices only when its
`UpdatePrices` updater is started (`pydantic_ai.prices.update_in_background`), which the desk
never does, and its bundled data is read directly (`GenaiPrices`), never a snapshot some
updater may have installed, so `genai-prices 0.2.3` always means that release's data.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import DeskError
from .base import ModelUsage

if TYPE_CHECKING:
    from genai_prices.data_snapshot import DataSnapshot
    from genai_prices.types import TieredPrices


class PriceFileError(DeskError, ValueError):
    """A price file that cannot be read."""


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float

    def spend(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


@dataclass(frozen=True)
class Quote:
    """A model's price and its source. `tiered`: a higher rate applies past some number of
    input tokens per request (`price` is then the base rate; spend applies the tiers)."""

    price: Price
    source: str
    tiered: bool = False


@dataclass(frozen=True)
class Estimate:
    """What some tokens cost, and the source of the price."""

    usd: float
    source: str


class PriceSource(Protocol):
    """One place prices come from."""

    def quote(self, engine_id: str) -> Quote | None: ...

    def estimate(
        self, engine_id: str, input_tokens: int, output_tokens: int
    ) -> Estimate | None: ...


def _entries(data: Any, origin: str) -> dict[str, Price]:
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise PriceFileError(f"{origin} has no 'models' object.")
    table: dict[str, Price] = {}
    for name, entry in models.items():
        try:
            price = Price(float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise PriceFileError(
                f"{origin}: the price of '{name}' needs numeric 'input' and 'output'."
            ) from None
        values = (price.input_per_mtok, price.output_per_mtok)
        if not all(math.isfinite(v) and v >= 0 for v in values):
            raise PriceFileError(
                f"{origin}: the price of '{name}' must be a finite number, zero or more."
            )
        table[str(name)] = price
    return table


class TableSource:
    """A price table in the `data/prices.json` shape: the packaged one or a price file."""

    def __init__(self, prices: dict[str, Price], source: str, as_of: str = "") -> None:
        self.prices = prices
        self.source = source
        self.as_of = as_of

    @classmethod
    def packaged(cls) -> TableSource:
        data = json.loads(
            resources.files("evidence_desk").joinpath("data/prices.json").read_text("utf-8")
        )
        as_of = str(data.get("as_of", ""))
        return cls(_entries(data, "The packaged price table"), f"packaged table {as_of}", as_of)

    @classmethod
    def read(cls, path: Path) -> TableSource:
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise PriceFileError(f"Cannot read the price file {path}: {exc}") from None
        prices = _entries(data, f"The price file {path}")
        as_of = str(data.get("as_of", ""))
        source = f"price file {path}" + (f" (as_of {as_of})" if as_of else "")
        return cls(prices, source, as_of)

    def price(self, engine_id: str) -> Price | None:
        key = engine_id.replace("openai-responses:", "openai:", 1)
        if key in self.prices:
            return self.prices[key]
        snapshots = [k for k in self.prices if key.startswith(k + "-20")]
        if snapshots:
            return self.prices[max(snapshots, key=len)]
        wild = [k for k in self.prices if k.endswith("*") and key.startswith(k[:-1])]
        return self.prices[max(wild, key=len)] if wild else None

    def quote(self, engine_id: str) -> Quote | None:
        price = self.price(engine_id)
        return None if price is None else Quote(price, self.source)

    def estimate(self, engine_id: str, input_tokens: int, output_tokens: int) -> Estimate | None:
        price = self.price(engine_id)
        if price is None:
            return None
        return Estimate(price.spend(input_tokens, output_tokens), self.source)


# The engine kinds genai-prices can price, by its provider id. Self-hosted kinds are free
# (packaged table) and never asked: a local model sharing a hosted model's name costs nothing.
GENAI_PROVIDERS = {"openai": "openai", "openai-responses": "openai", "anthropic": "anthropic"}


@cache
def _genai() -> tuple[DataSnapshot, str] | None:
    """genai-prices' bundled data as a snapshot of our own, and the package's version; None
    when it cannot be imported. Built from its data module, not `get_snapshot()`, which
    returns whatever an auto-updater last downloaded."""
    try:
        import genai_prices
        from genai_prices import data
        from genai_prices.data_snapshot import DataSnapshot
    except ImportError:
        return None
    return DataSnapshot(providers=data.providers, from_auto_update=False), genai_prices.__version__


def _base_rate(value: Decimal | TieredPrices | None) -> float:
    """A genai-prices per-million rate as a float: a tiered rate's base."""
    if value is None:
        return 0.0
    return float(value if isinstance(value, Decimal) else value.base)


class GenaiPrices:
    """The prices genai-prices ships with, for OpenAI and Anthropic models."""

    @staticmethod
    def _ref(engine_id: str) -> tuple[DataSnapshot, str, str, str] | None:
        """(its data, provider id, model ref, source) for an id it may know, else None."""
        kind, _, model = engine_id.partition(":")
        provider = GENAI_PROVIDERS.get(kind)
        genai = _genai()
        if provider is None or not model or genai is None:
            return None
        snapshot, version = genai
        return snapshot, provider, model, f"genai-prices {version}"

    def quote(self, engine_id: str) -> Quote | None:
        ref = self._ref(engine_id)
        if ref is None:
            return None
        snapshot, provider, model, source = ref
        try:
            _, info = snapshot.find_provider_model(model, None, provider, None)
        except LookupError:
            return None
        prices = info.get_prices(datetime.now(tz=UTC))
        rates = (prices.input_mtok, prices.output_mtok)
        tiered = any(r is not None and not isinstance(r, Decimal) for r in rates)
        return Quote(Price(*(_base_rate(r) for r in rates)), source, tiered)

    def estimate(self, engine_id: str, input_tokens: int, output_tokens: int) -> Estimate | None:
        ref = self._ref(engine_id)
        if ref is None:
            return None
        snapshot, provider, model, source = ref
        from genai_prices import Usage

        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
        try:
            calc = snapshot.calc(usage, model, provider, None, None)
        except (LookupError, ValueError):
            return None
        return Estimate(float(calc.total_price), source)


class PriceTable:
    """The price sources in lookup order (see the module docstring)."""

    def __init__(self, sources: Sequence[PriceSource]) -> None:
        self.sources = tuple(sources)

    @classmethod
    def load(cls, override: Path | None = None) -> PriceTable:
        """`override`'s entries, then the packaged table, then genai-prices."""
        sources: list[PriceSource] = [TableSource.packaged(), GenaiPrices()]
        if override is not None:
            sources.insert(0, TableSource.read(override))
        return cls(sources)

    def quote(self, engine_id: str) -> Quote | None:
        return next((q for s in self.sources if (q := s.quote(engine_id)) is not None), None)

    def price(self, engine_id: str) -> Price | None:
        quote = self.quote(engine_id)
        return None if quote is None else quote.price

    def estimate(self, engine_id: str, input_tokens: int, output_tokens: int) -> Estimate | None:
        for source in self.sources:
            found = source.estimate(engine_id, input_tokens, output_tokens)
            if found is not None:
                return found
        return None

    def spend(self, engine_id: str, input_tokens: int, output_tokens: int) -> float | None:
        found = self.estimate(engine_id, input_tokens, output_tokens)
        return None if found is None else found.usd

    def usage(
        self, engine_id: str, calls: int = 0, input_tokens: int = 0, output_tokens: int = 0
    ) -> ModelUsage:
        """`calls` requests' usage with their spend and its source (None both: unpriced)."""
        found = self.estimate(engine_id, input_tokens, output_tokens)
        return ModelUsage(
            engine=engine_id,
            calls=calls,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            spend_usd=None if found is None else found.usd,
            price_source=None if found is None else found.source,
        )
