"""The paraphrase tier: a sentence in other words, grounded by its anchors and the spans an
auditor names (trust/paraphrase.py, docs/grounding.md "The paraphrase tier")."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from evidence_desk.trust.checks import (
    CheckedClaim,
    EvidenceSource,
    check_claims,
    check_draft,
    resting_spans,
    with_paraphrase,
)
from evidence_desk.trust.claims import DraftClaim, split_claims
from evidence_desk.trust.paraphrase import Rest, rest
from evidence_desk.types import CitedSpan, ClaimAudit, Verdict

SPEECH = (
    "In the future days we look forward to a world founded upon four essential human freedoms.\n\n"
    "The first is freedom of speech and expression everywhere in the world. "
    "The second is freedom of every person to worship God in his own way. "
    "The third is freedom from want. The fourth is freedom from fear.\n\n"
    "We must not relax our efforts to restore military strength. "
    "This year I plan to protect a free and open Internet for every classroom. "
    "Some say that the nation cannot afford new schools. "
    "In 1938 the mail was carried 85,700 miles and the roads ran 88,600 miles. "
    "The proposed rule would cut costs for small farms. "
    "It will not be doubted that agriculture is of primary importance. "
    "Only the Congress can raise taxes on imported steel. "
    "The states may raise only small sums by tariffs. "
    "Costs of the proposed rule fall on small farms.\n\n"
    "We seek to prevent the use of disease as a weapon of war. "
    "I asked Congress to pass the farm bill. "
    "The Senate rejected the treaty with Britain after a long debate. "
    "While in development, Sherlock supported many research studies with separate flight data."
)
FAR = "Far away, in another passage, the Senate rejected the treaty with Spain."


def _passages(text: str, sid: str = "doc") -> tuple[tuple[str, int, int], ...]:
    out, at = [], 0
    for k, para in enumerate(text.split("\n\n")):
        a = text.index(para, at)
        out.append((f"{sid}#{k}", a, a + len(para)))
        at = a + len(para)
    return tuple(out)


def source(
    sid: str = "S1", text: str = SPEECH, names: Sequence[str] = ("Roosevelt",)
) -> EvidenceSource:
    return EvidenceSource(
        id=sid,
        doc_id=f"doc-{sid}",
        text=text,
        passages=_passages(text, f"doc-{sid}"),
        date="1941-01-06",
        names=tuple(names),
        offices=("President",),
        addressees=("Congress",),
    )


def claim(draft: str) -> DraftClaim:
    (c,) = split_claims(draft)
    return c


def spans(*texts: str, sid: str = "S1") -> tuple[CitedSpan, ...]:
    return tuple(CitedSpan(source_id=sid, text=t) for t in texts)


def rested(draft: str, *texts: str, sources: Sequence[EvidenceSource] = ()) -> Rest:
    carriers = [s.carrier for s in (sources or [source()])]
    return rest(claim(draft), spans(*texts), carriers)


FREEDOMS = (
    "we look forward to a world founded upon four essential human freedoms",
    "The first is freedom of speech and expression",
    "The second is freedom of every person to worship God in his own way",
    "The third is freedom from want",
    "The fourth is freedom from fear",
)

GROUNDED = [
    # a list gathered from consecutive sentences, with the speaker's frame and a synonym-free
    # reorder of its items
    (
        "Roosevelt named four essential human freedoms: freedom of speech and expression, "
        "freedom of every person to worship God in his own way, freedom from want and "
        "freedom from fear [S1].",
        FREEDOMS,
    ),
    # the speaker as the subject of what the source says in the first person
    (
        "Roosevelt looked forward to a world founded upon four essential human freedoms [S1].",
        FREEDOMS[:1],
    ),
    # a frame that characterises what the source says, and a moved opening
    (
        "Roosevelt described freedom from want as the third freedom [S1].",
        ("The third is freedom from want",),
    ),
    # a reported view reported as one
    (
        "Roosevelt said some say that the nation cannot afford new schools [S1].",
        ("Some say that the nation cannot afford new schools",),
    ),
    # numbers in the source's order, names, and the polarity words kept
    (
        "Only the Congress, Roosevelt said, can raise taxes on imported steel [S1].",
        ("Only the Congress can raise taxes on imported steel",),
    ),
    # a governing verb kept, and a name before a `to` that governs nothing
    (
        "Roosevelt said we seek to prevent the use of disease as a weapon in war [S1].",
        ("We seek to prevent the use of disease as a weapon of war",),
    ),
    (
        "Roosevelt asked Congress to pass the farm bill [S1].",
        ("I asked Congress to pass the farm bill",),
    ),
    # a pointing word the spans open with too
    (
        "It will not be doubted, Roosevelt said, that farming is of primary importance [S1].",
        ("It will not be doubted that agriculture is of primary importance",),
    ),
    # a quoted list: its quotes need not come from consecutive sentences
    (
        'Roosevelt made two points: first, "The first is freedom of speech and expression"; '
        'second, "The fourth is freedom from fear" [S1].',
        ("The first is freedom of speech and expression", "The fourth is freedom from fear"),
    ),
]


@pytest.mark.parametrize(("draft", "texts"), GROUNDED)
def test_faithful_paraphrases_rest_on_their_spans(draft: str, texts: tuple[str, ...]) -> None:
    found = rested(draft, *texts)
    assert found.problems == ()
    assert found.source_id == "S1" and found.window is not None
    assert len(found.stretches) == len(texts)
    for a, b in found.stretches:
        assert SPEECH[a:b] in " ".join(texts) or any(SPEECH[a:b] in t for t in texts)


SYNONYMS = [
    # a synonym from WordNet's common senses, and a modal shifted back in reported speech
    (
        "The President said that it would not be doubted that farming is of primary "
        "importance [S1].",
        ("It will not be doubted that agriculture is of primary importance",),
    ),
]


@pytest.mark.parametrize(("draft", "texts"), SYNONYMS)
def test_synonyms_rest_on_their_spans(draft: str, texts: tuple[str, ...], wordnet: None) -> None:
    test_faithful_paraphrases_rest_on_their_spans(draft, texts)


def test_the_anchors_are_recorded() -> None:
    found = rested(
        "Only the Congress, Roosevelt said, can raise taxes on imported steel [S1].",
        "Only the Congress can raise taxes on imported steel",
    )
    assert "restriction: only" in found.anchors
    assert "modal: can" in found.anchors
    assert "name: congress" in found.anchors or "name: steel" not in found.anchors


HELD = [
    # (draft, spans, a phrase of the reason)
    ("Roosevelt said the world will be free [S1].", (), "named no words"),
    (
        "The first freedom is of speech [S1].",
        ("The first is freedom of speech and expression", "not there at all"),
        "not word for word",
    ),
    ("The first freedom is of speech [S1].", ("freedom of",), "shorter than"),
    (
        "Roosevelt said the world rests on four freedoms and the Senate rejected it [S1].",
        (FREEDOMS[0], "The Senate rejected the treaty with Britain"),
        "consecutive passages",
    ),
    (
        "Roosevelt said in 1938 the mail was carried 85,700 miles [S1].",
        ("In 1938 the mail was carried 85,700 miles", "The proposed rule would cut costs"),
        "uses none of the words",
    ),
    # a new word that is neither the spans' nor a form or synonym of theirs
    (
        "Roosevelt said freedom from fear is overrated [S1].",
        ("The fourth is freedom from fear",),
        "overrated",
    ),
    # an anchor that must be the spans' own
    (
        "In 1938 the mail was carried 85,700 miles by Spain [S1].",
        ("In 1938 the mail was carried 85,700 miles",),
        "names",
    ),
    (
        "In 1939 the mail was carried 85,700 miles [S1].",
        ("In 1938 the mail was carried 85,700 miles",),
        "numbers",
    ),
    (
        "The mail was carried more than 85,700 miles [S1].",
        ("the mail was carried 85,700 miles",),
        "comparisons",
    ),
    # numbers swapped
    (
        "In 1938 the mail was carried 88,600 miles and the roads ran 85,700 miles [S1].",
        ("In 1938 the mail was carried 85,700 miles and the roads ran 88,600 miles",),
        "order",
    ),
    # polarity: a negation dropped, a modal changed or dropped, a quantifier dropped
    (
        "Roosevelt said we must relax our efforts to restore military strength [S1].",
        ("We must not relax our efforts to restore military strength",),
        "negation",
    ),
    (
        "Roosevelt said we may not relax our efforts to restore military strength [S1].",
        ("We must not relax our efforts to restore military strength",),
        "modal",
    ),
    (
        "Roosevelt said the states may raise small sums by tariffs [S1].",
        ("The states may raise only small sums by tariffs",),
        "restriction",
    ),
    (
        "Roosevelt said the Congress can raise taxes on imported steel [S1].",
        ("Only the Congress can raise taxes on imported steel",),
        "qualifies",
    ),
    # a hedge dropped: the proposed rule is no rule
    (
        "Costs of the rule fall on small farms, the President said [S1].",
        ("Costs of the proposed rule fall on small farms",),
        "hedge",
    ),
    # a verb that turns what follows round, dropped
    (
        "Roosevelt said we seek the use of disease as a weapon of war [S1].",
        ("We seek to prevent the use of disease as a weapon of war",),
        "turning-verb",
    ),
    # a governing verb dropped, inside the span or just before it
    (
        "Roosevelt said we prevent the use of disease as a weapon of war [S1].",
        ("We seek to prevent the use of disease as a weapon of war",),
        "govern",
    ),
    (
        "I protect a free and open Internet for every classroom [S1].",
        ("protect a free and open Internet for every classroom",),
        "govern",
    ),
    # the speaker made the subject of words the source does not say in the first person
    (
        "Roosevelt rejected the treaty with Britain after a long debate [S1].",
        ("The Senate rejected the treaty with Britain after a long debate",),
        "first person",
    ),
    # a sentence of quotes alone is the contract's to carry
    (
        '"The third is freedom from want" [S1].',
        ("The third is freedom from want",),
        "paraphrases nothing",
    ),
    # spans from sentences far apart in a sentence of its own words
    (
        "Roosevelt called freedom of speech a freedom from fear [S1].",
        ("The first is freedom of speech and expression", "The fourth is freedom from fear"),
        "consecutive sentences",
    ),
    # a quote from outside the spans
    (
        'Roosevelt said the third is freedom from want and "freedom from fear" [S1].',
        ("The third is freedom from want",),
        "not in the spans",
    ),
    # a reported view given as the speaker's own
    (
        "Roosevelt said that the nation cannot afford new schools [S1].",
        ("the nation cannot afford new schools",),
        "view it reports",
    ),
    # a qualifier right before the stretch, left out
    (
        "The Congress can raise taxes on imported steel [S1].",
        ("the Congress can raise taxes on imported steel",),
        "qualifies",
    ),
    # a negation right before the stretch, left out
    (
        "Roosevelt said it will be doubted that agriculture is of primary importance [S1].",
        ("doubted that agriculture is of primary importance",),
        "negates",
    ),
    # another year than the sentence dates its words by
    (
        "In 1941, the mail was carried 85,700 miles [S1].",
        ("the mail was carried 85,700 miles",),
        "another year",
    ),
    # a pointing word the spans do not open with: what it names is the writer's choice
    (
        "It can raise taxes on imported steel [S1].",
        ("the Congress can raise taxes on imported steel",),
        "points to is the writer's",
    ),
    (
        "They may raise small sums by tariffs [S1].",
        ("The states may raise only small sums by tariffs",),
        "points to is the writer's",
    ),
]


@pytest.mark.parametrize(("draft", "texts", "why"), HELD)
def test_unfaithful_or_unproven_paraphrases_are_held(
    draft: str, texts: tuple[str, ...], why: str
) -> None:
    found = rested(draft, *texts)
    assert not found.grounded
    assert any(why in p for p in found.problems), found.problems


def test_spans_must_come_from_one_cited_source() -> None:
    other = source("S2", FAR, ("Lincoln",))
    found = rest(
        claim("The Senate rejected the treaty [S1][S2]."),
        (
            *spans("The Senate rejected the treaty with Britain"),
            *spans("the Senate rejected the treaty with Spain", sid="S2"),
        ),
        [source().carrier, other.carrier],
    )
    assert found.problems == ("the spans it rests on come from more than one source",)
    found = rest(
        claim("The Senate rejected the treaty [S1]."),
        spans("the Senate rejected the treaty with Spain", sid="S2"),
        [source().carrier],
    )
    assert found.problems == ("it rests on a span of S2, a source it does not cite",)


def test_a_quote_must_lie_in_the_spans() -> None:
    found = rested(
        'Roosevelt spoke of freedom from want: "is freedom from" [S1].', "freedom from want"
    )
    assert found.problems == ('its quote "is freedom from" is not in the spans of S1 it rests on',)


def test_passages_that_do_not_follow_each_other_are_no_window() -> None:
    text = "The Senate met on Monday.\n\nThe treaty was signed on Tuesday."
    apart = EvidenceSource("S1", "d", text, (("d#0", 0, 25), ("d#4", 27, len(text))))
    found = rest(
        claim("The Senate met and the treaty was signed [S1]."),
        spans("The Senate met on Monday", "The treaty was signed on Tuesday"),
        [apart.carrier],
    )
    assert "consecutive passages" in found.problems[0]


def test_a_span_inside_a_word_is_not_verbatim() -> None:
    found = rested("The ourth is freedom [S1].", "ourth is freedom from fear")
    assert "not word for word" in found.problems[0]


# ------------------------------------------------------------------ in the checks and gate


def _sources() -> dict[str, EvidenceSource]:
    return {"S1": source()}


def test_check_claims_records_each_tier() -> None:
    draft = (
        'Roosevelt said: "The third is freedom from want." [S1] '
        "The fourth is freedom from fear [S1]. "
        "Roosevelt looked forward to a world founded upon four essential human freedoms [S1]."
    )
    claims = split_claims(draft)
    given = [(), (), spans(FREEDOMS[0])]
    checked = check_claims(claims, _sources(), given)
    tiers = [c.checks.tier for c in checked]
    assert tiers == ["verbatim", "extractive", "paraphrase"]
    third = checked[2].checks
    assert third.grounding == () and third.passed
    assert third.extractive and "same order" in third.extractive[0]
    assert [q.text for q in third.rests_on] == [
        "look forward to a world founded upon four essential human freedoms"
    ]
    assert all(q.verbatim and q.source_id == "S1" for q in third.rests_on)
    q = third.rests_on[0]
    assert q.start is not None and SPEECH[q.start : q.end] == q.text


def test_a_failed_paraphrase_keeps_both_reasons() -> None:
    (checked,) = check_claims(
        split_claims("Roosevelt said we must relax our efforts [S1]."),
        _sources(),
        [spans("We must not relax our efforts to restore military strength")],
    )
    assert checked.checks.tier is None
    assert checked.checks.grounding[0].startswith("no passage of S1")
    assert any(g.startswith("as a paraphrase, its negation") for g in checked.checks.grounding)


def test_words_refused_in_context_are_never_rescued() -> None:
    """The contract found the words together but not asserted there (a reported view): the
    tier is not tried, whatever spans are named."""
    (checked,) = check_claims(
        split_claims("Roosevelt said that the nation cannot afford new schools [S1]."),
        _sources(),
        [spans("Some say that the nation cannot afford new schools")],
    )
    assert checked.checks.tier is None
    assert not any(g.startswith("as a paraphrase") for g in checked.checks.grounding)


def test_a_sentence_keeps_its_leans_in_the_tier() -> None:
    draft = (
        "The Senate rejected the treaty with Britain after a long debate [S1]. "
        "He looked forward to a world founded upon four essential human freedoms [S1]."
    )
    checked = check_claims(split_claims(draft), _sources(), [(), spans(FREEDOMS[0])])
    assert checked[1].checks.tier == "paraphrase"
    assert checked[1].checks.leans_on == (1,) or checked[1].checks.grounding


def _audit(verdict: Verdict, *texts: str) -> ClaimAudit:
    return ClaimAudit(verdict=verdict, spans=spans(*texts))


def test_resting_spans_are_a_supporting_auditors_alone() -> None:
    audits = [
        _audit(Verdict.SUPPORTED, "a b c"),
        _audit(Verdict.PARTIAL, "d e f"),
        _audit(Verdict.UNSUPPORTED, "g h i"),
    ]
    assert [len(s) for s in resting_spans(audits)] == [1, 0, 0]


def test_with_paraphrase_rechecks_only_when_a_span_could_help() -> None:
    draft = "The fourth is freedom from fear [S1]. Roosevelt looked forward to four freedoms [S1]."
    checked = check_draft(draft, _sources())
    unchanged = with_paraphrase(
        checked, [_audit(Verdict.SUPPORTED), _audit(Verdict.UNSUPPORTED, FREEDOMS[0])], _sources()
    )
    assert unchanged == list(checked)
    again: list[CheckedClaim] = with_paraphrase(
        checked, [_audit(Verdict.SUPPORTED), _audit(Verdict.SUPPORTED, FREEDOMS[0])], _sources()
    )
    assert [c.checks.tier for c in again] == ["extractive", "paraphrase"]


def test_the_paraphrase_examples_in_the_docs_behave_as_documented(wordnet: None) -> None:
    import re
    from pathlib import Path

    doc = (Path(__file__).parents[3] / "docs" / "grounding.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| `([^`]+)` \| `([^`]+)` \| `([^`]+)` \| (grounded|not grounded)\b", doc, re.MULTILINE
    )
    assert len(rows) >= 8
    assert {outcome for *_, outcome in rows} == {"grounded", "not grounded"}
    for draft, text, span, outcome in rows:
        speech = EvidenceSource(
            "S1", "d", text, (("d#0", 0, len(text)),), date="2012-01-24",
            names=("Barack Obama",), offices=("President",), addressees=("Congress",),
        )  # fmt: skip
        claims = split_claims(draft)
        (checked,) = check_claims(claims, {"S1": speech}, [spans(span)])
        assert checked.checks.passed == (outcome == "grounded"), (draft, checked.checks)
        if outcome == "grounded":
            assert checked.checks.tier in ("paraphrase", "extractive")


def test_a_turning_verb_for_a_word_the_span_has_is_still_counted(wordnet: None) -> None:
    """`declining to accept` is not `declining to reject`, though WordNet puts `decline`
    and `reject` in one sense: the turning verbs are counted, not only matched."""
    text = "The agent declined to accept the appointment in London."
    agent = EvidenceSource("S1", "d", text, (("d#0", 0, len(text)),), names=("Washington",))
    found = rest(
        claim("Washington said the agent declined to reject the appointment in London [S1]."),
        spans("The agent declined to accept the appointment in London"),
        [agent.carrier],
    )
    assert any("turning-verb" in p for p in found.problems), found.problems


PLEDGES = (
    "In an early message, I shall propose a permanent reduction in tax rates which will lower "
    "liabilities. The tax falls on every family farm in the nation. We will not raise the "
    "tax on every family farm. We should cut the tax on small farms."
)


@pytest.mark.parametrize(
    ("draft", "span", "why"),
    [
        # `shall` reported as `would`, and the modal of a clause it does not use alike
        (
            "Roosevelt said he would propose a permanent reduction in tax rates [S1].",
            "I shall propose a permanent reduction in tax rates which will lower liabilities",
            None,
        ),
        # a universal quantifier left out with its word only weakens the claim
        (
            "Roosevelt said the tax falls on farms in the nation [S1].",
            "The tax falls on every family farm in the nation",
            None,
        ),
        # ... but not when the sentence keeps its word
        (
            "Roosevelt said the tax falls on family farms in the nation [S1].",
            "The tax falls on every family farm in the nation",
            "quantifier",
        ),
        # ... nor under a negation, where leaving it out makes the claim stronger
        (
            "Roosevelt said we will not raise the tax on farms [S1].",
            "We will not raise the tax on every family farm",
            "quantifier",
        ),
        # `should` says what ought to be, not what will be
        (
            "Roosevelt said we would cut the tax on small farms [S1].",
            "We should cut the tax on small farms",
            "modal",
        ),
    ],
)
def test_reported_modals_and_universal_quantifiers(draft: str, span: str, why: str | None) -> None:
    found = rested(draft, span, sources=[source(text=PLEDGES)])
    if why is None:
        assert found.grounded, found.problems
    else:
        assert not found.grounded and any(why in p for p in found.problems), found.problems


def test_a_list_named_in_a_writers_words_leaves_out_every_with_its_person() -> None:
    draft = (
        "Roosevelt named four freedoms: freedom of speech and expression, freedom of worship, "
        "freedom from want and freedom from fear [S1]."
    )
    found = rested(draft, *FREEDOMS)
    assert found.grounded, found.problems
    assert "quantifier: every" not in found.anchors


@pytest.mark.parametrize(
    ("draft", "texts"),
    [
        # the subject made the object, and the object the subject
        (
            "The treaty with Britain rejected the Senate after a long debate [S1].",
            ("The Senate rejected the treaty with Britain after a long debate",),
        ),
        (
            "Many research studies with separate flight data supported Sherlock [S1].",
            ("Sherlock supported many research studies with separate flight data",),
        ),
    ],
)
def test_a_paraphrase_that_turns_round_who_does_what_is_held(
    draft: str, texts: tuple[str, ...]
) -> None:
    found = rested(draft, *texts)
    assert not found.grounded
    assert any("turns round who does what" in p for p in found.problems), found.problems


@pytest.mark.parametrize(
    ("draft", "texts"),
    [
        # the same roles in the passive, and a name moved but on its own side of the verb
        (
            "The treaty with Britain was rejected by the Senate after a long debate [S1].",
            ("The Senate rejected the treaty with Britain after a long debate",),
        ),
        (
            "After a long debate, the Senate rejected the treaty with Britain [S1].",
            ("The Senate rejected the treaty with Britain after a long debate",),
        ),
    ],
)
def test_a_paraphrase_that_keeps_who_does_what_is_not_held_for_its_roles(
    draft: str, texts: tuple[str, ...]
) -> None:
    found = rested(draft, *texts)
    assert not any("turns round" in p for p in found.problems), found.problems


ROLES_TEXT = (
    "The Congress passed the bill last week. The fund appropriated for arming the militia "
    "was spent. The harbor of Boston was closed by Parliament in 1774."
)


@pytest.mark.parametrize(
    ("draft", "span", "turned"),
    [
        # a plain word, not a name, turned round its verb
        (
            "For arming the militia appropriated the fund [S1].",
            "The fund appropriated for arming the militia was spent",
            True,
        ),
        # faithful: a time moved to the front, a relative clause, an active for a passive,
        # and a noun that could be a verb
        (
            "Last week, the Congress passed the bill [S1].",
            "The Congress passed the bill last week",
            False,
        ),
        (
            "The bill that the Congress passed last week [S1].",
            "The Congress passed the bill last week",
            False,
        ),
        (
            "Parliament closed Boston's harbor in 1774 [S1].",
            "The harbor of Boston was closed by Parliament in 1774",
            False,
        ),
    ],
)
def test_roles_are_read_around_a_verb_not_a_noun(draft: str, span: str, turned: bool) -> None:
    found = rested(draft, span, sources=[source("S1", ROLES_TEXT, ("John Adams",))])
    assert any("turns round who does what" in p for p in found.problems) == turned, found
