"""Fitting the offline auditor's thresholds to labelled claims, and scoring the fit.

The auditor's features (`ClaimFeatures`) do not depend on the thresholds, so a labelled set
is read once and `decide` is replayed in numpy over a grid of thresholds. Labels are WiCE's
(supported / partially_supported / not_supported); `contradicted` counts as not supported.
`bench/wice.py` drives this; `replay` must agree with `decide` (a unit test checks it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ...types import Verdict
from .auditor import ClaimFeatures, decide
from .calibration import AuditThresholds

Array = npt.NDArray[Any]
LABELS = ("supported", "partially_supported", "not_supported")
TO_LABEL = {
    Verdict.SUPPORTED: "supported",
    Verdict.PARTIAL: "partially_supported",
    Verdict.UNSUPPORTED: "not_supported",
    Verdict.CONTRADICTED: "not_supported",
}


def metrics(gold: Sequence[str], pred: Sequence[str]) -> dict[str, Any]:
    """Accuracy, macro-F1, confusion matrix (rows gold, columns predicted), per-class P/R."""
    confusion = {g: {p: 0 for p in LABELS} for g in LABELS}
    for g, p in zip(gold, pred, strict=True):
        confusion[g][p] += 1
    per_class: dict[str, dict[str, float]] = {}
    for c in LABELS:
        tp = confusion[c][c]
        predicted = sum(confusion[g][c] for g in LABELS)
        actual = sum(confusion[c].values())
        precision = tp / predicted if predicted else 0.0
        recall = tp / actual if actual else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[c] = {
            "precision": round(precision, 3),
            "recall": round(recall, 3),
            "f1": round(f1, 3),
        }
    n = len(gold)
    binary = sum((g == "supported") == (p == "supported") for g, p in zip(gold, pred, strict=True))
    return {
        "n": n,
        "accuracy": round(sum(g == p for g, p in zip(gold, pred, strict=True)) / n, 3),
        "macro_f1": round(sum(v["f1"] for v in per_class.values()) / len(LABELS), 3),
        "binary_accuracy": round(binary / n, 3),
        "confusion": confusion,
        "per_class": per_class,
    }


def majority(train: Sequence[str], gold: Sequence[str]) -> dict[str, Any]:
    """The baseline that always answers the training split's most common label."""
    top = max(LABELS, key=lambda c: sum(g == c for g in train))
    return {
        "label": top,
        **{k: v for k, v in metrics(gold, [top] * len(gold)).items() if k != "confusion"},
    }


# Label codes as `replay` returns them (3, contradicted, scores as not_supported).
GOLD_CODE = {"not_supported": 0, "partially_supported": 1, "supported": 2}


def arrays(features: Sequence[ClaimFeatures]) -> dict[str, Array]:
    """The features as arrays, for replaying `decide` over many thresholds at once."""

    def arr(fn: Callable[[ClaimFeatures], float]) -> Array:
        return np.array([fn(f) for f in features], dtype=np.float64)

    return {
        "cov": arr(lambda f: f.coverage),
        "sim": arr(lambda f: max(f.similarity if f.similarity is not None else f.coverage, 0.0)),
        "missing": arr(lambda f: bool(f.missing_numbers)).astype(bool),
        "nonverbatim": arr(lambda f: f.quotes_verbatim < f.quotes).astype(bool),
        "negmiss": arr(lambda f: f.negation_missing).astype(bool),
        "fast": arr(
            lambda f: (
                bool(f.quotes)
                and f.quotes_verbatim == f.quotes
                and f.coverage >= 0.999
                and not f.missing_numbers
                and not f.negation_missing
            )
        ).astype(bool),
        "contra": arr(lambda f: f.negation_conflict or f.number_conflict is not None).astype(bool),
        "unknown": arr(lambda f: not f.known_citations).astype(bool),
    }


def replay(a: dict[str, Array], score: Array, part: float, sup: float, cap: int) -> Array:
    """`decide` in numpy: 0 unsupported, 1 partial, 2 supported, 3 contradicted."""
    v = np.where(score >= sup, 2, np.where(score >= part, 1, 0))
    v = np.where(a["missing"], np.minimum(v, cap), v)
    v = np.where(a["nonverbatim"], np.minimum(v, 1), v)
    v = np.where(a["negmiss"], np.minimum(v, 1), v)
    v = np.where(a["fast"], 2, v)
    v = np.where(a["contra"], 3, v)
    return np.where(a["unknown"], 0, v)


def macro_f1(gold: Array, pred: Array) -> tuple[float, float]:
    """(3-class macro-F1, accuracy) of replayed codes against gold codes (GOLD_CODE)."""
    pred = np.where(pred == 3, 0, pred)
    f1s = []
    for c in range(3):
        tp = float(np.sum((pred == c) & (gold == c)))
        p = tp / max(1.0, float(np.sum(pred == c)))
        r = tp / max(1.0, float(np.sum(gold == c)))
        f1s.append(2 * p * r / (p + r) if p + r else 0.0)
    return sum(f1s) / 3, float(np.mean(pred == gold))


def precision(gold: Array, pred: Array, label: int = 2) -> float:
    """Precision of one label code (2: supported)."""
    said = pred == label
    return float(np.sum(said & (gold == label))) / max(1, int(np.sum(said)))


def grid_search(
    by_sentences: dict[int, list[ClaimFeatures]],
    gold_labels: Sequence[str],
    base: AuditThresholds,
    min_precision: float = 0.0,
) -> tuple[AuditThresholds, float]:
    """The thresholds with the best dev macro-F1 (ties: accuracy, then the stricter bar).

    With `min_precision`, only settings whose "supported" precision reaches it count.
    """
    gold = np.array([GOLD_CODE[g] for g in gold_labels])
    steps = np.round(np.arange(0.2, 1.0001, 0.025), 3)
    best: tuple[float, float, float] = (-1.0, -1.0, -1.0)
    chosen = base
    for max_sentences, feats in sorted(by_sentences.items()):
        a = arrays(feats)
        for w in np.round(np.arange(0.0, 1.0001, 0.1), 2):
            score = w * a["cov"] + (1 - w) * a["sim"]
            for cap_name, cap in (("partial", 1), ("unsupported", 0)):
                for part in steps:
                    for sup in steps[steps >= part]:
                        pred = replay(a, score, part, sup, cap)
                        if min_precision and precision(gold, pred) < min_precision:
                            continue
                        f1, acc = macro_f1(gold, pred)
                        key = (round(f1, 6), round(acc, 6), float(sup))
                        if key > best:
                            best = key
                            chosen = replace(
                                base, lexical_weight=float(w), partial=float(part),
                                supported=float(sup), max_sentences=max_sentences,
                                missing_number_cap=cap_name,
                            )  # fmt: skip
    return chosen, best[0]


def tradeoff(
    dev_features: dict[int, list[ClaimFeatures]],
    dev_labels: Sequence[str],
    test_features: dict[int, list[ClaimFeatures]],
    test_labels: Sequence[str],
) -> list[dict[str, Any]]:
    """Stricter settings: the best dev macro-F1 whose "supported" precision reaches a floor."""
    rows: list[dict[str, Any]] = []
    test_gold = np.array([GOLD_CODE[label] for label in test_labels])
    for floor in (0.6, 0.7, 0.8, 0.9, 0.95):
        t, f1 = grid_search(dev_features, dev_labels, AuditThresholds(), floor)
        pred = np.array([GOLD_CODE[p] for p in predict(test_features[t.max_sentences], t)])
        recall = float(np.sum((pred == 2) & (test_gold == 2))) / max(1, int(np.sum(test_gold == 2)))
        rows.append(
            {
                "dev_supported_precision_floor": floor,
                "dev_macro_f1": round(f1, 3),
                "test_macro_f1": round(macro_f1(test_gold, pred)[0], 3),
                "test_supported_precision": round(precision(test_gold, pred), 3),
                "test_supported_recall": round(recall, 3),
                "thresholds": {
                    "lexical_weight": t.lexical_weight,
                    "partial": t.partial,
                    "supported": t.supported,
                    "max_sentences": t.max_sentences,
                },
            }
        )
    return rows


def predict(features: Sequence[ClaimFeatures], t: AuditThresholds) -> list[str]:
    """The label `decide` gives each claim under thresholds `t`."""
    return [TO_LABEL[decide(f, t).verdict] for f in features]
