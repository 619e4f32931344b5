"""Shared test configuration: no test reaches the network, and shared data is optional.

No test may send a request to a real model provider: Pydantic AI's guard is off for the
whole run (`tests/providers` turns it on around its own local servers), and the provider
keys, base URLs and desk settings of whoever runs the tests are removed from each test's
environment.
"""

from __future__ import annotations

import os
from pathlib import Path

import pydantic_ai.models
import pytest

# The embedding model loads from site-packages; the hub must never be asked.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

_PROVIDER_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")


@pytest.fixture(autouse=True)
def _no_outside_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name in _PROVIDER_ENV or name.startswith("EVIDENCE_DESK_"):
            monkeypatch.delenv(name)


# Fixtures that load the embedding model (torch): a test using any of them is marked
# `torch`, so `make test-fast` (`-m "not slow and not torch"`) leaves it to the full suite.
TORCH_FIXTURES = frozenset(
    {
        "built_home",
        "fresh_home",
        "tiny_rows",
        "tiny_index",
        "archive_home",
        "injected_home",
        "make_desk",
        "sample_desk",
        "dg_desk",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if TORCH_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.torch)


SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_data_or_skip(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not present at {path} (real-data test)")
    return path
