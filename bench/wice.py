"""WiCE: calibrate the offline auditor on real claims with real web evidence, and measure it.

WiCE (Kamoi et al., 2023) pairs Wikipedia claims with the web pages they cite, labelled
supported / partially_supported / not_supported. Each claim's evidence sentence list stands
in for one cited source (one passage per sentence), the claim cites it as [S1], and the
auditor's verdict maps to a label (partial -> partially_supported; unsupported and
contradicted -> not_supported).

    python bench/wice.py               # evaluate the packaged thresholds on dev and test
    python bench/wice.py --calibrate   # grid-search thresholds on dev, write the json, evaluate

Calibration maximises 3-class macro-F1 on dev (accuracy would reward always answering the
majority class). Embeddings are cached under ~/.cache/evidence-desk/bench, so a re-run only
pays for the lexical work.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import BENCH_CACHE, SHARED_DATA, DiskCachedEmbedder, print_table, stopwatch
from evidence_desk.agents.base import Advice, ClaimToAudit, ModelUsage, RunBudget
from evidence_desk.agents.offline.answerer import claim_text
from evidence_desk.agents.offline.auditor import ClaimFeatures, OfflineAuditor
from evidence_desk.agents.offline.calibrate import (
    GOLD_CODE,
    LABELS,
    TO_LABEL,
    grid_search,
    macro_f1,
    majority,
    metrics,
    predict,
    tradeoff,
)
from evidence_desk.agents.offline.calibration import (
    AuditThresholds,
    calibration_path,
    load_thresholds,
    write_calibration,
)
from evidence_desk.agents.offline.evidence import collapse, quotable
from evidence_desk.judgment import judge
from evidence_desk.retrieval.embedder import MiniLMEmbedder
from evidence_desk.retrieval.embedders import make_embedder
from evidence_desk.settings import Settings
from evidence_desk.types import ClaimAudit, GatePolicy, ScoredPassage, Source, Verdict

WICE = SHARED_DATA / "wice" / "data" / "entailment_retrieval" / "claim"


# --------------------------------------------------------------------------- data


def load_split(name: str) -> list[dict[str, Any]]:
    with open(WICE / f"{name}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


PASSAGE_WORDS = 120  # the archive's passage target (EVIDENCE_DESK_PASSAGE_WORDS)


def to_source(rec: dict[str, Any], key: str) -> Source:
    """The record's evidence sentences as one source, cut into passages the way the archive
    cuts documents: consecutive sentences up to about `PASSAGE_WORDS` words each, so the
    auditor's one-passage rule meets passages of the size it meets in the product."""
    passages: list[ScoredPassage] = []
    text = ""
    title = ""
    start, words = 0, 0
    for sentence in rec["evidence"]:
        if not title and sentence.startswith("(meta data) TITLE:"):
            title = sentence.split(":", 1)[1].strip()
        n = len(sentence.split())
        if words and words + n > PASSAGE_WORDS:
            passages.append(_passage(key, len(passages), text, start))
            start, words = len(text) + 1, 0
        text = f"{text} {sentence}" if text else sentence
        words += n
    if text[start:]:
        passages.append(_passage(key, len(passages), text, start))
    digest = hashlib.sha256("\n".join(rec["evidence"]).encode("utf-8")).hexdigest()
    return Source(
        id="S1", doc_id=key, title=title, retrieved_at="2023-01-01T00:00:00Z",
        content_sha256=digest, passages=tuple(passages),
    )  # fmt: skip


def _passage(key: str, ordinal: int, text: str, start: int) -> ScoredPassage:
    return ScoredPassage(
        id=f"{key}#{ordinal}", text=text[start:], start=start, end=len(text), score=1.0
    )


def claim_of(text: str) -> ClaimToAudit:
    return ClaimToAudit(text=f"{text} [S1]", citations=("S1",))


def all_features(
    auditor: OfflineAuditor, records: list[dict[str, Any]], split: str
) -> list[ClaimFeatures]:
    out: list[ClaimFeatures] = []
    for i, rec in enumerate(records):
        source = to_source(rec, f"wice-{split}-{i}")
        out.extend(auditor.features([claim_of(rec["claim"])], [source]))
    return out


# --------------------------------------------------------------------------- metrics


# --------------------------------------------------------------------------- calibration

# --------------------------------------------------------------------------- checks


def _negate(sentence: str) -> str | None:
    m = re.search(
        r"\b(is|was|are|were|has|have|had|will|can|could|would|should|did|does)\b", sentence
    )
    return f"{sentence[: m.end()]} not{sentence[m.end() :]}" if m else None


def _change_number(sentence: str) -> str | None:
    m = re.search(r"\d+", sentence)
    if not m:
        return None
    digits = m.group(0)
    changed = digits[:-1] + str((int(digits[-1]) + 3) % 10)
    return sentence[: m.start()] + changed + sentence[m.end() :]


def constructed_claims(
    records: list[dict[str, Any]], split: str
) -> dict[str, list[tuple[str, Source]]]:
    """Claims built from each record's first supporting sentence, four ways.

    quoted: as the offline answerer writes it (framing + verbatim quote); plain: the
    sentence as a statement; negated: "not" after its first auxiliary; number: its first
    figure changed.
    """
    out: dict[str, list[tuple[str, Source]]] = {
        "quoted": [],
        "plain": [],
        "negated": [],
        "number": [],
    }
    for i, rec in enumerate(records):
        groups = [g for g in rec["supporting_sentences"] if g]
        if not groups:
            continue
        sentence = rec["evidence"][groups[0][0]]
        quote = quotable(sentence)
        if sentence.startswith("(meta data)") or quote is None or len(quote.split()) < 4:
            continue
        source = to_source(rec, f"wice-{split}-{i}")
        out["quoted"].append((claim_text(source, collapse(quote).rstrip(".,;:")), source))
        out["plain"].append((f"{collapse(sentence).rstrip('.')} [S1].", source))
        for kind, fn in (("negated", _negate), ("number", _change_number)):
            changed = fn(collapse(sentence).rstrip("."))
            if changed:
                out[kind].append((f"{changed} [S1].", source))
    return out


def verdict_shares(auditor: OfflineAuditor, claims: list[tuple[str, Source]]) -> dict[str, float]:
    counts = dict.fromkeys([v.value for v in Verdict], 0)
    for text, source in claims:
        cited = ClaimToAudit(text=text, citations=("S1",))
        counts[auditor.audit("", [cited], [source])[0].verdict.value] += 1
    n = max(1, len(claims))
    return {"n": len(claims), **{k: round(v / n, 3) for k, v in counts.items()}}


# --------------------------------------------------------------------------- main


def _print_split(name: str, m: dict[str, Any], base: dict[str, Any]) -> None:
    print_table(
        ["split", "n", "accuracy", "macro-F1", "binary acc.", "majority acc.", "majority binary"],
        [
            [
                name,
                m["n"],
                m["accuracy"],
                m["macro_f1"],
                m["binary_accuracy"],
                base["accuracy"],
                base["binary_accuracy"],
            ]
        ],
        title=f"WiCE {name}: auditor vs majority class ({base['label']})",
    )
    print_table(
        ["gold \\ predicted", *LABELS, "precision", "recall"],
        [
            [
                g,
                *(m["confusion"][g][p] for p in LABELS),
                m["per_class"][g]["precision"],
                m["per_class"][g]["recall"],
            ]
            for g in LABELS
        ],
        title=f"WiCE {name}: confusion matrix",
    )


def _print_tradeoff(rows: list[dict[str, Any]]) -> None:
    print_table(
        ["dev supp. P >=", "dev macro-F1", "test macro-F1", "test supp. P", "test supp. R"],
        [
            [r["dev_supported_precision_floor"], r["dev_macro_f1"], r["test_macro_f1"],
             r["test_supported_precision"], r["test_supported_recall"]]
            for r in rows
        ],
        title="Stricter settings: best dev macro-F1 under a floor on 'supported' precision",
    )  # fmt: skip


def _evaluate(
    auditor: OfflineAuditor, records: list[dict[str, Any]], split: str
) -> tuple[list[str], list[float]]:
    """Predicted labels through the product path (`audit`), and per-claim milliseconds."""
    labels: list[str] = []
    times: list[float] = []
    for i, rec in enumerate(records):
        source = to_source(rec, f"wice-{split}-{i}")
        with stopwatch() as box:
            verdict = auditor.audit("", [claim_of(rec["claim"])], [source])[0].verdict
        labels.append(TO_LABEL[verdict])
        times.append(box[0] * 1000)
    return labels, times


class _Offline:
    """The offline auditor as the judgment calls an auditor (`agents.base.Auditor`)."""

    engine_id = "offline"

    def __init__(self, inner: OfflineAuditor) -> None:
        self._inner = inner

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        return Advice(self._inner.audit(question, claims, sources), ModelUsage(engine="offline"))


def through_the_gate(
    auditor: OfflineAuditor, records: list[dict[str, Any]], split: str
) -> dict[str, dict[str, int]]:
    """Each claim as a one-sentence draft through the desk's one judgment (`judgment.judge`,
    the paraphrase policy, the evidence as its only source): how many publish, by the tier
    that grounds them and the gold label. A published claim whose gold label is not
    `supported` is one the offline auditor's spans let through."""
    policy = GatePolicy(coverage_floor=0.0, grounding="paraphrase")
    out: dict[str, dict[str, int]] = {}
    for i, rec in enumerate(records):
        source = to_source(rec, f"wice-{split}-{i}")
        texts = {"S1": " ".join(rec["evidence"])}
        judged = judge(
            claim_of(rec["claim"]).text, "", [source], texts, _Offline(auditor),
            RunBudget(1, 1), None, policy,
        )  # fmt: skip
        tier = "held"
        if judged.outcome.published_answer:  # a claim of several sentences: each one's tier
            tier = "+".join(sorted({str(c.checks.tier) for c in judged.claims if c.kept}))
        row = out.setdefault(tier, {label: 0 for label in LABELS})
        row[rec["label"]] += 1
    return out


def _print_gate(name: str, rows: dict[str, dict[str, int]]) -> None:
    print_table(
        ["grounded as", *LABELS, "precision"],
        [
            [
                tier,
                *(row[label] for label in LABELS),
                f"{row['supported'] / max(1, sum(row.values())):.2f}",
            ]
            for tier, row in sorted(rows.items())
        ],
        title=f"WiCE {name}: each claim through the judgment (offline auditor, paraphrase policy)",
    )


def _features_by_sentences(
    embedder: DiskCachedEmbedder, records: list[dict[str, Any]], split: str
) -> dict[int, list[ClaimFeatures]]:
    base = AuditThresholds()
    return {
        m: all_features(OfflineAuditor(embedder, replace(base, max_sentences=m)), records, split)
        for m in (1, 2, 3)
    }


def _calibrate(
    by_sentences: dict[int, list[ClaimFeatures]], dev: list[dict[str, Any]], min_precision: float
) -> AuditThresholds:
    labels = [r["label"] for r in dev]
    chosen, f1 = grid_search(by_sentences, labels, AuditThresholds(), min_precision)
    replayed = predict(by_sentences[chosen.max_sentences], chosen)
    gold = np.array([GOLD_CODE[r["label"]] for r in dev])
    again = macro_f1(gold, np.array([GOLD_CODE[p] for p in replayed]))[0]
    assert abs(again - f1) < 1e-6, "the numpy replay and decide() disagree"
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--calibrate", action="store_true", help="grid-search on dev and write the json"
    )
    parser.add_argument(
        "--out", type=Path, default=calibration_path(), help="calibration file to write"
    )
    parser.add_argument(
        "--min-precision",
        type=float,
        default=0.95,
        help="floor on the dev precision of 'supported' while calibrating (precision first)",
    )
    parser.add_argument(
        "--embedder",
        choices=("torch", "onnx-fp32", "onnx-int8"),
        default="torch",
        help="the auditor's embedder (the desk's judge is onnx-fp32 beside an int8 archive)",
    )
    args = parser.parse_args(argv)
    if not WICE.exists():
        print(f"WiCE is not at {WICE}; set EVIDENCE_DESK_SHARED_DATA to the shared data folder.")
        return 2
    dev, test = load_split("dev"), load_split("test")
    inner: Any = MiniLMEmbedder()
    cache_name = f"wice-minilm-{inner.precision}.npz"
    if args.embedder != "torch":
        inner = make_embedder(args.embedder, Settings())
        cache_name = f"wice-minilm-{inner.tag.replace('|', '-')}.npz"
    embedder = DiskCachedEmbedder(inner, BENCH_CACHE / cache_name)
    thresholds = load_thresholds()
    if args.calibrate:
        dev_features = _features_by_sentences(embedder, dev, "dev")
        thresholds = _calibrate(dev_features, dev, args.min_precision)
    auditor = OfflineAuditor(embedder, thresholds)
    dev_gold, test_gold = [r["label"] for r in dev], [r["label"] for r in test]
    dev_pred, _ = _evaluate(auditor, dev, "dev")
    test_pred, test_ms = _evaluate(auditor, test, "test")
    report: dict[str, Any] = {
        "calibrated_on": "WiCE claim-level dev split (349 claims): best 3-class macro-F1 "
        f"with 'supported' precision >= {args.min_precision}",
        "date": datetime.now(UTC).date().isoformat(),
        "embedder": f"{inner.model_id} ({inner.name}, {inner.precision})",
        "dev": {**metrics(dev_gold, dev_pred), "majority": majority(dev_gold, dev_gold)},
        "test": {**metrics(test_gold, test_pred), "majority": majority(dev_gold, test_gold)},
    }
    _print_split("dev", report["dev"], report["dev"]["majority"])
    _print_split("test", report["test"], report["test"]["majority"])
    constructed = constructed_claims(test, "test")
    report["constructed_test"] = {k: verdict_shares(auditor, v) for k, v in constructed.items()}
    print_table(
        ["claims built from supporting sentences", "n", *(v.value for v in Verdict)],
        [
            [k, v["n"], *(v[x.value] for x in Verdict)]
            for k, v in report["constructed_test"].items()
        ],
        title="WiCE test: constructed claims (share of each verdict)",
    )
    for name, records in (("dev", dev), ("test", test)):
        report[f"gate_{name}"] = through_the_gate(auditor, records, name)
        _print_gate(name, report[f"gate_{name}"])
    ms = sorted(test_ms)
    p50, worst = ms[len(ms) // 2], ms[-1]
    print(f"\naudit latency per WiCE claim (warm cache): p50 {p50:.1f} ms, max {worst:.0f} ms")
    print(f"thresholds: {json.dumps(thresholds.__dict__)}")
    if args.calibrate:
        test_features = _features_by_sentences(embedder, test, "test")
        report["tradeoff"] = tradeoff(dev_features, dev_gold, test_features, test_gold)
        _print_tradeoff(report["tradeoff"])
    embedder.save()
    if args.calibrate:
        write_calibration(args.out, thresholds, report)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
