"""Calibration replays the auditor's decision exactly, and scores it correctly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_desk.agents.offline.auditor import ClaimFeatures
from evidence_desk.agents.offline.calibrate import (
    GOLD_CODE,
    arrays,
    grid_search,
    macro_f1,
    majority,
    metrics,
    predict,
    replay,
)
from evidence_desk.agents.offline.calibration import AuditThresholds

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
features = st.builds(
    ClaimFeatures,
    known_citations=st.booleans(),
    coverage=unit,
    similarity=st.one_of(st.none(), st.floats(min_value=-1.0, max_value=1.0)),
    best_overlap=unit,
    quotes=st.integers(0, 2),
    quotes_verbatim=st.integers(0, 2),
    missing_numbers=st.lists(st.sampled_from(["5", "1934"]), max_size=2).map(tuple),
    number_conflict=st.one_of(st.none(), st.just("4, not 5 (troop)")),
    negation_conflict=st.booleans(),
)
thresholds = st.builds(
    lambda w, a, b, cap: AuditThresholds(
        lexical_weight=w, partial=min(a, b), supported=max(a, b), missing_number_cap=cap
    ),
    unit,
    unit,
    unit,
    st.sampled_from(["partial", "unsupported"]),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(features, min_size=1, max_size=20), thresholds)
def test_numpy_replay_agrees_with_decide(feats: list[ClaimFeatures], t: AuditThresholds) -> None:
    a = arrays(feats)
    score = t.lexical_weight * a["cov"] + (1 - t.lexical_weight) * a["sim"]
    cap = 1 if t.missing_number_cap == "partial" else 0
    codes = replay(a, score, t.partial, t.supported, cap)
    replayed = np.where(codes == 3, 0, codes)
    assert replayed.tolist() == [GOLD_CODE[label] for label in predict(feats, t)]


def test_metrics_on_a_known_confusion() -> None:
    gold = ["supported", "supported", "partially_supported", "not_supported"]
    pred = ["supported", "partially_supported", "partially_supported", "supported"]
    m = metrics(gold, pred)
    assert m["accuracy"] == 0.5
    assert m["binary_accuracy"] == 0.5
    assert m["confusion"]["supported"]["partially_supported"] == 1
    assert m["per_class"]["supported"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    assert m["per_class"]["partially_supported"]["precision"] == 0.5
    assert majority(gold, gold)["label"] == "supported"
    f1, acc = macro_f1(
        np.array([GOLD_CODE[g] for g in gold]), np.array([GOLD_CODE[p] for p in pred])
    )
    assert acc == 0.5 and abs(f1 - m["macro_f1"]) < 1e-3


def test_grid_search_separates_cleanly_separable_features() -> None:
    def claim(cov: float) -> ClaimFeatures:
        return ClaimFeatures(known_citations=True, coverage=cov, similarity=cov)

    feats = [claim(0.95), claim(0.9), claim(0.6), claim(0.55), claim(0.1), claim(0.05)]
    labels = ["supported"] * 2 + ["partially_supported"] * 2 + ["not_supported"] * 2
    chosen, f1 = grid_search({1: feats}, labels, AuditThresholds())
    assert f1 == 1.0
    assert predict(feats, chosen) == labels
