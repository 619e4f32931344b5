"""The offline answerer: verbatim quotes, a marker on every claim, one side per sub-question."""

from __future__ import annotations

import re

import pytest
from agents_helpers import BagOfWordsEmbedder, full_text, profile, sotu_sources, source_from_text

from evidence_desk.agents.offline.answerer import (
    OfflineAnswerer,
    expected_answer,
    frame,
    holds_answer_type,
)
from evidence_desk.agents.offline.evidence import collapse, quotable
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.trust.checks import EvidenceSource, check_draft
from evidence_desk.trust.claims import split_claims
from evidence_desk.types import Plan, Source, SubQuestion, TimeWindow

PROFILE = profile()
QUOTE = re.compile(r'"([^"]+)"')


def _answer(question: str, sources: list[Source]) -> tuple[Plan, str]:
    plan = OfflinePlanner().plan(question, PROFILE)
    return plan, OfflineAnswerer(BagOfWordsEmbedder()).answer(question, plan, sources).text


def _assert_grounded(draft: str, sources: list[Source]) -> None:
    """Every claim cites, quotes verbatim from its cited passages, and passes trust's checks."""
    by_id = {s.id: s for s in sources}
    claims = split_claims(draft)
    assert claims, "the draft is empty"
    for claim in claims:
        assert claim.citations, claim.text
        assert claim.text.endswith("]."), claim.text
        for quote in claim.quotes:
            passages = [collapse(p.text) for c in claim.citations for p in by_id[c].passages]
            assert any(collapse(quote) in p for p in passages), quote
            # a whole sentence, but for a phrase a claim says its speaker spoke of
            assert len(quote.split()) >= 6 or " spoke of " in claim.text, quote
    evidence = {s.id: EvidenceSource.from_source(s, full_text(s.doc_id)) for s in sources}
    for checked in check_draft(draft, evidence):
        assert checked.checks.passed, (checked.claim.text, checked.checks)


@pytest.mark.parametrize(
    ("question", "fileids"),
    [
        ("What did Lincoln say in 1862 about slavery?", ["1862-Lincoln-1", "1863-Lincoln-1"]),
        (
            "What did Franklin D. Roosevelt say about freedom of speech in 1941?",
            ["1941-Roosevelt-1"],
        ),
        ("What did Kennedy say about the moon?", ["1962-Kennedy-1", "1961-Kennedy-1"]),
    ],
)
def test_claims_quote_verbatim_and_pass_the_deterministic_checks(
    question: str, fileids: list[str]
) -> None:
    sources = sotu_sources(fileids, question)
    _, draft = _answer(question, sources)
    _assert_grounded(draft, sources)


def test_window_restricts_sources() -> None:
    sources = sotu_sources(["1862-Lincoln-1", "1863-Lincoln-1"], "slavery")
    _, draft = _answer("What did Lincoln say in 1862 about slavery?", sources)
    assert {c for claim in split_claims(draft) for c in claim.citations} == {"S1"}


def test_comparison_answers_each_side_in_its_own_paragraph() -> None:
    question = "Compare the 1930s and the 2000s on unemployment"
    sources = sotu_sources(["1934-Roosevelt-1", "1936-Roosevelt-1", "2003-Bush-1"], question)
    plan, draft = _answer(question, sources)
    assert plan.kind == "comparison"
    paragraphs = draft.split("\n\n")
    assert len(paragraphs) == len(plan.subquestions) == 2
    first = {c for claim in split_claims(paragraphs[0]) for c in claim.citations}
    second = {c for claim in split_claims(paragraphs[1]) for c in claim.citations}
    assert first <= {"S1", "S2"} and second == {"S3"}
    assert "unemploy" in paragraphs[0].lower() and "unemploy" in paragraphs[1].lower()
    _assert_grounded(draft, sources)


def test_people_comparison_cites_each_persons_addresses() -> None:
    question = "How did Washington and Jefferson talk about the navy?"
    fileids = ["1796-Washington-1", "1801-Jefferson-1", "1805-Jefferson-1"]
    sources = sotu_sources(fileids, question)
    _, draft = _answer(question, sources)
    washington, jefferson = draft.split("\n\n")
    assert "[S1]" in washington and "[S1]" not in jefferson
    assert "[S2]" in jefferson or "[S3]" in jefferson
    _assert_grounded(draft, sources)


def test_framing_adds_no_number_or_name_the_source_lacks() -> None:
    sources = sotu_sources(["1941-Roosevelt-1"], "freedom of speech")
    _, draft = _answer(
        "What did Franklin D. Roosevelt say about freedom of speech in 1941?", sources
    )
    outside = QUOTE.sub("", draft)
    metadata = f"{sources[0].title} {sources[0].date}"
    for number in re.findall(r"\d+", re.sub(r"\[S\d+\]", "", outside)):
        assert number in metadata
    for word in re.findall(r"[A-Z][a-z]+", outside):
        assert word in metadata


def test_nothing_relevant_gives_an_empty_draft() -> None:
    sources = sotu_sources(["1790-Washington-1"], "submarine cables")
    _, draft = _answer("What was said about submarine internet cables?", sources)
    assert draft == ""


def test_window_without_sources_gives_an_empty_draft() -> None:
    sources = sotu_sources(["1934-Roosevelt-1"], "banks")
    _, draft = _answer("What did the president say about banks in 2031?", sources)
    assert draft == ""


def test_sentences_with_quote_marks_are_trimmed_to_a_quote_free_part() -> None:
    text = (
        'The committee wrote that "the harbor must be dredged" before the winter storms. '
        "The navy requires a deep harbor for the new ships and their crews in every season."
    )
    source = source_from_text(text)
    plan = Plan(subquestions=(), queries=("harbor",), key_terms=("harbor",))
    draft = (
        OfflineAnswerer(BagOfWordsEmbedder()).answer("What about the harbor?", plan, [source]).text
    )
    for quote in QUOTE.findall(draft):
        assert '"' not in quote and quote in text
    assert quotable('He said "yes" and left.') is None
    assert quotable('He said "yes" and then the whole room stood up and cheered loudly.') == (
        "and then the whole room stood up and cheered loudly."
    )


def test_boilerplate_openings_lose_to_content() -> None:
    text = (
        "Fellow citizens of the Senate and House of Representatives, the harbor is important. "
        "The harbor at New Orleans must be deepened to carry the grain of the western states."
    )
    plan = Plan(subquestions=(), queries=("harbor",), key_terms=("harbor",))
    answerer = OfflineAnswerer(BagOfWordsEmbedder())
    draft = answerer.answer("harbor?", plan, [source_from_text(text)]).text
    assert "New Orleans" in draft and "Fellow citizens" not in draft


def test_a_heading_that_repeats_the_title_is_never_quoted() -> None:
    title = "National Contact Center's Text Message Program"
    text = (
        f"The {title}\n\nThe text message program began in early 2010, with input from other "
        "contact centers on their use of text messages."
    )
    plan = Plan(subquestions=(), queries=("text message program",), key_terms=("text", "program"))
    answerer = OfflineAnswerer(BagOfWordsEmbedder())
    draft = answerer.answer("program?", plan, [source_from_text(text, title=title)]).text
    assert "began in early 2010" in draft
    assert f'"The {title}"' not in draft and draft.count(title) <= 1  # the frame's alone


def test_frame_uses_title_and_year_only() -> None:
    source = source_from_text("Some text.", title='The "Big" Speech?')
    assert frame(source) == "The Big Speech (1941)"


@pytest.mark.parametrize(
    "title",
    ["Report. Part One [Draft]", "Vol. 2 of the Papers", "Franklin D. Roosevelt — Message, 1934"],
)
def test_any_title_frames_one_claim_with_one_citation(title: str) -> None:
    text = "The harbor at New Orleans must be deepened to carry the grain of the west."
    source = source_from_text(text, title=title)
    plan = Plan(subquestions=(), queries=("harbor",), key_terms=("harbor",))
    draft = OfflineAnswerer(BagOfWordsEmbedder()).answer("harbor?", plan, [source]).text
    (claim,) = split_claims(draft)
    assert claim.citations == ("S1",) and not claim.malformed
    assert claim.quotes == (
        "The harbor at New Orleans must be deepened to carry the grain of the west",
    )


def test_answer_embeds_only_a_bounded_number_of_sentences() -> None:
    embedder = BagOfWordsEmbedder()
    question = "What did Lincoln say in 1862 about slavery?"
    sources = sotu_sources(["1862-Lincoln-1"], question, per_source=6)
    plan = OfflinePlanner().plan(question, PROFILE)
    OfflineAnswerer(embedder, dense_candidates=8).answer(question, plan, sources)
    assert embedder.calls == 1
    assert embedder.texts <= 8 + len(plan.subquestions)


def test_a_candidate_the_gate_would_refuse_is_passed_over() -> None:
    text = (
        "The harbor must be dredged\u200b before the winter storms for the harbor ships. "
        "The navy requires a deep harbor for the new ships and their crews in every season."
    )
    source = source_from_text(text)
    plan = Plan(subquestions=(), queries=("harbor",), key_terms=("harbor",))
    answerer = OfflineAnswerer(BagOfWordsEmbedder())
    draft = answerer.answer("What about the harbor ships?", plan, [source]).text
    assert draft and "\u200b" not in draft  # the best match hides a character: not quoted
    assert "The navy requires a deep harbor" in draft


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which bill did the president ask Congress to pass?", "law"),
        ("What act did Congress pass in 1964?", "law"),
        ("Who would lead the war on fraud?", "name"),
        ("Which treaty ended the war?", "name"),
        ("How much money was proposed for hydrogen cars?", "quantity"),
        ("When did GSA say it would enforce HTTPS?", "date"),
        ("In what year, and by when, was it due?", "date"),
        ("How was the code delivered when they were introduced in 2015?", None),
        ("What volunteer organization did Kennedy propose?", "name"),
        ("What did the nation gain from the treaty?", None),
        ("What is the Federal Election Commission's first API called?", "name"),
        ("What did the president say about gold in California?", None),
        ("What was called for in the address?", None),
    ],
)
def test_expected_answer_names_the_kind_a_question_asks_for(question: str, kind: str) -> None:
    assert expected_answer(question) == kind


@pytest.mark.parametrize(
    ("sentence", "kind", "holds"),
    [
        ("So pass the Junk Fee Prevention Act so companies stop ripping us off.", "law", True),
        ("I signed the Freedom of Information Act into law.", "law", True),
        ("We have written a bill to stop it all.", "law", False),
        ("Surprise medical bills [from; White House correction] were stopped.", "law", False),
        ("Tonight I propose $1.2 billion in research funding.", "quantity", True),
        ("It will be done within a decade.", "quantity", True),
        ("Read 18F's blog post on preloading.", "quantity", False),
        ("Aidan has helped customers since December 2019.", "quantity", False),  # a year
        ("Aidan has reached over 2.6 million customers.", "quantity", True),
        ("GSA plans the change in the spring of 2017.", "date", True),
        ("The registrar writes in 30 days.", "date", True),
        ("GSA plans the change soon, this year.", "date", False),
        ("the war on fraud to be led by our great Vice President", "name", True),
        ("the war on fraud will be led by someone", "name", False),
        ("OpenFEC is the most recent step toward a new website.", "name", True),
        ("The FEC empowers citizens with information.", "name", False),
    ],
)
def test_holds_answer_type(sentence: str, kind: str, holds: bool) -> None:
    assert holds_answer_type(sentence, kind) is holds


FEES = (
    "We're going to ban surprise resort fees that hotels charge on your bill. "
    "Those surprise resort fees can cost families up to ninety dollars a night at hotels. "
    "So pass the Junk Fee Prevention Act so hotels stop their surprise charges. "
    "The Fee Schedule Act was repealed long ago by a different assembly of the state."
)
FEE_PLAN = Plan(
    subquestions=(),
    queries=("bill surprise resort fees",),
    key_terms=("bill", "surprise", "charges", "resort", "fees", "hotels"),
)


def test_a_question_for_a_law_is_answered_with_the_sentence_that_names_it() -> None:
    answerer = OfflineAnswerer(BagOfWordsEmbedder())
    question = "Which bill would end the surprise resort fees hotels charge?"
    draft = answerer.answer(question, FEE_PLAN, [source_from_text(FEES)]).text
    quotes = [q for c in split_claims(draft) for q in c.quotes]
    assert quotes[0].startswith("We're going to ban surprise resort fees")  # the best match
    assert any("Junk Fee Prevention Act" in q for q in quotes)  # and the one naming the Act
    assert not any("Fee Schedule Act" in q for q in quotes)  # below the floor: not quoted
    # Asked without wanting a name, the lower-scoring sentence stays out.
    plain = answerer.answer("What about surprise resort fees?", FEE_PLAN, [source_from_text(FEES)])
    assert "Junk Fee Prevention Act" not in plain.text


def test_a_name_the_question_already_holds_is_no_answer() -> None:
    question = "What is the Federal Election Commission's first API called?"
    assert not holds_answer_type(
        "We worked with the Federal Election Commission.", "name", question
    )
    assert holds_answer_type("It is called OpenFEC, and it is new.", "name", question)


HTTPS = (
    "This year, GSA will start enforcing HTTPS for newly issued executive branch domains. "
    "Agencies need do no work to comply with the enforcing of HTTPS on these domains. "
    "Browsers will strictly enforce HTTPS on every newly issued domain. "
    "Q: Will every newly issued domain enforce HTTPS for the agencies? "
    "The registry sends notices to its customers about the change. "
    "GSA plans to introduce this change in the spring of 2017. "
    "In June 2015, the White House asked web services to support a secure connection."
)
HTTPS_PLAN = Plan(
    subquestions=(),
    queries=("GSA enforcing HTTPS newly issued domains",),
    key_terms=("gsa", "start", "enforcing", "https", "newly", "issued", "domains"),
)


def test_an_answer_reads_on_in_its_source_for_the_kind_of_answer_asked_for() -> None:
    """ "When ...?" best matched by a sentence that gives no time: the answer quotes the
    sentence of the same document that does, though it shares few of the question's words
    and lies beyond the candidates ranked by words (two, here)."""
    answerer = OfflineAnswerer(BagOfWordsEmbedder(), dense_candidates=2)
    question = "When will GSA start enforcing HTTPS for newly issued domains?"
    draft = answerer.answer(question, HTTPS_PLAN, [source_from_text(HTTPS)]).text
    quotes = [q for c in split_claims(draft) for q in c.quotes]
    assert quotes[0].startswith("This year, GSA will start enforcing HTTPS")
    assert any("in the spring of 2017" in q for q in quotes)


def test_a_question_or_a_lead_in_is_no_answer() -> None:
    text = (
        "Q: Will GSA enforce HTTPS on every newly issued executive branch domain?\n\n"
        "In the guidance on newly issued executive branch domains, GSA will list:\n\n"
        "GSA said it will enforce HTTPS on new domains."
    )
    plan = Plan(subquestions=(), queries=("q",), key_terms=("gsa", "enforce", "https", "domains"))
    question = "Will GSA enforce HTTPS on newly issued executive branch domains?"
    draft = OfflineAnswerer(BagOfWordsEmbedder()).answer(question, plan, [source_from_text(text)])
    quotes = [q for c in split_claims(draft.text) for q in c.quotes]
    assert quotes == ["GSA said it will enforce HTTPS on new domains"]


def test_a_many_voices_question_quotes_another_speaker_before_a_second_quote() -> None:
    """ "What did presidents say ...?" is not answered by three quotes of the one who said it
    most: each speaker's best sentence above the floor comes first."""
    fileids = ["2015-Obama-1", "2013-Obama-1", "2010-Obama-1", "2007-Bush-1"]
    sources = [
        s.model_copy(update={"names": (s.doc_id.split("-")[1],), "offices": ("President",)})
        for s in sotu_sources(fileids, "climate change", per_source=2)
    ]
    by_id = {s.id: s for s in sources}

    def speakers(question: str) -> list[str]:
        _, draft = _answer(question, sources)
        _assert_grounded(draft, sources)
        return [by_id[c.citations[0]].names[0] for c in split_claims(draft)]

    assert speakers("What did Obama say about climate change?") == ["Obama"] * 3
    many = speakers("What did presidents say about climate change?")
    assert sorted(set(many)) == ["Bush", "Obama"] and len(many) == 3


def _named(sources: list[Source]) -> list[Source]:
    """The sources with their speaker's surname and office, as the archive's metadata has."""
    return [
        s.model_copy(update={"names": (s.doc_id.split("-")[1],), "offices": ("President",)})
        for s in sources
    ]


def _compare(sources: list[Source]) -> str:
    """The answer to "Compare what Kennedy and Reagan said about taxes.", planned as the
    sample's planner plans it (one side a president; the test profile lacks Reagan)."""
    windows = [TimeWindow(start="1961-01-01", end="1963-12-31", label="Kennedy")]
    windows.append(TimeWindow(start="1981-01-01", end="1989-12-31", label="Reagan"))
    plan = Plan(
        subquestions=tuple(
            SubQuestion(text=f"What did {w.label} say about taxes?", window=w) for w in windows
        ),
        time_windows=tuple(windows),
        queries=("taxes",),
        key_terms=("taxes",),
        kind="comparison",
    )
    question = "Compare what Kennedy and Reagan said about taxes."
    return OfflineAnswerer(BagOfWordsEmbedder()).answer(question, plan, sources).text


def test_a_comparison_closes_with_what_each_side_speaks_of_and_the_other_does_not() -> None:
    fileids = ["1963-Kennedy-1", "1962-Kennedy-1", "1985-Reagan-1", "1984-Reagan-1"]
    sources = _named(sotu_sources(fileids, "taxes", per_source=2))
    draft = _compare(sources)
    *sides, closing = draft.split("\n\n")
    assert len(sides) == 2
    kennedy, reagan = split_claims(closing)
    assert re.fullmatch(r'In 19\d\d, Kennedy spoke of "[^"]+" \[S[12]\]\.', kennedy.text)
    assert re.fullmatch(r'In 19\d\d, Reagan spoke of "[^"]+" \[S[34]\]\.', reagan.text)
    # what each names, the other side's quotes do not
    for claim, other in ((kennedy, sides[1]), (reagan, sides[0])):
        phrase = claim.quotes[0]
        assert "tax" in phrase.lower()
        own = {w for w in phrase.lower().split() if w not in ("the", "a", "and", "of", "tax")}
        assert own - set(re.findall(r"[a-z]+", other.lower())), (phrase, other)
    _assert_grounded(draft, sources)


def test_no_closing_pair_without_a_speaker_to_frame_it() -> None:
    fileids = ["1963-Kennedy-1", "1962-Kennedy-1", "1985-Reagan-1", "1984-Reagan-1"]
    sources = sotu_sources(fileids, "taxes", per_source=2)
    draft = _compare(sources)
    assert "spoke of" not in draft and len(draft.split("\n\n")) == 2
