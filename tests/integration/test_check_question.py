"""`evidence-desk check` reads the question (docs/grounding.md, "The question a draft answers"),
through the real command line on the small archive.

A run's coverage stage reads its question against what it retrieved; a draft written
elsewhere has no such stage, so `check` reads the question against the passages that carry
the draft. True quotes that answer another question (another president's years, another
year, a subject or topic the carrying passages never name) are held for review, never cleared; the
same quotes under their own question publish.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from evidence_desk.cli import main

FREEDOMS = 'In 1941, Roosevelt said: "The third is freedom from want" [S1].'
ROOSEVELT = [{"id": "S1", "doc_id": "1941-Roosevelt-1"}]


def check(home: Path, cache: Path, folder: Path, *questions: str) -> list[dict[str, Any]]:
    """`FREEDOMS`, citing the 1941 address, under each question, through `check --json`."""
    path = folder / "drafts.jsonl"
    drafts = [{"question": q, "answer": FREEDOMS, "sources": ROOSEVELT} for q in questions]
    path.write_text("".join(json.dumps(d) + "\n" for d in drafts), encoding="utf-8")
    env = {"EVIDENCE_DESK_CACHE_DIR": str(cache), "EVIDENCE_DESK_EMBED_WORKERS": "1"}
    res = CliRunner().invoke(main, ["--data-dir", str(home), "check", "--json", str(path)], env=env)
    assert res.exit_code == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_true_quotes_under_their_own_question_publish(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    results = check(
        home,
        embedding_cache,
        tmp_path,
        "What did Roosevelt say about freedom?",  # Theodore's years or Franklin's: either
        "What did Franklin Roosevelt say in 1941?",
        "What did the President say about want?",
        "",  # no question: nothing to read
    )
    for res in results:
        assert res["decision"] == "AUTO_CLEARED", (res["question"], res["reason"])
        assert res["published_answer"] == FREEDOMS


def test_true_quotes_that_answer_another_question_are_held_and_say_why(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    kennedy, year, subject, topic, both = check(
        home,
        embedding_cache,
        tmp_path,
        "What did Kennedy say about freedom?",
        "What did Roosevelt say in 1934 about freedom?",
        "What did Roosevelt say about Gettysburg?",
        "What did Roosevelt say about the navy?",
        "Compare what Roosevelt and Obama said about freedom.",
    )
    for res in (kennedy, year, subject, topic, both):
        assert res["decision"] == "HELD_FOR_REVIEW", (res["question"], res["reason"])
        assert res["published_answer"] == ""
        # the sentence itself is still judged, and carried
        [claim] = res["claims"]
        assert claim["checks"]["grounding"] == [] and not claim["kept"]
    assert kennedy["reason"] == (
        "Held for review because the question asks about John F. Kennedy and no source that "
        "carries a sentence of the draft is dated then."
    )
    assert "asks about Roosevelt, 1934 and" in year["reason"]
    assert "asks about 'Gettysburg' and no passage that carries a sentence" in subject["reason"]
    assert "asks about 'navy' and no passage that carries a sentence" in topic["reason"]
    assert "asks about Barack Obama and" in both["reason"]
