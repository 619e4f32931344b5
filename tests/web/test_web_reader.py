"""Readers in the workspace: ask, follow the run, read the answer and its sources, keep threads."""

from __future__ import annotations

import json
from collections.abc import Callable

from web_helpers import HELD_QUESTION, OUTSIDE_QUESTION, QUESTION, WebUser


def test_a_reader_asks_and_reads_a_published_answer(reader: Callable[[], WebUser]) -> None:
    me = reader()
    run_id = me.ask(QUESTION)
    run = me.wait(run_id)
    assert run["state"] == "published"
    answer = run["answer"]
    assert answer["decision"] == "AUTO_CLEARED"
    assert answer["published"]["by"] == "gate"
    cites = [v for s in answer["published"]["sentences"] for k, v in s if k == "cite"]
    assert cites and set(cites) <= {s["id"] for s in answer["sources"]}
    page = me.get(f"/runs/{run_id}")
    assert page.status_code == 200
    assert f'href="/runs/{run_id}/sources/{cites[0]}#quote"' in page.text


def test_the_source_page_highlights_the_quote_at_its_offsets(
    reader: Callable[[], WebUser],
) -> None:
    me = reader()
    run_id = me.ask(QUESTION)
    me.wait(run_id)
    source = me.get(f"/api/runs/{run_id}/sources/S1").json()
    quote = source["quotes"][0]
    receipt = json.loads(me.get(f"/runs/{run_id}/receipts/{run_id}").text)
    doc_id = source["card"]["doc_id"]
    assert receipt["sources"][0]["doc_id"] == doc_id
    marked = [t for p in source["passages"] for t, q, *_ in p["pieces"] if q]
    assert quote["text"] in marked
    page = me.get(f"/runs/{run_id}/sources/S1")
    assert '<mark id="quote" tabindex="0">' in page.text
    assert source["card"]["content_sha256"] == receipt["sources"][0]["content_sha256"]


def test_events_stream_and_replay(reader: Callable[[], WebUser]) -> None:
    me = reader()
    run_id = me.ask(QUESTION)
    me.wait(run_id)
    with me.client.stream("GET", f"/runs/{run_id}/events") as stream:
        text = "".join(stream.iter_text())
    kinds = [ln.split(": ", 1)[1] for ln in text.splitlines() if ln.startswith("event: ")]
    assert kinds[0] == "run_opened" and kinds[-1] == "end"
    assert kinds.count("stage_started") == kinds.count("stage_ended")
    ids = [int(ln.split(": ")[1]) for ln in text.splitlines() if ln.startswith("id: ")]
    with me.client.stream(
        "GET", f"/runs/{run_id}/events", headers={"last-event-id": str(ids[3])}
    ) as stream:
        again = "".join(stream.iter_text())
    replayed = [int(ln.split(": ")[1]) for ln in again.splitlines() if ln.startswith("id: ")]
    assert replayed == ids[4:]


def test_outside_coverage_says_what_the_archive_covers(reader: Callable[[], WebUser]) -> None:
    me = reader()
    run = me.wait(me.ask(OUTSIDE_QUESTION))
    assert run["state"] == "outside"
    assert run["answer"]["published"] is None
    assert run["answer"]["coverage_note"] == (
        "The archive holds 7 dated documents from 1796 to 2012. For 1795 it holds none; the "
        "nearest year it covers is 1796 (1 document)."
    )
    page = me.get(f"/runs/{run['run_id']}").text
    assert "does not cover this question" in page


def test_a_held_answer_is_never_shown_to_its_reader(reader: Callable[[], WebUser]) -> None:
    me = reader()
    run = me.wait(me.ask(HELD_QUESTION))
    assert run["state"] == "held"
    assert run["answer"]["published"] is None
    page = me.get(f"/runs/{run['run_id']}").text
    assert "with the standards desk" in page
    assert "lighthouse tax was raised" not in page


def test_a_follow_up_stays_in_its_thread(reader: Callable[[], WebUser]) -> None:
    me = reader()
    first = me.wait(me.ask(QUESTION))
    conv = first["conv_id"]
    second = me.wait(me.ask("What did he say about freedom from fear?", conversation_id=conv))
    assert second["conv_id"] == conv
    thread = me.get(f"/api/conversations/{conv}").json()
    assert [r["run_id"] for r in thread["runs"]] == [first["run_id"], second["run_id"]]
    assert [c["conv_id"] for c in me.get("/api/conversations").json()] == [conv]


def test_asking_without_javascript_redirects_to_the_run(reader: Callable[[], WebUser]) -> None:
    me = reader()
    r = me.post_form("/ask", {"question": QUESTION, "mode": "deep"})
    assert r.status_code == 303
    run_id = r.headers["location"].rsplit("/", 1)[1]
    run = me.wait(run_id)
    assert run["mode"] == "deep" and run["state"] == "published"
