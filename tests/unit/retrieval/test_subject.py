"""The question's subject: code tokens, multi-word names and distinctive words must be in the
selected evidence, or the run is outside coverage with the missing term named."""

from __future__ import annotations

import pytest

from evidence_desk.retrieval.coverage import ArchiveStats, assess
from evidence_desk.retrieval.subject import (
    capitalised_words,
    close_together,
    code_terms,
    english_zipf,
    in_order,
    is_distinctive_word,
    many_voices,
    name_terms,
)
from evidence_desk.types import Hit, Passage, Plan, ScoredPassage, Source, SubQuestion

TEXT = (
    "Login.gov now supports security keys, and agencies adopted WCAG 2.1 for their sites. "
    "The Federal Web Managers Council met in April to review chatbot pilots."
)


def plan(key_terms: tuple[str, ...]) -> Plan:
    return Plan(subquestions=(SubQuestion(text="q"),), queries=("q",), key_terms=key_terms)


def source(text: str = TEXT, title: str = "News", names: tuple[str, ...] = ()) -> Source:
    return Source(
        id="S1",
        doc_id="d",
        title=title,
        names=names,
        retrieved_at="2026-01-01T00:00:00Z",
        content_sha256="0" * 64,
        passages=(ScoredPassage(id="d#0", text=text, start=0, end=len(text), score=0.0),),
    )


def hit(text: str = TEXT) -> Hit:
    passage = Passage(id="d#0", doc_id="d", text=text, start=0, end=len(text))
    return Hit(passage=passage, score=1.0, dense_score=0.9)


def stats(
    df: dict[str, int] | None = None, n: int = 10_000, phrases: dict[str, int] | None = None
) -> ArchiveStats:
    found = df or {}
    counts = phrases or {}
    return ArchiveStats(
        num_passages=n,
        doc_freq=lambda t: found.get(t, 0),
        docs_in_window=lambda w: 5,
        phrase_freq=lambda stems, slop: counts.get(" ".join(stems), 0),
    )


def judge(question: str, key_terms: tuple[str, ...], *, zipf: float = 3.0, **kw: object):
    src = kw.pop("src", source())
    cov, _ = assess(
        plan(key_terms),
        [hit()],
        [src],  # type: ignore[list-item]
        stats(kw.pop("df", None), phrases=kw.pop("phrases", None)),  # type: ignore[arg-type]
        floor=0.1,
        rare_term_max_df=0.001,
        question=question,
        common_zipf=zipf,
    )
    return cov


# --------------------------------------------------------------------------- reading terms


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did agencies adopt WCAG 3.0?", [("WCAG 3.0", ("wcag", "3", "0"))]),
        ("Does login.gov support passkeys?", [("login.gov", ("login", "gov"))]),
        ("What did GSA say about HTTP/3?", [("HTTP/3", ("http", "3"))]),
        (
            "How did USWDS 2 differ from USWDS 3?",
            [("USWDS 2", ("uswds", "2")), ("USWDS 3", ("uswds", "3"))],
        ),
        ("What is FedRAMP for?", [("FedRAMP", ("fedramp",))]),
        ("Did the eGov office grow?", [("eGov", ("egov",))]),
        ("What did agencies publish in mid-2017?", []),
        ("What did agencies learn upgrading to Drupal 10?", [("Drupal 10", ("drupal", "10"))]),
        ("What did agencies publish on March 15 or In 2017?", []),
        ("According to McKinley's 1898 message, what happened?", []),
    ],
)
def test_code_terms(question: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert [(t.surface, t.parts) for t in code_terms(question)] == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What did the Federal Chatbot Council recommend?", ["Federal Chatbot Council"]),
        ("What did the Department of Veterans Affairs launch?", ["Department of Veterans Affairs"]),
        ("Did FedRAMP and the U.S. Digital Service agree?", ["U.S. Digital Service"]),
        ("What did President Obama say in April?", []),
        ("What Did The Department Of Veterans Affairs Launch In 2019?", []),
        ("In March 2019, which agency won?", []),
        ("How did Obama talk about the Soviet Sputnik satellite?", []),  # an adjective
        ("Where did the Census Bureau's CitySDK launch?", ["Census Bureau"]),
        ("Who is the General Manager for the Broncos?", ["General Manager"]),
        (
            "What did the Department of Government Efficiency (DOGE) do?",
            ["Department of Government Efficiency"],
        ),
    ],
)
def test_name_terms(question: str, expected: list[str]) -> None:
    assert [t.surface for t in name_terms(question)] == expected


def test_title_case_questions_carry_no_capitals() -> None:
    assert capitalised_words("What Did The Agency Say About Passkeys?") == set()
    assert capitalised_words("What did NASA and Lincoln do?") == {"nasa", "lincoln"}


def test_distinctive_words() -> None:
    assert english_zipf("the") > 6 and english_zipf("passkeys") < 2
    assert is_distinctive_word("passkeys", set(), 3.0)
    assert not is_distinctive_word("surrender", set(), 3.0)  # a common word: maybe paraphrase
    assert is_distinctive_word("surrender", {"surrender"}, 3.0)  # capitalised
    assert is_distinctive_word("ipv6", set(), 0.0)  # letters and digits
    assert not is_distinctive_word("passkeys", set(), 0.0)  # the lower-case rule off


def test_close_together() -> None:
    stems = "the feder web manag council met to review chatbot pilot".split()
    assert close_together(("feder", "council"), stems)  # 2 words apart, within 2 + 3
    assert not close_together(("feder", "council", "chatbot"), stems[:5] + ["x"] * 5 + stems[5:])
    assert close_together(("chatbot",), stems)


def test_in_order() -> None:
    assert in_order(("wcag", "2", "1"), ["adopted", "wcag", "2", "1", "for"])
    assert not in_order(("wcag", "3", "0"), ["wcag", "2", "1", "3", "0"])
    assert not in_order(("a", "b"), ["a"])


# --------------------------------------------------------------------------- the coverage rule


def test_a_version_the_evidence_does_not_hold_is_outside_coverage() -> None:
    cov = judge("When did agencies adopt WCAG 3.0?", ("agenc", "adopt", "wcag"), df={"wcag": 40})
    assert not cov.covered and cov.missing_terms == ("WCAG 3.0",)
    assert "'WCAG 3.0'" in cov.reason


def test_a_version_the_evidence_holds_is_covered() -> None:
    cov = judge("When did agencies adopt WCAG 2.1?", ("agenc", "adopt", "wcag"), df={"wcag": 40})
    assert cov.covered, cov.reason


def test_a_lower_case_word_the_archive_never_uses_is_outside_coverage() -> None:
    cov = judge("does login.gov support passkeys?", ("login", "gov", "support", "passkeys"))
    assert not cov.covered and cov.missing_terms == ("passkeys",)
    assert "never mentions 'passkeys'" in cov.reason


def test_a_common_word_is_left_to_the_score() -> None:
    cov = judge("did login.gov surrender its keys?", ("login", "gov", "surrender", "key"))
    assert cov.covered, cov.reason


def test_a_rare_word_somewhere_in_the_evidence_is_covered() -> None:
    cov = judge("what chatbot pilots did the council review?", ("chatbot", "pilot", "council"))
    assert cov.covered, cov.reason


def test_a_name_whose_words_never_meet_is_outside_coverage() -> None:
    # "federal", "council" and "chatbot" each occur; "Federal Chatbot Council" does not.
    apart = source("The Federal Web Managers Council met in April. Agencies tried a chatbot.")
    apart = apart.model_copy(
        update={
            "passages": (
                ScoredPassage(
                    id="d#0", text="The Federal Web Managers Council met.", start=0, end=37, score=0
                ),
                ScoredPassage(
                    id="d#1", text="Agencies tried a chatbot.", start=38, end=63, score=0
                ),
            )
        }
    )
    cov = judge(
        "What did the Federal Chatbot Council recommend?",
        ("feder", "chatbot", "council", "recommend"),
        df={"feder": 900, "chatbot": 30, "council": 400, "recommend": 700},
        src=apart,
    )
    assert not cov.covered and cov.missing_terms == ("Federal Chatbot Council",)
    assert "No passage found for this question mentions 'Federal Chatbot Council'" in cov.reason


def test_a_name_in_one_passage_is_covered_and_source_names_count() -> None:
    cov = judge("What did the Federal Web Managers Council review?", ("council", "review"))
    assert cov.covered, cov.reason
    by = source(names=("Amy Ashida",))
    cov = judge("What did Amy Ashida write about chatbot pilots?", ("chatbot",), src=by)
    assert cov.covered, cov.reason


def test_a_code_term_the_archive_writes_about_often_need_not_be_in_the_evidence() -> None:
    q = "What did digital.gov advise about security keys?"
    assert not judge(q, ("advis", "secur", "key")).covered  # rare as a phrase: required
    common = judge(q, ("advis", "secur", "key"), phrases={"digit gov": 500})
    assert common.covered, common.reason


def test_a_name_the_archive_holds_often_need_not_be_in_the_evidence() -> None:
    q = "What did the Digital Analytics Program report on security keys?"
    assert not judge(q, ("report", "secur", "key")).covered
    common = judge(q, ("report", "secur", "key"), phrases={"digit analyt program": 120})
    assert common.covered, common.reason


@pytest.mark.parametrize(
    ("question", "many"),
    [
        ("What did presidents say about climate change after 2000?", True),
        ("How did successive administrations describe the deficit?", True),
        ("What did each president say about the tariff?", True),
        ("Which agencies wrote about plain language?", True),
        ("What did the President say about climate change?", False),
        ("What did Obama say about climate change?", False),
        ("What did the presidential address say about taxes?", False),
    ],
)
def test_many_voices(question: str, many: bool) -> None:
    assert many_voices(question) is many
