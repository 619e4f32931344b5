"""Explaining a published answer: a stored explanation run of its own, on the answer's
receipt alone (`runs/teach.py`), saved, resumable after a kill at any point, and verified
with its teaching section.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from runs_helpers import _WARM, QUESTION, desk_at

from evidence_desk.cli import main
from evidence_desk.errors import DeskError


def _teaching(receipt: dict[str, Any]) -> dict[str, Any]:
    teaching = receipt["teaching"]
    assert isinstance(teaching, dict)
    return teaching


def test_a_published_answer_is_explained_saved_and_verified(
    home: Path, embedding_cache: Path
) -> None:
    desk = desk_at(home, embedding_cache)
    answer = desk.ask(QUESTION).receipt
    assert answer["decision"] == "AUTO_CLEARED"
    lesson = desk.explain(answer["run_id"]).receipt
    teaching = _teaching(lesson)
    assert teaching["answer_run_id"] == answer["run_id"]
    assert teaching["answer_receipt_sha256"] == answer["integrity"]["canonical_sha256"]
    assert teaching["decision"] == "PUBLISHED"
    kinds = [b["block"]["kind"] for b in teaching["blocks"] if b["decision"] == "kept"]
    assert kinds[0] == "key_idea" and "check" in kinds
    # The lesson's receipt repeats the answer's and chains after it.
    assert lesson["published_answer"] == answer["published_answer"]
    assert lesson["sources"] == answer["sources"]
    assert lesson["run_id"] != answer["run_id"]
    assert desk.verify_receipt(lesson).ok

    # Explaining again reopens the saved lesson: no new run, the same receipt.
    again = desk.explain(answer["run_id"]).receipt
    assert again == lesson
    explanations = [r for r in desk.runs() if r.question == QUESTION]
    assert len(explanations) == 2  # the answer and its one explanation

    # The command line prints it, and --json prints the receipt alone.
    runner = CliRunner()
    shown = runner.invoke(main, ["--data-dir", str(home), "explain", answer["run_id"]])
    assert shown.exit_code == 0, shown.output
    assert "Lesson published" in shown.output and "The key idea" in shown.output
    printed = runner.invoke(main, ["--data-dir", str(home), "explain", answer["run_id"], "--json"])
    assert json.loads(printed.stdout)["teaching"] == teaching


def test_only_a_published_answer_is_explained(home: Path, embedding_cache: Path) -> None:
    desk = desk_at(home, embedding_cache)
    with pytest.raises(DeskError, match="There is no run run-nope"):
        desk.explain("run-nope")
    outside = desk.ask("What did the Martian ambassador say about canals in 1890?").receipt
    assert outside["decision"] == "OUTSIDE_COVERAGE"
    with pytest.raises(DeskError, match="has no published answer"):
        desk.explain(outside["run_id"])
    answer = desk.ask(QUESTION).receipt
    lesson = desk.explain(answer["run_id"]).receipt
    with pytest.raises(DeskError, match="is an explanation itself"):
        desk.explain(lesson["run_id"])


def _explain_until(home: Path, cache: Path, run_id: str, kind: str, stage: str) -> None:
    desk = desk_at(home, cache)

    def on_event(k: str, s: str, state: object) -> None:
        if (k, s) == (kind, stage):
            os.kill(os.getpid(), signal.SIGKILL)

    desk.explain(run_id, on_event=on_event)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "stage"),
    [
        ("stage_done", "teach"),
        ("stage_stored", "teach"),
        ("stage_done", "teaching_review"),
        ("stage_stored", "teaching_review"),
        ("stage_done", "publish"),
    ],
)
def test_an_explanation_killed_anywhere_resumes_to_the_same_lesson(
    home: Path, embedding_cache: Path, kind: str, stage: str
) -> None:
    desk = desk_at(home, embedding_cache)
    answer = desk.ask(QUESTION).receipt
    child = _WARM.Process(
        target=_explain_until, args=(home, embedding_cache, answer["run_id"], kind, stage)
    )
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL
    resumed = desk_at(home, embedding_cache).explain(answer["run_id"]).receipt
    teaching = _teaching(resumed)
    assert teaching["decision"] == "PUBLISHED"
    record = desk.run_record(resumed["run_id"])
    names = [s["name"] for s in record["stages"]]
    # A stage stored before the kill is never run again.
    assert names == ["teach", "teaching_review", "publish"]
    assert desk.verify_receipt(resumed).ok
