"""Shared test configuration: no test reaches the network, and shared data is optional.

No test may send a request to a real model provider: Pydantic AI's guard is off for the
whole run (`tests/providers` turns it on around its own local servers), and the provider
keys, base URLs and desk settings of whoever runs the tests are removed from each test's
environment.

`make test-fast` is the edit loop: it leaves out `slow`, `torch` and `browser` tests and selects the
`fast` Hypothesis profile, under which every property test runs with at most
`FAST_EXAMPLES` examples, its own `@settings(max_examples=...)` included. `make test` (CI)
never selects it: there each property test runs every example it asks for.
"""

from __future__ import annotations

import os
from pathlib import Path

import pydantic_ai.models
import pytest
from hypothesis import settings

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


# Fixtures that load the embedding model (torch): a test using any of them, itself or through
# another fixture, is marked `torch`, so `make test-fast` (`-m "not slow and not torch"`)
# leaves it to the full suite.
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
        "adversarial_archive",
    }
)


FAST_EXAMPLES = 20
settings.register_profile("fast", max_examples=FAST_EXAMPLES)


def _at_most_fast_examples(item: pytest.Item) -> None:
    """Cap a property test's own example count under the `fast` profile (a test's explicit
    `max_examples` outranks any profile; the count lives on the test, where Hypothesis's
    pytest plugin also amends it)."""
    test = getattr(item, "obj", None)
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if isinstance(own, settings) and own.max_examples > FAST_EXAMPLES:
        function = getattr(test, "__func__", test)
        function._hypothesis_internal_use_settings = settings(own, max_examples=FAST_EXAMPLES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    fast = settings.get_current_profile_name() == "fast"
    for item in items:
        if TORCH_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.torch)
        if fast:
            _at_most_fast_examples(item)


SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_data_or_skip(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not present at {path} (real-data test)")
    return path


def wordnet_or_skip() -> None:
    """Skip a test that needs WordNet's index files (Debian's `wordnet-base`, which `.ci/run`
    installs) when they are absent; `EVIDENCE_DESK_REQUIRE_WORDNET=1` turns the skip into a
    failure."""
    from evidence_desk.trust.lemmas import wordnet_dir

    if wordnet_dir() is None:
        if os.environ.get("EVIDENCE_DESK_REQUIRE_WORDNET") == "1":
            pytest.fail("WordNet's index files are not installed (apt-get install wordnet-base)")
        pytest.skip("WordNet's index files are not installed (Debian's wordnet-base)")


@pytest.fixture
def wordnet() -> None:
    """A test that compares synonyms (the paraphrase tier) needs WordNet."""
    wordnet_or_skip()
