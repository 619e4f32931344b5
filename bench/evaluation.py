"""Both evaluation sets through the whole desk, beside the desk before and a BM25 baseline.

For each set (the sample's `sotu` set and the `digitalgov` set, each on its own archive) the
bench prints, metric by metric:

* **before** — the desk at the commit before real archives were rendered and coverage
  learned the question's subject (figures recorded in `bench/data/evaluation_before.json`
  by running that commit's `evidence-desk eval` on the same questions; the digital.gov
  archive then stored raw markdown);
* **BM25** — a plain baseline on the archive as it is stored now: the best BM25 passage
  for the question (no time filter, no embedding, no coverage) and its two sentences that
  share the most IDF-weighted question terms, published as the answer. It never abstains;
* **now** — the desk as it is.

Latency is left to `bench.ask`: the recorded figures of the commit before were taken while
other jobs shared the machine. `--fusions` adds the earlier comparison of reciprocal-rank
fusion with score fusion (the default) on the same sets.

Run: `python -m bench.evaluation --sample-home DIR --digitalgov-home DIR2` where DIR holds
the ingested sample (`evidence-desk --data-dir DIR ingest --sample sotu`) and DIR2 the
digital.gov archive (`evidence-desk --data-dir DIR2 ingest
../shared/data/digitalgov-news/raw/content/news`). Without a home, a temporary data dir is
built first (minutes, or seconds with a warm embedding cache); the digital.gov set is
skipped, with the reason, when the shared data is absent.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import Question, bundled_questions
from evidence_desk.evaluation.report import format_value
from evidence_desk.evaluation.runner import source_markup
from evidence_desk.settings import Settings
from evidence_desk.textutil import content_terms, sentence_spans
from evidence_desk.trust.text import find_verbatim

from ._util import SHARED_DATA, sample_home

BEFORE = Path(__file__).parent / "data" / "evaluation_before.json"
DIGITALGOV_FOLDER = SHARED_DATA / "digitalgov-news" / "raw" / "content" / "news"
SETS = ("sotu", "digitalgov")
KEYS = (
    "answer_accuracy",
    "evidence_recall",
    "abstention_precision",
    "abstention_recall",
    "out_of_coverage_published",
    "published_quotes_verbatim_rate",
    "published_answers_with_markup",
)


@contextmanager
def digitalgov_home(home: Path | None) -> Iterator[Path | None]:
    """`home`, else a temporary data dir with the digital.gov folder ingested (None when the
    shared data is absent)."""
    if home is not None:
        yield home
        return
    if not DIGITALGOV_FOLDER.exists():
        yield None
        return
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "home"
        Desk(Settings(home=built)).ingest([DIGITALGOV_FOLDER])
        yield built


def bm25_baseline(desk: Desk, questions: list[Question]) -> dict[str, Any]:
    """The baseline's summary over `questions` (the same keys as the desk's, where they
    apply)."""
    index = desk.archive.refresh()
    assert index is not None, "the archive is empty"
    n = max(index.count, 1)
    items = []
    for q in questions:
        ranked = index.search(q.question, None, k=1, mode="lexical")
        passage = desk.store.passages_by_ids([ranked[0].passage_id])[0] if ranked else None
        answer = ""
        evidence: list[bool] = []
        if passage is not None:
            terms = set(content_terms(q.question))

            def weight(sentence: str, terms: set[str] = terms) -> float:
                found = terms & set(content_terms(sentence))
                return sum(math.log(1 + n / (1 + index.doc_freq(t))) for t in found)

            sentences = [passage.text[a:b] for a, b in sentence_spans(passage.text)]
            best = sorted(sentences, key=lambda s: -weight(s))[:2]
            answer = " ".join(s for s in sentences if s in best)
            doc = desk.store.get_document(passage.doc_id)
            for ev in q.gold_evidence:
                span = (
                    find_verbatim(ev, doc.text)
                    if doc and passage.doc_id in q.gold_doc_ids
                    else None
                )
                evidence.append(
                    span is not None and passage.start <= span[0] and span[1] <= passage.end
                )
        items.append((q, answer, evidence))
    answerable = [(q, a, e) for q, a, e in items if q.answerable]
    ooc = [(q, a, e) for q, a, e in items if not q.answerable]
    hits = [h for _, _, e in answerable for h in e]
    return {
        "answer_accuracy": round(
            sum(any(s.lower() in a.lower() for s in q.answer_any) for q, a, _ in answerable)
            / max(len(answerable), 1),
            4,
        ),
        "evidence_recall": round(sum(hits) / max(len(hits), 1), 4),
        "abstention_precision": None,
        "abstention_recall": 0.0,
        "out_of_coverage_published": sum(bool(a) for _, a, _ in ooc),
        "published_quotes_verbatim_rate": None,
        "published_answers_with_markup": sum(bool(source_markup(a)) for _, a, _ in items if a),
    }


def desk_summary(home: Path, name: str, fusion: str = "score") -> dict[str, Any]:
    desk = Desk(Settings(home=home, fusion=fusion))  # type: ignore[arg-type]
    questions = bundled_questions(name)
    desk.evaluate(questions[:3])  # warm the model and the index
    report = desk.evaluate(questions)
    return {**report["summary"], "items": report["items"]}


def before_summary(name: str) -> dict[str, Any] | None:
    """The recorded figures of the commit before, with the markup count taken from its
    published answers (that commit did not count it)."""
    if not BEFORE.exists():
        return None
    recorded = json.loads(BEFORE.read_text(encoding="utf-8"))["sets"].get(name)
    if recorded is None:
        return None
    summary = dict(recorded["summary"])
    summary["published_answers_with_markup"] = sum(
        bool(source_markup(i["published_answer"]))
        for i in recorded["items"]
        if i["published_answer"]
    )
    return summary


def run_set(home: Path, name: str) -> dict[str, Any]:
    questions = bundled_questions(name)
    return {
        "before": before_summary(name),
        "bm25": bm25_baseline(Desk(Settings(home=home)), questions),
        "now": desk_summary(home, name),
    }


def each_set(
    sample: Path | None, digitalgov: Path | None, run: Callable[[Path, str], dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, str]]:
    """`run(home, name)` for each evaluation set whose archive is here (the given data dirs,
    else ones built in temporary dirs): the results by set, and why a set was skipped."""
    results: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    with sample_home(sample) as sotu_home, digitalgov_home(digitalgov) as dg:
        homes = {"sotu": sotu_home, "digitalgov": dg}
        for name in SETS:
            home = homes[name]
            if home is None:
                skipped[name] = f"shared data not present at {DIGITALGOV_FOLDER}"
                continue
            results[name] = run(home, name)
    return results, skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-home", "--home", dest="sample_home", type=Path)
    parser.add_argument("--digitalgov-home", type=Path)
    parser.add_argument("--fusions", action="store_true", help="also compare rrf and score")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    def run(home: Path, name: str) -> dict[str, Any]:
        found = run_set(home, name)
        if args.fusions:
            found["rrf"] = desk_summary(home, name, "rrf")
        return found

    results, skipped = each_set(args.sample_home, args.digitalgov_home, run)
    if args.json:
        print(json.dumps({"sets": results, "skipped": skipped}, indent=2))
        return
    columns = [
        (name, col)
        for name in results
        for col in results[name]
        if col != "before" or results[name][col]
    ]
    header = " ".join(f"{name[:5] + ' ' + col:>15}" for name, col in columns)
    print(f"{'metric':<32} {header}")
    for key in KEYS:
        cells = " ".join(
            f"{format_value(results[name][col].get(key), '–'):>15}" for name, col in columns
        )
        print(f"{key:<32} {cells}")
    for name in results:
        now = results[name]["now"]
        print(f"{name} decisions now: {now['decisions']}")
        misses = [i["id"] for i in now["items"] if i["answer_found"] is False]
        print(f"{name} answerable questions without the answer now: {', '.join(misses) or 'none'}")
    for name, why in skipped.items():
        print(f"{name}: skipped ({why})")


if __name__ == "__main__":
    main()
