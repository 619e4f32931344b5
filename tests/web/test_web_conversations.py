"""Conversations in the workspace: a follow-up is planned against the questions before it
(its receipt's plan says how it was understood), the list says where each conversation
stands, the conversation page names each question once, and the follow-up box suggests
only what the conversation is about."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable

from web_helpers import HELD_QUESTION, OUTSIDE_QUESTION, QUESTION, WebUser

FOLLOWUP = "What did he say about freedom from fear?"
RESOLVED = "What did Franklin D. Roosevelt say about freedom from fear?"
PLACEHOLDER = re.compile(r'<textarea id="question"[^>]*placeholder="([^"]*)"')


def placeholder(page: str) -> str:
    m = PLACEHOLDER.search(page)
    assert m, "the page has no ask box"
    return html.unescape(m.group(1))


def test_a_follow_up_is_planned_against_the_conversation(reader: Callable[[], WebUser]) -> None:
    me = reader()
    first = me.wait(me.ask(QUESTION))
    conv = first["conv_id"]
    second = me.wait(me.ask(FOLLOWUP, conversation_id=conv))
    assert second["state"] == "published", second
    got = me.get(f"/runs/{second['run_id']}/receipts/{second['run_id']}")
    assert got.status_code == 200, got.text
    receipt = json.loads(got.text)
    assert receipt["question"] == FOLLOWUP
    assert receipt["plan"]["resolved_question"] == RESOLVED
    assert receipt["plan"]["resolved_from"] == QUESTION
    assert receipt["plan"]["resolved_subject"] == "Franklin D. Roosevelt"
    assert {sq["entity"] for sq in receipt["plan"]["subquestions"]} == {"franklin d. roosevelt"}
    assert {s["doc_id"] for s in receipt["sources"]} <= {"1934-Roosevelt-1", "1941-Roosevelt-1"}
    # the same words asked on their own are planned as asked
    alone = me.wait(me.ask(FOLLOWUP))
    assert alone["conv_id"] != conv
    body = json.loads(me.get(f"/runs/{alone['run_id']}/receipts/{alone['run_id']}").text)
    assert body["plan"]["resolved_question"] is None


def test_the_list_shows_each_conversations_mode_outcome_and_questions(
    reader: Callable[[], WebUser],
) -> None:
    me = reader()
    published = me.wait(me.ask(QUESTION))
    me.wait(me.ask(FOLLOWUP, conversation_id=published["conv_id"], mode="deep"))
    held = me.wait(me.ask(HELD_QUESTION))
    outside = me.wait(me.ask(OUTSIDE_QUESTION))
    listed = {c["conv_id"]: c for c in me.get("/api/conversations").json()}
    assert (listed[published["conv_id"]]["outcome"], listed[published["conv_id"]]["mode"]) == (
        "Published",
        "Deep",  # the latest run's
    )
    assert listed[published["conv_id"]]["questions"] == 2
    assert listed[held["conv_id"]]["outcome"] == "Held for review"
    assert listed[outside["conv_id"]]["outcome"] == "Outside coverage"
    assert listed[outside["conv_id"]]["questions"] == 1
    page = me.get("/").text
    section = page[page.index('id="threads-h"') :]
    items = re.findall(r"<li>(.*?)</li>", section, re.S)
    assert len(items) == 3
    newest_first = [html.unescape(re.sub(r"<[^>]+>", " ", i)) for i in items]
    assert "Outside coverage" in newest_first[0] and "1 question " in newest_first[0]
    assert "Held for review" in newest_first[1] and "Quick" in newest_first[1]
    assert "Published" in newest_first[2] and "Deep" in newest_first[2]
    assert "2 questions" in newest_first[2]


def test_the_conversation_page_names_each_question_once(reader: Callable[[], WebUser]) -> None:
    me = reader()
    first = me.wait(me.ask(QUESTION))
    me.wait(me.ask(FOLLOWUP, conversation_id=first["conv_id"]))
    page = me.get(f"/conversations/{first['conv_id']}").text
    h1 = re.search(r"<h1>(.*?)</h1>", page, re.S)
    assert h1 is not None
    assert "Conversation" in h1.group(1) and QUESTION not in html.unescape(h1.group(1))
    assert re.search(r"started <time datetime=\"\d{4}-\d\d-\d\dT", h1.group(1))
    headings = [html.unescape(h) for h in re.findall(r'<h2 id="q-[^"]+"[^>]*>(.*?)</h2>', page)]
    assert [re.sub(r"<[^>]+>", "", h) for h in headings] == [QUESTION, FOLLOWUP]


def test_the_follow_up_box_suggests_the_conversations_own_subject(
    reader: Callable[[], WebUser],
) -> None:
    me = reader()
    first = me.wait(me.ask(QUESTION))
    conv = first["conv_id"]
    thread_page = me.get(f"/conversations/{conv}").text
    assert placeholder(thread_page) == (
        "A follow-up, e.g. What else did Franklin D. Roosevelt say about freedom of speech?"
    )
    second = me.wait(me.ask(FOLLOWUP, conversation_id=conv))
    hint = "A follow-up, e.g. What else did Franklin D. Roosevelt say about freedom from fear?"
    assert placeholder(me.get(f"/conversations/{conv}").text) == hint
    assert placeholder(me.get(f"/runs/{second['run_id']}").text) == hint
    # a conversation whose subject code cannot read gets no suggestion, never someone else's
    vague = me.wait(me.ask("Tell me everything."))
    assert placeholder(me.get(f"/conversations/{vague['conv_id']}").text) == "Ask a follow-up"
    assert "freedom from fear" not in placeholder(me.get(f"/runs/{vague['run_id']}").text)
    # the home page's box asks a new question, as before
    assert placeholder(me.get("/").text).startswith("What did Franklin D. Roosevelt say")
