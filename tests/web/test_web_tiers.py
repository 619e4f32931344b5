"""The pages show each sentence's tier: a reader sees a paraphrased sentence labelled, and on
its source's page the words it rests on marked apart from the quotes; an editor sees every
held sentence's tier, a paraphrase's anchors and resting words, and who gave the verdict.

A real run's stored receipt is rewritten in place to hold a paraphrase (the offline engine
writes none under the strict policy): its second sentence rests on a stretch of the quoted
passage that begins before the quote and runs into it, and that stretch is given markup
(`<b>&</b>`, the same length as the words it replaces) to show source text stays text.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from markupsafe import escape
from web_helpers import HELD_QUESTION, QUESTION, WebUser, Widget

from evidence_desk.desk import Desk
from evidence_desk.server.reader import ViewCache

PLANTED = "<b>&</b>"
PARAPHRASE = "Roosevelt put free speech first, everywhere, & said so <plainly> [S1]."
TIER_FIELDS = ("tier", "anchors", "rests_on", "extractive")


def stored(desk: Desk, run_id: str) -> dict[str, Any]:
    row = desk.store.get_receipt(run_id)
    assert row is not None
    receipt: dict[str, Any] = json.loads(row.json)
    return receipt


def rewrite(app: FastAPI, desk: Desk, receipt: dict[str, Any]) -> None:
    """The stored receipt replaced (pages render what is stored; none re-verify it), and the
    app's finished pages forgotten (it keeps them: a stored receipt changes only by review)."""
    with desk.store._write() as db:
        db.execute(
            "UPDATE receipts SET json = ? WHERE run_id = ?",
            (json.dumps(receipt), receipt["run_id"]),
        )
    app.state.views = ViewCache()


def rest_in(
    receipt: dict[str, Any], quote: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The passage holding `quote`, given PLANTED, and a stretch of it from 30 characters
    before the quote to 10 into it (overlapping it), located as `rests_on` records it."""
    source = next(s for s in receipt["sources"] if s["id"] == quote["source_id"])
    passage = next(p for p in source["passages"] if p["start"] <= quote["start"] < p["end"])
    start = max(quote["start"] - 30, passage["start"])
    at = start - passage["start"]
    text = passage["text"]
    passage["text"] = text[:at] + PLANTED + text[at + len(PLANTED) :]
    end = quote["start"] + 10
    words = passage["text"][at : end - passage["start"]]
    return passage, {
        "text": words,
        "source_id": quote["source_id"],
        "verbatim": True,
        "start": start,
        "end": end,
    }


def paraphrased(
    claim: dict[str, Any], text: str, rest: dict[str, Any], **more: Any
) -> dict[str, Any]:
    checks = {
        **claim["checks"],
        "tier": "paraphrase",
        "anchors": ["name: roosevelt", "frame: said"],
        "rests_on": [rest],
        "extractive": ["no passage carries it word for word"],
        "carried_by": [],
    }
    spans = [{"source_id": rest["source_id"], "text": rest["text"]}]
    return {**claim, "text": text, "quotes": [], "checks": checks, "spans": spans, **more}


def with_paraphrase(
    app: FastAPI, web_desk: Desk, run_id: str, **more: Any
) -> tuple[dict[str, Any], int]:
    """The published run's answer rewritten as its first (verbatim) sentence and then a
    paraphrase resting on S1 (its claim given `more`); the passage it rests in and that
    passage's number."""
    receipt = stored(web_desk, run_id)
    first = receipt["claims"][0]
    assert first["kept"] and first["checks"]["tier"] == "verbatim"
    assert first["quotes"][0]["source_id"] == "S1"
    passage, rest = rest_in(receipt, first["quotes"][0])
    receipt["claims"] = [first, paraphrased(first, PARAPHRASE, rest, **more)]
    receipt["published_answer"] = " ".join(c["text"] for c in receipt["claims"])
    rewrite(app, web_desk, receipt)
    s1 = next(s for s in receipt["sources"] if s["id"] == "S1")
    return passage, 1 + s1["passages"].index(passage)


def published_with_paraphrase(
    reader: Callable[[], WebUser], app: FastAPI, web_desk: Desk
) -> tuple[WebUser, str, dict[str, Any], int]:
    """A reader's published run rewritten `with_paraphrase`."""
    me = reader()
    run_id = me.ask(QUESTION)
    assert me.wait(run_id)["state"] == "published"
    passage, number = with_paraphrase(app, web_desk, run_id)
    return me, run_id, passage, number


def held_receipt(reader: Callable[[], WebUser], web_desk: Desk) -> dict[str, Any]:
    """The stored receipt of a reader's run that the gate held."""
    me = reader()
    held = me.wait(me.ask(HELD_QUESTION))
    assert held["state"] == "held"
    return stored(web_desk, held["run_id"])


def passage_text(page: str, number: int) -> str:
    """What a reader reads of passage `number` on a source page: its text, tags dropped."""
    m = re.search(rf'<li id="p{number}"[^>]*>.*?</p>\s*<p>(.*?)</p>\s*</li>', page, re.S)
    assert m, f"no passage {number} on the page"
    return html.unescape(re.sub(r"<[^>]+>", "", m.group(1)))


def test_a_paraphrased_sentence_is_labelled_and_leads_to_the_words_it_rests_on(
    reader: Callable[[], WebUser], app: FastAPI, web_desk: Desk
) -> None:
    me, run_id, _, _ = published_with_paraphrase(reader, app, web_desk)
    page = me.get(f"/runs/{run_id}").text
    assert page.count('class="tier-label"') == 1
    assert '<p class="sentence tier-verbatim" data-tier="verbatim">' in page
    label = re.search(
        r'<p class="sentence tier-paraphrase" data-tier="paraphrase">(.*?)</p>', page, re.S
    )
    assert label, page
    sentence = label.group(1)
    assert "&amp; said so &lt;plainly&gt;" in sentence and "<plainly>" not in page
    assert (
        f'<a class="tier-label" href="/runs/{run_id}/sources/S1#rests-2"' in sentence
        and f'aria-describedby="paraphrase-note-{run_id}">paraphrase<span class="visually-hidden">'
        in sentence
    )
    note = f'<p class="muted tier-note" id="paraphrase-note-{run_id}">'
    assert note in page and "meaning in other words" in page
    tiers = me.get(f"/api/runs/{run_id}").json()["answer"]["published"]["tiers"]
    assert [(t["tier"], t["number"], t["source_id"]) for t in tiers] == [
        ("verbatim", 1, None),
        ("paraphrase", 2, "S1"),
    ]


def test_the_source_page_marks_the_resting_words_apart_from_the_quote(
    reader: Callable[[], WebUser], app: FastAPI, web_desk: Desk
) -> None:
    me, run_id, passage, number = published_with_paraphrase(reader, app, web_desk)
    page = me.get(f"/runs/{run_id}/sources/S1").text
    assert passage_text(page, number) == passage["text"]  # the pieces cover it exactly
    anchor = '<span id="rests-2" class="rests-anchor"></span><mark class="rests" data-sentences="2"'
    assert page.count(anchor) == 1
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in page and PLANTED not in page
    assert '<mark class="rests quoted" id="quote" data-sentences="2"' in page  # the overlap
    assert page.count('id="quote"') == 1
    assert "rests on" in page and "sentence 2, “" in page
    assert re.search(rf'<li id="p{number}" class="passage quoted rested"', page)
    api = me.get(f"/api/runs/{run_id}/sources/S1").json()
    assert [r["number"] for r in api["rests"]] == [2]
    shown = next(p for p in api["passages"] if p["id"] == passage["id"])
    assert "".join(piece[0] for piece in shown["pieces"]) == passage["text"]
    assert next(piece[0] for piece in shown["pieces"] if piece[2] == [2]).startswith(PLANTED)


def test_a_receipt_written_before_tiers_still_renders_unmarked(
    reader: Callable[[], WebUser], app: FastAPI, web_desk: Desk
) -> None:
    me = reader()
    run_id = me.ask(QUESTION)
    assert me.wait(run_id)["state"] == "published"
    receipt = stored(web_desk, run_id)
    receipt["receipt_version"] = 2
    for claim in receipt["claims"]:
        for name in ("spans", "audited_by"):
            del claim[name]
        for name in TIER_FIELDS:
            del claim["checks"][name]
    rewrite(app, web_desk, receipt)
    page = me.get(f"/runs/{run_id}")
    assert page.status_code == 200
    assert 'class="sentence"' in page.text
    assert "tier-label" not in page.text and "data-tier" not in page.text
    source = me.get(f"/runs/{run_id}/sources/S1")
    assert source.status_code == 200
    assert '<mark id="quote" tabindex="0">' in source.text and 'class="rests' not in source.text


def test_the_editor_sees_each_sentence_tier_anchors_resting_words_and_verdict_giver(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser], app: FastAPI, web_desk: Desk
) -> None:
    receipt = held_receipt(reader, web_desk)
    source = receipt["sources"][0]
    passage = source["passages"][0]
    passage["text"] = PLANTED + passage["text"][len(PLANTED) :]
    words = passage["text"][:40]
    rest = {"text": words, "source_id": source["id"], "verbatim": True}
    rest |= {"start": passage["start"], "end": passage["start"] + 40}
    receipt["claims"][0] = paraphrased(
        receipt["claims"][0], receipt["claims"][0]["text"], rest, audited_by="draft"
    )
    rewrite(app, web_desk, receipt)
    page = editor().get(f"/desk/runs/{receipt['run_id']}").text
    assert page.count('class="desk-tier"') == len(receipt["claims"])  # every one says
    tier = '<span class="tier-word tier-paraphrase">paraphrase</span>'
    assert f'<p class="desk-tier" data-tier="paraphrase">Carried: {tier}' in page
    assert (
        '<code class="anchor">name: roosevelt</code> <code class="anchor">frame: said</code>'
        in page
    )
    assert f'{source["id"]}: <mark class="rests">{escape(words)}</mark>' in page
    assert "verdict given by draft, not the run’s auditor" in page
    assert "no passage carries it word for word" in page
    # the source beside the draft marks the words, without the reader's page anchors
    beside = r'<mark class="rests[^"]*" data-sentences="1" title="[^"]*sentence 1 rests on">'
    assert re.search(beside + re.escape(html.escape(PLANTED)), page)
    assert 'id="rests-' not in page and PLANTED not in page


def test_the_widget_marks_a_paraphrase_with_script_and_without(
    app: FastAPI, server: Any, web_desk: Desk
) -> None:
    w = Widget(app)
    run_id = w.ask(QUESTION)
    assert w.wait(run_id)["status"] == "published"
    with_paraphrase(app, web_desk, run_id)
    body = w.run(run_id).json()
    assert body["tiers"] == ["verbatim", "paraphrase"]
    page = w.form(f"/widget/runs/{run_id}", {}).text  # the page a browser without script gets
    marked = re.findall(r"<p>(.*?)</p>", page, re.S)
    paraphrase = [p for p in marked if "said so" in p]
    assert len(paraphrase) == 1 and '<span class="w-tier"' in paraphrase[0]
    assert "&lt;plainly&gt;" in paraphrase[0] and "<plainly>" not in page
    assert page.count('class="w-tier"') == 1


def test_words_the_answerer_cited_are_named_as_its_own_for_the_reader(
    reader: Callable[[], WebUser], app: FastAPI, web_desk: Desk
) -> None:
    """A paraphrase resting on the answerer's citations (`spans_by: answerer`) says so on its
    label; one resting on its auditor's own spans names no other giver."""
    me = reader()
    run_id = me.ask(QUESTION)
    assert me.wait(run_id)["state"] == "published"
    with_paraphrase(app, web_desk, run_id, spans_by="answerer")
    page = me.get(f"/runs/{run_id}").text
    label = re.search(r'<a class="tier-label" [^>]*title="([^"]*)"', page)
    assert label and "the answer’s writer cited" in html.unescape(label.group(1))
    tiers = me.get(f"/api/runs/{run_id}").json()["answer"]["published"]["tiers"]
    assert [t["spans_by"] for t in tiers] == ["", "answerer"]
    with_paraphrase(app, web_desk, run_id)
    page = me.get(f"/runs/{run_id}").text
    assert "tier-label" in page and "writer cited" not in html.unescape(page)


def test_words_the_answerer_cited_are_named_as_its_own_in_the_widget(
    app: FastAPI, server: Any, web_desk: Desk
) -> None:
    w = Widget(app)
    run_id = w.ask(QUESTION)
    assert w.wait(run_id)["status"] == "published"
    with_paraphrase(app, web_desk, run_id, spans_by="answerer")
    assert w.run(run_id).json()["spans_by"] == ["", "answerer"]
    framed = w.form(f"/widget/runs/{run_id}", {}).text
    marks = re.findall(r'<span class="w-tier" title="([^"]*)">', framed)
    assert len(marks) == 1 and "the answer’s writer cited" in html.unescape(marks[0])
    with_paraphrase(app, web_desk, run_id)
    assert w.run(run_id).json()["spans_by"] == ["", ""]


def test_words_the_answerer_cited_are_named_as_its_own_for_the_editor(
    reader: Callable[[], WebUser], editor: Callable[..., WebUser], app: FastAPI, web_desk: Desk
) -> None:
    receipt = held_receipt(reader, web_desk)
    first, source = receipt["claims"][0], receipt["sources"][0]
    start = source["passages"][0]["start"]
    rest = {"text": "x", "source_id": source["id"], "verbatim": True, "start": start}
    rest["end"] = start + 1
    receipt["claims"][0] = paraphrased(first, first["text"], rest, spans_by="answerer")
    rewrite(app, web_desk, receipt)
    review = editor().get(f"/desk/runs/{receipt['run_id']}").text
    assert review.count('class="desk-spans-by"') == 1
    assert "named by the answerer (its citations)" in review
