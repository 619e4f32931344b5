"""Shared test configuration: no test reaches the network, and shared data is optional."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The embedding model loads from site-packages; the hub must never be asked.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_data_or_skip(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not present at {path} (real-data test)")
    return path
