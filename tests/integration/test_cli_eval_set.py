"""`evidence-desk eval --set NAME`: the bundled question sets, and the archive each one needs.

The small archive of the integration tests holds six `sotu` addresses, so the `sotu` set finds
gold documents in it and the `digitalgov` set finds none: that one must stop with a sentence
saying which folder to ingest, before any question is run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from evidence_desk.cli import main
from evidence_desk.desk import Desk
from evidence_desk.evaluation.questions import BUNDLED, BUNDLED_ARCHIVES, Question

DIGITALGOV_FOLDER = "digitalgov-news/raw/content/news"


def cli(home: Path, cache: Path, *args: str) -> Result:
    env = {"EVIDENCE_DESK_CACHE_DIR": str(cache), "EVIDENCE_DESK_EMBED_WORKERS": "1"}
    return CliRunner().invoke(main, ["--data-dir", str(home), *args], env=env)


def one_clear_error(res: Result, message: str) -> None:
    assert res.exit_code == 1, res.stdout
    assert message in res.stderr, res.stderr
    assert res.stderr.count("error:") == 1
    assert "Traceback" not in res.stderr


@pytest.fixture
def evaluated(monkeypatch: pytest.MonkeyPatch) -> list[list[Question]]:
    """Replaces the evaluation run with a stub; records the questions it was given."""
    calls: list[list[Question]] = []

    def fake(
        self: Desk, questions: Path | Sequence[Question], *, mode: str = "quick"
    ) -> dict[str, Any]:
        assert not isinstance(questions, Path)
        calls.append(list(questions))
        return {"summary": {"mode": mode, "questions": len(questions)}, "items": []}

    monkeypatch.setattr(Desk, "evaluate", fake)
    return calls


def test_both_sets_are_bundled_with_an_ingest_hint() -> None:
    assert list(BUNDLED) == ["sotu", "digitalgov"]
    assert BUNDLED["digitalgov"] == "digitalgov_eval.jsonl"
    assert set(BUNDLED_ARCHIVES) == set(BUNDLED)
    assert BUNDLED_ARCHIVES["digitalgov"].endswith(DIGITALGOV_FOLDER)


def test_help_documents_set_and_its_alias(fresh_home: Path, embedding_cache: Path) -> None:
    res = cli(fresh_home, embedding_cache, "eval", "--help")
    assert res.exit_code == 0
    assert "--set, --sample NAME" in res.stdout
    assert "digitalgov" in res.stdout


@pytest.mark.parametrize("option", ["--set", "--sample"])
def test_digitalgov_set_without_its_archive_says_what_to_ingest(
    fresh_home: Path, embedding_cache: Path, evaluated: list[list[Question]], option: str
) -> None:
    res = cli(fresh_home, embedding_cache, "eval", option, "digitalgov", "--json")
    one_clear_error(res, f"evidence-desk ingest <shared data>/{DIGITALGOV_FOLDER}")
    assert "'digitalgov' question set" in res.stderr
    assert res.stdout == "" and evaluated == []


@pytest.mark.parametrize("option", ["--set", "--sample"])
def test_sotu_set_runs_on_an_archive_holding_its_gold_documents(
    fresh_home: Path, embedding_cache: Path, evaluated: list[list[Question]], option: str
) -> None:
    res = cli(fresh_home, embedding_cache, "eval", option, "sotu", "--json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["summary"]["questions"] == 30
    [questions] = evaluated
    assert [q.id for q in questions] == [f"sotu-{n:03d}" for n in range(1, 31)]
    deep = cli(fresh_home, embedding_cache, "eval", option, "sotu", "--json", "--deep")
    assert json.loads(deep.stdout)["summary"]["mode"] == "deep"


def test_a_set_on_an_empty_archive_says_what_to_ingest(
    tmp_path: Path, embedding_cache: Path, evaluated: list[list[Question]]
) -> None:
    res = cli(tmp_path / "empty-home", embedding_cache, "eval", "--set", "sotu")
    one_clear_error(res, "evidence-desk ingest --sample sotu")
    assert evaluated == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "nope"], "available: sotu, digitalgov"),
        (["--set", "sotu", "QUESTIONS"], "Give either QUESTIONS.jsonl or --set NAME"),
        ([], "Give either QUESTIONS.jsonl or --set NAME"),
    ],
)
def test_bad_set_arguments_are_one_clear_line(
    fresh_home: Path, embedding_cache: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "a", "kind": "out_of_coverage", "question": "?"}\n', "utf-8")
    args = [str(questions) if a == "QUESTIONS" else a for a in args]
    one_clear_error(cli(fresh_home, embedding_cache, "eval", *args), message)
