"""The price table behind every receipt's estimated spend.

Prices are USD per million input and output tokens, keyed by engine id
(`openai:gpt-4.1-mini`). The packaged table (`data/prices.json`) lists public list prices
on its `as_of` date; `EVIDENCE_DESK_PRICES_FILE` names a JSON file in the same shape whose
entries replace or add to it. Lookup, in order:

1. the exact id (`openai-responses:` ids use the `openai:` entries: same models, same prices);
2. a dated snapshot of a listed model (`openai:gpt-4.1-mini-2025-04-14`);
3. the longest wildcard entry that prefixes the id (`ollama:*`).

A model with no entry has no estimate: the receipt records its spend as unknown rather
than as zero.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import DeskError


class PriceFileError(DeskError, ValueError):
    """A price file that cannot be read."""


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float

    def spend(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


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


class PriceTable:
    def __init__(self, prices: dict[str, Price], as_of: str = "") -> None:
        self.prices = prices
        self.as_of = as_of

    @classmethod
    def load(cls, override: Path | None = None) -> PriceTable:
        """The packaged table, with `override`'s entries on top."""
        packaged = json.loads(
            resources.files("evidence_desk").joinpath("data/prices.json").read_text("utf-8")
        )
        prices = _entries(packaged, "The packaged price table")
        as_of = str(packaged.get("as_of", ""))
        if override is not None:
            try:
                data = json.loads(override.read_text("utf-8"))
            except (OSError, ValueError) as exc:
                raise PriceFileError(f"Cannot read the price file {override}: {exc}") from None
            prices.update(_entries(data, f"The price file {override}"))
            as_of = str(data.get("as_of", as_of)) if isinstance(data, dict) else as_of
        return cls(prices, as_of)

    def price(self, engine_id: str) -> Price | None:
        key = engine_id.replace("openai-responses:", "openai:", 1)
        if key in self.prices:
            return self.prices[key]
        snapshots = [k for k in self.prices if key.startswith(k + "-20")]
        if snapshots:
            return self.prices[max(snapshots, key=len)]
        wild = [k for k in self.prices if k.endswith("*") and key.startswith(k[:-1])]
        return self.prices[max(wild, key=len)] if wild else None

    def spend(self, engine_id: str, input_tokens: int, output_tokens: int) -> float | None:
        price = self.price(engine_id)
        return None if price is None else price.spend(input_tokens, output_tokens)
