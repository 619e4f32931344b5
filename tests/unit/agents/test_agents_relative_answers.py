"""A source dated after a question's window answers it through a sentence dated relatively.

"In early April, GSA launched ..." in an article of August 28, 2017 is about April 2017: the
answerer lets such a sentence answer a window of April 2017, frames it with the article's
full date, and the gate's own checks accept that frame.
"""

from __future__ import annotations

import hashlib

from agents_helpers import BagOfWordsEmbedder

from evidence_desk.agents.base import ClaimToAudit
from evidence_desk.agents.offline.answerer import (
    RELATIVE_DATE_REACH_DAYS,
    OfflineAnswerer,
    claim_text,
    eligible,
    frame,
)
from evidence_desk.agents.offline.auditor import OfflineAuditor
from evidence_desk.trust.checks import EvidenceSource, check_claim, check_draft
from evidence_desk.trust.claims import split_claims
from evidence_desk.types import Plan, ScoredPassage, Source, SubQuestion, TimeWindow, Verdict

APRIL = TimeWindow(start="2017-04-01", end="2017-04-30", label="April 2017")
RELATIVE = "In early April, GSA launched a shared login service for federal agencies."
PLAIN = "GSA launched a shared login service for federal agencies and their partners."


def _source(text: str, day: str, source_id: str = "S1", title: str = "Login news") -> Source:
    return Source(
        id=source_id,
        doc_id=f"{day}-{source_id}.md",
        title=title,
        date=day,
        retrieved_at="2026-01-01T00:00:00Z",
        content_sha256=hashlib.sha256(text.encode()).hexdigest(),
        passages=(
            ScoredPassage(id=f"{source_id}#0", text=text, start=0, end=len(text), score=1.0),
        ),
    )


def _plan(window: TimeWindow | None = APRIL) -> Plan:
    question = "What login service did GSA launch in April 2017?"
    return Plan(
        subquestions=(SubQuestion(text=question, window=window),),
        time_windows=() if window is None else (window,),
        queries=("login service GSA launch",),
        key_terms=("login", "service", "gsa", "launch"),
        kind="temporal",
    )


def _answer(sources: list[Source], reach: int = RELATIVE_DATE_REACH_DAYS) -> str:
    answerer = OfflineAnswerer(BagOfWordsEmbedder(), relative_date_reach_days=reach)
    return answerer.answer("What login service did GSA launch?", _plan(), sources).text


def test_a_later_article_answers_the_window_through_its_relative_date() -> None:
    source = _source(RELATIVE, "2017-08-28")
    draft = _answer([source])
    assert draft == f'Login news (August 28, 2017): "{RELATIVE.rstrip(".")}" [S1].'
    checked = check_draft(draft, {"S1": EvidenceSource.from_passages(source)})
    assert [c.checks.passed for c in checked] == [True]


def test_the_same_article_without_a_relative_date_does_not() -> None:
    assert _answer([_source(PLAIN, "2017-08-28")]) == ""


def test_an_article_beyond_the_reach_does_not() -> None:
    late = _source(RELATIVE, "2018-02-24")  # 300 days after April 30, 2017
    assert _answer([late]) == ""
    assert _answer([late], reach=300) != ""


def test_eligibility_sentence_by_sentence() -> None:
    sq = _plan().subquestions[0]
    inside = _source(PLAIN, "2017-04-12")
    later = _source(RELATIVE, "2017-08-28")
    assert eligible(PLAIN, inside, sq, RELATIVE_DATE_REACH_DAYS)
    assert eligible(RELATIVE, later, sq, RELATIVE_DATE_REACH_DAYS)
    assert not eligible(PLAIN, _source(PLAIN, "2017-08-28"), sq, RELATIVE_DATE_REACH_DAYS)
    # "last month" in an August article is July: not April.
    july = "Last month, GSA launched a shared login service for federal agencies."
    assert not eligible(july, _source(july, "2017-08-28"), sq, RELATIVE_DATE_REACH_DAYS)
    # Before the window, or with no reach, or with an empty window: nothing.
    assert not eligible(RELATIVE, _source(RELATIVE, "2017-03-01"), sq, RELATIVE_DATE_REACH_DAYS)
    assert not eligible(RELATIVE, later, sq, 0)
    empty = SubQuestion(text="?", window=TimeWindow(start="2017-05-01", end="2017-04-30", label=""))
    assert not eligible(RELATIVE, later, empty, RELATIVE_DATE_REACH_DAYS)
    assert eligible(RELATIVE, later, SubQuestion(text="?"), 0)


def test_the_full_date_frame_passes_the_gates_checks_and_the_auditor() -> None:
    source = _source(RELATIVE, "2017-08-28", title="Login.gov news, 2017")
    claim = claim_text(source, RELATIVE.rstrip("."))
    assert claim.startswith("Login.gov news, 2017 (August 28, 2017): ")
    (parsed,) = split_claims(claim)
    checks, _ = check_claim(parsed, {"S1": EvidenceSource.from_passages(source)})
    assert checks.passed, checks
    (audit,) = OfflineAuditor(BagOfWordsEmbedder()).audit(
        "?", [ClaimToAudit(text=claim, citations=("S1",))], [source]
    )
    assert audit.verdict == Verdict.SUPPORTED


def test_a_wrong_full_date_in_the_frame_is_refused() -> None:
    source = _source(RELATIVE, "2017-08-28")
    wrong = f'Login news (August 29, 2017): "{RELATIVE.rstrip(".")}" [S1].'
    (parsed,) = split_claims(wrong)
    checks, _ = check_claim(parsed, {"S1": EvidenceSource.from_passages(source)})
    assert not checks.passed


def test_the_frame_keeps_the_year_without_a_relative_date() -> None:
    source = _source(PLAIN, "2017-08-28")
    assert frame(source) == "Login news (2017)"
    assert claim_text(source, PLAIN.rstrip(".")).startswith("Login news (2017): ")
    assert frame(source, full=True) == "Login news (August 28, 2017)"
    undated = source.model_copy(update={"date": None})
    assert claim_text(undated, RELATIVE.rstrip(".")).startswith("Login news: ")


def test_sources_inside_the_window_still_answer_without_a_relative_date() -> None:
    draft = _answer([_source(PLAIN, "2017-04-12")])
    assert draft.startswith('Login news (2017): "GSA launched')


def test_a_quote_that_names_another_year_is_framed_without_a_date() -> None:
    # The contract reads a framing year as dating the quote: "(2025)" before "By 2021, ..."
    # would fail; the title alone passes.
    text = "By 2021, the site had accumulated more than 200,000 pages of content."
    source = _source(text, "2025-01-02", title="Rebuilding CDC.gov")
    claim = claim_text(source, text.rstrip("."))
    assert claim.startswith('Rebuilding CDC.gov: "By 2021')
    (parsed,) = split_claims(claim)
    checks, _ = check_claim(parsed, {"S1": EvidenceSource.from_passages(source)})
    assert checks.passed, checks
    dated = f'Rebuilding CDC.gov (2025): "{text.rstrip(".")}" [S1].'
    (parsed,) = split_claims(dated)
    assert not check_claim(parsed, {"S1": EvidenceSource.from_passages(source)})[0].passed
    same = _source("In 2025 the site was rebuilt from scratch.", "2025-01-02")
    assert claim_text(same, "In 2025 the site was rebuilt from scratch").startswith(
        "Login news (2025)"
    )
