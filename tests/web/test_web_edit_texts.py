"""An editor's edit of a held run is judged against the texts that run read, looked up by
each source's (doc_id, content hash): an attached file's snapshot, and an archive document's
text as it was, not as a re-ingest left it. A text that is gone refuses the edit, naming
the source, rather than judge the draft against another text."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_web_editor import (
    CLEAN_QUESTION,
    ROOSEVELT,
    ROOSEVELT_QUOTE,
    held_run,
    receipt_of,
    source_id_of,
)
from web_helpers import HELD_QUESTION, WebUser

from evidence_desk.desk import Desk
from evidence_desk.testing.archives import SMALL_ARCHIVE, sotu_records, write_jsonl

SAME_ORIGIN = {"origin": "http://testserver", "sec-fetch-site": "same-origin"}
MINUTES = (
    b"Harbour board minutes\n\nIn 1999 the harbour board voted to spend the lighthouse tax "
    b"on a new fog signal at the northern point.\n"
)
MINUTES_QUOTE = "the harbour board voted to spend the lighthouse tax on a new fog signal"
# The re-ingested address says the opposite in as many characters, so every passage of the
# run keeps its offsets: only the text, not a shifted window, can tell the two apart.
CHANGED_QUOTE = ROOSEVELT_QUOTE.replace("get rich", "get poor")


def held_with_attachment(me: WebUser) -> str:
    """A run of `HELD_QUESTION` (held: it cites the planted page) with `MINUTES` attached."""
    r = me.client.post(
        "/ask",
        data={"question": HELD_QUESTION, "mode": "quick", "csrf_token": me.csrf},
        files=[("files", ("minutes.txt", MINUTES, "text/plain"))],
        headers=SAME_ORIGIN,
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text[:300]
    run_id: str = r.headers["location"].rsplit("/", 1)[1]
    assert me.wait(run_id)["state"] == "held"
    return run_id


def edit(ed: WebUser, run_id: str, draft: str) -> Any:
    return ed.post_json(f"/api/desk/runs/{run_id}/edit", {"draft": draft, "note": ""})


def reingest_changed_address(desk: Desk, folder: Path) -> None:
    """The 1941 address ingested again with `CHANGED_QUOTE` in place of its own words."""
    records = [r for r in sotu_records(SMALL_ARCHIVE) if r["id"] == ROOSEVELT]
    changed = {**records[0], "text": records[0]["text"].replace(ROOSEVELT_QUOTE, CHANGED_QUOTE)}
    assert changed["text"] != records[0]["text"]
    summary = desk.ingest([write_jsonl(folder / "changed.jsonl", [changed])])
    assert summary.replaced == 1, summary


def test_an_edit_quoting_an_attached_file_publishes(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser], web_desk: Desk
) -> None:
    """The attachment's text lives in its snapshot, not in the archive: the edit finds it
    there (it used to be refused as a source no longer in the archive)."""
    me = reader()
    run_id = held_with_attachment(me)
    ed = editor("robin")
    held = receipt_of(ed, run_id, run_id)
    uploads = [s for s in held["sources"] if s["origin"] == "upload"]
    assert len(uploads) == 1 and web_desk.store.get_document(uploads[0]["doc_id"]) is None
    draft = f'According to the document, "{MINUTES_QUOTE}" [{uploads[0]["id"]}].'
    r = edit(ed, run_id, draft)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["published"] is True, body["review"]["outcome"]
    new = receipt_of(me, run_id, f"{run_id}-r1")
    assert new["decision"] == "AUTO_CLEARED" and new["published_answer"] == draft
    assert new["quotes"][0]["source_id"] == uploads[0]["id"] and new["quotes"][0]["verbatim"]
    assert web_desk.verify_receipt(new).ok, web_desk.verify_receipt(new).problems


def test_an_edit_is_not_judged_against_a_text_re_ingested_since(
    reader: Callable[[], WebUser],
    editor: Callable[..., WebUser],
    web_desk: Desk,
    tmp_path: Path,
) -> None:
    """After the cited address is re-ingested with other words, a quote of the new words
    does not publish (the run never read them); a quote of the words it read still does."""
    me = reader()
    run_id = held_run(me, CLEAN_QUESTION)
    ed = editor()
    sid = source_id_of(ed, run_id, ROOSEVELT)
    reingest_changed_address(web_desk, tmp_path)

    new_words = f'The 1941 address said: "{CHANGED_QUOTE}" [{sid}].'
    # Judged against the archive's current text, the same sentence would publish:
    check = tmp_path / "draft.json"
    cited = [{"id": sid, "doc_id": ROOSEVELT}]
    check.write_text(
        json.dumps({"question": CLEAN_QUESTION, "answer": new_words, "sources": cited})
    )
    assert web_desk.check_file(check)[0]["decision"] == "AUTO_CLEARED"

    r = edit(ed, run_id, new_words)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["published"] is False and body["receipt"] is None
    assert "not word for word" in body["review"]["reason"]  # the check, not the auditor
    assert [q["verbatim"] for q in body["review"]["outcome"]["claims"][0]["quotes"]] == [False]
    assert me.get(f"/api/runs/{run_id}").json()["answer"]["published"] is None

    old_words = f'The 1941 address said: "{ROOSEVELT_QUOTE}" [{sid}].'
    r = edit(ed, run_id, old_words)
    assert r.status_code == 200 and r.json()["published"] is True, r.json()["review"]
    new = receipt_of(me, run_id, f"{run_id}-r1")
    assert new["decision"] == "AUTO_CLEARED" and new["draft"] == old_words
    assert web_desk.verify_receipt(new).ok, web_desk.verify_receipt(new).problems


def test_an_edit_whose_source_text_is_gone_is_refused_naming_it(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser], web_desk: Desk
) -> None:
    """A deleted document keeps only its earlier texts: the one the run read is gone, so the
    edit is refused in one sentence naming the source, and nothing is recorded."""
    me = reader()
    run_id = held_run(me, CLEAN_QUESTION)
    ed = editor()
    sid = source_id_of(ed, run_id, ROOSEVELT)
    assert web_desk.store.delete(ROOSEVELT)
    r = edit(ed, run_id, f'The 1941 address said: "{ROOSEVELT_QUOTE}" [{sid}].')
    assert r.status_code == 409, r.text
    assert r.json() == {
        "error": f"The text of source {sid} ({ROOSEVELT}) that the run read is no longer "
        "stored: the draft cannot be checked against it."
    }
    assert [item["run_id"] for item in ed.get("/api/desk/queue").json()] == [run_id]
