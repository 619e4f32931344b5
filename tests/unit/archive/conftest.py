"""Fixtures for archive tests."""

from __future__ import annotations

import pytest
from archive_helpers import HashingEmbedder


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()
