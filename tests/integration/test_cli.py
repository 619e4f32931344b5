"""The command line: the documented outputs, exit codes and one-sentence errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from evidence_desk.cli import main


def cli(home: Path, cache: Path, *args: str) -> Result:
    env = {"EVIDENCE_DESK_CACHE_DIR": str(cache), "EVIDENCE_DESK_EMBED_WORKERS": "1"}
    return CliRunner().invoke(main, ["--data-dir", str(home), *args], env=env)


@pytest.fixture
def home(fresh_home: Path) -> Path:
    return fresh_home


def test_ask_json_prints_only_the_receipt(home: Path, embedding_cache: Path) -> None:
    res = cli(home, embedding_cache, "ask", "--json", "What did Kennedy say about the Peace Corps?")
    assert res.exit_code == 0, res.stderr
    receipt = json.loads(res.stdout)
    assert receipt["decision"] in {"AUTO_CLEARED", "PUBLISHED_AFTER_PRUNING"}
    assert receipt["integrity"]["signature"]
    assert receipt["engine"] == {"planner": "offline", "answerer": "offline", "auditor": "offline"}


def test_ask_prints_answer_sources_and_receipt_path(home: Path, embedding_cache: Path) -> None:
    res = cli(home, embedding_cache, "ask", "What did Kennedy say about the Peace Corps?")
    assert res.exit_code == 0, res.stderr
    assert "Peace Corps" in res.stdout and "[S1]" in res.stdout
    assert "Sources:" in res.stdout and "presidency.ucsb.edu" in res.stdout
    receipt_line = [ln for ln in res.stdout.splitlines() if ln.startswith("Receipt: ")]
    assert receipt_line and Path(receipt_line[0].split(": ", 1)[1]).exists()


def test_receipt_verify_accepts_the_original_and_rejects_tampering(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    res = cli(home, embedding_cache, "ask", "--json", "What did Obama say about bin Laden?")
    path = tmp_path / "receipt.json"
    path.write_text(res.stdout, encoding="utf-8")
    ok = cli(home, embedding_cache, "receipt", "verify", str(path))
    assert ok.exit_code == 0, ok.stderr
    assert ok.stdout.startswith("OK ")
    receipt = json.loads(res.stdout)
    receipt["question"] += "?"
    path.write_text(json.dumps(receipt), encoding="utf-8")
    bad = cli(home, embedding_cache, "receipt", "verify", str(path))
    assert bad.exit_code == 1 and "FAIL" in bad.stderr and "hash" in bad.stderr
    path.write_text("not json", encoding="utf-8")
    garbage = cli(home, embedding_cache, "receipt", "verify", str(path))
    assert garbage.exit_code == 1 and "not a JSON receipt" in garbage.stderr


def test_check_json_gives_one_result_per_draft(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    drafts = [
        {
            "question": "What freedoms?",
            "sources": [{"id": "S1", "doc_id": "1941-Roosevelt-1"}],
            "answer": 'Roosevelt named "freedom of speech and expression" first [S1].',
        },
        {
            "question": "What freedoms?",
            "sources": [{"id": "S1", "doc_id": "1941-Roosevelt-1"}],
            "answer": 'Roosevelt named "freedom of the press" first [S1].',
        },
        {
            "question": "x",
            "sources": [{"id": "S1", "doc_id": "no-such-document"}],
            "answer": 'He said "we choose to go" [S1].',
        },
    ]
    path = tmp_path / "drafts.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in drafts), encoding="utf-8")
    res = cli(home, embedding_cache, "check", "--json", str(path))
    assert res.exit_code == 0, res.stderr
    results = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["decision"] for r in results] == [
        "AUTO_CLEARED",
        "HELD_FOR_REVIEW",
        "HELD_FOR_REVIEW",
    ]
    first = results[0]
    assert first["published_answer"] == drafts[0]["answer"]
    assert first["claims"][0]["checks"]["quotes_verbatim"] is True
    assert first["claims"][0]["verdict"] == "supported"
    assert results[2]["sources"][0]["in_archive"] is False
    human = cli(home, embedding_cache, "check", str(path))
    assert "[supported, kept]" in human.stdout


def test_eval_json_reports_summary_and_items(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    questions = [
        {
            "id": "a",
            "kind": "factoid",
            "question": "What did Kennedy propose about the Peace Corps?",
            "gold_doc_ids": ["1961-Kennedy-1"],
            "gold_evidence": [],
            "answer_any": ["Peace Corps"],
        },
        {
            "id": "b",
            "kind": "out_of_coverage",
            "question": "What is the atomic number of carbon?",
            "gold_doc_ids": [],
            "gold_evidence": [],
            "answer_any": [],
        },
    ]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    res = cli(home, embedding_cache, "eval", "--json", str(path))
    assert res.exit_code == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["summary"]["questions"] == 2
    assert report["summary"]["answer_accuracy"] == 1.0
    assert report["summary"]["abstention_recall"] == 1.0
    assert [i["id"] for i in report["items"]] == ["a", "b"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ingest", "/no/such/folder"], "does not exist"),
        (["ingest"], "Give either PATH"),
        (["ingest", "--sample", "nope"], "sotu"),
        (["ask", "   "], "empty"),
        (["eval", "--sample", "nope"], "available: sotu"),
        (["eval"], "Give either"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_1(
    home: Path, embedding_cache: Path, args: list[str], message: str
) -> None:
    res = cli(home, embedding_cache, *args)
    assert res.exit_code == 1
    assert message in res.stderr
    assert res.stderr.count("error:") == 1
    assert "Traceback" not in res.stderr


def test_bad_draft_file_names_the_line(home: Path, embedding_cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "drafts.jsonl"
    path.write_text('{"answer": "x [S1].", "sources": [{"id": "S1", "doc_id": "d"}]}\n{oops\n')
    res = cli(home, embedding_cache, "check", str(path))
    assert res.exit_code == 1 and f"{path}:2" in res.stderr


def test_ask_on_an_empty_archive_says_what_to_do(tmp_path: Path, embedding_cache: Path) -> None:
    res = cli(tmp_path / "empty", embedding_cache, "ask", "Anything?")
    assert res.exit_code == 1 and "evidence-desk ingest" in res.stderr


def test_status_and_env_home(home: Path, embedding_cache: Path) -> None:
    env = {"EVIDENCE_DESK_HOME": str(home), "EVIDENCE_DESK_CACHE_DIR": str(embedding_cache)}
    res = CliRunner().invoke(main, ["status"], env=env)
    assert res.exit_code == 0
    assert str(home) in res.stdout and "documents: 6" in res.stdout.replace("  ", "")


def test_python_dash_m_runs_the_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "evidence_desk", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for command in ("ingest", "ask", "check", "receipt", "eval", "status"):
        assert command in out.stdout


def test_ingest_of_only_bad_files_fails_and_stores_nothing(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "empty.txt").write_text("", encoding="utf-8")
    (folder / "latin1.txt").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (folder / "table.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    before = cli(home, embedding_cache, "status").stdout
    res = cli(home, embedding_cache, "ingest", str(folder))
    assert res.exit_code == 1
    assert res.stderr.count("\nskipped ") + res.stderr.startswith("skipped ") == 3
    assert "skipped 3." in res.stderr and "nothing was ingested" in res.stderr
    assert cli(home, embedding_cache, "status").stdout == before
