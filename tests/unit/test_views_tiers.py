"""What the pages are given of a sentence's tier (`desk/workspace/views.py`): each published
sentence's tier, the passages cut at quotes and at the stretches a paraphrase rests on, and
the editor's row for each held sentence.

Receipts are built from the receipt types (`Claim`, `ClaimChecks`, `Quote`) and dumped to the
JSON the store keeps, so the views read what a run writes. The cutting of passages is judged
character by character against the spans themselves, not by re-running the cut.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from evidence_desk.desk.workspace.passages import Piece, pieces
from evidence_desk.desk.workspace.views import (
    Published,
    SentenceTier,
    held_reasons,
    published_of,
    shown_claims,
    source_view,
)
from evidence_desk.types import CitedSpan, Claim, ClaimChecks, Quote, Tier, Verdict

# One source of two passages, one after the other in its stored text.
P1 = "The Peace of 1919 was far less unjust than the <pacification>."
P2 = 'It began even before Munich, "under the new order of tyranny".'
TEXT = P1 + P2


def at(words: str, source_id: str = "S1") -> Quote:
    """`words` located in TEXT, as a receipt records a verbatim quote or resting stretch."""
    start = TEXT.index(words)
    return Quote(
        text=words, source_id=source_id, verbatim=True, start=start, end=start + len(words)
    )


def claim(
    text: str,
    *,
    tier: Tier | None = None,
    kept: bool = True,
    quotes: tuple[Quote, ...] = (),
    rests_on: tuple[Quote, ...] = (),
    anchors: tuple[str, ...] = (),
    grounding: tuple[str, ...] = (),
    audited_by: str = "",
    auditor: Verdict = Verdict.SUPPORTED,
) -> dict[str, Any]:
    checks = ClaimChecks(
        has_citation=True,
        citations_exist=True,
        quotes_verbatim=True,
        numbers_dates=True,
        grounding=grounding,
        tier=tier,
        anchors=anchors,
        rests_on=rests_on,
        extractive=("no passage carries it word for word",) if tier == "paraphrase" else (),
    )
    return Claim(
        text=text,
        citations=("S1",),
        quotes=quotes,
        checks=checks,
        verdict=auditor,
        auditor_verdict=auditor,
        spans=tuple(CitedSpan(source_id="S1", text=q.text) for q in rests_on),
        audited_by=audited_by,
        kept=kept,
    ).model_dump(mode="json")


def receipt(*claims: dict[str, Any], published: bool = True, **extra: Any) -> dict[str, Any]:
    kept = " ".join(c["text"] for c in claims if c["kept"])
    return {
        "receipt_version": 3,
        "run_id": "r1",
        "question": "What did Roosevelt say of the peace of 1919?",
        "decision": "PUBLISHED_AFTER_PRUNING" if published else "HELD_FOR_REVIEW",
        "reason": "",
        "published_answer": kept if published else "",
        "claims": copy.deepcopy(list(claims)),
        "quotes": [q for c in claims for q in c["quotes"]],
        "sources": [
            {
                "id": "S1",
                "doc_id": "1941-Roosevelt-1",
                "passages": [
                    {"id": "d#1", "start": 0, "end": len(P1), "text": P1},
                    {"id": "d#2", "start": len(P1), "end": len(TEXT), "text": P2},
                ],
            },
            {
                "id": "S2",
                "doc_id": "other",
                "passages": [{"id": "o#1", "start": 0, "end": len(P1), "text": P1}],
            },
        ],
        **extra,
    }


VERBATIM = claim(
    'Roosevelt: "The Peace of 1919" [S1].', tier="verbatim", quotes=(at("The Peace of 1919"),)
)
PARAPHRASE = claim(
    "Roosevelt held the 1919 peace far less unjust than the pacification [S1].",
    tier="paraphrase",
    rests_on=(at("Peace of 1919 was far less unjust"), at("than the <pacification>")),
    anchors=("number: 1919", "comparison: less"),
)


def marked(view_pieces: tuple[Piece, ...]) -> list[tuple[str, bool, tuple[int, ...]]]:
    return [(p.text, p.quoted, p.rests) for p in view_pieces]


# ---------------------------------------------------------------- the cut


def test_overlapping_quote_and_rest_cut_at_every_edge() -> None:
    text = "one two three four five"
    cut = pieces(text, 100, [(104, 118)], [(108, 122, 2)])  # "two three four", "three four fiv"
    assert marked(cut) == [
        ("one ", False, ()),
        ("two ", True, ()),
        ("three four", True, (2,)),
        (" fiv", False, (2,)),
        ("e", False, ()),
    ]


def test_spans_outside_a_passage_are_clipped_or_left_out() -> None:
    cut = pieces("abcdef", 10, [(0, 12), (30, 40)], [(15, 99, 1), (0, 5, 4)])
    assert marked(cut) == [("ab", True, ()), ("cde", False, ()), ("f", False, (1,))]


def test_a_passage_without_spans_is_one_piece_and_an_empty_one_none() -> None:
    assert pieces("abc", 0, []) == (Piece("abc"),)
    assert pieces("", 0, [(0, 3)], [(0, 3, 1)]) == ()


SPANS = st.tuples(st.integers(-5, 45), st.integers(0, 50))


@given(
    text=st.text(alphabet="ab <&\"'", max_size=40),
    start=st.integers(0, 10),
    quotes=st.lists(SPANS, max_size=4),
    rests=st.lists(
        st.tuples(st.integers(-5, 45), st.integers(0, 50), st.integers(1, 3)), max_size=4
    ),
)
def test_pieces_cover_the_text_and_mark_each_character_by_its_spans(
    text: str,
    start: int,
    quotes: list[tuple[int, int]],
    rests: list[tuple[int, int, int]],
) -> None:
    cut = pieces(text, start, quotes, rests)
    assert "".join(p.text for p in cut) == text
    assert all(p.text for p in cut)
    at_char = start
    for p in cut:
        for i in range(at_char, at_char + len(p.text)):
            assert p.quoted == any(s <= i < e for s, e in quotes)
            assert p.rests == tuple(sorted({n for s, e, n in rests if s <= i < e}))
        at_char += len(p.text)


# ---------------------------------------------------------------- the answer's tiers


def test_each_published_sentence_carries_its_tier_numbered_as_shown() -> None:
    dropped = claim("A sentence the gate dropped [S1].", tier="extractive", kept=False)
    published = published_of(receipt(dropped, VERBATIM, PARAPHRASE))
    assert published is not None and published.by == "gate"
    assert published.tiers == (
        SentenceTier("verbatim", 1, None),
        SentenceTier("paraphrase", 2, "S1"),
    )
    assert [t.tier for _, t in published.lines] == ["verbatim", "paraphrase"]


def test_an_approved_draft_shows_every_sentence_with_its_tier() -> None:
    held = receipt(VERBATIM, {**PARAPHRASE, "kept": False}, published=False)
    approved = {**held, "review": {"action": "approved", "published_answer": "x", "editor": "ed"}}
    published = published_of(approved)
    assert published is not None and published.by == "editor"
    assert [t.tier for t in published.tiers] == ["verbatim", "paraphrase"]


def test_a_receipt_before_tiers_publishes_sentences_without_one() -> None:
    old = receipt(VERBATIM, receipt_version=2)
    del old["claims"][0]["checks"]["tier"]
    published = published_of(old)
    assert published is not None
    assert published.tiers == (SentenceTier(None, 1, None),)
    # a Published made without tiers still gives each sentence an empty one
    bare = Published("gate", published.sentences, published.text)
    assert [t for _, t in bare.lines] == [SentenceTier()]


# ---------------------------------------------------------------- the source page


def test_the_source_view_marks_what_a_shown_paraphrase_rests_on() -> None:
    view = source_view(receipt(VERBATIM, PARAPHRASE), "S1")
    assert view is not None
    assert [r["number"] for r in view.rests] == [2, 2]
    first, second = view.passages
    assert "".join(p.text for p in first.pieces) == P1
    assert marked(first.pieces) == [
        ("The ", True, ()),
        ("Peace of 1919", True, (2,)),
        (" was far less unjust", False, (2,)),
        (" ", False, ()),
        ("than the <pacification>", False, (2,)),
        (".", False, ()),
    ]
    assert [p.starts for p in first.pieces if p.starts] == [(2,)]  # where #rests-2 points
    assert first.has_quote and first.has_rest
    assert not second.has_rest and not second.has_quote


def test_resting_words_across_passages_start_once_on_the_page() -> None:
    across = claim(
        "The pacification began before Munich [S1].",
        tier="paraphrase",
        rests_on=(at("<pacification>.It began"),),
    )
    view = source_view(receipt(across), "S1")
    assert view is not None
    first, second = view.passages
    assert [(p.text, p.starts) for p in first.pieces if p.rests] == [("<pacification>.", (1,))]
    assert [(p.text, p.starts) for p in second.pieces if p.rests] == [("It began", ())]


def test_only_shown_paraphrases_of_this_source_rest_on_it() -> None:
    dropped = {**PARAPHRASE, "kept": False}
    elsewhere = claim(
        "Another source says so [S2].", tier="paraphrase", rests_on=(at("far less unjust", "S2"),)
    )
    unlocated = claim(
        "Not found [S1].",
        tier="paraphrase",
        rests_on=(Quote(text="nowhere", source_id="S1", verbatim=False),),
    )
    published = receipt(VERBATIM, dropped, elsewhere, unlocated)
    view = source_view(published, "S1")
    assert view is not None and view.rests == ()
    assert not any(p.has_rest for p in view.passages)
    other = source_view(published, "S2")
    assert other is not None and [r["number"] for r in other.rests] == [2]  # after VERBATIM
    # a held draft keeps nothing, and the desk is shown what all of it rests on
    held = source_view(receipt(VERBATIM, dropped, published=False), "S1")
    assert held is not None and [r["number"] for r in held.rests] == [2, 2]
    assert shown_claims(receipt(VERBATIM, dropped))[0][1]["text"] == VERBATIM["text"]


def test_an_unknown_source_has_no_view() -> None:
    assert source_view(receipt(VERBATIM), "S9") is None


# ---------------------------------------------------------------- the editor's rows


def test_the_editor_reads_each_sentence_tier_and_what_a_paraphrase_rests_on() -> None:
    unground = claim(
        "Roosevelt praised Munich [S1].",
        grounding=("no passage of S1 carries it",),
        kept=False,
        auditor=Verdict.UNSUPPORTED,
        audited_by="draft",
    )
    rows = held_reasons(receipt(VERBATIM, PARAPHRASE, unground, published=False))
    assert [r["tier"] for r in rows] == ["verbatim", "paraphrase", "not carried"]
    assert rows[1]["anchors"] == ["number: 1919", "comparison: less"]
    assert [q["text"] for q in rows[1]["rests_on"]] == [
        "Peace of 1919 was far less unjust",
        "than the <pacification>",
    ]
    assert rows[1]["not_word_for_word"] == ["no passage carries it word for word"]
    assert rows[0]["rests_on"] == [] and rows[0]["audited_by"] == ""
    assert rows[2]["audited_by"] == "draft"
    assert (
        "the verdict given by draft (not the run's auditor) found it unsupported"
        in rows[2]["problems"]
    )


def test_an_older_receipt_says_nothing_of_tiers_it_did_not_record() -> None:
    carried = claim("Carried [S1].")
    not_carried = claim("Not carried [S1].", grounding=("no passage carries it",))
    rows = held_reasons(receipt(carried, not_carried, published=False, receipt_version=2))
    assert [r["tier"] for r in rows] == [None, "not carried"]
    # claims an edit was judged on now, given without their receipt, record tiers
    assert [r["tier"] for r in held_reasons({"claims": [carried]})] == ["not carried"]
