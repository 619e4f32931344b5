"""The command line: the documented outputs, exit codes and one-sentence errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from cryptography.hazmat.primitives import serialization

from evidence_desk.cli import main
from evidence_desk.settings import Settings
from evidence_desk.trust.receipts import seal
from evidence_desk.trust.signing import load_or_create_key


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
    # the web's words for the decision, with the code beside them
    assert re.search(
        r"Published( after pruning)? \((AUTO_CLEARED|PUBLISHED_AFTER_PRUNING)\) — ", res.stdout
    )
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
    assert ok.stdout.startswith("OK ") and "(this desk's key)" in ok.stdout
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
            "answer": 'Roosevelt said: "The first is freedom of speech and expression" [S1].',
        },
        {
            "question": "What freedoms?",
            "sources": [{"id": "S1", "doc_id": "1941-Roosevelt-1"}],
            "answer": 'Roosevelt said: "The first is freedom of the press" [S1].',
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
    assert report["summary"]["mode"] == "quick"
    deep = cli(home, embedding_cache, "eval", "--json", "--deep", str(path))
    assert deep.exit_code == 0, deep.stderr
    summary = json.loads(deep.stdout)["summary"]
    assert summary["mode"] == "deep" and summary["abstention_recall"] == 1.0


def test_jsonl_lines_may_hold_unicode_line_separators(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    drafts = [
        {
            "sources": [{"id": "S1", "doc_id": "1941-Roosevelt-1"}],
            "answer": f'Roosevelt named{sep}"freedom of speech and expression" first [S1].',
        }
        for sep in ("\u2028", "\u2029")
    ]
    path = tmp_path / "drafts.jsonl"
    path.write_text(
        "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in drafts), encoding="utf-8"
    )
    res = cli(home, embedding_cache, "check", "--json", str(path))
    assert res.exit_code == 0, res.stderr
    results = [json.loads(line) for line in res.stdout.split("\n") if line]
    assert len(results) == 2 and all(r["decision"] and r["claims"] for r in results)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ingest", "/no/such/folder"], "does not exist"),
        (["ingest"], "Give either PATH"),
        (["ingest", "--sample", "nope"], "sotu"),
        (["ingest", "/no/such/folder", "--publisher", " \t "], "A publisher is a name of 1"),
        (["ingest", "--sample", "sotu", "--publisher", "GSA"], "--publisher is for PATH"),
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


def test_a_bad_draft_is_reported_in_its_place_and_the_others_are_checked(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    good = {
        "sources": [{"id": "S1", "doc_id": "1941-Roosevelt-1"}],
        "answer": 'Roosevelt named "freedom of speech and expression" first [S1].',
    }
    path = tmp_path / "drafts.jsonl"
    path.write_text(
        f"{json.dumps(good)}\n{{oops\n"
        '{"answer": "x [S1].", "sources": [{"id": "S1", "doc_id": "d"}]}\n'
        '{"answer": "no sources"}\n'
    )
    res = cli(home, embedding_cache, "check", "--json", str(path))
    assert res.exit_code == 1
    results = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["decision"] is None for r in results] == [False, True, False, True]
    assert results[0]["claims"] and results[2]["decision"] == "HELD_FOR_REVIEW"
    assert results[1] == {
        "line": 2,
        "error": f"{path}:2: not JSON (Expecting property name enclosed in double quotes).",
        "decision": None,
    }
    assert results[3] == {
        "line": 4,
        "error": f"{path}:4: sources: Field required.",
        "decision": None,
    }
    assert res.stderr.count("error:") == 1
    assert f"2 of 4 drafts in {path} could not be checked (line 2, line 4)." in res.stderr
    human = cli(home, embedding_cache, "check", str(path))
    assert human.exit_code == 1
    assert f"INVALID — {path}:2: not JSON" in human.stdout
    headings = [ln.split(" — ")[0] for ln in human.stdout.splitlines() if not ln.startswith(" ")]
    # each in its place, a decision in its words with its code
    assert headings[1:] == ["INVALID", "Held for review (HELD_FOR_REVIEW)", "INVALID"]


def test_a_bad_item_of_a_json_list_is_reported_by_its_index(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    good = {"sources": [{"id": "S1", "doc_id": "d"}], "answer": "x [S1]."}
    path = tmp_path / "drafts.json"
    path.write_text(json.dumps([{"answer": "x"}, good]), encoding="utf-8")
    res = cli(home, embedding_cache, "check", "--json", str(path))
    assert res.exit_code == 1
    bad, checked = (json.loads(line) for line in res.stdout.splitlines())
    assert bad == {"index": 0, "error": f"{path}[0]: sources: Field required.", "decision": None}
    assert checked["decision"] == "HELD_FOR_REVIEW"
    assert "(item 0)" in res.stderr


def test_a_file_of_no_drafts_is_one_error(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n", encoding="utf-8")
    res = cli(home, embedding_cache, "check", "--json", str(path))
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.count("error:") == 1 and "is neither JSON nor JSONL" in res.stderr


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


_POST = """---
title: "How the registry was launched"
date: 2012-11-19
{extra}---

For each account they add, agencies have to include the language of the account.
"""


def test_a_publisher_the_operator_declares_is_a_name_frames_may_use(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "posts"
    folder.mkdir()
    (folder / "registry.md").write_text(_POST.format(extra=""), encoding="utf-8")
    (folder / "own.md").write_text(_POST.format(extra="publisher: GSA\n"), encoding="utf-8")
    res = cli(home, embedding_cache, "ingest", str(folder), "--publisher", " Digital.gov ")
    assert res.exit_code == 0, res.stderr
    said = "reported that for each account they add, agencies have to include the language"
    drafts = [
        {"answer": f"Digital.gov {said} [S1].", "doc": "registry.md"},
        {"answer": f"GSA {said} [S1].", "doc": "registry.md"},
        {"answer": f"GSA {said} [S1].", "doc": "own.md"},  # its own publisher is kept
        {"answer": f"Digital.gov {said} [S1].", "doc": "own.md"},
    ]
    path = tmp_path / "drafts.jsonl"
    path.write_text(
        "".join(
            json.dumps({"answer": d["answer"], "sources": [{"id": "S1", "doc_id": d["doc"]}]})
            + "\n"
            for d in drafts
        ),
        encoding="utf-8",
    )
    res = cli(home, embedding_cache, "check", "--json", str(path))
    assert res.exit_code == 0, res.stderr
    decisions = [json.loads(line)["decision"] for line in res.stdout.splitlines()]
    assert decisions == ["AUTO_CLEARED", "HELD_FOR_REVIEW", "AUTO_CLEARED", "HELD_FOR_REVIEW"]


# --------------------------------------------------------------------------- receipts and keys


def _without_integrity(receipt: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in receipt.items() if k != "integrity"}


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (
            lambda text: text.replace(
                '{\n  "receipt_version"', '{\n  "decision": "X",\n  "receipt_version"', 1
            ),
            "decision",
        ),
        (
            lambda text: text.replace(
                '"integrity": {', '"integrity": {\n    "signature": "AAAA",', 1
            ),
            "signature",
        ),
    ],
    ids=["top level", "nested"],
)
def test_receipt_verify_refuses_a_key_given_twice(
    home: Path, embedding_cache: Path, tmp_path: Path, edit: Any, key: str
) -> None:
    res = cli(home, embedding_cache, "ask", "--json", "What did Kennedy say about the Peace Corps?")
    path = tmp_path / "receipt.json"
    path.write_text(edit(res.stdout), encoding="utf-8")
    assert path.read_text(encoding="utf-8") != res.stdout
    bad = cli(home, embedding_cache, "receipt", "verify", str(path))
    assert bad.exit_code == 1
    assert f"FAIL The receipt has the key '{key}' twice in one object" in bad.stderr
    assert "OK" not in bad.stdout


def test_receipt_from_another_desk_verifies_only_with_its_key_trusted(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    res = cli(home, embedding_cache, "ask", "--json", "What did Obama say about bin Laden?")
    assert res.exit_code == 0, res.stderr
    other = tmp_path / "other-desk"  # another desk: only its key matters here
    published = cli(other, embedding_cache, "receipt", "key")
    assert published.exit_code == 0 and published.stdout.count("\n") == 1
    other_key = load_or_create_key(Settings(home=other).key_path)
    foreign = seal(_without_integrity(json.loads(res.stdout)), other_key, None)
    path = tmp_path / "foreign.json"
    path.write_text(json.dumps(foreign), encoding="utf-8")
    key_id = foreign["integrity"]["key_id"]
    trusted_list = home / "keys" / "trusted.txt"

    refused = cli(home, embedding_cache, "receipt", "verify", str(path))
    assert refused.exit_code == 1
    assert (
        f"The receipt was signed with key {key_id}, which this desk does not trust; pass "
        f"--trust-key FILE or add it to {trusted_list}." in refused.stderr
    )
    (home / "keys" / "desk-ed25519.pem").unlink()  # a desk without a key of its own trusts none
    no_key = cli(home, embedding_cache, "receipt", "verify", str(path))
    assert no_key.exit_code == 1 and "does not trust" in no_key.stderr

    b64_file = tmp_path / "other.pub"
    b64_file.write_text(published.stdout, encoding="utf-8")
    pem_file = tmp_path / "other.pem"
    pem_file.write_bytes(
        other_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    for key_file in (b64_file, pem_file):
        given = cli(
            home, embedding_cache, "receipt", "verify", "--trust-key", str(key_file), str(path)
        )
        assert given.exit_code == 0, given.stderr
        assert f"signed by trusted key {key_id} (given in {key_file})" in given.stdout

    trusted_list.write_text(f"# the other desk\n{published.stdout}", encoding="utf-8")
    listed = cli(home, embedding_cache, "receipt", "verify", str(path))
    assert listed.exit_code == 0, listed.stderr
    assert f"(listed in {trusted_list})" in listed.stdout


def test_a_key_file_that_holds_no_key_is_one_clear_error(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    receipt = tmp_path / "receipt.json"
    receipt.write_text("{}", encoding="utf-8")
    bad_key = tmp_path / "bad.pub"
    bad_key.write_text("not a key\n", encoding="utf-8")
    res = cli(home, embedding_cache, "receipt", "verify", "--trust-key", str(bad_key), str(receipt))
    assert res.exit_code == 1 and res.stderr.count("error:") == 1
    assert (
        f"The key file {bad_key} cannot be used: line 1 is not a base64 Ed25519 public key; it "
        "must hold one base64 Ed25519 public key" in res.stderr
    )
    assert "Traceback" not in res.stderr
    listed = home / "keys" / "trusted.txt"
    listed.parent.mkdir(exist_ok=True)
    listed.write_text("# ok\nAAAA\n", encoding="utf-8")
    res = cli(home, embedding_cache, "receipt", "verify", str(receipt))
    assert res.exit_code == 1 and res.stderr.count("error:") == 1
    assert f"The trusted-keys file {listed} cannot be used: line 2 is not a base64" in res.stderr
    missing = cli(
        home, embedding_cache, "receipt", "verify", "--trust-key", "/no/such.pub", str(receipt)
    )
    assert missing.exit_code == 2  # like a missing receipt: click's usage error


def test_runs_commands_list_show_follow_and_verify_the_chain(
    home: Path, embedding_cache: Path
) -> None:
    res = cli(home, embedding_cache, "ask", "What did Kennedy say about the Peace Corps?")
    assert res.exit_code == 0, res.stderr
    first = res.stdout.splitlines()[0]
    assert first.startswith("Run run-")  # the id comes first, before the answer
    run_id = first.split()[1]
    listed = cli(home, embedding_cache, "runs", "list", "--json")
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["run_id"] for r in rows][:1] == [run_id] and rows[0]["state"] == "published"
    assert cli(home, embedding_cache, "runs", "list", "--state", "held").stdout == ""
    shown = cli(home, embedding_cache, "runs", "show", run_id)
    assert shown.exit_code == 0 and "published" in shown.stdout and "publish" in shown.stdout
    record = json.loads(cli(home, embedding_cache, "runs", "show", run_id, "--json").stdout)
    assert record["run_id"] == run_id and len(record["stages"]) == 9
    events = cli(home, embedding_cache, "runs", "events", run_id, "--follow", "--json")
    kinds = [json.loads(line)["kind"] for line in events.stdout.splitlines()]
    assert kinds[0] == "run_opened" and kinds[-1] == "run_finished"
    assert kinds.count("stage_ended") == 9
    again = cli(home, embedding_cache, "runs", "resume", run_id, "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["run_id"] == run_id
    cancel = cli(home, embedding_cache, "runs", "cancel", run_id)
    assert cancel.exit_code == 0 and "already finished" in cancel.stdout
    chain = cli(home, embedding_cache, "receipt", "verify-chain")
    assert chain.exit_code == 0 and chain.stdout.startswith("OK "), chain.stderr
    missing = cli(home, embedding_cache, "runs", "show", "run-nope")
    assert missing.exit_code == 1 and "There is no run run-nope" in missing.stderr


def test_ask_json_says_the_run_id_on_stderr_only(home: Path, embedding_cache: Path) -> None:
    res = cli(home, embedding_cache, "ask", "--json", "What did Obama say about bin Laden?")
    receipt = json.loads(res.stdout)
    assert f"Run {receipt['run_id']}" in res.stderr


def test_an_archive_from_a_newer_version_is_one_sentence_not_a_traceback(
    tmp_path: Path, embedding_cache: Path
) -> None:
    import sqlite3

    home = tmp_path / "home"
    home.mkdir()
    with sqlite3.connect(home / "archive.sqlite3") as db:
        db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        db.execute("INSERT INTO _migrations VALUES ('m999_from_the_future', '2030-01-01')")
    res = cli(home, embedding_cache, "runs", "list")
    assert res.exit_code == 1
    assert "written by a newer Evidence Desk" in res.stderr and "Traceback" not in res.output


def test_every_error_a_user_can_act_on_is_a_desk_error() -> None:
    from evidence_desk.agents.prices import PriceFileError
    from evidence_desk.agents.providers import ProviderSetupError, UnknownEngineError
    from evidence_desk.archive.ingest import IngestError
    from evidence_desk.archive.sample import SampleError
    from evidence_desk.desk.drafts import DraftFileError
    from evidence_desk.errors import DeskError
    from evidence_desk.evaluation.questions import QuestionFileError
    from evidence_desk.retrieval.parallel import EmbeddingWorkerError
    from evidence_desk.store.migrations import SchemaError
    from evidence_desk.store.sqlite import StoreError

    for error in (
        PriceFileError,
        ProviderSetupError,
        UnknownEngineError,
        IngestError,
        SampleError,
        DraftFileError,
        QuestionFileError,
        EmbeddingWorkerError,
        SchemaError,
        StoreError,
    ):
        assert issubclass(error, DeskError), error


def test_reembed_and_status_of_an_empty_data_dir_create_no_archive(tmp_path: Path) -> None:
    home = tmp_path / "never-ingested"
    result = cli(home, tmp_path / "cache", "reembed", "--yes")
    assert result.exit_code == 1
    assert "The archive has no passages to re-embed." in result.output
    status = cli(home, tmp_path / "cache", "status")
    assert status.exit_code == 0 and "nothing ingested yet" in status.output
    assert not Settings(home=home).db_path.exists()
