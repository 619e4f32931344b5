"""Question files and evaluation metrics (contracts/questions.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_desk.evaluation.questions import (
    QuestionFileError,
    bundled_questions,
    load_questions,
    parse_questions,
)
from evidence_desk.evaluation.runner import evaluate, percentile, title_prefixed
from evidence_desk.types import (
    Claim,
    ClaimChecks,
    Decision,
    EngineIds,
    GatePolicy,
    Plan,
    Quote,
    Receipt,
    ScoredPassage,
    Source,
    SubQuestion,
    Usage,
    Verdict,
)

DOC = "Intro sentence. The gold sentence is here. Outro."
GOLD = "The gold sentence is here."

ANSWERABLE = {
    "id": "q1",
    "kind": "factoid",
    "question": "Where is the gold?",
    "gold_doc_ids": ["d1"],
    "gold_evidence": [GOLD],
    "answer_any": ["GOLD SENTENCE"],
}
OOC = {
    "id": "q2",
    "kind": "out_of_coverage",
    "question": "Mars?",
    "gold_doc_ids": [],
    "gold_evidence": [],
    "answer_any": [],
}


def receipt(decision: Decision, answer: str, passage: tuple[int, int]) -> Receipt:
    ok = ClaimChecks(
        has_citation=True, citations_exist=True, quotes_verbatim=True, numbers_dates=True
    )
    quote = Quote(text=GOLD, source_id="S1", verbatim=True, start=16, end=42)
    kept = decision in (Decision.AUTO_CLEARED, Decision.PUBLISHED_AFTER_PRUNING)
    claims = [
        Claim(
            text=answer,
            citations=("S1",),
            quotes=(quote,),
            checks=ok,
            verdict=Verdict.SUPPORTED,
            auditor_verdict=Verdict.SUPPORTED,
            kept=kept,
        )
    ]
    a, b = passage
    return Receipt(
        run_id="r",
        created_at="2026-01-01T00:00:00Z",
        question="q",
        plan=Plan(subquestions=(SubQuestion(text="q"),), queries=("q",)),
        sources=[
            Source(
                id="S1",
                doc_id="d1",
                title="t",
                retrieved_at="x",
                content_sha256="0",
                passages=(ScoredPassage(id="d1#0", text=DOC[a:b], start=a, end=b, score=1),),
            )
        ],
        draft=answer,
        claims=claims,
        quotes=[quote],
        decision=decision,
        reason="r",
        published_answer=answer if kept else "",
        engine=EngineIds(planner="o", answerer="o", auditor="o"),
        policy=GatePolicy(coverage_floor=0.4),
        stages=[],
        usage=Usage(),
    )


def test_parse_validates_kinds_gold_fields_and_ids() -> None:
    qs = parse_questions(json.dumps(ANSWERABLE) + "\n\n" + json.dumps(OOC) + "\n")
    assert [q.id for q in qs] == ["q1", "q2"] and qs[0].answerable and not qs[1].answerable
    bad_cases = [
        ("{not json", "not JSON"),
        (json.dumps({**OOC, "answer_any": ["x"]}), "empty gold fields"),
        (json.dumps({**ANSWERABLE, "answer_any": []}), "needs gold_doc_ids"),
        (json.dumps({**ANSWERABLE, "kind": "poem"}), "kind"),
        (json.dumps(ANSWERABLE) + "\n" + json.dumps(ANSWERABLE), "duplicate id"),
        ("", "no questions"),
    ]
    for text, needle in bad_cases:
        with pytest.raises(QuestionFileError, match=needle):
            parse_questions(text, "f.jsonl")


def test_load_and_bundled_sets(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(ANSWERABLE) + "\n", encoding="utf-8")
    assert load_questions(path)[0].id == "q1"
    with pytest.raises(QuestionFileError, match="Cannot read"):
        load_questions(tmp_path / "missing.jsonl")
    assert len(bundled_questions("sotu")) == 30
    with pytest.raises(QuestionFileError, match="available: sotu"):
        bundled_questions("nope")


def test_metrics_follow_the_contract() -> None:
    qs = parse_questions(json.dumps(ANSWERABLE) + "\n" + json.dumps(OOC))
    answers = {
        "Where is the gold?": receipt(Decision.AUTO_CLEARED, f'It says "{GOLD}" [S1].', (16, 42)),
        "Mars?": receipt(Decision.OUTSIDE_COVERAGE, "", (0, 15)),
    }
    report = evaluate(qs, lambda q, m: answers[q], lambda d: DOC if d == "d1" else None)
    s = report["summary"]
    assert s["mode"] == "quick"
    assert s["answer_accuracy"] == 1.0 and s["evidence_recall"] == 1.0
    assert s["abstention_precision"] == 1.0 and s["abstention_recall"] == 1.0
    assert s["out_of_coverage_published"] == 0
    assert s["published_quotes"] == 1 and s["published_quotes_verbatim_rate"] == 1.0
    assert s["decisions"] == {"AUTO_CLEARED": 1, "OUTSIDE_COVERAGE": 1}
    first = report["items"][0]
    assert first["cited_doc_ids"] == ["d1"] and first["evidence_covered"] == [True]


def test_metrics_count_failures() -> None:
    qs = parse_questions(json.dumps(ANSWERABLE) + "\n" + json.dumps(OOC))
    answers = {
        # published, but the selected passage does not hold the gold sentence
        "Where is the gold?": receipt(Decision.HELD_FOR_REVIEW, "Nothing.", (0, 15)),
        "Mars?": receipt(Decision.AUTO_CLEARED, f'It says "{GOLD}" [S1].', (16, 42)),
    }
    s = evaluate(qs, lambda q, m: answers[q], lambda d: DOC)["summary"]
    assert s["answer_accuracy"] == 0.0 and s["evidence_recall"] == 0.0
    assert s["abstention_recall"] == 0.0 and s["abstention_precision"] is None
    assert s["out_of_coverage_published"] == 1


def test_percentile_nearest_rank() -> None:
    assert percentile([], 50) == 0.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0


def test_every_question_is_asked_in_the_mode_given() -> None:
    qs = parse_questions(json.dumps(ANSWERABLE) + "\n" + json.dumps(OOC))
    asked: list[tuple[str, str]] = []

    def ask(question: str, mode: str) -> Receipt:
        asked.append((question, mode))
        return receipt(Decision.OUTSIDE_COVERAGE, "", (0, 15))

    report = evaluate(qs, ask, lambda d: DOC, mode="deep")
    assert asked == [("Where is the gold?", "deep"), ("Mars?", "deep")]
    assert report["summary"]["mode"] == "deep"


@pytest.mark.parametrize(
    ("sentence", "bare"),
    [
        ('Franklin D. Roosevelt — Annual Message, 1941: "We look forward" [S1].', True),
        ('Franklin D. Roosevelt — Annual Message, 1941 (1941): "We look forward" [S1].', True),
        ('In 1941, Roosevelt said: "We look forward" [S1].', False),
        ('Franklin D. Roosevelt — Annual Message, 1941: "We look" and "forward" [S1].', False),
        ("Roosevelt looked forward to a world of freedoms [S1].", False),
    ],
)
def test_a_bare_quote_behind_its_title_is_counted(sentence: str, bare: bool) -> None:
    assert title_prefixed(sentence, ["Franklin D. Roosevelt — Annual Message, 1941"]) is bare


def test_the_summary_gives_words_per_answer_and_the_title_prefixed_share() -> None:
    qs = parse_questions(json.dumps(ANSWERABLE) + "\n" + json.dumps(OOC))
    answer = f't: "{GOLD}" [S1]. In 1941, T said: "{GOLD}" [S1].'
    answers = {
        "Where is the gold?": receipt(Decision.AUTO_CLEARED, answer, (16, 42)),
        "Mars?": receipt(Decision.OUTSIDE_COVERAGE, "", (0, 15)),
    }
    report = evaluate(qs, lambda q, m: answers[q], lambda d: DOC)
    first = report["items"][0]
    assert (first["published_words"], first["published_sentences"]) == (15, 2)
    assert first["title_prefixed_sentences"] == 1
    s = report["summary"]
    assert s["words_per_answer_p50"] == 15.0 and s["title_prefixed_share"] == 0.5
