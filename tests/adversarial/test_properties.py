"""Property: a hostile mutation of a real sentence is never published, whatever the auditor.

Hypothesis draws an address (held in memory, the text the JSONL loader stores), a family, a
kind of mutation and the random choices inside it (which sentence, which word, which mark),
and the draft goes through `check` with an auditor that calls every claim supported. Only
the deterministic checks and the gate decide; the oracle is `judge.escaped`, which reads
the generator's record of what is false, not the code under test.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from evidence_desk.judgment import QuestionReader
from evidence_desk.settings import Settings
from evidence_desk.types import GatePolicy

from .cases import Case
from .corpus import SOTU, DocView, MemoryStore, memory_documents, memory_reader, view
from .hostile import FAMILIES
from .judge import SupportedAuditor, run

IDS = ("1796-Washington-1", "1941-Roosevelt-1", "1963-Kennedy-1")
# Defaults, not the environment: the passages must be the ones `check` cuts by default.
SETTINGS = Settings.model_construct(home=Path("/nonexistent/evidence-desk-adversarial"))
POLICY = GatePolicy(coverage_floor=SETTINGS.coverage_floor)
DOCS = memory_documents(IDS)
STORE = MemoryStore(DOCS)
VIEWS = {d.doc_id: view(SOTU, d, SETTINGS.passage_words, SETTINGS.passage_max_words) for d in DOCS}
POOLS: dict[str, list[DocView]] = {SOTU: list(VIEWS.values())}
AUDITOR = SupportedAuditor()


@pytest.fixture(scope="module")
def reads(tmp_path_factory: pytest.TempPathFactory) -> QuestionReader:
    """The questions read as `check` reads them, over these three addresses."""
    return memory_reader(list(VIEWS.values()), SETTINGS, tmp_path_factory.mktemp("lexical"))


def _mutation(family: str, kind: int, doc: DocView, rng: random.Random) -> Case | None:
    kinds = FAMILIES[family]
    for attempt in range(len(kinds) * 3):  # a kind may not apply to the sentence it drew
        case = kinds[(kind + attempt) % len(kinds)](rng, doc, POOLS)
        if case is not None:
            return case
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    kind=st.integers(0, 20),
    doc_id=st.sampled_from(IDS),
    rng=st.randoms(use_true_random=False),
)
def test_a_mutated_real_sentence_is_never_published(
    reads: QuestionReader, family: str, kind: int, doc_id: str, rng: random.Random
) -> None:
    case = _mutation(family, kind, VIEWS[doc_id], rng)
    assume(case is not None)
    assert case is not None
    event(f"{family}/{case.kind.split(' ')[0]}")
    (outcome,) = run([case], STORE, AUDITOR, POLICY, SETTINGS, False, reads)  # type: ignore[arg-type]
    assert not outcome.escaped, outcome.describe()
